#!/usr/bin/env node
// Writes tests/reference/training.json: tfjs 4.22's model.compile/fit/evaluate/trainOnBatch
// on small dense models whose weights and data come from mulberry32 (set with setWeights,
// so no tfjs randomness enters), for tests/test_training.py; and tf.metrics.* on fixed
// inputs, for tests/test_metrics.py.
//
// Run from the repo root:   node tests/reference/gen_training.js
//
// Schema: {header,
//   fits: [{id, layers: [{units, activation}], input_dim, compile: {optimizer: name |
//           {factory, args}, loss: name | "custom_mae", metrics: [...]},
//           fit: {epochs, batchSize, shuffle: false, validationSplit?, validationData?: true,
//                 classWeight?, earlyStopping?},
//           x, y, val_x?, val_y?, init: [weights in getWeights order],
//           history: {key: [per epoch]}, epoch: [...], batch_logs: [{epoch, batch, size, loss, ...}],
//           weights_after: [...], evaluate: number | [numbers] (batchSize 5, on x, y, after fit),
//           train_on_batch: number | [numbers] (on the first 5 samples, after evaluate),
//           weights_after_tob: [...]}],
//   metrics: [{fn, y_true, y_pred, result}]}
// Float32 values are stored as the exact JS doubles.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'training.json');
const draw = mulberry32(2024);

function uniform(shape, lo = -0.5, hi = 0.5) {
  const n = shape.reduce((a, b) => a * b, 1);
  const values = [];
  for (let i = 0; i < n; ++i) values.push(Math.fround(lo + (hi - lo) * draw()));
  return tf.tensor(values, shape, 'float32');
}

function classes(n, k) {
  const ids = [];
  for (let i = 0; i < n; ++i) ids.push(Math.floor(draw() * k));
  return ids;
}

const arr = t => t.arraySync();

function makeModel(inputDim, layers) {
  const model = tf.sequential();
  layers.forEach((l, i) => {
    const config = {units: l.units, activation: l.activation};
    if (i === 0) config.inputShape = [inputDim];
    model.add(tf.layers.dense(config));
  });
  return model;
}

function optimizer(spec) {
  if (typeof spec === 'string') return spec;
  return tf.train[spec.factory](...spec.args);
}

const customMae = (yTrue, yPred) => tf.mean(tf.abs(tf.sub(yPred, yTrue)), -1);

async function runFit(c) {
  const model = makeModel(c.input_dim, c.layers);
  const init = model.getWeights().map(w => uniform(w.shape));
  model.setWeights(init);
  model.compile({
    optimizer: optimizer(c.compile.optimizer),
    loss: c.compile.loss === 'custom_mae' ? customMae : c.compile.loss,
    metrics: c.compile.metrics,
  });
  const batchLogs = [];
  let epochNow = 0;
  // (tfjs takes a list of Callback objects or a list of plain hook objects, not a mix)
  const callbacks = [new tf.CustomCallback({
    onEpochBegin: async (epoch) => { epochNow = epoch; },
    onBatchEnd: async (batch, logs) => { batchLogs.push(Object.assign({epoch: epochNow}, logs)); },
  })];
  if (c.fit.earlyStopping) callbacks.push(tf.callbacks.earlyStopping(c.fit.earlyStopping));
  const args = {
    epochs: c.fit.epochs, batchSize: c.fit.batchSize, shuffle: false, verbose: 0, callbacks,
  };
  if (c.fit.validationSplit != null) args.validationSplit = c.fit.validationSplit;
  if (c.fit.validationData) args.validationData = [c.val_x, c.val_y].map(v => tf.tensor(v));
  if (c.fit.classWeight) args.classWeight = c.fit.classWeight;
  if (c.fit.initialEpoch != null) args.initialEpoch = c.fit.initialEpoch;
  const x = tf.tensor(c.x);
  const y = tf.tensor(c.y);
  const h = await model.fit(x, y, args);
  const out = Object.assign({}, c);
  out.init = init.map(arr);
  out.history = h.history;
  out.history_keys = Object.keys(h.history);
  out.epoch = h.epoch;
  out.batch_logs = batchLogs;
  out.weights_after = model.getWeights().map(arr);
  const ev = model.evaluate(x, y, {batchSize: 5});
  out.evaluate = Array.isArray(ev) ? ev.map(t => t.dataSync()[0]) : ev.dataSync()[0];
  const tob = await model.trainOnBatch(x.slice(0, 5), y.slice(0, 5));
  out.train_on_batch = tob;
  out.weights_after_tob = model.getWeights().map(arr);
  out.metrics_names = model.metricsNames;
  return out;
}

function binaryData(n, d) {
  const x = arr(uniform([n, d], -1, 1));
  const y = classes(n, 2).map(v => [v]);
  return {x, y};
}

function oneHot(ids, k) {
  return ids.map(i => Array.from({length: k}, (_, j) => (j === i ? 1 : 0)));
}

