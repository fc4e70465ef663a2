#!/usr/bin/env node
// The tfjs client for Layers models saved by tfjs_grad's `model.save` (run by
// tests/test_models.py when Node and tfjs are installed).
//
//   node tests/reference/check_layers_model.js DIR INPUTS_JSON [CLASSES_JS]
//
// CLASSES_JS, when given, is required first (it registers custom layer classes).
// Loads DIR/model.json and its shards with `tf.loadLayersModel` (through
// `tf.io.fromMemory`, the shards read from DIR), predicts on the inputs in INPUTS_JSON
// (a list of {shape, values}, one per model input) and prints one JSON object:
//   {predictions: [{shape, values}], layer_names, weight_names, summary}
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

async function main() {
  const [dir, inputsFile, classes] = process.argv.slice(2);
  if (classes) require(path.resolve(classes));
  if (!dir || !inputsFile) throw new Error('usage: check_layers_model.js DIR INPUTS_JSON');
  await tf.setBackend('cpu');
  const modelJson = JSON.parse(fs.readFileSync(path.join(dir, 'model.json'), 'utf8'));
  const specs = [];
  const buffers = [];
  for (const group of modelJson.weightsManifest) {
    for (const p of group.paths) {
      if (path.basename(p) !== p.replace(/^\.\//, '')) throw new Error(`not a plain name: ${p}`);
      buffers.push(fs.readFileSync(path.join(dir, p)));
    }
    specs.push(...group.weights);
  }
  const data = Buffer.concat(buffers);
  const model = await tf.loadLayersModel(tf.io.fromMemory({
    modelTopology: modelJson.modelTopology, weightSpecs: specs,
    weightData: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
  }));
  const inputs = JSON.parse(fs.readFileSync(inputsFile, 'utf8')).map(
      (x) => tf.tensor(x.values, x.shape));
  const out = [model.predict(inputs.length === 1 ? inputs[0] : inputs)].flat();
  const summary = [];
  model.summary(undefined, undefined, (line) => summary.push(line));
  console.log(JSON.stringify({
    predictions: out.map((t) => ({shape: t.shape, values: Array.from(t.dataSync())})),
    layer_names: model.layers.map((l) => l.name),
    weight_names: model.weights.map((w) => w.originalName),
    summary,
  }));
}

main().catch((e) => { console.error(e); process.exit(1); });
