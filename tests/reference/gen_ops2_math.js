#!/usr/bin/env node
// Generates tests/reference/ops2_math.json: the ops of OPS2.md's tables "Unary math",
// "Binary", "Reductions and scans", "Creation", "Random" and "Math, sparse, ragged" as the
// REAL TensorFlow.js 4.22 runs them (pure-JS CPU backend): values, dtypes, shapes, gradients of
// sum(op(...) * w), error messages, method forms, and the law of the random draws.
//
// Run from the repo root:   node tests/reference/gen_ops2_math.js
// The output is deterministic. Layout as tests/reference/gen_ops.js's (see opcases.js), plus:
//   contract: {name, op, args, expected, tfjs}  int32 inputs of transcendental ops: `expected`
//             is tfjs's result on the float32 cast of the input (OPS2.md's contract), `tfjs` what
//             tfjs 4.22 itself gives (truncated int32)
//   methods:  {name, method, args, expected}     x.<method>(...rest) on args[0]
//   eager_only: [op]   ops whose result's shape depends on their inputs' values
// Replayed by tests/test_ops2_math.py (and tests/test_ops_transforms.py).
'use strict';

const path = require('path');
const {tf, encode, call, Recorder, inputs, writeFixture} = require('./opcases');

const OUT = path.join(__dirname, 'ops2_math.json');

const GROUPS = {
  unary: ['acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'cosh', 'sinh', 'tan', 'erf', 'expm1',
          'log1p', 'logSigmoid', 'reciprocal', 'rsqrt', 'ceil', 'floor', 'round', 'relu6', 'selu',
          'step', 'isNaN', 'isInf', 'isFinite'],
  binary: ['atan2', 'divNoNan', 'floorDiv', 'mod', 'logicalXor', 'bitwiseAnd', 'prelu'],
  scans: ['all', 'any', 'euclideanNorm', 'norm', 'cumsum', 'cumprod'],
  creation: ['eye', 'tensor5d', 'tensor6d', 'complex', 'real', 'imag', 'clone', 'diag', 'meshgrid',
             'cosineWindow', 'enclosingPowerOfTwo'],
  random: ['rand', 'randomGamma', 'randomStandardNormal', 'randomUniformInt', 'dropout'],
  math: ['math.confusionMatrix', 'sparse.sparseFillEmptyRows', 'sparse.sparseReshape',
         'sparse.sparseSegmentSum', 'sparse.sparseSegmentMean', 'raggedGather', 'raggedRange',
         'raggedTensorToTensor'],
};
const EAGER_ONLY = ['sparse.sparseFillEmptyRows', 'sparse.sparseReshape', 'sparse.sparseSegmentSum',
                    'sparse.sparseSegmentMean', 'raggedGather', 'raggedRange', 'raggedTensorToTensor'];

const {R, T, I, B} = inputs(20260202);
const recorder = new Recorder();
const val = recorder.val.bind(recorder);
const err = recorder.err.bind(recorder);
const rnd = recorder.rnd.bind(recorder);
const meth = recorder.meth.bind(recorder);

// int32 input, float32 contract: tfjs's value on the float32 cast, and what tfjs itself gives.
const contract = [];
function asFloat(op, name, args) {
  const cast = args.map((a) => (a instanceof tf.Tensor && a.dtype === 'int32' ? tf.cast(a, 'float32') : a));
  contract.push({name: `${op}/${name}`, op, args: args.map(encode), expected: encode(call(op, cast)),
                 tfjs: encode(call(op, args))});
}

// A named JS callback (the Python test maps the name to a callable).
function named(name, fn) {
  fn.fixtureName = name;
  return fn;
}