async function main() {
  const fits = [];
  const b = binaryData(12, 3);
  fits.push({
    id: 'bce_acc_split', input_dim: 3,
    layers: [{units: 4, activation: 'relu'}, {units: 1, activation: 'sigmoid'}],
    compile: {optimizer: {factory: 'sgd', args: [0.5]}, loss: 'binaryCrossentropy', metrics: ['accuracy']},
    fit: {epochs: 3, batchSize: 4, validationSplit: 0.25},  // 9 train (4, 4, 1), 3 validate
    x: b.x, y: b.y,
  });
  const cx = arr(uniform([10, 4], -1, 1));
  const cy = oneHot(classes(10, 3), 3);
  fits.push({
    id: 'cce_valdata_adam', input_dim: 4,
    layers: [{units: 5, activation: 'tanh'}, {units: 3, activation: 'softmax'}],
    compile: {optimizer: {factory: 'adam', args: [0.05]}, loss: 'categoricalCrossentropy',
              metrics: ['accuracy', 'mse']},
    fit: {epochs: 2, batchSize: 4, validationData: true},
    x: cx, y: cy, val_x: arr(uniform([5, 4], -1, 1)), val_y: oneHot(classes(5, 3), 3),
  });
  fits.push({
    id: 'sparse_adam_string', input_dim: 4,
    layers: [{units: 6, activation: 'elu'}, {units: 3, activation: 'softmax'}],
    compile: {optimizer: 'adam', loss: 'sparseCategoricalCrossentropy', metrics: ['acc']},
    fit: {epochs: 2, batchSize: 3, validationSplit: 0.3},  // 7 train (3, 3, 1), 3 validate
    x: arr(uniform([10, 4], -1, 1)), y: classes(10, 3).map(v => [v]),
  });
  fits.push({
    id: 'mse_mae_sgd_string', input_dim: 2,
    layers: [{units: 3, activation: 'sigmoid'}, {units: 2, activation: 'linear'}],
    compile: {optimizer: 'sgd', loss: 'meanSquaredError', metrics: ['mae', 'mse']},
    fit: {epochs: 3, batchSize: 3, validationSplit: 0.3},  // 11 x 0.3 -> 7 train, 4 validate
    x: arr(uniform([11, 2], -1, 1)), y: arr(uniform([11, 2], -1, 1)),
  });
  const w = binaryData(8, 2);
  fits.push({
    id: 'class_weight', input_dim: 2,
    layers: [{units: 1, activation: 'sigmoid'}],
    compile: {optimizer: {factory: 'sgd', args: [0.3]}, loss: 'binaryCrossentropy', metrics: ['accuracy']},
    fit: {epochs: 2, batchSize: 3, classWeight: {0: 1, 1: 3}},
    x: w.x, y: w.y,
  });
  fits.push({
    id: 'custom_loss_wide_acc', input_dim: 3,
    layers: [{units: 3, activation: 'softmax'}],
    compile: {optimizer: {factory: 'momentum', args: [0.2, 0.9]}, loss: 'custom_mae',
              metrics: ['accuracy']},
    fit: {epochs: 2, batchSize: 4},
    x: arr(uniform([6, 3], -1, 1)), y: oneHot(classes(6, 3), 3),
  });
  fits.push({
    id: 'early_stopping', input_dim: 2,
    layers: [{units: 2, activation: 'linear'}],
    compile: {optimizer: {factory: 'sgd', args: [0.1]}, loss: 'meanSquaredError', metrics: []},
    fit: {epochs: 10, batchSize: 4, earlyStopping: {monitor: 'loss', minDelta: 0.5, patience: 1}},
    x: arr(uniform([8, 2], -1, 1)), y: arr(uniform([8, 2], -1, 1)),
  });
  fits.push({
    id: 'initial_epoch_batch_larger_than_data', input_dim: 2,
    layers: [{units: 1, activation: 'linear'}],
    compile: {optimizer: {factory: 'sgd', args: [0.1]}, loss: 'meanSquaredError', metrics: ['mse']},
    fit: {epochs: 4, batchSize: 32, initialEpoch: 2},
    x: arr(uniform([5, 2], -1, 1)), y: arr(uniform([5, 1], -1, 1)),
  });
  const results = [];
  for (const c of fits) results.push(await runFit(c));

  // tf.metrics on fixed inputs
  const metrics = [];
  const yTrueBin = tf.tensor([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 1]]);
  const yPredProb = uniform([4, 3], 0, 1);
  const yPredHard = tf.tensor([[1, 1, 0], [0, 0, 1], [1, 0, 0], [1, 1, 1]]);
  const reg = [uniform([4, 3], -2, 2), uniform([4, 3], -2, 2)];
  const cases = [
    ['binaryAccuracy', yTrueBin, yPredProb],
    ['binaryCrossentropy', yTrueBin, yPredProb],
    ['categoricalAccuracy', tf.tensor(oneHot([0, 2, 1, 2], 3)), yPredProb],
    ['categoricalCrossentropy', tf.tensor(oneHot([0, 2, 1, 2], 3)), yPredProb],
    ['sparseCategoricalAccuracy', tf.tensor([[0], [2], [1], [2]]), yPredProb],
    ['precision', yTrueBin, yPredHard],
    ['recall', yTrueBin, yPredHard],
    ['cosineProximity', reg[0], reg[1]],
    ['meanAbsoluteError', reg[0], reg[1]],
    ['meanAbsolutePercentageError', reg[0], reg[1]],
    ['meanSquaredError', reg[0], reg[1]],
    ['MSE', reg[0], reg[1]],
    ['MAPE', reg[0], reg[1]],
    ['mse', reg[0], reg[1]],
    ['r2Score', reg[0], reg[1]],
  ];
  for (const [fn, t, p] of cases) {
    metrics.push({fn, y_true: arr(t), y_pred: arr(p), result: arr(tf.metrics[fn](t, p))});
  }
  const out = {
    header: {generator: 'tests/reference/gen_training.js', tfjs_version: tf.version.tfjs,
             backend: tf.getBackend()},
    fits: results,
    metrics,
  };
  fs.writeFileSync(OUT, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${OUT}: ${results.length} fits, ${metrics.length} metric cases`);
}

main();
