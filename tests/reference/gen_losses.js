#!/usr/bin/env node
// Generates tests/reference/losses.json: every tf.losses function of the REAL TensorFlow.js
// (pinned in tests/reference/package.json), pure-JS CPU backend, across every tf.Reduction and
// weights none / scalar / tensor / broadcast / all-zero, plus gradients and error messages.
//
// Run from the repo root:   node tests/reference/gen_losses.js
// (after `cd tests/reference && npm install --no-audit --no-fund`).
//
// Layout of the JSON (read by tests/test_losses.py, which needs no Node):
//   cases:  {name, fn, args, expected: {dtype, shape, values}}       value of fn(...args)
//   grads:  {name, fn, args, wrt, expected: [{dtype, shape, values}]} tf.grads w.r.t. args `wrt`
//   errors: {name, fn, args, message}                               what fn(...args) throws
// `fn` is the tfjs name (tf.losses.<fn>); `args` are the positional arguments in order, each
// {name, kind, ...}: kind "tensor" {dtype, shape, values (flat, row-major)}, "number" {value},
// "string" {value} or "undefined" (argument left out, so tfjs uses its default).
// Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');

const OUT = path.join(__dirname, 'losses.json');

const R = tf.Reduction;
const REDUCTIONS = [['NONE', R.NONE], ['MEAN', R.MEAN], ['SUM', R.SUM],
                    ['SUM_BY_NONZERO_WEIGHTS', R.SUM_BY_NONZERO_WEIGHTS]];

const ARG_NAMES = {
  absoluteDifference: ['labels', 'predictions', 'weights', 'reduction'],
  computeWeightedLoss: ['losses', 'weights', 'reduction'],
  cosineDistance: ['labels', 'predictions', 'axis', 'weights', 'reduction'],
  hingeLoss: ['labels', 'predictions', 'weights', 'reduction'],
  huberLoss: ['labels', 'predictions', 'weights', 'delta', 'reduction'],
  logLoss: ['labels', 'predictions', 'weights', 'epsilon', 'reduction'],
  meanSquaredError: ['labels', 'predictions', 'weights', 'reduction'],
  sigmoidCrossEntropy: ['multiClassLabels', 'logits', 'weights', 'labelSmoothing', 'reduction'],
  softmaxCrossEntropy: ['onehotLabels', 'logits', 'weights', 'labelSmoothing', 'reduction'],
};

// ------------------------------------------------------------------------------------------------
// Encoding

function num(x) {
  return Number.isFinite(x) ? x : String(x);
}

function encodeTensor(t) {
  return {dtype: t.dtype, shape: t.shape, values: Array.from(t.dataSync(), num)};
}

function encodeArg(name, value) {
  if (value === undefined) return {name, kind: 'undefined'};
  if (value instanceof tf.Tensor) return {name, kind: 'tensor', ...encodeTensor(value)};
  if (typeof value === 'number') return {name, kind: 'number', value: num(value)};
  if (typeof value === 'string') return {name, kind: 'string', value};
  throw new Error(`cannot encode argument ${name}: ${value}`);
}

// `named` maps argument names to values; missing names are left undefined (tfjs default).
function positional(fn, named) {
  return ARG_NAMES[fn].map((n) => named[n]);
}

function encodeArgs(fn, values) {
  return ARG_NAMES[fn].map((n, i) => encodeArg(n, values[i]));
}

// ------------------------------------------------------------------------------------------------
// Inputs (float32). Hand-written so the cases are readable; the larger ones come from a
// fixed pattern.

const T = (values, shape) => tf.tensor(values, shape, 'float32');

function pattern(shape, offset, scale) {
  const size = shape.reduce((a, b) => a * b, 1);
  const values = [];
  for (let i = 0; i < size; i++) values.push(Math.sin(1.3 * i + offset) * scale);
  return T(values, shape);
}

// Weights for a loss of shape `lossShape`: none, JS numbers, a tensor with zeros, a tensor
// broadcast along one axis, one of lower rank, and all zeros (SUM_BY_NONZERO_WEIGHTS -> NaN).
function weightVariants(lossShape) {
  const variants = [['none', undefined], ['scalar', 2.5], ['scalar_zero', 0]];
  if (lossShape.length === 0) return variants;
  const fill = (shape, cycle) => {
    const size = shape.reduce((a, b) => a * b, 1);
    return T(Array.from({length: size}, (_, i) => cycle[i % cycle.length]), shape);
  };
  variants.push(['tensor_with_zeros', fill(lossShape, [1, 0, 2, 0.5, 3, 0, 1.5])]);
  let bshape = lossShape.map((d, i) => (i === lossShape.length - 1 ? 1 : d));
  if (bshape.every((d, i) => d === lossShape[i])) bshape = lossShape.map((d, i) => (i === 0 ? 1 : d));
  if (!bshape.every((d, i) => d === lossShape[i])) {
    variants.push(['broadcast', fill(bshape, [2, 0, 1.5, 3])]);
  }
  if (lossShape.length >= 2) variants.push(['lower_rank', fill(lossShape.slice(1), [0.5, 0, 2, 1])]);
  variants.push(['all_zero', tf.zeros(lossShape)]);
  return variants;
}

