#!/usr/bin/env node
// Benchmark worker: tfjs-examples' polynomial-regression-core training loop (cubic fitted by SGD,
// mean squared error, `await tf.nextFrame()` after every iteration), written here for the
// harness. Same data and initial coefficients as the Python port (benchmarks/_polynomial.py):
// both read benchmarks/data/polynomial.json.
//   node benchmarks/node/polynomial.js <cpu|wasm>            serve the harness's protocol
//   node benchmarks/node/polynomial.js cpu --fixture         write benchmarks/data/polynomial_tfjs.json:
//       the loss of each of the example's 75 iterations and the coefficients after them, which
//       tests/test_benchmarks.py replays against the Python port without Node
'use strict';

const fs = require('fs');
const path = require('path');
const {loadTfjs, serve} = require('./runtime');

async function main() {
  const backend = process.argv[2];
  const {tf, detail} = await loadTfjs(backend);
  const dataFile = path.join(__dirname, '..', 'data', 'polynomial.json');
  const data = JSON.parse(fs.readFileSync(dataFile, 'utf8'));
  const xs = tf.tensor1d(data.xs);
  const ys = tf.tensor1d(data.ys);
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((k) => tf.variable(tf.scalar(data.init[k])));
  const optimizer = tf.train.sgd(data.learning_rate);

  const cubic = (x) => tf.tidy(() => tf.add(
      tf.add(tf.add(tf.mul(a, tf.pow(x, tf.scalar(3, 'int32'))), tf.mul(b, tf.square(x))),
          tf.mul(c, x)),
      d));
  const mse = (predictions, labels) => tf.mean(tf.square(tf.sub(predictions, labels)));

  const runner = {
    tf,
    step() {
      optimizer.minimize(() => mse(cubic(xs), ys));
      return tf.nextFrame();
    },
    tracedStep: () => optimizer.minimize(() => mse(cubic(xs), ys), true),
    finish() {
      const loss = tf.tidy(() => mse(cubic(xs), ys));
      const value = loss.dataSync()[0];
      loss.dispose();
      return value;
    },
  };
  if (process.argv[3] === '--fixture') {
    const losses = [];
    for (let i = 0; i < data.check_iterations; i++) {
      const cost = runner.tracedStep();
      losses.push(cost.dataSync()[0]);
      cost.dispose();
    }
    const coefficients = {a: a.dataSync()[0], b: b.dataSync()[0], c: c.dataSync()[0], d: d.dataSync()[0]};
    const fixture = {generator: 'benchmarks/node/polynomial.js cpu --fixture', detail, losses, coefficients};
    fs.writeFileSync(path.join(__dirname, '..', 'data', 'polynomial_tfjs.json'),
        JSON.stringify(fixture, null, 1) + '\n');
    return;
  }
  serve(runner, {detail});
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
