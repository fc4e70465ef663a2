#!/usr/bin/env node
// Writes tests/reference/multi_output.json: tfjs 4.22's compile/fit/evaluate/trainOnBatch
// of a two-input, two-output functional model (mnist-acgan's discriminator shape: a shared
// trunk, a sigmoid head with binaryCrossentropy and a softmax head with
// categoricalCrossentropy), weights and data from mulberry32 (set with setWeights, so no
// tfjs randomness enters), for tests/test_multi_output.py.
//
// Run from the repo root:   node tests/reference/gen_multi_output.js
//
// Schema: {header, input_names, output_names, init: [weights in getWeights order],
//   xa, xb, real, cls (the data: 11 samples), metrics_names: {variant: [...]},
//   fit: {args, history_keys, history, epoch, val_evaluate: [per epoch, the validation
//         samples evaluated in onEpochEnd (tfjs's own val_ logs of a multi-output model
//         are shifted, see tfjs_grad/models/_training.py)]},
//   weights_after_fit, evaluate (tfjs's raw list, batchSize 4, all samples),
//   train_on_batch (the first 5 samples), weights_after_tob,
//   acgan: {class_weight, metrics_names, history_keys, history, weights_after_fit}: losses
//   [binaryCrossentropy, sparseCategoricalCrossentropy], a classWeight per output}
// Float32 values are stored as the exact JS doubles.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'multi_output.json');
const draw = mulberry32(3535);

function uniform(shape, lo = -0.5, hi = 0.5) {
  const n = shape.reduce((a, b) => a * b, 1);
  const values = [];
  for (let i = 0; i < n; ++i) values.push(Math.fround(lo + (hi - lo) * draw()));
  return tf.tensor(values, shape, 'float32');
}

const arr = t => t.arraySync();
const oneHot = (ids, k) => ids.map(i => Array.from({length: k}, (_, j) => (j === i ? 1 : 0)));
const classes = (n, k) => Array.from({length: n}, () => Math.floor(draw() * k));

function makeModel() {
  const xa = tf.input({shape: [3], name: 'xa'});
  const xb = tf.input({shape: [2], name: 'xb'});
  const joined = tf.layers.concatenate({name: 'joined'}).apply([xa, xb]);
  const trunk = tf.layers.dense({units: 6, activation: 'relu', name: 'trunk'}).apply(joined);
  const real = tf.layers.dense({units: 1, activation: 'sigmoid', name: 'real'}).apply(trunk);
  const cls = tf.layers.dense({units: 3, activation: 'softmax', name: 'cls'}).apply(trunk);
  return tf.model({inputs: [xa, xb], outputs: [real, cls]});
}

async function main() {
  const n = 11;
  const data = {
    xa: arr(uniform([n, 3], -1, 1)),
    xb: arr(uniform([n, 2], -1, 1)),
    real: classes(n, 2).map(v => [v]),
    cls: oneHot(classes(n, 3), 3),
  };
  const model = makeModel();
  const init = model.getWeights().map(w => uniform(w.shape, -0.8, 0.8));
  model.setWeights(init);

  const metricsNames = {};
  const variants = {
    list_loss_list_metrics: {loss: ['binaryCrossentropy', 'categoricalCrossentropy'],
                             metrics: ['accuracy']},
    dict_loss_dict_metrics: {loss: {cls: 'categoricalCrossentropy', real: 'binaryCrossentropy'},
                             metrics: {cls: ['accuracy', 'mse'], real: 'mae'}},
    one_loss_no_metrics: {loss: 'meanSquaredError'},
    one_loss_two_metrics: {loss: 'meanSquaredError', metrics: ['mse', 'acc']},
  };
  for (const [key, v] of Object.entries(variants)) {
    model.compile(Object.assign({optimizer: 'sgd'}, v));
    metricsNames[key] = model.metricsNames;
  }

  model.compile({
    optimizer: tf.train.sgd(0.3),
    loss: ['binaryCrossentropy', 'categoricalCrossentropy'],
    metrics: ['accuracy'],
  });
  const x = [tf.tensor(data.xa), tf.tensor(data.xb)];
  const y = [tf.tensor(data.real), tf.tensor(data.cls)];
  const splitAt = Math.floor(n * (1 - 0.25));  // 8 train (3, 3, 2), 3 validate
  const valX = x.map(t => t.slice(splitAt));
  const valY = y.map(t => t.slice(splitAt));
  const valEvaluate = [];
  const fitArgs = {epochs: 3, batchSize: 3, shuffle: false, validationSplit: 0.25, verbose: 0};
  const h = await model.fit(x, y, Object.assign({
    callbacks: {
      onEpochEnd: async () => {
        valEvaluate.push(model.evaluate(valX, valY, {batchSize: 3}).map(t => t.dataSync()[0]));
      },
    },
  }, fitArgs));
  const out = {
    header: `tfjs ${tf.version.tfjs}: gen_multi_output.js`,
    input_names: model.inputNames,
    output_names: model.outputNames,
    init: init.map(arr),
    ...data,
    metrics_names: metricsNames,
    fit: {args: fitArgs, history_keys: Object.keys(h.history), history: h.history,
          epoch: h.epoch, val_evaluate: valEvaluate},
    weights_after_fit: model.getWeights().map(arr),
  };
  out.evaluate = model.evaluate(x, y, {batchSize: 4}).map(t => t.dataSync()[0]);
  out.train_on_batch = await model.trainOnBatch(x.map(t => t.slice(0, 5)),
                                                y.map(t => t.slice(0, 5)));
  out.weights_after_tob = model.getWeights().map(arr);

  // mnist-acgan's compile (sparse class ids on the softmax head), with a classWeight per
  // output, from the initial weights again
  const acgan = makeModel();
  acgan.setWeights(init);
  acgan.compile({
    optimizer: tf.train.sgd(0.2),
    loss: ['binaryCrossentropy', 'sparseCategoricalCrossentropy'],
    metrics: ['accuracy'],
  });
  const ids = tf.tensor(data.cls.map(row => [row.indexOf(1)]));
  const classWeight = [{0: 1, 1: 3}, {0: 2, 1: 1, 2: 0.5}];
  const h2 = await acgan.fit(x, [y[0], ids], {epochs: 2, batchSize: 4, shuffle: false, verbose: 0,
                                                classWeight});
  out.acgan = {class_weight: classWeight, metrics_names: acgan.metricsNames,
               history_keys: Object.keys(h2.history), history: h2.history,
               weights_after_fit: acgan.getWeights().map(arr)};
  fs.writeFileSync(OUT, JSON.stringify(out, null, 1) + '\n');
  console.log(`wrote ${OUT}`);
}

main();
