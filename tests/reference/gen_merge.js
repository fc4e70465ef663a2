#!/usr/bin/env node
// Writes tests/reference/merge.json: TensorFlow.js 4.22's elementwise merge layers on
// inputs of different ranks, for tests/test_layers.py.
//
// Run from the repo root:   node tests/reference/gen_merge.js     (deterministic output)
//
// merge.json: cases [{factory, input_shapes (no batch axis), inputs [{shape, values}],
//   output_shape (symbolic), output {shape, values} (predict of tf.model)}],
//   errors [{factory, input_shapes, message}].
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const rand = mulberry32(35);
const enc = (t) => ({shape: t.shape, values: Array.from(t.dataSync())});
const batch = 3;

const shapeSets = [[[4], [1, 4]], [[2], [3, 1]], [[3], [2, 3], [1, 1, 3]]];
const factories = ['add', 'multiply', 'maximum', 'minimum', 'average'];
const cases = [];
for (const factory of factories) {
  for (const shapes of shapeSets) {
    const ins = shapes.map((s) => tf.input({shape: s}));
    const out = tf.layers[factory]().apply(ins);
    const model = tf.model({inputs: ins, outputs: out});
    const xs = shapes.map((s) => {
      const full = [batch, ...s];
      const n = full.reduce((a, b) => a * b, 1);
      return tf.tensor(Array.from({length: n}, () => Math.fround(rand() * 4 - 2)), full);
    });
    cases.push({factory, input_shapes: shapes, inputs: xs.map(enc), output_shape: out.shape,
                output: enc(model.predict(xs))});
  }
}

const errors = [];
for (const [factory, shapes] of [['add', [[3], [3, 4]]], ['multiply', [[3], [4]]],
                                 ['maximum', [[2, 5], [3, 5]]]]) {
  try {
    tf.layers[factory]().apply(shapes.map((s) => tf.input({shape: s})));
    errors.push({factory, input_shapes: shapes, message: null});
  } catch (e) {
    errors.push({factory, input_shapes: shapes, message: e.message});
  }
}
try {
  tf.layers.add().apply([tf.input({batchShape: [2, 3]}), tf.input({batchShape: [5, 3]})]);
} catch (e) {
  errors.push({factory: 'add', batch_shapes: [[2, 3], [5, 3]], message: e.message});
}

fs.writeFileSync(path.join(__dirname, 'merge.json'), JSON.stringify({cases, errors}) + '\n');
