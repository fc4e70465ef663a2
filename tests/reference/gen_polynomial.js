#!/usr/bin/env node
// Writes tests/reference/polynomial.json: the tfjs-examples program polynomial-regression-core
// (https://github.com/tensorflow/tfjs-examples/tree/master/polynomial-regression-core), run by
// the real TensorFlow.js 4.22 (pure-JS CPU backend) with every random draw recorded, so that
// tests/test_examples.py can feed the same draws to examples/polynomial_regression_core and
// compare its losses with these.
//
// Run from the repo root:   node tests/reference/gen_polynomial.js
// (after `cd tests/reference && npm install --no-audit --no-fund`).
//
// Written for this project from the example's description (a cubic fitted with four scalar
// Variables and SGD); the model and training loop below are this script's own code.
//
// Schema: {header, true_coefficients, num_points, sigma, learning_rate, num_iterations,
//   math_random: [4]      (the draws that become a, b, c, d, in that order: JS doubles),
//   random_uniform: [N]   (what tf.randomUniform([N], -1, 1) gave: the xs),
//   random_normal: [N]    (what tf.randomNormal([N], 0, sigma) gave: the noise),
//   ys: [N]               (the targets after min/max normalisation),
//   losses: [num_iterations + 1]  (mean squared error before training, then after each step),
//   coefficients: {a, b, c, d}    (after training)}
// Tensor values are float32 stored as the exact JS double.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'polynomial.json');
const SEED = 16;

const setup = {
  true_coefficients: {a: -0.8, b: -0.2, c: 0.9, d: 0.5},
  num_points: 100,
  sigma: 0.04,
  learning_rate: 0.5,
  num_iterations: 75,
};

// The four initial coefficients are Math.random() draws in the example.
const draw = mulberry32(SEED);
const mathRandom = [draw(), draw(), draw(), draw()];

function cubic(x, a, b, c, d) {
  const cube = tf.pow(x, tf.scalar(3, 'int32'));
  return tf.add(tf.add(tf.add(tf.mul(a, cube), tf.mul(b, tf.square(x))), tf.mul(c, x)), d);
}

// Data: a noisy cubic on [-1, 1), targets rescaled to [0, 1] by their min and max.
const n = setup.num_points;
const xs = tf.randomUniform([n], -1, 1, 'float32', SEED + 1);
const noise = tf.randomNormal([n], 0, setup.sigma, 'float32', SEED + 2);
const t = setup.true_coefficients;
const raw = tf.add(cubic(xs, tf.scalar(t.a), tf.scalar(t.b), tf.scalar(t.c), tf.scalar(t.d)), noise);
const low = tf.min(raw);
const ys = tf.div(tf.sub(raw, low), tf.sub(tf.max(raw), low));

const [a, b, c, d] = mathRandom.map(v => tf.variable(tf.scalar(v)));
const optimizer = tf.train.sgd(setup.learning_rate);
const meanSquare = () => tf.mean(tf.square(tf.sub(cubic(xs, a, b, c, d), ys)));

const losses = [meanSquare().dataSync()[0]];
for (let step = 0; step < setup.num_iterations; step++) {
  optimizer.minimize(meanSquare);
  losses.push(meanSquare().dataSync()[0]);
}

for (const value of losses) {
  if (!Number.isFinite(value)) throw new Error(`non-finite loss ${value}`);
}
if (!(losses[losses.length - 1] < losses[0] / 4)) throw new Error('the fit did not improve');

const out = {
  header: {
    generator: 'tests/reference/gen_polynomial.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    node_version: process.version,
  },
  ...setup,
  math_random: mathRandom,
  random_uniform: Array.from(xs.dataSync()),
  random_normal: Array.from(noise.dataSync()),
  ys: Array.from(ys.dataSync()),
  losses,
  coefficients: {a: a.dataSync()[0], b: b.dataSync()[0], c: c.dataSync()[0], d: d.dataSync()[0]},
};
fs.writeFileSync(OUT, JSON.stringify(out) + '\n');
console.log(`wrote ${OUT}: loss ${losses[0]} -> ${losses[losses.length - 1]}`);
