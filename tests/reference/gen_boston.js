#!/usr/bin/env node
// Writes tests/reference/boston.json: tfjs-examples' boston-housing training run (model.fit
// with validationSplit 0.2 and tfjs's default shuffling, then model.evaluate) by the real
// tfjs 4.22, on the synthetic data examples/boston_housing/data.py makes (the same formula,
// computed here in JS), for tests/test_examples.py.
//
// Run from the repo root:   node tests/reference/gen_boston.js
//
// Every Math.random() draw that the example's code and tfjs's fit make (the dataset's
// Fisher-Yates shuffles, fit's per-epoch shuffles) comes from mulberry32 and is recorded;
// the Python test replays them as random.random(). The models' initial weights are set with
// setWeights from a second mulberry32 stream (recorded as `init`), and the initializers'
// own draws are kept out of the recorded stream.
//
// Schema: {header, num_epochs, math_random: [...], models: {name: {init: [weights],
//   history: {val_loss: [...], loss: [...]}, test_loss}}, baseline_loss}
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'boston.json');
const NUM_EPOCHS = 20;
const BATCH_SIZE = 40;
const LEARNING_RATE = 0.01;
const NUM_TRAIN = 333, NUM_TEST = 173, NUM_FEATURES = 12;

// examples/boston_housing/data.py's synthetic rows and prices, op for op.
function loadCsv(rows, cols, draw) {
  const out = [];
  for (let i = 0; i < rows; i++) {
    const row = [];
    for (let j = 0; j < cols; j++) row.push(draw() * (1 + 10 * ((j * 7) % 5)));
    out.push(row);
  }
  return out;
}
function prices(features, draw) {
  return features.map(row => {
    let price = 22.0;
    for (let j = 0; j < NUM_FEATURES; j++) {
      price += (0.5 - ((j * 3) % 7) / 7) * (row[j] / (1 + 10 * ((j * 7) % 5)) - 0.5) * 10;
    }
    return [price + 3 * (draw() - 0.5)];
  });
}
function shuffle(data, target) {  // boston-housing/data.js's Fisher-Yates
  let counter = data.length;
  while (counter > 0) {
    const index = (Math.random() * counter) | 0;
    counter--;
    [data[counter], data[index]] = [data[index], data[counter]];
    [target[counter], target[index]] = [target[index], target[counter]];
  }
}

const recorded = [];
const mathDraw = mulberry32(7);
const recording = () => { const v = mathDraw(); recorded.push(v); return v; };
const aside = mulberry32(99);  // the initializers' draws, not recorded
Math.random = recording;

const draw = mulberry32(506);
const trainFeatures = loadCsv(NUM_TRAIN, NUM_FEATURES, draw);
const trainTarget = prices(trainFeatures, draw);
const testFeatures = loadCsv(NUM_TEST, NUM_FEATURES, draw);
const testTarget = prices(testFeatures, draw);
shuffle(trainFeatures, trainTarget);
shuffle(testFeatures, testTarget);

const rawTrain = tf.tensor2d(trainFeatures);
const trainY = tf.tensor2d(trainTarget);
const rawTest = tf.tensor2d(testFeatures);
const testY = tf.tensor2d(testTarget);
const dataMean = rawTrain.mean(0);
const dataStd = rawTrain.sub(dataMean).square().mean(0).sqrt();
const trainX = rawTrain.sub(dataMean).div(dataStd);
const testX = rawTest.sub(dataMean).div(dataStd);
const avgPrice = trainY.mean();
const baseline = testY.sub(avgPrice).square().mean().dataSync()[0];

const weightDraw = mulberry32(2018);
function build(hidden) {
  Math.random = aside;
  const model = tf.sequential();
  if (hidden === 0) {
    model.add(tf.layers.dense({inputShape: [NUM_FEATURES], units: 1}));
  } else {
    model.add(tf.layers.dense({inputShape: [NUM_FEATURES], units: 50, activation: 'sigmoid',
                               kernelInitializer: 'leCunNormal'}));
    if (hidden === 2) {
      model.add(tf.layers.dense({units: 50, activation: 'sigmoid', kernelInitializer: 'leCunNormal'}));
    }
    model.add(tf.layers.dense({units: 1}));
  }
  Math.random = recording;
  const init = model.getWeights().map(w => {
    const n = w.size;
    const values = [];
    for (let i = 0; i < n; i++) values.push(Math.fround((weightDraw() - 0.5) * 0.6));
    return tf.tensor(values, w.shape);
  });
  model.setWeights(init);
  return {model, init: init.map(t => t.arraySync())};
}

async function run(model) {
  model.compile({optimizer: tf.train.sgd(LEARNING_RATE), loss: 'meanSquaredError'});
  const trainLogs = [];
  await model.fit(trainX, trainY, {
    batchSize: BATCH_SIZE, epochs: NUM_EPOCHS, validationSplit: 0.2, verbose: 0,
    callbacks: {onEpochEnd: async (epoch, logs) => { trainLogs.push(Object.assign({}, logs)); }},
  });
  const result = model.evaluate(testX, testY, {batchSize: BATCH_SIZE});
  return {logs: trainLogs, test_loss: result.dataSync()[0]};
}

async function main() {
  const models = {};
  for (const [name, hidden] of [['linear', 0], ['2hidden', 2]]) {
    const {model, init} = build(hidden);
    const out = await run(model);
    models[name] = {init, logs: out.logs, test_loss: out.test_loss};
  }
  const fixture = {
    header: {generator: 'tests/reference/gen_boston.js', tfjs_version: tf.version.tfjs, backend: tf.getBackend()},
    num_epochs: NUM_EPOCHS, batch_size: BATCH_SIZE, baseline_loss: baseline,
    math_random: recorded, models,
  };
  fs.writeFileSync(OUT, JSON.stringify(fixture) + '\n');
  console.log(`wrote ${OUT}: ${recorded.length} Math.random draws`);
}

main();
