#!/usr/bin/env node
// Writes tests/reference/mnist_core/: a small synthetic data set with MNIST's shapes, and the
// tfjs-examples program mnist-core
// (https://github.com/tensorflow/tfjs-examples/tree/master/mnist-core) trained on it for 10 steps
// by the real TensorFlow.js 4.22 (pure-JS CPU backend), with its random draws recorded, so that
// tests/test_examples.py can run examples/mnist_core on the same bytes and draws.
//
// Run from the repo root:   node tests/reference/gen_mnist_core.js
// (after `cd tests/reference && npm install --no-audit --no-fund`).
//
// Written for this project from the example's description (two 5x5 convolutions with relu and
// 2x2 max pooling, a dense layer, softmax cross-entropy, SGD 0.1 on batches of 64 fetched inside
// the minimized function); the code below is this script's own.
//
// Files:
//   images.u8  NUM_ELEMENTS * 784 grayscale pixels (0..255), one image after another: the bytes
//              the example reads from its sprite's red channel
//   labels.u8  NUM_ELEMENTS * 10 one-hot bytes, as the example's label file
//   mnist_core.json  {header, num_elements, num_train, batch_size, learning_rate, train_steps,
//     train_indices, test_indices  (what tf.util.createShuffledIndices gave, train then test),
//     init: {conv1, conv2, fc, fc_bias}   (float32 little-endian bytes, base64; shapes in
//                                          `shapes`), final: {...} (after training),
//     shapes: {conv1, conv2, fc, fc_bias},
//     costs: [train_steps]   (minimize's returned cost at each step),
//     test_examples, test_predictions, test_labels  (argMax of the model and of the labels on
//                                                    the first test batch after training)}
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const DIR = path.join(__dirname, 'mnist_core');
const SEED = 28;
const NUM_ELEMENTS = 300;
const NUM_TRAIN = Math.floor(NUM_ELEMENTS * 5 / 6);
const PIXELS = 28 * 28;
const CLASSES = 10;
const BATCH_SIZE = 64;
const LEARNING_RATE = 0.1;
const TRAIN_STEPS = 10;
const TEST_EXAMPLES = 50;

const uniform = mulberry32(SEED);
// tf.util.createShuffledIndices draws from Math.random: make it a recorded, seeded stream.
Math.random = mulberry32(SEED + 1);

// Each class is a bright bar (horizontal for even classes, vertical for odd ones) at its own
// offset, jittered by a pixel, over faint noise.
const images = new Uint8Array(NUM_ELEMENTS * PIXELS);
const labels = new Uint8Array(NUM_ELEMENTS * CLASSES);
for (let item = 0; item < NUM_ELEMENTS; item++) {
  const label = Math.floor(uniform() * CLASSES);
  labels[item * CLASSES + label] = 1;
  const offset = 4 + 2 * Math.floor(label / 2) + Math.floor(uniform() * 3) - 1;
  for (let row = 0; row < 28; row++) {
    for (let col = 0; col < 28; col++) {
      const along = label % 2 === 0 ? row : col;
      const across = label % 2 === 0 ? col : row;
      const onBar = Math.abs(along - offset - 6) <= 1 && across >= 4 && across < 24;
      const value = (onBar ? 180 + 75 * uniform() : 40 * uniform());
      images[item * PIXELS + row * 28 + col] = Math.floor(value);
    }
  }
}

const trainIndices = tf.util.createShuffledIndices(NUM_TRAIN);
const testIndices = tf.util.createShuffledIndices(NUM_ELEMENTS - NUM_TRAIN);