const labels23 = T([0.1, -0.4, 1.2, 2.1, 0.0, -1.5], [2, 3]);
const preds23 = T([0.3, 0.5, -0.7, 2.5, 0.25, 1.25], [2, 3]);
const binary23 = T([1, 0, 1, 0, 0, 1], [2, 3]);
const probs23 = T([0.9, 0.2, 0.6, 0.35, 0.05, 0.75], [2, 3]);

// Each config: a function, the named non-weight arguments, and the shape of its per-element
// loss (what the weights broadcast against).
const CONFIGS = [
  {tag: 'absoluteDifference', fn: 'absoluteDifference', lossShape: [2, 3],
   args: {labels: labels23, predictions: preds23}},
  {tag: 'computeWeightedLoss', fn: 'computeWeightedLoss', lossShape: [2, 3],
   args: {losses: T([0.5, 0.5, 1, 0.5, 2, 1], [2, 3])}},
  {tag: 'computeWeightedLoss/rank3', fn: 'computeWeightedLoss', lossShape: [2, 2, 2],
   args: {losses: pattern([2, 2, 2], 0.2, 3)}},
  {tag: 'computeWeightedLoss/rank1', fn: 'computeWeightedLoss', lossShape: [4],
   args: {losses: T([0.25, 1.5, 3, 0.75], [4])}},
  {tag: 'cosineDistance/axis=0', fn: 'cosineDistance', lossShape: [1, 3],
   args: {labels: labels23, predictions: preds23, axis: 0}},
  {tag: 'cosineDistance/axis=1', fn: 'cosineDistance', lossShape: [2, 1],
   args: {labels: labels23, predictions: preds23, axis: 1}},
  {tag: 'cosineDistance/axis=-1', fn: 'cosineDistance', lossShape: [2, 1],
   args: {labels: labels23, predictions: preds23, axis: -1}},
  {tag: 'cosineDistance/rank3/axis=-1', fn: 'cosineDistance', lossShape: [2, 2, 1],
   args: {labels: pattern([2, 2, 3], 0.0, 0.6), predictions: pattern([2, 2, 3], 0.9, 0.6), axis: -1}},
  {tag: 'cosineDistance/axis=undefined', fn: 'cosineDistance', lossShape: [1, 1],
   args: {labels: labels23, predictions: preds23}},
  {tag: 'hingeLoss', fn: 'hingeLoss', lossShape: [2, 3],
   args: {labels: binary23, predictions: preds23}},
  {tag: 'hingeLoss/minus_one_labels', fn: 'hingeLoss', lossShape: [2, 3],
   args: {labels: T([-1, 1, 0, -1, 1, 0], [2, 3]), predictions: preds23}},
  {tag: 'huberLoss', fn: 'huberLoss', lossShape: [2, 3],
   args: {labels: labels23, predictions: preds23}},
  {tag: 'huberLoss/delta=2', fn: 'huberLoss', lossShape: [2, 3],
   args: {labels: labels23, predictions: preds23, delta: 2.0}},
  {tag: 'huberLoss/delta=0.5', fn: 'huberLoss', lossShape: [2, 3],
   args: {labels: labels23, predictions: preds23, delta: 0.5}},
  {tag: 'logLoss', fn: 'logLoss', lossShape: [2, 3],
   args: {labels: binary23, predictions: probs23}},
  {tag: 'logLoss/saturated', fn: 'logLoss', lossShape: [2, 2],
   args: {labels: T([1, 0, 1, 0], [2, 2]), predictions: T([1, 0, 0, 1], [2, 2])}},
  {tag: 'logLoss/epsilon=1e-3', fn: 'logLoss', lossShape: [2, 3],
   args: {labels: binary23, predictions: probs23, epsilon: 1e-3}},
  {tag: 'logLoss/epsilon=0', fn: 'logLoss', lossShape: [2, 3],
   args: {labels: T([1, 0, 0.3, 0, 0.8, 1], [2, 3]), predictions: probs23, epsilon: 0}},
  {tag: 'meanSquaredError', fn: 'meanSquaredError', lossShape: [2, 3],
   args: {labels: labels23, predictions: preds23}},
  {tag: 'sigmoidCrossEntropy', fn: 'sigmoidCrossEntropy', lossShape: [2, 3],
   args: {multiClassLabels: binary23, logits: T([2, -1, -30, 0, 4.5, -0.5], [2, 3])}},
  {tag: 'sigmoidCrossEntropy/labelSmoothing=0.2', fn: 'sigmoidCrossEntropy', lossShape: [2, 3],
   args: {multiClassLabels: binary23, logits: T([2, -1, -30, 0, 4.5, -0.5], [2, 3]),
          labelSmoothing: 0.2}},
  {tag: 'sigmoidCrossEntropy/labelSmoothing=-0.1', fn: 'sigmoidCrossEntropy', lossShape: [2, 3],
   args: {multiClassLabels: binary23, logits: T([2, -1, -30, 0, 4.5, -0.5], [2, 3]),
          labelSmoothing: -0.1}},
  {tag: 'sigmoidCrossEntropy/large_logits', fn: 'sigmoidCrossEntropy', lossShape: [2, 3],
   args: {multiClassLabels: binary23, logits: T([1e4, -1e4, 1e4, -1e4, 0, 88], [2, 3])}},
  {tag: 'softmaxCrossEntropy', fn: 'softmaxCrossEntropy', lossShape: [2],
   args: {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: T([1, 2, 3, 0, 0, 5], [2, 3])}},
  {tag: 'softmaxCrossEntropy/labelSmoothing=0.3', fn: 'softmaxCrossEntropy', lossShape: [2],
   args: {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: T([1, 2, 3, 0, 0, 5], [2, 3]),
          labelSmoothing: 0.3}},
  {tag: 'softmaxCrossEntropy/soft_labels', fn: 'softmaxCrossEntropy', lossShape: [2],
   args: {onehotLabels: T([0.2, 0.5, 0.3, 0.6, 0.4, 0], [2, 3]), logits: T([1, 2, 3, 0, 0, 5], [2, 3])}},
  {tag: 'softmaxCrossEntropy/rank3', fn: 'softmaxCrossEntropy', lossShape: [2, 2],
   args: {onehotLabels: tf.oneHot(tf.tensor1d([3, 0, 1, 2], 'int32'), 4).toFloat().reshape([2, 2, 4]),
          logits: pattern([2, 2, 4], 0.4, 2)}},
  {tag: 'softmaxCrossEntropy/rank3/labelSmoothing=0.4', fn: 'softmaxCrossEntropy', lossShape: [2, 2],
   args: {onehotLabels: tf.oneHot(tf.tensor1d([3, 0, 1, 2], 'int32'), 4).toFloat().reshape([2, 2, 4]),
          logits: pattern([2, 2, 4], 0.4, 2), labelSmoothing: 0.4}},
  {tag: 'softmaxCrossEntropy/rank1', fn: 'softmaxCrossEntropy', lossShape: [],
   args: {onehotLabels: T([0, 0, 1, 0], [4]), logits: T([0.5, -1, 2, 0], [4])}},
  {tag: 'softmaxCrossEntropy/large_logits', fn: 'softmaxCrossEntropy', lossShape: [2],
   args: {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: T([1e4, -1e4, 0, -1e4, 1e4, 1e4], [2, 3])}},
];