// -- unary math
const UNIT = ['acos', 'asin', 'atanh'];  // domain (-1, 1)
for (const op of GROUPS.unary) {
  let x;
  if (UNIT.includes(op)) x = R([2, 3], -0.9, 0.9);
  else if (op === 'acosh') x = R([2, 3], 1.1, 4);
  else if (['rsqrt', 'log1p'].includes(op)) x = R([2, 3], 0.1, 3);
  else if (op === 'tan') x = R([2, 3], -1.2, 1.2);
  else if (['relu6'].includes(op)) x = R([2, 4], -3, 8);
  else if (['ceil', 'floor', 'round'].includes(op)) x = T([0.3, 1.7, -1.2, -2.6, 2.4, 5.9], [2, 3]);
  else x = R([2, 3]);
  val(op, 'float32', [x]);
}
val('acos', 'list', [[0.5, -0.25]]);
for (const op of ['acos', 'sinh', 'erf', 'log1p', 'reciprocal', 'acosh', 'asin', 'asinh', 'atan',
                  'atanh', 'expm1', 'logSigmoid', 'selu']) {
  asFloat(op, 'int32', [I(op === 'acosh' ? [1, 2, 4] : (UNIT.includes(op) ? [0, 1, -1] : [1, 2, 4]), [3])]);
}
for (const op of ['tan', 'ceil', 'floor', 'rsqrt', 'cosh']) {
  err(op, 'int32', [I([1, 2], [2])], 'TypeError');
}
err('log1p', 'not_tensor_like', [{}], 'TypeError');
val('round', 'halves_to_even', [[0.5, 1.5, 2.5, -0.5, -1.5]]);
val('round', 'int32', [I([3, -2], [2])]);
val('relu6', 'int32', [I([-3, 2, 9], [3])]);
val('step', 'alpha', [T([-1.5, 0, 2.5, 0.5], [4]), 0.25]);
val('step', 'int32', [I([-2, 0, 3], [3])]);
val('step', 'nan_stays_nan', [[NaN, 1, -1]]);
val('isNaN', 'special', [[NaN, 1, Infinity, -Infinity]]);
val('isNaN', 'int32', [I([1, 2], [2])]);
val('isInf', 'special', [[NaN, 1, Infinity, -Infinity]]);
val('isFinite', 'special', [[NaN, 1, Infinity, -Infinity]]);

// -- binary
const a23 = R([2, 3]);
const b23 = R([2, 3], 0.3, 2);
val('atan2', 'float32', [a23, R([2, 3])]);
val('atan2', 'broadcast', [a23, R([3])]);
asFloat('atan2', 'int32', [I([1, -2, 3], [3]), I([2, 2, -1], [3])]);
err('atan2', 'shapes', [R([2, 3]), R([2])], 'ValueError');
val('divNoNan', 'float32', [a23, T([0.5, 0, -2, 1.5, 0, 4], [2, 3])], {grad: false});
val('divNoNan', 'int32', [I([7, -7, 3, 5], [4]), I([2, 0, 2, -2], [4])]);
val('divNoNan', 'broadcast', [a23, T([0, 2, -0.5], [3])], {grad: false});
val('floorDiv', 'float32', [T([7.5, -7, 3.2, -0.5], [4]), T([2, 2, -1.5, 4], [4])]);
val('floorDiv', 'int32', [I([7, -7, 6, -1], [4]), I([2, 2, -4, 3], [4])]);
val('floorDiv', 'by_zero', [T([5, -5, 0], [3]), T([0, 0, 0], [3])]);
val('divNoNan', 'zero_by_zero', [[0, 1, -2], [0, 0, 4]]);
val('mod', 'float32', [T([5.5, -7.25, 7.5, 2.25], [4]), T([3, 3, -2, 1.5], [4])]);
val('mod', 'int32', [I([-7, 7, 7, -7], [4]), I([3, -3, 3, -3], [4])]);
val('mod', 'broadcast', [R([2, 3], 0.1, 5), T([1.5], [1])]);
val('logicalXor', 'bools', [B([true, true, false, false], [4]), B([true, false, true, false], [4])]);
val('logicalXor', 'broadcast_lists', [[[1], [0]], [true, false, true]]);
err('logicalXor', 'float32', [T([1, 0], [2]), B([true, false], [2])], 'TypeError');
val('bitwiseAnd', 'int32', [I([12, 7, -1, 5], [4]), I([10, 3, 6, 0], [4])]);
err('bitwiseAnd', 'float32', [T([1, 2], [2]), T([1, 2], [2])], 'TypeError');
err('bitwiseAnd', 'shapes', [I([1, 2], [2]), I([1], [1])], 'ValueError');
val('prelu', 'float32', [R([2, 3]), R([2, 3], 0.05, 0.5)]);
val('prelu', 'broadcast_alpha', [R([2, 3]), T([0.1, 0.2, 0.3], [3])]);

