#!/usr/bin/env node
// Benchmark worker: tfjs 4.22's model.fit on the tiny MLP, one epoch per step (see
// benchmarks/_fit.py for the Python side).
//   node benchmarks/node/fit.js <data dir written by benchmarks/_fit.py> <cpu|wasm>
// Commands: {op: 'trace', steps} -> {losses}: each epoch's logged loss;
//           {op: 'block', steps} -> {seconds, loss}: `steps` epochs, timed.
'use strict';

const fs = require('fs');
const path = require('path');
const readline = require('readline');
const {loadTfjs, readTensor} = require('./runtime');

async function main() {
  const [dir, backend] = process.argv.slice(2);
  const {tf, detail} = await loadTfjs(backend);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  const sizes = meta.sizes;
  const model = tf.sequential();
  for (let i = 1; i < sizes.length; i++) {
    const config = {units: sizes[i], activation: i < sizes.length - 1 ? 'relu' : 'linear'};
    if (i === 1) config.inputShape = [sizes[0]];
    model.add(tf.layers.dense(config));
  }
  const weights = [];
  for (let i = 0; i < sizes.length - 1; i++) {
    weights.push(readTensor(tf, dir, meta.arrays[`w${i}`]), readTensor(tf, dir, meta.arrays[`b${i}`]));
  }
  model.setWeights(weights);
  model.compile({optimizer: tf.train.adam(1e-3, 0.9, 0.999, 1e-7), loss: 'meanSquaredError'});
  const x = readTensor(tf, dir, meta.arrays.x);
  const y = readTensor(tf, dir, meta.arrays.y);
  const args = {epochs: 1, batchSize: meta.batch, shuffle: false, verbose: 0};
  const epoch = async () => (await model.fit(x, y, args)).history.loss[0];

  const reply = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
  const rssMb = () => process.memoryUsage().rss / 2 ** 20;
  async function handle(cmd) {
    if (cmd.op === 'trace') {
      const losses = [];
      for (let i = 0; i < cmd.steps; i++) losses.push(await epoch());
      return {losses, rss_mb: rssMb()};
    }
    if (cmd.op === 'block') {
      const start = process.hrtime.bigint();
      let loss = null;
      for (let i = 0; i < cmd.steps; i++) loss = await epoch();
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      return {seconds, loss, rss_mb: rssMb(), tensors: tf.memory().numTensors};
    }
    return {error: `unknown op ${cmd.op}`};
  }
  reply({ready: true, detail});
  let queue = Promise.resolve();
  readline.createInterface({input: process.stdin}).on('line', (line) => {
    queue = queue.then(() => handle(JSON.parse(line))).then(reply, (err) => {
      reply({error: String(err && err.stack || err)});
    });
  });
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
