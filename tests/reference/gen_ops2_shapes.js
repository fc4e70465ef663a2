#!/usr/bin/env node
// Generates tests/reference/ops2_shapes.json: OPS2.md's groups "Shapes, slicing, indexing",
// "Sorting, searching, counting, sets", "Async" and "Linear algebra, einsum, RNN cells" as the
// real tfjs 4.22 runs them (values, dtypes, shapes, gradients of sum(op(...) * w), errors and
// method forms). Layout as gen_ops.js (see opcases.js for the encodings), plus:
//   ops:       [{name, group, eager?}]   eager: the op is eager only (async, or the shape of
//              its result depends on values); test_ops_transforms.py checks those eagerly and
//              that they refuse to trace
//   async:     {name, op, args, expected} | {name, op, args, error, message}: the awaited
//              result, or the message of the rejected promise
//   functions: {name: {op, bound}}   a JS callback that is `tf[op]` with its leading arguments
//              bound (op_fixtures.py rebuilds it as functools.partial)
//   methods:   {name, method, args, expected}: `args[0].<method>(...rest)`
//   divergences: {name, op, args, tfjs}: where the contract differs from tfjs on purpose
//
// Run from the repo root:   node tests/reference/gen_ops2_shapes.js   (deterministic output)
'use strict';

const path = require('path');
const {tf, encode, Recorder, inputs, writeFixture} = require('./opcases');

const OUT = path.join(__dirname, 'ops2_shapes.json');

const GROUPS = {
  shapes: ['addN', 'broadcastTo', 'broadcastArgs', 'concat1d', 'concat2d', 'concat3d', 'concat4d',
           'batchToSpaceND', 'spaceToBatchND', 'depthToSpace', 'ensureShape', 'gatherND',
           'mirrorPad', 'pad1d', 'pad2d', 'pad3d', 'pad4d', 'reverse', 'reverse1d', 'reverse2d',
           'reverse3d', 'reverse4d', 'slice1d', 'slice2d', 'slice3d', 'slice4d', 'stridedSlice',
           'scatterND', 'tensorScatterUpdate', 'sparseToDense', 'unsortedSegmentSum'],
  sorting: ['topk', 'unique', 'lowerBound', 'upperBound', 'searchSorted', 'bincount',
            'denseBincount'],
  async: ['whereAsync', 'setdiff1dAsync', 'booleanMaskAsync', 'inTopKAsync'],
  linalg: ['einsum', 'basicLSTMCell', 'multiRNNCell', 'linalg.bandPart', 'linalg.gramSchmidt',
           'linalg.qr'],
};
const EAGER = new Set(['broadcastArgs', 'unique', 'whereAsync', 'setdiff1dAsync',
                       'booleanMaskAsync', 'inTopKAsync']);

const {R, T, I, B} = inputs(20250601);
const recorder = new Recorder();
const val = recorder.val.bind(recorder);
const err = recorder.err.bind(recorder);
const meth = recorder.meth.bind(recorder);
const functions = {};
const asyncCases = [];

// A JS callback that is tf[op] with leading arguments bound, recorded for the Python side.
function bound(name, op, args) {
  functions[name] = {op, bound: args.map(encode)};
  const fn = (...rest) => tf[op](...args, ...rest);
  fn.fixtureName = name;
  return fn;
}

