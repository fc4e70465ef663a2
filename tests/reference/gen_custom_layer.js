#!/usr/bin/env node
// Writes tests/reference/custom_layer.json and tests/reference/layers_models/custom_layer/:
// what REAL TensorFlow.js 4.22 (pure-JS CPU backend) does with a custom layer written the
// tfjs way (constructor(config) + super(config), build with addWeight and a regularizer,
// call(inputs, kwargs) with method chains, computeOutputShape, getConfig, static className,
// registerClass; in custom_layer_class.js), inside a small sequential model trained with fit, for
// tests/test_custom_layers.py (which needs no Node).
//
// Run from the repo root:   node tests/reference/gen_custom_layer.js   (deterministic output)
//
// custom_layer.json: {x, y ({shape, values}), initial_weights and final_weights
//   ([{name, shape, values}], model.weights order), history ({loss: [...]}),
//   predictions (after fit, on x), output_shape (the custom layer's), json (model.toJSON)}.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const rand = mulberry32(20261204);
const uniform = (n, lo, hi) => Array.from({length: n}, () => Math.fround(lo + rand() * (hi - lo)));
const size = (shape) => shape.reduce((a, b) => a * b, 1);
const enc = (t) => ({shape: t.shape, values: Array.from(t.dataSync())});

const {ScaledTanh} = require('./custom_layer_class');

function build() {
  const model = tf.sequential();
  model.add(tf.layers.dense({units: 4, inputShape: [3], name: 'first'}));
  model.add(new ScaledTanh({units: 2, l2: 0.05, name: 'scaled'}));
  model.add(tf.layers.dense({units: 1, name: 'last'}));
  return model;
}

async function saveTo(model, dir) {
  fs.rmSync(dir, {recursive: true, force: true});
  fs.mkdirSync(dir, {recursive: true});
  await model.save(tf.io.withSaveHandler(async (artifacts) => {
    const json = {
      modelTopology: artifacts.modelTopology,
      weightsManifest: [{paths: ['weights.bin'], weights: artifacts.weightSpecs}],
      format: artifacts.format, generatedBy: artifacts.generatedBy,
      convertedBy: artifacts.convertedBy,
    };
    fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(json));
    fs.writeFileSync(path.join(dir, 'weights.bin'), Buffer.from(artifacts.weightData));
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
}

async function main() {
  await tf.setBackend('cpu');
  const model = build();
  const initial = model.weights.map((w) => tf.tensor(uniform(size(w.shape), -0.8, 0.8), w.shape));
  model.setWeights(initial);
  const n = 16;
  const x = tf.tensor(uniform(n * 3, -1, 1), [n, 3]);
  const y = tf.tensor(uniform(n, -1, 1), [n, 1]);
  model.compile({optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError'});
  const history = await model.fit(x, y, {epochs: 4, batchSize: 4, shuffle: false, verbose: 0});
  const predictions = model.predict(x);
  await saveTo(model, path.join(__dirname, 'layers_models', 'custom_layer'));
  const weights = (values) => model.weights.map((w, i) => ({
    name: w.originalName, shape: w.shape, values: Array.from(values[i].dataSync()),
  }));
  const out = {
    x: enc(x), y: enc(y), initial_weights: weights(initial),
    final_weights: weights(model.getWeights()),
    history: {loss: history.history.loss},
    predictions: enc(predictions),
    output_shape: model.getLayer('scaled').outputShape,
    json: model.toJSON(null, false),
  };
  fs.writeFileSync(path.join(__dirname, 'custom_layer.json'), JSON.stringify(out) + '\n');
}

main().catch((e) => { console.error(e); process.exit(1); });
