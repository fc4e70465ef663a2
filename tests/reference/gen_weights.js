#!/usr/bin/env node
// Writes tests/reference/weights/: TensorFlow.js weight files made by the REAL TensorFlow.js
// (pinned in tests/reference/package.json, pure-JS CPU backend), and expected.json with what
// tfjs decodes from them. Read by tests/test_io.py, which needs no Node.
//
// Run from the repo root:   node tests/reference/gen_weights.js
// (after `cd tests/reference && npm install --no-audit --no-fund`). The output is deterministic.
//
// Fixtures (each folder is one model; shard files are exactly the bytes tfjs reads):
//   layers/   model.json + model.weights.bin: a Sequential Dense(4->8 relu) -> Dense(8->3),
//             saved by tfjs's own `model.save('downloads://model')` handler (tfjs writes the
//             shard path as "./model.weights.bin").
//   graph/    model.json + group1-shard1of1.bin: a Graph model (Placeholder -> MatMul -> BiasAdd
//             -> Relu) in the converter's layout, kernel uint8-quantized the way
//             `tensorflowjs_converter --quantize_uint8` does; tfjs's loadGraphModel runs it.
//   sharded/  weights_manifest.json (a bare manifest list, as the converter writes it) + two
//             groups split into 40- and 16-byte shards, so entries span shard files and sit at
//             odd byte offsets: float32, int32, bool, complex64, a scalar, a zero-size entry,
//             and uint8 / uint16 / float16 quantized entries decoding to float32 and int32.
//
// expected.json:
//   fixtures.<name>: {model_json (path relative to weights/), weights: {name: {dtype, shape,
//       values}}, input?: [[...]], predictions?: [[...]]}
//     `values` are flat row-major (complex64: interleaved re, im), exactly tfjs's dataSync();
//     floats are the exact JS doubles of the float32 values; -0 and non-finite ones are the
//     strings "-0", "NaN", "Infinity", "-Infinity". Weights are what `tf.io.decodeWeights` returns for each
//     group's concatenated shards (checked here against `tf.io.weightsLoaderFactory`, tfjs's
//     sharded loader). Predictions are `model.predict(input)` of the model tfjs loaded.
//   decoders: [{name, dtype, quantization, codes, sha256}]: every code of the quantized type
//     (uint8: 0..255, uint16/float16: 0..65535, little-endian, in order) decoded by
//     `tf.io.decodeWeights` with that dtype/quantization; sha256 of the little-endian bytes
//     of the decoded Float32Array / Int32Array.
'use strict';

const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const {resolveObjectURL} = require('buffer');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'weights');

// ------------------------------------------------------------------------------------------------
// Helpers

const rand = mulberry32(20240609);
const uniform = (n, scale) => Array.from({length: n}, () => Math.fround((rand() * 2 - 1) * scale));

// JSON has no -0, NaN or infinities: those become the strings "-0", "NaN", "Infinity", "-Infinity".
function num(x) {
  if (Object.is(x, -0)) return '-0';
  return Number.isFinite(x) ? x : String(x);
}

function encodeTensor(t) {
  return {dtype: t.dtype, shape: t.shape, values: Array.from(t.dataSync(), num)};
}

function toArrayBuffer(buf) {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
}

function concat(buffers) {
  return toArrayBuffer(Buffer.concat(buffers.map((b) => Buffer.from(b))));
}

function writeFile(rel, data) {
  const file = path.join(OUT, rel);
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, data);
}

// Splits `data` into shards of `shardSize` bytes named as the converter names them.
function writeShards(folder, groupIndex, data, shardSize) {
  const bytes = Buffer.from(data);
  const count = Math.max(1, Math.ceil(bytes.length / shardSize));
  const paths = [];
  for (let k = 0; k < count; k++) {
    const name = `group${groupIndex + 1}-shard${k + 1}of${count}.bin`;
    writeFile(path.join(folder, name), bytes.subarray(k * shardSize, (k + 1) * shardSize));
    paths.push(name);
  }
  return paths;
}

// tfjs's file loader, reading shard paths relative to the manifest's folder.
async function loadWithTfjs(folder, manifest) {
  const fetchWeights = async (urls) => urls.map((u) => toArrayBuffer(fs.readFileSync(u)));
  return tf.io.weightsLoaderFactory(fetchWeights)(manifest, path.join(OUT, folder));
}