// -- Shapes, slicing, indexing
val('addN', 'three', [[R([2, 3]), R([2, 3]), R([2, 3])]]);
val('addN', 'one', [[R([3])]]);
val('broadcastTo', 'rank_up', [R([3]), [2, 3]]);
val('broadcastTo', 'ones_axes', [R([2, 1]), [2, 2, 3]]);
err('broadcastTo', 'incompatible', [R([2]), [3, 3]], 'ValueError');
val('broadcastArgs', 'shapes', [I([2, 1, 3], [3]), I([4, 1], [2])]);
val('concat1d', 'two', [[R([2]), R([3])]]);
val('concat2d', 'axis1', [[R([2, 1]), R([2, 2])], 1]);
val('concat3d', 'axis0', [[R([1, 2, 2]), R([2, 2, 2])], 0]);
val('concat4d', 'axis_last', [[R([1, 1, 2, 1]), R([1, 1, 2, 2])], 3]);
val('batchToSpaceND', 'no_crops', [R([4, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]]]);
val('batchToSpaceND', 'crops', [R([4, 2, 2, 1]), [2, 2], [[0, 1], [1, 0]]]);
val('spaceToBatchND', 'plain', [R([1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]]);
val('spaceToBatchND', 'padded', [R([2, 2, 3, 2]), [2, 2], [[1, 1], [0, 1]]]);
val('depthToSpace', 'block2', [R([1, 1, 2, 8]), 2], {grad: false});
err('depthToSpace', 'block1', [R([1, 1, 1, 4]), 1], 'ValueError');
val('ensureShape', 'exact', [R([2, 3]), [2, 3]]);
val('ensureShape', 'null_dim', [R([2, 3]), [null, 3]]);
err('ensureShape', 'mismatch', [R([2]), [3]], 'ValueError');
val('gatherND', 'elements', [R([3, 3]), I([0, 1, 2, 0], [2, 2])], {grad: false});
val('gatherND', 'rows', [R([3, 2, 2]), I([2, 0], [2, 1])], {grad: false});
err('gatherND', 'float_indices', [R([3, 3]), T([0, 1], [1, 2])], 'TypeError');
val('mirrorPad', 'reflect', [R([2, 3]), [[1, 1], [2, 1]], 'reflect'], {grad: false});
val('mirrorPad', 'symmetric', [R([3]), [[2, 3]], 'symmetric'], {grad: false});
err('mirrorPad', 'too_wide', [R([2]), [[2, 0]], 'reflect'], 'ValueError');
val('pad1d', 'before_after', [R([3]), [1, 2], 0.5]);
val('pad2d', 'default_zero', [R([2, 2]), [[1, 0], [0, 1]]]);
val('pad3d', 'value', [R([1, 2, 1]), [[0, 1], [1, 0], [1, 1]], -1]);
val('pad4d', 'value', [R([1, 1, 2, 1]), [[0, 0], [1, 0], [0, 1], [0, 0]], 2]);
val('reverse', 'every_axis', [R([2, 3])]);
val('reverse', 'axis1', [R([2, 3]), 1]);
val('reverse', 'axes_list', [R([2, 2, 2]), [0, 2]]);
val('reverse1d', 'plain', [R([4])]);
val('reverse2d', 'axis0', [R([2, 3]), 0]);
val('reverse3d', 'axis_neg', [R([2, 2, 2]), -1]);
val('reverse4d', 'axes', [R([1, 2, 2, 2]), [1, 3]]);
val('slice1d', 'middle', [R([5]), 1, 3]);
val('slice2d', 'block', [R([3, 3]), [1, 0], [2, 2]]);
val('slice3d', 'to_end', [R([2, 3, 2]), [0, 1, 0], [-1, 2, 1]]);
val('slice4d', 'block', [R([1, 2, 3, 2]), [0, 1, 1, 0], [1, 1, 2, 2]]);
val('stridedSlice', 'step2', [R([6]), [0], [6], [2]], {grad: false});
val('stridedSlice', 'negative_stride', [R([3, 4]), [2, 3], [0, 0], [-1, -2]], {grad: false});
val('stridedSlice', 'masks', [R([3, 4]), [1, 1], [2, 3], [1, 1], 1, 2], {grad: false});
val('stridedSlice', 'shrink_newaxis', [R([3, 4]), [1, 0, 1], [2, 0, 3], [1, 1, 1], 0, 0, 0, 2, 1],
    {grad: false});
val('stridedSlice', 'ellipsis', [R([2, 3, 4]), [0, 1], [0, 3], [1, 2], 0, 0, 1], {grad: false});
err('stridedSlice', 'zero_stride', [R([4]), [0], [4], [0]], 'ValueError');
val('scatterND', 'duplicates_add', [I([0, 2, 0], [3, 1]), R([3]), [4]], {grad: false});
val('scatterND', 'rows', [I([1, 0], [2, 1]), R([2, 3]), [3, 3]], {grad: false});
err('scatterND', 'count_mismatch', [I([0, 1], [2, 1]), R([3]), [4]], 'ValueError');
val('tensorScatterUpdate', 'elements', [R([4]), I([1, 3], [2, 1]), R([2])], {grad: false});
val('tensorScatterUpdate', 'rows', [R([3, 2]), I([2, 0], [2, 1]), R([2, 2])], {grad: false});
val('sparseToDense', 'vector', [I([0, 3], [2]), R([2]), [5]], {grad: false});
val('sparseToDense', 'matrix_default', [I([0, 1, 2, 0], [2, 2]), R([2]), [3, 2], 0.25],
    {grad: false});
val('unsortedSegmentSum', 'vector', [R([5]), I([1, 0, 1, 2, 0], [5]), 3]);
val('unsortedSegmentSum', 'rows', [R([3, 2]), I([2, 2, 0], [3]), 4]);
err('unsortedSegmentSum', 'float_ids', [R([2]), T([0, 1], [2]), 2], 'TypeError');

// -- Sorting, searching, counting, sets
val('topk', 'default_k', [R([2, 4])]);
val('topk', 'k3', [R([5]), 3]);
val('topk', 'int32', [I([4, -1, 7, 3, 0, 9], [2, 3]), 2]);
err('topk', 'k_too_big', [R([3]), 4], 'ValueError');
val('unique', 'floats', [T([3, 1, 3, 2, 1], [5])]);
val('unique', 'int32', [I([5, 5, -2, 7, -2], [5])]);
val('unique', 'rows', [T([1, 2, 3, 4, 1, 2], [3, 2])]);
val('lowerBound', 'vector', [T([1, 2, 2, 4], [4]), T([0, 2, 3, 5], [4])]);
val('lowerBound', 'batched', [T([1, 3, 5, 2, 4, 6], [2, 3]), T([3, 6, 1, 4], [2, 2])]);
val('upperBound', 'vector', [T([1, 2, 2, 4], [4]), T([0, 2, 3, 5], [4])]);
val('searchSorted', 'left', [T([1, 2, 2, 4], [4]), T([2, 4.5], [2])]);
val('searchSorted', 'right', [T([1, 2, 2, 4], [4]), T([2, 4.5], [2]), 'right']);
err('searchSorted', 'leading_mismatch', [T([1, 2, 3, 4], [2, 2]), T([1, 2, 3], [3, 1])],
    'ValueError');
val('bincount', 'weights', [I([1, 3, 1, 0, 5], [5]), R([5]), 4], {grad: false});
val('bincount', 'counts', [I([1, 3, 1, 0], [4]), T([], [0]), 5]);
val('denseBincount', 'rank2_weights', [I([0, 1, 1, 2, 2, 2], [2, 3]), R([2, 3]), 3],
    {grad: false});
val('denseBincount', 'binary_rank2', [I([0, 1, 1, 3, 3, 3], [2, 3]), T([], [0]), 4, true]);
// tfjs's CPU kernel ignores binaryOutput for a rank-1 x (it counts); the contract clips
recorder.diverge('denseBincount', 'binary_rank1_counts', [I([0, 1, 1, 3], [4]), T([], [0]), 4, true]);

// -- Linear algebra, einsum, RNN cells
val('einsum', 'matmul', ['ij,jk->ik', R([2, 3]), R([3, 2])], {grad: false});
val('einsum', 'batch_dot', ['bi,bi->b', R([2, 3]), R([2, 3])], {grad: false});
val('einsum', 'transpose', ['bij->bji', R([2, 2, 3])], {grad: false});
val('einsum', 'outer', ['i,j->ij', R([2]), R([3])], {grad: false});
err('einsum', 'no_arrow', ['ij,jk', R([2, 3]), R([3, 2])], 'ValueError');
const kernel0 = R([5, 8], -0.5, 0.5);
const bias0 = R([8], -0.5, 0.5);
const kernel1 = R([4, 8], -0.5, 0.5);
const bias1 = R([8], -0.5, 0.5);
const forget = tf.scalar(1.0);
val('basicLSTMCell', 'one_step', [forget, kernel0, bias0, R([2, 3]), R([2, 2]), R([2, 2])]);
const cell0 = bound('lstmCell0', 'basicLSTMCell', [forget, kernel0, bias0]);
const cell1 = bound('lstmCell1', 'basicLSTMCell', [forget, kernel1, bias1]);
val('multiRNNCell', 'two_cells', [[cell0, cell1], R([2, 3]), [R([2, 2]), R([2, 2])],
                                  [R([2, 2]), R([2, 2])]]);
val('linalg.bandPart', 'tridiagonal', [R([3, 4]), 1, 1], {grad: false});
val('linalg.bandPart', 'lower_all', [R([2, 3, 3]), -1, 0], {grad: false});
err('linalg.bandPart', 'too_many_lower', [R([3, 3]), 4, 0], 'ValueError');
val('linalg.gramSchmidt', 'matrix', [R([2, 3])]);
val('linalg.gramSchmidt', 'list', [[R([3]), R([3])]]);
val('linalg.qr', 'tall_reduced', [R([3, 2])], {grad: false});
val('linalg.qr', 'tall_full', [R([3, 2]), true], {grad: false});
val('linalg.qr', 'batched_square', [R([2, 2, 2])], {grad: false});
err('linalg.qr', 'rank1', [R([3])], 'ValueError');

// -- Method forms (tfjs's Tensor prototype), replayed once tf.Tensor has them
meth('broadcastTo', 'rank_up', [R([3]), [2, 3]]);
meth('batchToSpaceND', 'crops', [R([4, 2, 2, 1]), [2, 2], [[0, 1], [1, 0]]]);
meth('spaceToBatchND', 'plain', [R([1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]]);
meth('depthToSpace', 'block2', [R([1, 1, 2, 8]), 2]);
meth('mirrorPad', 'reflect', [R([2, 3]), [[1, 1], [2, 1]], 'reflect']);
meth('reverse', 'default', [R([2, 3])]);
meth('stridedSlice', 'masks', [R([3, 4]), [1, 1], [2, 3], [1, 1], 1, 2]);
meth('topk', 'k2', [R([2, 4]), 2]);
meth('unique', 'default', [T([3, 1, 3, 2], [4])]);
meth('unsortedSegmentSum', 'vector', [R([4]), I([1, 0, 1, 0], [4]), 2]);

// -- Async ops: the awaited result or the rejected promise's message
async function awaited(op, name, args, error = null) {
  const entry = {name: `${op}/${name}`, op, args: args.map(encode)};
  try {
    const out = await tf[op](...args);
    if (error) throw new Error(`${op}/${name}: expected tfjs to reject`);
    entry.expected = encode(out);
  } catch (e) {
    if (!error) throw e;
    entry.error = error;
    entry.message = e.message;
  }
  asyncCases.push(entry);
}

(async () => {
  await awaited('whereAsync', 'matrix', [B([true, false, true, true, false, false], [2, 3])]);
  await awaited('whereAsync', 'float_condition', [R([3])], 'TypeError');
  await awaited('setdiff1dAsync', 'floats', [T([4, 1, 2, 4, 3], [5]), T([4, 3], [2])]);
  await awaited('setdiff1dAsync', 'int32', [I([7, 1, 7, 0], [4]), I([1], [1])]);
  await awaited('booleanMaskAsync', 'rows', [R([3, 2]), B([true, false, true], [3])]);
  await awaited('booleanMaskAsync', 'axis1', [R([2, 3, 2]), B([false, true, true], [3]), 1]);
  await awaited('inTopKAsync', 'k1', [R([3, 4]), I([0, 1, 3], [3])]);
  await awaited('inTopKAsync', 'k2', [R([3, 4]), I([0, 1, 3], [3]), 2]);

  const covered = recorder.covered();
  asyncCases.forEach((c) => covered.add(c.op));
  const ops = Object.entries(GROUPS).flatMap(([group, names]) => names.map(
      (name) => (EAGER.has(name) ? {name, group, eager: true} : {name, group})));
  const missing = ops.filter((o) => !covered.has(o.name)).map((o) => o.name);
  if (missing.length) throw new Error(`not recorded: ${missing}`);
  writeFixture(OUT, {
    generator: 'tests/reference/gen_ops2_shapes.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    ops,
    cases: recorder.cases,
    errors: recorder.errors,
    async: asyncCases,
    functions,
    methods: recorder.methods,
    divergences: recorder.divergences,
  });
  console.log(`wrote ${OUT}: ${ops.length} ops, ${recorder.cases.length} value cases ` +
              `(${recorder.cases.filter((c) => c.grads).length} with gradients), ` +
              `${recorder.errors.length} errors, ${asyncCases.length} async, ` +
              `${recorder.methods.length} methods`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