// ------------------------------------------------------------------------------------------------
// Cases

function call(fn, values) {
  return tf.losses[fn](...values);
}

const cases = [];
for (const cfg of CONFIGS) {
  for (const [wname, weights] of weightVariants(cfg.lossShape)) {
    const reductions = [...REDUCTIONS];
    if (wname === 'none' || wname === 'tensor_with_zeros') reductions.push(['default', undefined]);
    for (const [rname, reduction] of reductions) {
      const values = positional(cfg.fn, {...cfg.args, weights, reduction});
      cases.push({
        name: `${cfg.tag}/weights=${wname}/reduction=${rname}`,
        fn: cfg.fn,
        args: encodeArgs(cfg.fn, values),
        expected: encodeTensor(call(cfg.fn, values)),
      });
    }
  }
}

// ------------------------------------------------------------------------------------------------
// Gradients, away from kinks (abs/relu/min at a tie differ by convention, not by meaning).

const w23 = T([1, 0, 2, 0.5, 3, 1], [2, 3]);
const GRAD_CONFIGS = [
  {tag: 'absoluteDifference', fn: 'absoluteDifference', wrt: ['labels', 'predictions'],
   args: {labels: labels23, predictions: preds23}, weights: w23},
  {tag: 'computeWeightedLoss', fn: 'computeWeightedLoss', wrt: ['losses', 'weights'],
   args: {losses: T([0.5, 0.5, 1, 0.5, 2, 1], [2, 3])}, weights: w23},
  {tag: 'cosineDistance/axis=1', fn: 'cosineDistance', wrt: ['labels', 'predictions'],
   args: {labels: labels23, predictions: preds23, axis: 1}, weights: T([2, 0.5], [2, 1])},
  {tag: 'cosineDistance/axis=0', fn: 'cosineDistance', wrt: ['labels', 'predictions'],
   args: {labels: labels23, predictions: preds23, axis: 0}, weights: T([2, 0.5, 1], [1, 3])},
  {tag: 'hingeLoss', fn: 'hingeLoss', wrt: ['labels', 'predictions'],
   args: {labels: binary23, predictions: preds23}, weights: w23},
  {tag: 'huberLoss', fn: 'huberLoss', wrt: ['labels', 'predictions'],
   args: {labels: labels23, predictions: preds23}, weights: w23},
  {tag: 'huberLoss/delta=0.5', fn: 'huberLoss', wrt: ['labels', 'predictions'],
   args: {labels: labels23, predictions: preds23, delta: 0.5}, weights: w23},
  {tag: 'logLoss', fn: 'logLoss', wrt: ['labels', 'predictions'],
   args: {labels: binary23, predictions: probs23}, weights: w23},
  {tag: 'meanSquaredError', fn: 'meanSquaredError', wrt: ['labels', 'predictions'],
   args: {labels: labels23, predictions: preds23}, weights: w23},
  {tag: 'sigmoidCrossEntropy', fn: 'sigmoidCrossEntropy', wrt: ['multiClassLabels', 'logits'],
   args: {multiClassLabels: binary23, logits: T([2, -1, -30, 0, 4.5, -0.5], [2, 3])}, weights: w23},
  {tag: 'sigmoidCrossEntropy/labelSmoothing=0.2', fn: 'sigmoidCrossEntropy',
   wrt: ['multiClassLabels', 'logits'],
   args: {multiClassLabels: binary23, logits: T([2, -1, -30, 0, 4.5, -0.5], [2, 3]), labelSmoothing: 0.2},
   weights: w23},
  {tag: 'sigmoidCrossEntropy/large_logits', fn: 'sigmoidCrossEntropy', wrt: ['multiClassLabels', 'logits'],
   args: {multiClassLabels: binary23, logits: T([1e4, -1e4, 1e4, -1e4, 0, 88], [2, 3])}, weights: w23},
  {tag: 'softmaxCrossEntropy', fn: 'softmaxCrossEntropy', wrt: ['onehotLabels', 'logits'],
   args: {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: T([1, 2, 3, 0, 0, 5], [2, 3])},
   weights: T([2, 0.5], [2])},
  {tag: 'softmaxCrossEntropy/labelSmoothing=0.3', fn: 'softmaxCrossEntropy', wrt: ['onehotLabels', 'logits'],
   args: {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: T([1, 2, 3, 0, 0, 5], [2, 3]),
          labelSmoothing: 0.3},
   weights: T([2, 0.5], [2])},
  {tag: 'softmaxCrossEntropy/soft_labels', fn: 'softmaxCrossEntropy', wrt: ['onehotLabels', 'logits'],
   args: {onehotLabels: T([0.2, 0.5, 0.3, 0.6, 0.4, 0], [2, 3]), logits: T([1, 2, 3, 0, 0, 5], [2, 3])},
   weights: T([2, 0.5], [2])},
  {tag: 'softmaxCrossEntropy/rank3/labelSmoothing=0.4', fn: 'softmaxCrossEntropy',
   wrt: ['onehotLabels', 'logits'],
   args: {onehotLabels: tf.oneHot(tf.tensor1d([3, 0, 1, 2], 'int32'), 4).toFloat().reshape([2, 2, 4]),
          logits: pattern([2, 2, 4], 0.4, 2), labelSmoothing: 0.4},
   weights: T([2, 0.5], [2, 1])},
  {tag: 'softmaxCrossEntropy/large_logits', fn: 'softmaxCrossEntropy', wrt: ['onehotLabels', 'logits'],
   args: {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: T([1e4, -1e4, 0, -1e4, 1e4, 1e4], [2, 3])},
   weights: T([2, 0.5], [2])},
];