// Decodes every group with tf.io.decodeWeights and checks tfjs's sharded loader agrees.
async function decodeManifest(folder, manifest) {
  const decoded = {};
  for (const group of manifest) {
    const buffers = group.paths.map((p) => fs.readFileSync(path.join(OUT, folder, p)));
    Object.assign(decoded, tf.io.decodeWeights(concat(buffers), group.weights));
  }
  const loaded = await loadWithTfjs(folder, manifest);
  const out = {};
  for (const [name, t] of Object.entries(decoded)) {
    const a = Buffer.from(t.dataSync().buffer);
    const b = Buffer.from(loaded[name].dataSync().buffer);
    if (!a.equals(b)) throw new Error(`decodeWeights and weightsLoaderFactory differ on ${name}`);
    out[name] = encodeTensor(t);
  }
  return out;
}

// The converter's affine quantization (tensorflowjs/quantization.py, quantize_weights): the
// range is nudged so that 0 maps to a code; numpy's round is half-to-even.
function roundHalfEven(x) {
  const r = Math.round(x);
  return (Math.abs(x % 1) === 0.5 && r % 2 !== 0) ? r - 1 : r;
}

function quantize(values, dtype) {
  const qmax = dtype === 'uint8' ? 255 : 65535;
  let min = Math.min(...values);
  let max = Math.max(...values);
  const scale = (max - min) / qmax;
  if (min <= 0 && 0 <= max) {
    min = -roundHalfEven((0 - min) / scale) * scale;
    max = qmax * scale + min;
  }
  const codes = values.map((v) => roundHalfEven((Math.min(Math.max(v, min), max) - min) / scale));
  const Typed = dtype === 'uint8' ? Uint8Array : Uint16Array;
  return {data: new Typed(codes).buffer, quantization: {dtype, min, scale, original_dtype: 'float32'}};
}

// ------------------------------------------------------------------------------------------------
// layers/: saved by tfjs's own `downloads://` handler, its browser APIs stubbed so that the
// files it "downloads" land here byte for byte.

const X = [
  [0.5, -1.25, 2.0, 0.75],
  [-0.3, 0.8, -1.1, 1.6],
  [1.9, 0.05, -0.6, -2.2],
  [0.0, 0.0, 0.0, 0.0],
  [-1.4, 2.3, 0.9, -0.45],
];

async function saveWithBrowserDownloads(model, folder) {
  const files = {};
  globalThis.window = globalThis;
  globalThis.MouseEvent = class extends Event {};
  globalThis.document = {
    createElement: () => {
      const anchor = new EventTarget();
      anchor.addEventListener('click', () => { files[anchor.download] = anchor.href; });
      return anchor;
    },
  };
  tf.env().set('IS_BROWSER', true);
  try {
    await model.save('downloads://model');
  } finally {
    tf.env().set('IS_BROWSER', false);
    delete globalThis.document;
    delete globalThis.window;
    delete globalThis.MouseEvent;
  }
  for (const [name, url] of Object.entries(files)) {
    writeFile(path.join(folder, name), Buffer.from(await resolveObjectURL(url).arrayBuffer()));
  }
  if (Object.keys(files).sort().join() !== 'model.json,model.weights.bin') {
    throw new Error(`unexpected downloads: ${Object.keys(files)}`);
  }
}

async function layersFixture() {
  const model = tf.sequential();
  model.add(tf.layers.dense({units: 8, inputShape: [4], activation: 'relu', name: 'hidden'}));
  model.add(tf.layers.dense({units: 3, name: 'out'}));
  model.setWeights(model.weights.map((w) => tf.tensor(uniform(w.shape.reduce((a, b) => a * b, 1), 0.9), w.shape)));
  await saveWithBrowserDownloads(model, 'layers');

  const modelJson = JSON.parse(fs.readFileSync(path.join(OUT, 'layers', 'model.json'), 'utf8'));
  const weights = await decodeManifest('layers', modelJson.weightsManifest);
  // Round trip through tfjs's loader: the saved files rebuild a model predicting the same.
  const buffers = modelJson.weightsManifest[0].paths.map((p) => fs.readFileSync(path.join(OUT, 'layers', p)));
  const loaded = await tf.loadLayersModel(tf.io.fromMemory({
    modelTopology: modelJson.modelTopology,
    weightSpecs: modelJson.weightsManifest[0].weights,
    weightData: concat(buffers),
  }));
  const predictions = model.predict(tf.tensor2d(X));
  const reloaded = loaded.predict(tf.tensor2d(X));
  if (!Buffer.from(predictions.dataSync().buffer).equals(Buffer.from(reloaded.dataSync().buffer))) {
    throw new Error('the reloaded layers model predicts differently');
  }
  return {model_json: 'layers/model.json', weights, input: X, predictions: predictions.arraySync()};
}

