#!/usr/bin/env node
// Benchmark worker: the MLP training loop written as a tfjs user writes it, on a tfjs backend.
//   node benchmarks/node/mlp.js <data dir written by benchmarks/train_step.py> <cpu|wasm>
// The data dir holds meta.json (layer sizes, loss, batches) and raw float32 files for the initial
// weights and the K batches; step g trains on batch g % K, as every other variant does.
'use strict';

const fs = require('fs');
const path = require('path');
const {loadTfjs, readTensor, serve} = require('./runtime');

async function main() {
  const [dir, backend] = process.argv.slice(2);
  const {tf, detail} = await loadTfjs(backend);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  const layers = meta.sizes.length - 1;
  const w = [], b = [];
  for (let i = 0; i < layers; i++) {
    w.push(tf.variable(readTensor(tf, dir, meta.arrays[`w${i}`])));
    b.push(tf.variable(readTensor(tf, dir, meta.arrays[`b${i}`])));
  }
  const xs = tf.unstack(readTensor(tf, dir, meta.arrays.xs));
  const ys = tf.unstack(readTensor(tf, dir, meta.arrays.ys));

  function predict(x) {
    let h = x;
    for (let i = 0; i < layers; i++) {
      h = h.matMul(w[i]).add(b[i]);
      if (i < layers - 1) h = h.relu();
    }
    return h;
  }
  const lossOf = meta.loss === 'mse' ?
      (y, x) => tf.losses.meanSquaredError(y, predict(x)) :
      (y, x) => tf.losses.softmaxCrossEntropy(y, predict(x));
  const optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-7);

  let g = 0;
  const step = () => {
    const k = g++ % xs.length;
    return tf.tidy(() => optimizer.minimize(() => lossOf(ys[k], xs[k]), true));
  };
  const finish = (cost) => {
    const loss = cost.dataSync()[0];
    cost.dispose();
    return loss;
  };
  const runner = {tf, step, tracedStep: step, finish};
  serve(runner, {detail});
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