// -- reductions and scans
const bools = B([true, false, true, true, true, false], [2, 3]);
for (const op of ['all', 'any']) {
  val(op, 'all_axes', [bools]);
  val(op, 'axis_keep_dims', [bools, 1, true]);
  val(op, 'list', [[[1, 0], [1, 1]], 0]);
  err(op, 'float32', [T([1, 0], [2])], 'TypeError');
}
const r234 = R([2, 3, 4]);
val('euclideanNorm', 'all', [r234]);
val('euclideanNorm', 'axis_keep_dims', [r234, [0, 2], true]);
err('euclideanNorm', 'int32', [I([3, 4], [2])], 'TypeError');
const m34 = R([3, 4]);
val('norm', 'default', [m34]);
val('norm', 'vector_1', [R([5]), 1]);
val('norm', 'vector_inf', [R([5]), Infinity]);
val('norm', 'vector_neg_inf_axis', [m34, -Infinity, 1]);
val('norm', 'vector_2_keep_dims', [m34, 2, 0, true]);
val('norm', 'fro', [m34, 'fro', [0, 1]]);
val('norm', 'matrix_1', [m34, 1, [0, 1]]);
val('norm', 'matrix_inf', [m34, Infinity, [0, 1]]);
err('norm', 'nuc', [m34, 'nuc', [0, 1]], 'ValueError');
const x34 = R([3, 4], 0.5, 1.5);
for (const op of ['cumsum', 'cumprod']) {
  val(op, 'rank1', [R([5], 0.5, 1.5)]);
  // tfjs's cumsum gradient along axis 0 of rank >= 2 has the transposed shape; cumprod has none
  val(op, 'default_axis_0', [x34], {grad: false});
  val(op, 'axis_1_exclusive', [x34, 1, true], {grad: op === 'cumsum'});
  val(op, 'axis_1_reverse', [x34, 1, false, true], {grad: op === 'cumsum'});
  val(op, 'int32', [I([1, 2, 3, -4], [4])]);
}
val('cumsum', 'exclusive_reverse', [R([5]), 0, true, true]);
val('cumprod', 'exclusive_reverse', [R([4], 0.5, 1.5), 0, true, true], {grad: false});

// -- creation
val('eye', 'square', [3]);
val('eye', 'rect_int32', [2, 3, undefined, 'int32']);
val('eye', 'batch', [2, 2, [2, 1]]);
val('tensor5d', 'flat', [[1, 2, 3, 4], [1, 1, 2, 1, 2]]);
val('tensor5d', 'nested', [[[[[[1.5]]]]]]);
err('tensor5d', 'rank', [[[1, 2]]], 'ValueError');
val('tensor6d', 'int32', [[1, 2, 3, 4, 5, 6], [1, 1, 1, 2, 3, 1], 'int32']);
val('complex', 'tensors', [R([2, 2]), R([2, 2])]);
val('complex', 'lists', [[1, 2], [3, -4]]);
err('complex', 'shapes', [R([2]), R([3])], 'ValueError');
const z = tf.complex(R([2, 3]), R([2, 3]));
val('real', 'complex64', [z]);
val('imag', 'complex64', [z]);
val('clone', 'float32', [R([2, 2])]);
val('clone', 'int32', [I([1, 2, 3], [3])]);
val('diag', 'rank1', [R([3])], {grad: false});
val('diag', 'rank2', [R([2, 2])], {grad: false});
val('meshgrid', 'xy', [R([3]), R([2])]);
val('meshgrid', 'ij', [R([3]), R([2]), {indexing: 'ij'}]);
val('cosineWindow', 'even_and_odd', [4, 0.5, 0.5]);
val('cosineWindow', 'odd', [5, 0.54, 0.46]);
val('enclosingPowerOfTwo', 'five', [5]);
val('enclosingPowerOfTwo', 'power', [16]);

