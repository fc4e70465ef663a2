#!/usr/bin/env node
// Writes tests/reference/summary.json: the exact lines TensorFlow.js 4.22's
// model.summary(lineLength, positions, printFn) prints, for tests/test_models.py.
//
// Run from the repo root:   node tests/reference/gen_summary.js     (deterministic output)
//
// summary.json: cases [{id, model ('sequential' | 'functional'), lineLength, positions,
//   lines}] where lineLength/positions are what was passed (null: left undefined).
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

function sequential() {
  return tf.sequential({layers: [
    tf.layers.dense({units: 16, activation: 'relu', inputShape: [8], name: 'hidden_layer'}),
    tf.layers.dense({units: 3, activation: 'softmax', name: 'probabilities'}),
  ]});
}

function functional() {
  const a = tf.input({shape: [3], name: 'in_a'});
  const b = tf.input({shape: [2], name: 'in_b'});
  const ha = tf.layers.dense({units: 4, name: 'dense_a'}).apply(a);
  const hb = tf.layers.dense({units: 4, name: 'dense_b'}).apply(b);
  const sum = tf.layers.add({name: 'added'}).apply([ha, hb]);
  const out = tf.layers.dense({units: 2, name: 'out'}).apply(sum);
  return tf.model({inputs: [a, b], outputs: out});
}

const builders = {sequential, functional};
const runs = [
  ['seq_80_frac3', 'sequential', 80, [0.45, 0.8, 1]],
  ['seq_default', 'sequential', null, null],
  ['seq_60_default_positions', 'sequential', 60, null],
  ['seq_absolute', 'sequential', 70, [25, 45, 62, 70]],
  ['fun_80_frac3', 'functional', 80, [0.45, 0.8, 1]],
  ['fun_default', 'functional', null, null],
  ['fun_100_frac5', 'functional', 100, [0.3, 0.5, 0.65, 0.75, 1]],
];

const cases = runs.map(([id, kind, lineLength, positions]) => {
  const model = builders[kind]();
  const lines = [];
  model.summary(lineLength == null ? undefined : lineLength,
                positions == null ? undefined : positions.slice(), (line) => lines.push(line));
  return {id, model: kind, lineLength, positions, lines};
});

fs.writeFileSync(path.join(__dirname, 'summary.json'), JSON.stringify({cases}, null, 1) + '\n');
