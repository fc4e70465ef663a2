#!/usr/bin/env node
// The tfjs client for weights written by tfjs_grad.io.save_weights (run by tests/test_io.py
// when Node and tfjs are installed: `cd tests/reference && npm install --no-audit --no-fund`).
//
//   node tests/reference/check_saved_weights.js DIR [INPUT_JSON]
//
// Reads DIR/model.json and its shard files, then prints one JSON object to stdout:
//   {format, weights: {name: {dtype, shape, values}}, predictions: null | {shape, values}}
// `weights` is what `tf.io.decodeWeights` returns for each group's concatenated shards; the
// script fails unless `tf.io.weightsLoaderFactory` (tfjs's sharded loader) gives the same
// bytes. When model.json has a modelTopology, the model is rebuilt with
// `tf.loadLayersModel(tf.io.fromMemory(...))` and `predictions` is its output for the 2-D
// input array read from INPUT_JSON. Values are flat and row-major (complex64: interleaved);
// -0 and non-finite floats are the strings "-0", "NaN", "Infinity", "-Infinity".
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

function num(x) {
  if (Object.is(x, -0)) return '-0';
  return Number.isFinite(x) ? x : String(x);
}

const encode = (t) => ({dtype: t.dtype, shape: t.shape, values: Array.from(t.dataSync(), num)});
const toArrayBuffer = (b) => b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);

function readShard(dir, name) {
  if (path.basename(name) !== name.replace(/^\.\//, '')) throw new Error(`not a plain name: ${name}`);
  return fs.readFileSync(path.join(dir, name));
}

async function main() {
  const [dir, inputFile] = process.argv.slice(2);
  if (!dir) throw new Error('usage: check_saved_weights.js DIR [INPUT_JSON]');
  await tf.setBackend('cpu');
  const modelJson = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const manifest = modelJson.weightsManifest;

  const weights = {};
  const specs = [];
  const shards = [];
  for (const group of manifest) {
    const buffers = group.paths.map((p) => readShard(dir, p));
    const decoded = tf.io.decodeWeights(toArrayBuffer(Buffer.concat(buffers)), group.weights);
    for (const [name, t] of Object.entries(decoded)) weights[name] = t;
    specs.push(...group.weights);
    shards.push(...buffers);
  }
  const fetchWeights = async (urls) => urls.map((u) => toArrayBuffer(fs.readFileSync(u)));
  const loaded = await tf.io.weightsLoaderFactory(fetchWeights)(manifest, dir);
  for (const [name, t] of Object.entries(weights)) {
    const same = Buffer.from(t.dataSync().buffer).equals(Buffer.from(loaded[name].dataSync().buffer));
    if (!same) throw new Error(`decodeWeights and weightsLoaderFactory differ on ${name}`);
  }

  let predictions = null;
  if (modelJson.modelTopology != null) {
    const model = await tf.loadLayersModel(tf.io.fromMemory({
      modelTopology: modelJson.modelTopology,
      weightSpecs: specs,
      weightData: toArrayBuffer(Buffer.concat(shards)),
    }));
    const input = JSON.parse(fs.readFileSync(inputFile, 'utf8'));
    predictions = encode(model.predict(tf.tensor2d(input)));
  }
  const out = {format: modelJson.format ?? null, weights: {}, predictions};
  for (const [name, t] of Object.entries(weights)) out.weights[name] = encode(t);
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((e) => { console.error(e); process.exit(1); });