// -- random
val('rand', 'constant', [[2, 3], named('two_and_a_half', () => 2.5)]);
val('rand', 'int32', [[4], named('two_and_a_half', () => 2.5), 'int32']);
rnd('randomGamma', 'alpha_2_beta_half', [[4000], 2, 0.5, 'float32', 7]);
rnd('randomGamma', 'default_beta', [[4000], 3, undefined, undefined, 8]);
rnd('randomGamma', 'int32', [[4000], 4, 2, 'int32', 9]);
rnd('randomGamma', 'small_alpha', [[4000], 0.5, 1, 'float32', 10]);
rnd('randomStandardNormal', 'float32', [[4000], 'float32', 11]);
rnd('randomStandardNormal', 'default_dtype', [[50, 80], undefined, 12]);
rnd('randomUniformInt', 'positive', [[4000], 2, 9, 13]);
rnd('randomUniformInt', 'negative_minval', [[4000], -3, 5, 14]);
rnd('randomUniformInt', 'rank2', [[40, 100], 0, 2, 15]);
val('dropout', 'rate_zero', [R([2, 3]), 0]);
rnd('dropout', 'ones_rate_quarter', [tf.ones([4000]), 0.25, undefined, 16]);
rnd('dropout', 'noise_shape', [tf.ones([200, 20]), 0.5, [200, 1], 17]);

// -- math, sparse, ragged
val('math.confusionMatrix', 'three_classes', [I([0, 1, 2, 1, 0], [5]), I([0, 2, 2, 1, 1], [5]), 3]);
val('math.confusionMatrix', 'lists', [[0, 1, 1], [1, 1, 0], 2]);
err('math.confusionMatrix', 'lengths', [I([0, 1], [2]), I([0], [1]), 2], 'ValueError');
val('sparse.sparseFillEmptyRows', 'rows',
    [I([0, 0, 1, 0, 1, 3, 2, 0, 3, 1], [5, 2]), R([5]), I([5, 6], [2]), -1]);
val('sparse.sparseReshape', 'flatten',
    [I([0, 0, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 1, 2, 3], [5, 3]), I([2, 3, 6], [3]), I([9, -1], [2])]);
const data = R([4, 3]);
val('sparse.sparseSegmentSum', 'segments', [data, I([0, 1, 3, 2], [4]), I([0, 0, 1, 1], [4])], {grad: false});
val('sparse.sparseSegmentSum', 'gaps', [R([3, 2]), I([0, 2, 1], [3]), I([0, 2, 2], [3])], {grad: false});
err('sparse.sparseSegmentSum', 'indices_rank', [data, I([0, 1], [1, 2]), I([0, 0], [2])], 'ValueError');
val('sparse.sparseSegmentMean', 'segments', [data, I([0, 1, 3, 2, 0], [5]), I([0, 0, 1, 1, 1], [5])], {grad: false});
val('raggedGather', 'rank1',
    [[I([0, 2, 3, 3, 6], [5])], R([6]), I([3, 0, 2], [3]), 1]);
val('raggedRange', 'int32', [I([0, 5, 8], [3]), I([3, 3, 12], [3]), I([1, -1, 2], [3])]);
val('raggedRange', 'float32', [T([0, 1.5], [2]), T([2, 0], [2]), T([0.5, -0.5], [2])]);
val('sparse.sparseFillEmptyRows', 'unordered_rows',
    [I([3, 0, 1, 1, 1, 0, 0, 2], [4, 2]), T([1, 2, 3, 4], [4]), I([5, 3], [2]), 9]);
