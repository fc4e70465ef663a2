#!/usr/bin/env node
// Writes tests/reference/variables_in_f.json: what REAL TensorFlow.js 4.22 (pure-JS CPU
// backend) does when the f of a gradient function creates or assigns Variables, and the
// max pooling layer's gradient where windows hold ties. For tests/test_variables_in_f.py
// (which needs no Node).
//
// Run from the repo root:   node tests/reference/gen_variables_in_f.js   (deterministic)
//
// variables_in_f.json: cases.<id>: {kind, code (the tfjs source that ran), and the results:
//   grad: {value} (tf.grad's result); variableGrads: {loss, grads {name: values}, after
//   {name: values}}; minimize: {loss, after {name: values}} (sgd, learning rate in code)}.
// Floats are the exact JS doubles of the float32 values.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const vals = (t) => Array.from(t.dataSync());
const cases = {};

function record(id, kind, fn) {
  cases[id] = {kind, code: fn.toString(), ...fn()};
}

// -- item 8: a Variable created inside f starts a new value --------------------------
record('grad_new_variable', 'grad', () => {
  const g = tf.grad((x) => tf.variable(x.mul(2)).add(x).sum())(tf.ones([2]));
  return {x: [1, 1], value: vals(g)};
});
record('grad_new_variable_product', 'grad', () => {
  const g = tf.grad((x) => tf.variable(x.square()).mul(x).sum())(tf.tensor1d([1, 2, 3]));
  return {x: [1, 2, 3], value: vals(g)};
});
record('variable_grads_new_variable', 'variableGrads', () => {
  const w = tf.variable(tf.tensor1d([1, 2]), true, 'w8a');
  const {value, grads} = tf.variableGrads(() => tf.variable(w.mul(2)).mul(w).sum(), [w]);
  return {init: {w: [1, 2]}, loss: value.dataSync()[0], grads: {w: vals(grads.w8a)},
          after: {w: vals(w)}};
});
record('minimize_new_variable', 'minimize', () => {
  const w = tf.variable(tf.tensor1d([1, 2]), true, 'w8b');
  const loss = tf.train.sgd(0.1).minimize(
      () => tf.variable(w.mul(2)).mul(w).sum(), true, [w]);
  return {init: {w: [1, 2]}, lr: 0.1, loss: loss.dataSync()[0], after: {w: vals(w)}};
});

// -- item 9: v.assign(...) inside f --------------------------------------------------
const assignHalf = (v) => () => {
  v.assign(v.mul(0.5));
  return v.square().sum();
};
const assignBetween = (v) => () => {
  const before = v.mul(3);
  v.assign(v.mul(0.5));
  return before.add(v.square()).sum();
};
const assignBetweenSquared = (v) => () => {
  const before = v.square();
  v.assign(v.mul(0.5));
  return before.add(v).sum();
};
const assignFromOther = (v, u) => () => {
  v.assign(u.mul(2));
  return v.mul(u).add(v.square()).sum();
};
const assigns = {
  assign_half: assignHalf, assign_between: assignBetween,
  assign_between_squared: assignBetweenSquared,
};
for (const [id, make] of Object.entries(assigns)) {
  record(`variable_grads_${id}`, 'variableGrads', () => {
    const v = tf.variable(tf.tensor1d([1, 2]), true, `v_${id}_vg`);
    const {value, grads} = tf.variableGrads(make(v), [v]);
    return {init: {v: [1, 2]}, f: make.toString(), loss: value.dataSync()[0],
            grads: {v: vals(grads[v.name])}, after: {v: vals(v)}};
  });
  record(`minimize_${id}`, 'minimize', () => {
    const v = tf.variable(tf.tensor1d([1, 2]), true, `v_${id}_min`);
    const loss = tf.train.sgd(0.1).minimize(make(v), true, [v]);
    return {init: {v: [1, 2]}, f: make.toString(), lr: 0.1, loss: loss.dataSync()[0],
            after: {v: vals(v)}};
  });
}
record('variable_grads_assign_from_other', 'variableGrads', () => {
  const v = tf.variable(tf.tensor1d([1, 2]), true, 'v9o');
  const u = tf.variable(tf.tensor1d([3, 4]), true, 'u9o');
  const {value, grads} = tf.variableGrads(assignFromOther(v, u), [v, u]);
  return {init: {v: [1, 2], u: [3, 4]}, f: assignFromOther.toString(),
          loss: value.dataSync()[0], grads: {v: vals(grads.v9o), u: vals(grads.u9o)},
          after: {v: vals(v), u: vals(u)}};
});
record('minimize_assign_from_other', 'minimize', () => {
  const v = tf.variable(tf.tensor1d([1, 2]), true, 'v9p');
  const u = tf.variable(tf.tensor1d([3, 4]), true, 'u9p');
  const loss = tf.train.sgd(0.1).minimize(assignFromOther(v, u), true, [v, u]);
  return {init: {v: [1, 2], u: [3, 4]}, f: assignFromOther.toString(), lr: 0.1,
          loss: loss.dataSync()[0], after: {v: vals(v), u: vals(u)}};
});

// -- item 0: maxPooling2d's gradient with ties in the windows ------------------------
record('max_pooling2d_ties', 'grad', () => {
  const x = [[1, 3, 3, 2], [0, 1, 4, 4], [5, 5, 1, 0], [2, 5, 0, 1]];
  const layer = tf.layers.maxPooling2d({poolSize: 2});
  const g = tf.grad((t) => layer.apply(t).sum())(tf.tensor4d(x.flat(), [1, 4, 4, 1]));
  const op = tf.grad((t) => tf.maxPool(t, 2, 2, 'valid').sum())(tf.tensor4d(x.flat(), [1, 4, 4, 1]));
  return {x, value: vals(g), op_value: vals(op)};
});

const doc = {
  header: {generator: 'tests/reference/gen_variables_in_f.js', tfjs_version: tf.version.tfjs,
           backend: tf.getBackend(), node_version: process.version},
  cases,
};
fs.writeFileSync(path.join(__dirname, 'variables_in_f.json'), JSON.stringify(doc, null, 1) + '\n');
for (const [id, c] of Object.entries(cases)) {
  const {code, f, ...rest} = c;
  console.log(id, JSON.stringify(rest));
}