const grads = [];
for (const cfg of GRAD_CONFIGS) {
  const variants = [
    ['weights=none/reduction=default', {}],
    ['weights=tensor/reduction=MEAN', {weights: cfg.weights, reduction: R.MEAN}],
    ['weights=tensor/reduction=NONE', {weights: cfg.weights, reduction: R.NONE}],
  ];
  for (const [vname, extra] of variants) {
    const named = {...cfg.args, ...extra};
    const wrt = cfg.wrt.filter((n) => named[n] !== undefined);
    const values = positional(cfg.fn, named);
    const idx = wrt.map((n) => ARG_NAMES[cfg.fn].indexOf(n));
    const f = (...xs) => {
      const v = values.slice();
      idx.forEach((j, k) => { v[j] = xs[k]; });
      return call(cfg.fn, v);
    };
    grads.push({
      name: `${cfg.tag}/${vname}`,
      fn: cfg.fn,
      args: encodeArgs(cfg.fn, values),
      wrt,
      expected: tf.grads(f)(idx.map((j) => values[j])).map(encodeTensor),
    });
  }
}

// ------------------------------------------------------------------------------------------------
// Errors

const errors = [];
function recordError(name, fn, named) {
  const values = positional(fn, named);
  let message = null;
  try {
    call(fn, values);
  } catch (e) {
    message = e.message;
  }
  if (message === null) throw new Error(`${name}: expected tfjs to throw`);
  errors.push({name, fn, args: encodeArgs(fn, values), message});
}