val('sparse.sparseReshape', 'rank3', [I([0, 1, 1, 2], [2, 2]), I([2, 3], [2]), I([3, 1, -1], [3])]);
val('sparse.sparseSegmentMean', 'gaps', [R([3, 2]), I([0, 2, 1], [3]), I([1, 1, 3], [3])], {grad: false});
val('raggedGather', 'two_ragged_dims',
    [[I([0, 2, 2, 3], [4]), I([0, 2, 3, 6], [4])], R([6]), I([2, 0], [2]), 2]);
val('raggedGather', 'rank2_indices', [[I([0, 2, 3, 3, 6], [5])], R([6]), I([1, 0, 3, 3], [2, 2]), 2]);
val('raggedRange', 'scalar_broadcast', [I([0], []), I([3, 5], [2]), I([2], [])]);
val('raggedTensorToTensor', 'truncated',
    [[2, 2], R([6]), 0.5, [I([0, 2, 2, 6], [4])], ['ROW_SPLITS']], {grad: false});
val('raggedTensorToTensor', 'value_rowids',
    [[3, 3], R([4]), 0, [I([3], []), I([0, 0, 2, 2], [4])], ['FIRST_DIM_SIZE', 'VALUE_ROWIDS']],
    {grad: false});
val('raggedTensorToTensor', 'two_levels',
    [[2, 2, 3], R([6]), 0, [I([0, 2, 3], [3]), I([0, 2, 3, 6], [4])], ['ROW_SPLITS', 'ROW_SPLITS']],
    {grad: false});
val('raggedTensorToTensor', 'row_splits',
    [[3, 4], R([6]), 0, [I([0, 2, 2, 6], [4])], ['ROW_SPLITS']], {grad: false});

// -- method forms
const xm = R([2, 3], 0.2, 0.9);
for (const method of ['acos', 'acosh', 'asin', 'asinh', 'atan', 'atanh', 'ceil', 'cosh', 'erf',
                      'expm1', 'floor', 'isFinite', 'isInf', 'isNaN', 'log1p', 'logSigmoid',
                      'reciprocal', 'relu6', 'round', 'rsqrt', 'selu', 'sinh', 'step', 'tan',
                      'clone']) {
  meth(method, 'float32', [method === 'acosh' ? tf.add(xm, 1) : xm]);
}
meth('step', 'alpha', [T([-1, 0, 1], [3]), 0.5]);
for (const method of ['atan2', 'divNoNan', 'floorDiv', 'mod', 'prelu']) meth(method, 'tensor', [xm, R([3], 0.2, 0.9)]);
meth('logicalXor', 'bools', [bools, B([true, false, false], [3])]);
meth('all', 'axis', [bools, 1]);
meth('any', 'axis_keep_dims', [bools, 0, true]);
meth('euclideanNorm', 'axis', [m34, 1]);
meth('norm', 'ord_axis', [m34, 1, 0]);
meth('cumsum', 'default_axis_0', [x34]);
meth('cumsum', 'axis_exclusive_reverse', [x34, 1, true, true]);
meth('cumprod', 'axis', [x34, 1]);

// ------------------------------------------------------------------------------------------------

const ops = Object.entries(GROUPS).flatMap(([group, names]) => names.map((name) => ({name, group})));
const covered = recorder.covered();
contract.forEach((c) => covered.add(c.op));
const missing = ops.filter((o) => !covered.has(o.name)).map((o) => o.name);
if (ops.length !== 61 || missing.length) throw new Error(`op table: ${ops.length} ops, missing ${missing}`);
writeFixture(OUT, {
  generator: 'tests/reference/gen_ops2_math.js',
  tfjs_version: tf.version.tfjs,
  backend: tf.getBackend(),
  ops,
  eager_only: EAGER_ONLY,
  cases: recorder.cases,
  contract,
  errors: recorder.errors,
  random: recorder.random,
  methods: recorder.methods,
});
console.log(`wrote ${OUT}: ${recorder.cases.length} value cases, ${contract.length} contract, ` +
            `${recorder.errors.length} errors, ${recorder.random.length} random, ` +
            `${recorder.methods.length} methods`);