function batches(first, indices) {
  let position = 0;
  return size => {
    const xs = new Float32Array(size * PIXELS);
    const ys = new Uint8Array(size * CLASSES);
    for (let i = 0; i < size; i++) {
      position = (position + 1) % indices.length;
      const item = first + indices[position];
      for (let p = 0; p < PIXELS; p++) xs[i * PIXELS + p] = images[item * PIXELS + p] / 255;
      ys.set(labels.subarray(item * CLASSES, (item + 1) * CLASSES), i * CLASSES);
    }
    return {xs: tf.tensor2d(xs, [size, PIXELS]), labels: tf.tensor2d(ys, [size, CLASSES])};
  };
}
const nextTrainBatch = batches(0, trainIndices);
const nextTestBatch = batches(NUM_TRAIN, testIndices);

const shapes = {conv1: [5, 5, 1, 8], conv2: [5, 5, 8, 16], fc: [7 * 7 * 16, CLASSES], fc_bias: [CLASSES]};
const weights = {
  conv1: tf.variable(tf.randomNormal(shapes.conv1, 0, 0.1, 'float32', SEED + 2)),
  conv2: tf.variable(tf.randomNormal(shapes.conv2, 0, 0.1, 'float32', SEED + 3)),
  fc: tf.variable(tf.randomNormal(shapes.fc, 0, 1 / Math.sqrt(7 * 7 * 16), 'float32', SEED + 4)),
  fc_bias: tf.variable(tf.zeros(shapes.fc_bias)),
};
const snapshot = () => Object.fromEntries(Object.entries(weights).map(
    ([name, v]) => [name, Buffer.from(v.dataSync().buffer).toString('base64')]));
const init = snapshot();

function convBlock(x, filter) {
  return tf.maxPool(tf.relu(tf.conv2d(x, filter, 1, 'same')), [2, 2], 2, 0);
}
function logits(flat) {
  const x = tf.reshape(flat, [-1, 28, 28, 1]);
  const features = convBlock(convBlock(x, weights.conv1), weights.conv2);
  return tf.add(tf.matMul(tf.reshape(features, [-1, shapes.fc[0]]), weights.fc), weights.fc_bias);
}

const optimizer = tf.train.sgd(LEARNING_RATE);
const costs = [];
for (let step = 0; step < TRAIN_STEPS; step++) {
  const cost = optimizer.minimize(() => {
    const batch = nextTrainBatch(BATCH_SIZE);
    return tf.mean(tf.losses.softmaxCrossEntropy(batch.labels, logits(batch.xs)));
  }, true);
  costs.push(cost.dataSync()[0]);
}
for (const cost of costs) if (!Number.isFinite(cost)) throw new Error(`cost ${cost}`);
if (!(costs[costs.length - 1] < costs[0])) throw new Error('training did not lower the cost');

const test = nextTestBatch(TEST_EXAMPLES);
const testPredictions = Array.from(tf.argMax(logits(test.xs), 1).dataSync());
const testLabels = Array.from(tf.argMax(test.labels, 1).dataSync());

fs.mkdirSync(DIR, {recursive: true});
fs.writeFileSync(path.join(DIR, 'images.u8'), images);
fs.writeFileSync(path.join(DIR, 'labels.u8'), labels);
const out = {
  header: {
    generator: 'tests/reference/gen_mnist_core.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    node_version: process.version,
  },
  num_elements: NUM_ELEMENTS,
  num_train: NUM_TRAIN,
  batch_size: BATCH_SIZE,
  learning_rate: LEARNING_RATE,
  train_steps: TRAIN_STEPS,
  train_indices: Array.from(trainIndices),
  test_indices: Array.from(testIndices),
  shapes,
  init,
  final: snapshot(),
  costs,
  test_examples: TEST_EXAMPLES,
  test_predictions: testPredictions,
  test_labels: testLabels,
};
fs.writeFileSync(path.join(DIR, 'mnist_core.json'), JSON.stringify(out) + '\n');
console.log(`wrote ${DIR}: cost ${costs[0]} -> ${costs[costs.length - 1]}, ` +
            `test accuracy ${testPredictions.filter((p, i) => p === testLabels[i]).length}/${TEST_EXAMPLES}`);