// ------------------------------------------------------------------------------------------------
// graph/: a Graph model in the converter's layout (what `tensorflowjs_converter` writes for a
// SavedModel); tfjs's loadGraphModel executes it.

async function graphFixture() {
  const dims = (shape) => ({dim: shape.map((d) => ({size: String(d)}))});
  const F = {type: 'DT_FLOAT'};
  const constant = (name, shape) => ({
    name, op: 'Const', attr: {dtype: F, value: {tensor: {dtype: 'DT_FLOAT', tensorShape: dims(shape)}}},
  });
  const modelTopology = {
    node: [
      {name: 'x', op: 'Placeholder', attr: {dtype: F, shape: {shape: dims([-1, 4])}}},
      constant('dense/kernel', [4, 3]),
      constant('dense/bias', [3]),
      {name: 'dense/MatMul', op: 'MatMul', input: ['x', 'dense/kernel'],
       attr: {T: F, transpose_a: {b: false}, transpose_b: {b: false}}},
      {name: 'dense/BiasAdd', op: 'BiasAdd', input: ['dense/MatMul', 'dense/bias'],
       attr: {T: F, data_format: {s: 'TkhXQw=='}}},
      {name: 'Identity', op: 'Relu', input: ['dense/BiasAdd'], attr: {T: F}},
    ],
    library: {},
    versions: {producer: 1482},
  };
  const kernel = quantize(uniform(12, 1.5), 'uint8');
  const bias = new Float32Array(uniform(3, 0.5));
  const weights = [
    {name: 'dense/kernel', shape: [4, 3], dtype: 'float32', quantization: kernel.quantization},
    {name: 'dense/bias', shape: [3], dtype: 'float32'},
  ];
  const data = concat([kernel.data, bias.buffer]);
  const paths = writeShards('graph', 0, data, 4194304);
  const weightsManifest = [{paths, weights}];
  const modelJson = {
    format: 'graph-model',
    generatedBy: 'tests/reference/gen_weights.js',
    convertedBy: 'tests/reference/gen_weights.js (the tensorflowjs_converter layout)',
    modelTopology,
    weightsManifest,
  };
  writeFile('graph/model.json', JSON.stringify(modelJson));

  const model = await tf.loadGraphModel(tf.io.fromMemory({
    modelTopology, weightSpecs: weights, weightData: data, format: 'graph-model',
  }));
  const predictions = model.predict(tf.tensor2d(X));
  return {
    model_json: 'graph/model.json',
    weights: await decodeManifest('graph', weightsManifest),
    input: X,
    predictions: predictions.arraySync(),
  };
}

// ------------------------------------------------------------------------------------------------
// sharded/: a weights-only manifest with two groups, tiny shards and every dtype tfjs decodes.