const PAIR_FNS = Object.keys(ARG_NAMES).filter((fn) => fn !== 'computeWeightedLoss');
for (const fn of PAIR_FNS) {
  const [a, b] = ARG_NAMES[fn];
  const extra = fn === 'cosineDistance' ? {axis: -1} : {};
  recordError(`${fn}/shape_mismatch/2_vs_3`, fn, {[a]: T([1, 0], [2]), [b]: T([1, 2, 3], [3]), ...extra});
  recordError(`${fn}/shape_mismatch/2x3_vs_3x2`, fn, {[a]: labels23, [b]: preds23.reshape([3, 2]), ...extra});
  recordError(`${fn}/shape_mismatch/scalar_vs_1`, fn, {[a]: T([1], []), [b]: T([1], [1]), ...extra});
}
for (const reduction of [7, -1, 4, 1.5, 'mean', 'NONE']) {
  recordError(`absoluteDifference/unknown_reduction/${reduction}`, 'absoluteDifference',
              {labels: labels23, predictions: preds23, reduction});
  recordError(`computeWeightedLoss/unknown_reduction/${reduction}`, 'computeWeightedLoss',
              {losses: labels23, weights: w23, reduction});
}
recordError('softmaxCrossEntropy/unknown_reduction/7', 'softmaxCrossEntropy',
            {onehotLabels: T([0, 1, 0, 1, 0, 0], [2, 3]), logits: preds23, reduction: 7});
recordError('meanSquaredError/shape_mismatch_before_reduction', 'meanSquaredError',
            {labels: T([1, 0], [2]), predictions: T([1, 2, 3], [3]), reduction: 7});
recordError('computeWeightedLoss/weights_not_broadcastable', 'computeWeightedLoss',
            {losses: labels23, weights: T([1, 2], [2])});
recordError('softmaxCrossEntropy/rank1_label_smoothing', 'softmaxCrossEntropy',
            {onehotLabels: T([0, 0, 1, 0], [4]), logits: T([0.5, -1, 2, 0], [4]), labelSmoothing: 0.1});

// ------------------------------------------------------------------------------------------------

const out = {
  generator: 'tests/reference/gen_losses.js',
  tfjs_version: tf.version.tfjs,
  backend: tf.getBackend(),
  reduction: Object.fromEntries(REDUCTIONS),
  arg_names: ARG_NAMES,
  cases,
  grads,
  errors,
};
// One case per line: small diffs when tfjs or a case changes, and still a plain JSON file.
const lines = Object.entries(out).map(([k, v]) => {
  const body = Array.isArray(v) ? `[\n  ${v.map((x) => JSON.stringify(x)).join(',\n  ')}\n ]`
                                : JSON.stringify(v);
  return ` ${JSON.stringify(k)}: ${body}`;
});
fs.writeFileSync(OUT, `{\n${lines.join(',\n')}\n}\n`);
console.log(`wrote ${OUT}: ${cases.length} cases, ${grads.length} gradient cases, ` +
            `${errors.length} error cases (tfjs ${tf.version.tfjs}, backend ${tf.getBackend()})`);