async function shardedFixture() {
  const group1 = [
    [{name: 'dense/kernel', shape: [3, 5], dtype: 'float32'}, new Float32Array(uniform(15, 2.0))],
    [{name: 'step', shape: [], dtype: 'int32'}, new Int32Array([1234567])],
    [{name: 'mask', shape: [7], dtype: 'bool'}, new Uint8Array([1, 0, 0, 1, 1, 0, 1])],
    [{name: 'empty', shape: [0, 3], dtype: 'float32'}, new Float32Array([])],
    [{name: 'spectrum', shape: [2], dtype: 'complex64'}, new Float32Array([1.5, -2.25, 0.125, 3e-8])],
    [{name: 'counts', shape: [2, 3], dtype: 'int32'}, new Int32Array([-2147483648, -1, 0, 1, 42, 2147483647])],
  ];
  const q8 = quantize(uniform(10, 3.0), 'uint8');
  const q16 = quantize(uniform(9, 0.01).map((v) => v + 0.02), 'uint16');  // all positive: no nudge
  const group2 = [
    [{name: 'q8', shape: [2, 5], dtype: 'float32', quantization: q8.quantization}, q8.data],
    [{name: 'q16', shape: [3, 3], dtype: 'float32', quantization: q16.quantization}, q16.data],
    // float16 codes: 1, -2, 65504 (max), 2^-24 (smallest subnormal), -0, inf, -inf, NaN
    [{name: 'half', shape: [8], dtype: 'float32', quantization: {dtype: 'float16'}},
      new Uint16Array([0x3C00, 0xC000, 0x7BFF, 0x0001, 0x8000, 0x7C00, 0xFC00, 0x7E00])],
    // int32 through uint8 / uint16: tfjs applies Math.round (halves go up) and int32 wrapping
    [{name: 'qi8', shape: [4], dtype: 'int32', quantization: {dtype: 'uint8', min: -3.5, scale: 0.5}},
      new Uint8Array([0, 1, 2, 255])],
    [{name: 'qi16', shape: [3], dtype: 'int32', quantization: {dtype: 'uint16', min: -70000.5, scale: 3.25}},
      new Uint16Array([0, 2, 65535])],
  ];
  const manifest = [];
  for (const [index, [group, shardSize]] of [[group1, 40], [group2, 16]].entries()) {
    const data = concat(group.map(([, values]) => (values.buffer ? values.buffer : values)));
    manifest.push({paths: writeShards('sharded', index, data, shardSize), weights: group.map(([spec]) => spec)});
  }
  writeFile('sharded/weights_manifest.json', JSON.stringify(manifest));
  return {model_json: 'sharded/weights_manifest.json', weights: await decodeManifest('sharded', manifest)};
}

// ------------------------------------------------------------------------------------------------
// decoders: every code of each quantized type, decoded by tfjs.

function decoders() {
  const cases = [
    ['uint8_float32', 'float32', {dtype: 'uint8', min: -1.2345678901234567, scale: 0.009876543210987654}],
    ['uint16_float32', 'float32', {dtype: 'uint16', min: -3.3, scale: 1.0e-4}],
    ['float16_float32', 'float32', {dtype: 'float16'}],
    ['uint8_int32', 'int32', {dtype: 'uint8', min: -64.5, scale: 0.5}],
    ['uint16_int32', 'int32', {dtype: 'uint16', min: -2.1e9, scale: 70000.5}],
  ];
  return cases.map(([name, dtype, quantization]) => {
    const count = quantization.dtype === 'uint8' ? 256 : 65536;
    const codes = quantization.dtype === 'uint8' ? new Uint8Array(count) : new Uint16Array(count);
    codes.forEach((_, i) => { codes[i] = i; });
    const spec = {name, shape: [count], dtype, quantization};
    const decoded = tf.io.decodeWeights(codes.buffer, [spec])[name].dataSync();
    const sha256 = crypto.createHash('sha256').update(Buffer.from(decoded.buffer)).digest('hex');
    return {name, dtype, quantization, codes: count, sha256};
  });
}

// ------------------------------------------------------------------------------------------------

async function main() {
  await tf.setBackend('cpu');
  fs.rmSync(OUT, {recursive: true, force: true});
  const fixtures = {
    layers: await layersFixture(),
    graph: await graphFixture(),
    sharded: await shardedFixture(),
  };
  const out = {
    generator: 'tests/reference/gen_weights.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    node_version: process.version,
    fixtures,
    decoders: decoders(),
  };
  writeFile('expected.json', JSON.stringify(out, null, 1) + '\n');
  let total = 0;
  for (const dir of fs.readdirSync(OUT, {recursive: true})) {
    const stat = fs.statSync(path.join(OUT, dir));
    if (stat.isFile()) total += stat.size;
  }
  console.log(`tfjs ${out.tfjs_version}: wrote ${OUT} (${total} bytes)`);
}

main().catch((e) => { console.error(e); process.exit(1); });
