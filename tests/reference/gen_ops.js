#!/usr/bin/env node
// Generates tests/reference/ops.json: the 88 tfjs ops of OPS.md as the REAL TensorFlow.js runs
// them (pinned in tests/reference/package.json, pure-JS CPU backend): values, dtypes and shapes,
// gradients of sum(op(...) * w) for each float32 input, error messages, tf.print's text, and
// what the random ops, buffers and utilities return.
//
// Run from the repo root:   node tests/reference/gen_ops.js
// (after `cd tests/reference && npm install --no-audit --no-fund`). The output is deterministic.
//
// Layout of the JSON (read by tests/test_ops.py, which needs no Node):
//   ops:      [{name, group}]        the 88 tfjs names, in OPS.md's groups
//   cases:    {name, op, args, expected, grads}
//               expected: the encoded result; grads: null, or {wrt: [path], weights: [tensor],
//               expected: [tensor]}: tf.grads of sum_k sum(leaf_k * weights[k]) over the float32
//               leaves of the result, with respect to the float32 tensors at `wrt` (a path is
//               [i] for argument i, [i, j] for element j of argument i)
//   errors:   {name, op, args, error: "TypeError" | "ValueError", message}
//   random:   {name, op, args, dtype, shape, min, max}   numbers are JAX's; these are tfjs's
//   prints:   {name, args, text}      console.log(x.toString(verbose)), i.e. tf.print's output
//   buffers:  {name, args, steps: [["set", value, ...locs] | ["get", ...locs, result]], expected}
//   behaviours: {name, op, result}    the utilities' observable effects
//   divergences: {name, op, args, tfjs}   where OPS.md chooses differently from tfjs on purpose;
//               `tfjs` is what tfjs gives ({message} or {expected}); the test checks ours
// `op` is the tfjs name (`tf[op]`, or `tf.util[...]` for "util.x"). Arguments are encoded as
// {t: "tensor", dtype, shape, values} | {t: "number", v} | {t: "bool", v} | {t: "string", v} |
// {t: "null"} | {t: "undefined"} (JS undefined: the Python test passes None) |
// {t: "array", items} | {t: "typed", dtype, values} (a TypedArray) | {t: "object", fields}.
// Results: a tensor, {t: "array", items} (split, unstack) or {t: "object", fields} (moments).
// Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".
'use strict';

const path = require('path');
const {tf, num, encode, encodeTensor, Recorder, inputs, writeFixture} = require('./opcases');

const OUT = path.join(__dirname, 'ops.json');

const GROUPS = {
  creation: ['tensor', 'scalar', 'tensor1d', 'tensor2d', 'tensor3d', 'tensor4d', 'zeros', 'ones',
             'zerosLike', 'onesLike', 'fill', 'linspace', 'range', 'randomUniform', 'randomNormal',
             'truncatedNormal', 'multinomial', 'oneHot'],
  arithmetic: ['add', 'sub', 'mul', 'maximum', 'minimum', 'div', 'pow', 'squaredDifference',
               'square', 'neg', 'abs', 'sign', 'exp', 'sqrt', 'log', 'sin', 'cos', 'clipByValue'],
  reductions: ['sum', 'prod', 'mean', 'max', 'min', 'argMax', 'argMin', 'logSumExp', 'moments'],
  activations: ['relu', 'sigmoid', 'tanh', 'elu', 'softplus', 'leakyRelu', 'softmax', 'logSoftmax'],
  shapes: ['reshape', 'transpose', 'concat', 'stack', 'unstack', 'split', 'slice', 'gather',
           'expandDims', 'squeeze', 'tile', 'pad'],
  linalg: ['matMul', 'dot', 'outerProduct'],
  logic: ['equal', 'notEqual', 'greater', 'greaterEqual', 'less', 'lessEqual', 'where',
          'logicalAnd', 'logicalOr', 'logicalNot'],
  convolution: ['conv2d', 'maxPool', 'avgPool'],
  utilities: ['cast', 'buffer', 'print', 'dispose', 'nextFrame', 'util.createShuffledIndices',
              'util.shuffle'],
};

// Inputs: readable values from a fixed generator (see opcases.js).
const {R, T, I, B} = inputs(20240416);

const recorder = new Recorder({moments: false});
const {cases, errors, random, divergences} = recorder;
const val = recorder.val.bind(recorder);
const err = recorder.err.bind(recorder);
const rnd = recorder.rnd.bind(recorder);
const diverge = recorder.diverge.bind(recorder);

// -- creation
val('tensor', 'flat_with_shape', [[1, 2, 3, 4], [2, 2]]);
val('tensor', 'nested', [[[1.5, 2], [3, -4]]]);
val('tensor', 'int32_truncates', [[1.7, -1.7, 2.5], undefined, 'int32']);
val('tensor', 'bools', [[true, false, true]]);
val('tensor', 'number', [5]);
val('tensor', 'Int32Array', [new Int32Array([1, -2, 3])]);
val('tensor', 'Uint8Array', [new Uint8Array([1, 0, 255])]);
val('tensor', 'Float32Array', [new Float32Array([0.5, 1.5]), [2, 1]]);
val('tensor', 'to_bool', [[0, 2, -0.5], undefined, 'bool']);
val('tensor', 'tensor_of_shape_1', [[[1], [2]], [2, 1]]);
val('scalar', 'number', [3.5]);
val('scalar', 'bool', [true]);
val('scalar', 'int32', [3.9, 'int32']);
val('tensor1d', 'numbers', [[1, 2, 3]]);
val('tensor1d', 'int32', [[1, 2], 'int32']);
val('tensor2d', 'nested', [[[1, 2], [3, 4]]]);
val('tensor2d', 'flat_with_shape', [[1, 2, 3, 4, 5, 6], [2, 3]]);
val('tensor2d', 'Uint8Array_is_int32', [new Uint8Array([1, 0, 0, 1]), [2, 2]]);
val('tensor3d', 'nested', [[[[1], [2]], [[3], [4]]]]);
val('tensor3d', 'flat_with_shape', [[1, 2, 3, 4], [1, 2, 2]]);
val('tensor4d', 'nested', [[[[[1, 2]], [[3, 4]]]]]);
val('tensor4d', 'flat_with_shape', [[1, 2, 3, 4], [1, 1, 2, 2], 'int32']);
val('zeros', 'float32', [[2, 3]]);
val('zeros', 'int32', [[2], 'int32']);
val('zeros', 'bool', [[2], 'bool']);
val('zeros', 'empty', [[0, 3]]);
val('ones', 'float32', [[3]]);
val('ones', 'int32', [[2, 1], 'int32']);
val('ones', 'scalar', [[]]);
val('zerosLike', 'int32', [I([1, 2], [2])]);
val('zerosLike', 'list', [[[1, 2]]]);
val('onesLike', 'bool', [B([true, false], [2])]);
val('onesLike', 'float32', [R([2, 2])]);
val('fill', 'number', [[2, 2], 3]);
val('fill', 'bool', [[2], true]);
val('fill', 'int32', [[3], 1.7, 'int32']);
val('linspace', 'zero_to_one', [0, 1, 11]);
val('linspace', 'decreasing', [5, 1, 3]);
val('linspace', 'one_value', [2, 7, 1]);
val('range', 'default', [0, 5]);
val('range', 'fractional_step', [0, 2, 0.1]);
val('range', 'counts_down', [5, 0]);
val('range', 'down_by_step', [5, 0, -2]);
val('range', 'decreasing_positive_step_is_empty', [5, 0, 2]);
val('range', 'increasing_negative_step_is_empty', [0, 5, -1]);
val('range', 'int32', [0, 10, 3, 'int32']);
val('range', 'fractional_start', [0.5, 3]);
val('oneHot', 'list_parsed_as_int32', [[0, 1.7, 2], 3]);
val('oneHot', 'out_of_range_rows', [I([0, 3, -1, 2], [4]), 3]);
val('oneHot', 'on_off_values', [I([1, 0], [2]), 3, 5, -1]);
val('oneHot', 'float32', [I([1, 0], [2]), 2, 1, 0, 'float32']);
val('oneHot', 'rank2_indices', [I([0, 1, 1, 0], [2, 2]), 2]);

// -- arithmetic
const a23 = R([2, 3]);
const b23 = R([2, 3]);
const b3 = R([3]);
const i23 = I([7, -7, 3, 0, 5, -2], [2, 3]);
const j23 = I([2, 2, -2, 3, 5, 4], [2, 3]);
for (const op of ['add', 'sub', 'mul', 'maximum', 'minimum', 'div', 'squaredDifference']) {
  val(op, 'same_shape', [a23, b23]);
  val(op, 'int32', [i23, j23]);
  val(op, 'int32_and_number', [i23, 2]);
  val(op, 'number_and_tensor', [1.5, a23]);
  val(op, 'lists', [[1, 2.5], [[3], [-4]]]);
  val(op, 'broadcast', [a23, b3]);
}
val('maximum', 'int32_and_fraction', [i23, 1.5]);
val('div', 'int32_floors', [I([7, -7], [2]), I([2, 2], [2])]);
val('pow', 'float_and_int32_scalar', [R([2, 3], 0.3, 2), I([2], [])]);
val('pow', 'int32', [I([2, 3, -2], [3]), I([3, 2, 3], [3])]);
val('pow', 'floats', [R([2, 2], 0.3, 2), R([2, 2])]);
val('pow', 'broadcast', [R([2, 3], 0.3, 2), R([3])]);
for (const op of ['square', 'neg', 'abs', 'sign', 'exp', 'sin', 'cos']) {
  val(op, 'float32', [R([2, 3])]);
  val(op, 'list', [[0.5, -1.25]]);
  if (!['sin', 'cos'].includes(op)) val(op, 'int32', [I([-2, 0, 3], [3])]);
}
for (const op of ['sqrt', 'log']) {
  val(op, 'float32', [R([2, 3], 0.2, 3)]);
  val(op, 'list', [[0.5, 4]]);
}
val('clipByValue', 'float32', [R([2, 3]), -0.5, 0.75]);
val('clipByValue', 'int32', [I([-3, 0, 5], [3]), -1, 2]);
val('clipByValue', 'int32_fractional_bounds', [I([-3, 0, 5], [3]), -1.5, 2.5]);

// -- reductions
const r234 = R([2, 3, 4]);
for (const op of ['sum', 'prod', 'mean', 'max', 'min', 'logSumExp']) {
  val(op, 'all', [r234]);
  val(op, 'axis_1', [r234, 1]);
  val(op, 'axis_negative', [r234, -1]);
  val(op, 'axes_list_keep_dims', [r234, [0, 2], true]);
  val(op, 'int32', [I([1, 2, 3, 4, -5, 6], [2, 3]), 0]);
  val(op, 'list', [[[1, 2], [3, 4]]]);
}
val('sum', 'bool_is_int32', [B([true, false, true], [3])]);
val('prod', 'bool_is_int32', [B([true, true], [2])]);
val('mean', 'bool', [B([true, false, true, true], [4])]);
for (const op of ['argMax', 'argMin']) {
  val(op, 'default_axis_0', [r234]);
  val(op, 'axis_1', [r234, 1]);
  val(op, 'axis_negative', [r234, -1]);
  val(op, 'ties_first_index', [[[1, 3, 3], [3, 1, 1]], 1]);
  val(op, 'int32', [I([4, -1, 7, 2], [4])]);
}
val('moments', 'all', [r234]);
val('moments', 'axis_0', [r234, 0]);
val('moments', 'axes_keep_dims', [r234, [0, 2], true]);
val('moments', 'int32', [I([1, 2, 4, 8], [2, 2]), 1]);

// -- activations
for (const op of ['relu', 'sigmoid', 'tanh', 'elu', 'softplus', 'leakyRelu']) {
  val(op, 'float32', [R([2, 4], -4, 4)]);
  val(op, 'list', [[-1.5, 0.25]]);
}
val('relu', 'int32', [I([-2, 0, 3], [3])]);
val('leakyRelu', 'alpha', [R([2, 4]), 0.1]);
val('leakyRelu', 'int32', [I([-2, 3], [2])]);
val('softplus', 'large_and_small', [[-30, -15, -5, 5, 15, 30]]);
for (const op of ['softmax', 'logSoftmax']) {
  val(op, 'rank2', [R([2, 4], -3, 3)]);
  val(op, 'rank1', [[0.5, -1, 2]]);
  val(op, 'explicit_last_axis', [R([2, 3], -3, 3), -1]);
  val(op, 'rank3_last_axis', [R([2, 2, 3], -3, 3), 2]);
}
val('logSoftmax', 'int32', [I([1, 2, 3], [3])]);

// -- shapes
const x23 = R([2, 3]);
val('reshape', 'explicit', [x23, [3, 2]]);
val('reshape', 'implicit', [x23, [-1]]);
val('reshape', 'implicit_middle', [R([2, 2, 3]), [2, -1, 2]]);
val('reshape', 'int32', [I([1, 2, 3, 4], [4]), [2, 2]]);
val('transpose', 'default', [x23]);
val('transpose', 'perm', [r234, [1, 0, 2]]);
val('concat', 'axis_0', [[x23, R([1, 3])]]);
val('concat', 'axis_1', [[x23, R([2, 2]), R([2, 1])], 1]);
val('concat', 'axis_negative', [[x23, R([2, 1])], -1]);
val('concat', 'tensor_likes', [[[1, 2], [3]]]);
val('concat', 'single', [[x23]]);
val('stack', 'axis_0', [[x23, R([2, 3])]]);
val('stack', 'axis_1', [[R([3]), R([3]), R([3])], 1]);
val('stack', 'axis_last', [[x23, R([2, 3])], 2]);
val('unstack', 'axis_0', [x23]);
val('unstack', 'axis_1', [x23, 1]);
val('unstack', 'axis_negative', [r234, -1]);
val('split', 'count', [R([4, 2]), 2]);
val('split', 'sizes', [R([5, 2]), [2, 3]]);
val('split', 'sizes_with_implicit', [R([2, 5]), [1, -1, 2], 1]);
val('slice', 'begin_and_size', [r234, [1, 0, 1], [1, 2, 3]]);
val('slice', 'number_begin', [R([5]), 2]);
val('slice', 'number_begin_and_size', [R([5]), 1, 3]);
val('slice', 'size_minus_one', [x23, [0, 1], [-1, -1]]);
val('slice', 'short_lists', [r234, [1], [1]]);
val('gather', 'axis_0', [x23, I([1, 0, 1], [3])]);
val('gather', 'axis_1', [x23, I([2, 0], [2]), 1]);
val('gather', 'list_parsed_as_int32', [R([4]), [0, 1.7, 3]]);
val('gather', 'rank2_indices', [R([4, 2]), I([0, 3, 2, 2], [2, 2])]);
val('gather', 'batch_dims', [R([2, 3, 2]), I([2, 0, 1, 1], [2, 2]), 1, 1]);
val('gather', 'int32', [I([5, 6, 7], [3]), I([2, 2], [2])]);
val('expandDims', 'default', [x23]);
val('expandDims', 'axis_2', [x23, 2]);
val('expandDims', 'axis_negative', [x23, -1]);
val('squeeze', 'all', [R([1, 2, 1, 3])]);
val('squeeze', 'axis', [R([1, 2, 1, 3]), [2]]);
val('squeeze', 'negative_axis', [R([1, 2, 1, 3]), [-2, 0]]);
val('tile', 'rank2', [x23, [2, 1]]);
val('tile', 'rank1', [R([3]), [3]]);
val('tile', 'int32', [I([1, 2], [2]), [2]]);
val('pad', 'rank2', [x23, [[1, 0], [2, 1]]]);
val('pad', 'constant', [R([3]), [[2, 1]], 7.5]);
val('pad', 'int32', [I([1, 2], [2]), [[1, 1]], 3]);

// -- linear algebra
val('matMul', 'plain', [R([2, 3]), R([3, 4])]);
val('matMul', 'transpose_a', [R([3, 2]), R([3, 4]), true]);
val('matMul', 'transpose_b', [R([2, 3]), R([4, 3]), false, true]);
val('matMul', 'transpose_both', [R([3, 2]), R([4, 3]), true, true]);
val('matMul', 'batched', [R([2, 2, 3]), R([2, 3, 2])]);
val('matMul', 'broadcast_batch', [R([2, 2, 3]), R([3, 4])]);
val('matMul', 'int32', [I([1, 2, 3, 4], [2, 2]), I([5, 6, 7, 8], [2, 2])]);
val('dot', 'vector_vector', [R([3]), R([3])]);
val('dot', 'vector_matrix', [R([3]), R([3, 2])]);
val('dot', 'matrix_vector', [R([2, 3]), R([3])]);
val('dot', 'matrix_matrix', [R([2, 3]), R([3, 2])]);
val('outerProduct', 'vectors', [R([3]), R([2])]);
val('outerProduct', 'lists', [[1, 2], [3, 4, 5]]);

// -- comparison and logic
for (const op of ['equal', 'notEqual', 'greater', 'greaterEqual', 'less', 'lessEqual']) {
  val(op, 'float32', [T([1, 2, 3, 4], [4]), T([1, 3, 2, 4], [4])]);
  val(op, 'broadcast', [T([1, 2, 3, 4, 5, 6], [2, 3]), T([2, 5, 3], [3])]);
  val(op, 'int32_and_fraction', [I([1, 2], [2]), [1, 2.5]]);
  val(op, 'number', [I([1, 2, 3], [3]), 2]);
}
val('where', 'bool_tensor', [B([true, false, true], [3]), R([3]), R([3])]);
val('where', 'list_condition', [[1, 0, 1], R([3]), R([3])]);
val('where', 'broadcast', [B([true, false], [2, 1]), R([2, 3]), R([3])]);
val('where', 'mixed_dtypes', [B([true, false], [2]), I([1, 2], [2]), [0.5, 1.5]]);
for (const op of ['logicalAnd', 'logicalOr']) {
  val(op, 'bools', [B([true, true, false, false], [4]), B([true, false, true, false], [4])]);
  val(op, 'lists', [[1, 0], [true, true]]);
  val(op, 'broadcast', [B([true, false], [2, 1]), B([true, false, true], [3])]);
}
val('logicalNot', 'bools', [B([true, false], [2])]);
val('logicalNot', 'list', [[1, 0, 2]]);

// -- convolution and pooling
const img = R([2, 5, 5, 2]);
const filt = R([3, 3, 2, 3]);
val('conv2d', 'valid', [img, filt, 1, 'valid']);
val('conv2d', 'same', [img, filt, 1, 'same']);
val('conv2d', 'same_stride_2', [img, filt, 2, 'same']);
val('conv2d', 'valid_stride_pair', [img, filt, [2, 1], 'valid']);
val('conv2d', 'numeric_pad', [img, filt, 1, 1]);
val('conv2d', 'numeric_pad_zero', [img, filt, 2, 0]);
// tfjs's backward pass gives the extra windows of dimRoundingMode 'ceil' no gradient
val('conv2d', 'numeric_pad_ceil', [img, R([2, 2, 2, 1]), 2, 0, 'NHWC', 1, 'ceil'], {grad: false});
val('conv2d', 'explicit_pad', [img, filt, 1, [[0, 0], [1, 2], [0, 1], [0, 0]]]);
val('conv2d', 'rank3', [R([4, 4, 1]), R([2, 2, 1, 2]), 1, 'same']);
val('conv2d', 'nchw', [R([1, 2, 4, 4]), R([2, 2, 2, 1]), 1, 'valid', 'NCHW']);
val('conv2d', 'dilated', [img, R([2, 2, 2, 1]), 1, 'valid', 'NHWC', 2]);
val('conv2d', 'dilated_same', [img, R([2, 2, 2, 1]), 1, 'same', 'NHWC', [2, 1]]);
const pool = R([1, 5, 5, 2]);
for (const op of ['maxPool', 'avgPool']) {
  val(op, 'valid', [pool, 2, 1, 'valid']);
  val(op, 'valid_stride_2', [pool, 3, 2, 'valid']);
  // tfjs's avgPool gradient divides border windows by the full window size, and no
  // backward pass gives the extra windows of dimRoundingMode 'ceil' a gradient
  val(op, 'numeric_pad', [pool, 2, 2, 1], {grad: op === 'maxPool'});
  val(op, 'numeric_pad_ceil', [pool, 2, 2, 0, 'ceil'], {grad: false});
  val(op, 'numeric_pad_round', [pool, 3, 2, 1, 'round'], {grad: op === 'maxPool'});
  val(op, 'filter_pair', [pool, [2, 3], [1, 2], 'valid']);
  val(op, 'rank3', [R([4, 4, 1]), 2, 2, 'valid']);
}
val('maxPool', 'same', [pool, 2, 2, 'same']);
val('maxPool', 'same_stride_1', [pool, 3, 1, 'same']);
val('maxPool', 'int32', [I([1, 5, 3, 2, 9, 4, 7, 8, 6], [1, 3, 3, 1]), 2, 1, 'valid']);
val('avgPool', 'same', [pool, 2, 2, 'same'], {grad: false});
val('avgPool', 'same_3x3', [T([1, 2, 3, 4, 5, 6, 7, 8, 9], [1, 3, 3, 1]), 2, 2, 'same'], {grad: false});
val('avgPool', 'same_interior', [R([1, 4, 4, 1]), 2, 2, 'same']);

// -- utilities
val('cast', 'float_to_int32_truncates', [T([1.7, -1.7, 2.5, -0.5], [4]), 'int32'], {grad: false});
val('cast', 'float_to_bool', [T([0, 0.5, -2], [3]), 'bool']);
val('cast', 'int32_to_float', [I([1, -2], [2]), 'float32']);
val('cast', 'bool_to_int32', [B([true, false], [2]), 'int32']);
val('cast', 'float_to_float', [R([3]), 'float32']);

// ------------------------------------------------------------------------------------------------
// Errors (the Python type each should raise is OPS.md's: TypeError for a wrong argument type or
// dtype, ValueError for a wrong shape or value)


const V = 'ValueError';
const TE = 'TypeError';
err('tensor', 'not_tensor_like', [{}], TE);
err('tensor', 'size_mismatch', [[1, 2, 3], [2, 2]], V);
err('tensor', 'inferred_shape_mismatch', [[[1, 2], [3, 4]], [4]], V);
err('tensor', 'negative_shape', [[], [2, -1]], V);
err('scalar', 'array', [[1, 2]], V);
err('tensor1d', 'nested', [[[1, 2]]], V);
err('tensor2d', 'flat_without_shape', [[1, 2, 3, 4]], V);
err('tensor2d', 'rank3_values', [[[[1]]]], V);
err('tensor2d', 'shape_rank', [[1, 2], [1, 1, 2]], V);
err('tensor3d', 'flat_without_shape', [[1, 2, 3, 4]], V);
err('tensor3d', 'shape_rank', [[1, 2], [1, 2]], V);
err('tensor4d', 'rank2_values', [[[1, 2]]], V);
err('tensor4d', 'flat_without_shape', [[1, 2]], V);
err('zeros', 'negative_dim', [[2, -1]], V);
err('zeros', 'fractional_dim', [[2.5]], V);
err('ones', 'negative_dim', [[-3]], V);
err('fill', 'negative_dim', [[-1], 2], V);
err('zerosLike', 'not_tensor_like', [{}], TE);
err('onesLike', 'null', [null], TE);
err('linspace', 'zero_values', [0, 1, 0], V);
err('range', 'zero_step', [0, 5, 0], V);
err('randomUniform', 'negative_dim', [[2, -1]], V);
err('randomNormal', 'bool', [[2], 0, 1, 'bool'], V);
err('randomNormal', 'negative_dim', [[-2]], V);
err('truncatedNormal', 'negative_dim', [[-2]], V);
err('multinomial', 'rank3', [R([1, 2, 3]), 2], V);
err('multinomial', 'one_outcome', [T([0.5], [1, 1]), 2], V);
err('oneHot', 'depth_1', [I([0], [1]), 1], V);
err('oneHot', 'float32_indices', [T([0, 1], [2]), 3], TE);

for (const op of ['add', 'sub', 'mul', 'div', 'maximum', 'minimum', 'squaredDifference']) {
  err(op, 'broadcast', [R([2, 3]), R([4])], V);
  err(op, 'not_tensor_like_a', [{}, 1], TE);
  err(op, 'null_b', [R([2]), null], TE);
}
err('pow', 'broadcast', [R([2, 3], 0.3, 2), R([2])], V);
err('pow', 'not_tensor_like', [R([2], 0.3, 2), {}], TE);
for (const op of ['square', 'neg', 'abs', 'sign', 'exp']) err(op, 'not_tensor_like', [{}], TE);
for (const op of ['sqrt', 'log', 'sin', 'cos']) {
  err(op, 'int32', [I([1, 2], [2])], TE);
  err(op, 'bool', [B([true], [1])], TE);
}
err('clipByValue', 'min_above_max', [R([2]), 3, 1], V);
err('clipByValue', 'fractional_bounds', [R([2]), 0.5, 0.25], V);

for (const op of ['sum', 'prod', 'mean', 'max', 'min', 'logSumExp', 'moments']) {
  err(op, 'axis_out_of_range', [R([2, 2]), 2], V);
  err(op, 'negative_axis_out_of_range', [R([2, 2]), [0, -3]], V);
}
err('argMax', 'axis_out_of_range', [R([2, 2]), 2], V);
err('argMin', 'axis_out_of_range', [R([2, 2]), -3], V);

for (const op of ['sigmoid', 'tanh', 'elu']) err(op, 'int32', [I([1, 2], [2])], TE);
err('softmax', 'int32', [I([1, 2], [2])], TE);
err('relu', 'not_tensor_like', [{}], TE);
err('leakyRelu', 'null', [null], TE);

err('reshape', 'size_mismatch', [R([2, 3]), [4, 2]], V);
err('reshape', 'two_implicit', [R([2, 3]), [-1, -1]], V);
err('reshape', 'fractional_implicit', [R([2, 3]), [4, -1]], V);
err('transpose', 'perm_length', [R([2, 2]), [0, 1, 2]], V);
err('transpose', 'negative_perm', [R([2, 3, 4]), [-1, 0, 1]], V);
err('concat', 'empty', [[]], V);
err('concat', 'shape_mismatch', [[R([2, 3]), R([2, 2])]], V);
err('concat', 'shape_mismatch_axis_1', [[R([2, 3]), R([3, 2])], 1], V);
err('concat', 'rank_mismatch', [[R([2, 3]), R([3])]], V);
err('concat', 'element_not_tensor_like', [[R([2]), {}]], TE);
err('stack', 'shape_mismatch', [[R([2, 3]), R([3, 2])]], V);
err('stack', 'empty', [[]], V);
err('unstack', 'axis_out_of_range', [R([2, 3]), 2], V);
err('split', 'uneven', [R([5]), 2], V);
err('split', 'sizes_sum', [R([5]), [2, 2]], V);
err('split', 'two_implicit', [R([5]), [2, -1, -1]], V);
err('slice', 'overflow', [R([3, 3]), [1, 1], [3, 1]], V);
err('slice', 'short_begin_overflow', [R([3, 3]), [1], [3, 1]], V);
err('slice', 'negative_begin', [R([3]), [-1], [1]], V);
err('gather', 'float32_indices', [R([3]), T([0, 1], [2])], TE);
err('gather', 'index_too_large', [R([3]), I([0, 3], [2])], V);
err('gather', 'negative_index', [R([3]), I([-1, 0], [2])], V);
err('gather', 'axis_out_of_range', [R([3]), I([0], [1]), 1], V);
err('gather', 'batch_dims_above_axis', [R([2, 3]), I([0, 1], [2, 1]), 0, 1], V);
err('expandDims', 'axis_above_rank', [R([3]), 2], V);
err('expandDims', 'axis_below_range', [R([3]), -3], V);
err('squeeze', 'not_one', [R([2, 1]), [0]], V);
err('squeeze', 'axis_out_of_range', [R([2, 1]), [2]], V);
err('tile', 'reps_length', [R([2, 1]), [2]], V);
err('pad', 'scalar', [T([1], []), [[1, 1]]], V);

err('matMul', 'inner_mismatch', [R([2, 3]), R([4, 2])], V);
err('matMul', 'inner_mismatch_transposed', [R([2, 3]), R([2, 4]), true, true], V);
err('matMul', 'batch_mismatch', [R([2, 2, 3]), R([3, 3, 2])], V);
err('dot', 'rank3', [R([2, 3, 1]), R([3, 2])], V);
err('dot', 'inner_mismatch', [R([3]), R([2])], V);
err('outerProduct', 'rank2', [R([3, 1]), R([2])], V);

for (const op of ['equal', 'greater', 'lessEqual']) err(op, 'broadcast', [R([2]), R([3])], V);
err('where', 'float32_condition', [T([1, 0], [2]), R([2]), R([2])], TE);
err('where', 'broadcast', [[true, false], R([2]), R([3])], V);
err('where', 'broadcast_condition', [B([true, false, true], [3]), R([2]), R([2])], V);
err('logicalAnd', 'float32', [R([2]), [true, false]], TE);
err('logicalOr', 'int32_b', [[true], I([1], [1])], TE);
err('logicalNot', 'float32', [R([2])], TE);

const img1 = R([1, 3, 3, 1]);
err('conv2d', 'depth_mismatch', [R([1, 3, 3, 2]), R([2, 2, 1, 1]), 1, 'valid'], V);
err('conv2d', 'rank2_input', [R([3, 3]), R([2, 2, 1, 1]), 1, 'valid'], V);
err('conv2d', 'rank3_filter', [img1, R([2, 2, 1]), 1, 'valid'], V);
err('conv2d', 'strides_and_dilations', [img1, R([2, 2, 1, 1]), 2, 'valid', 'NHWC', 2], V);
err('conv2d', 'unknown_pad', [img1, R([2, 2, 1, 1]), 1, 'full'], V);
err('conv2d', 'rounding_with_same', [img1, R([2, 2, 1, 1]), 1, 'same', 'NHWC', 1, 'ceil'], V);
err('conv2d', 'rounding_fractional_pad', [img1, R([2, 2, 1, 1]), 1, 1.5, 'NHWC', 1, 'floor'], V);
err('conv2d', 'int32_input', [I([1, 2, 3, 4], [1, 2, 2, 1]), R([1, 1, 1, 1]), 1, 'valid'], TE);
err('maxPool', 'rank2', [R([3, 3]), 2, 1, 'valid'], V);
err('maxPool', 'unknown_pad', [img1, 2, 1, 'full'], V);
err('maxPool', 'rounding_with_valid', [img1, 2, 1, 'valid', 'round'], V);
err('avgPool', 'rank2', [R([3, 3]), 2, 1, 'valid'], V);
err('avgPool', 'int32', [I([1, 2, 3, 4], [1, 2, 2, 1]), 1, 1, 'valid'], TE);

err('cast', 'not_tensor_like', [{}, 'int32'], TE);
err('buffer', 'values_length', [[2, 2], 'int32', [1, 2, 3]], V);
err('buffer', 'negative_dim', [[-1]], V);

// ------------------------------------------------------------------------------------------------
// Random ops: dtype, shape and the range of what tfjs draws (the numbers themselves are JAX's)

rnd('randomUniform', 'default', [[200], undefined, undefined, undefined, 1]);
rnd('randomUniform', 'range', [[20, 10], -3, 5, 'float32', 2]);
rnd('randomUniform', 'int32_truncates', [[500], 0, 4, 'int32', 3]);
rnd('randomUniform', 'bool', [[50], 0, 2, 'bool', 4]);
rnd('randomNormal', 'default', [[300], undefined, undefined, undefined, 5]);
rnd('randomNormal', 'mean_stddev', [[10, 30], 5, 0.1, 'float32', 6]);
rnd('randomNormal', 'int32_rounds', [[300], 0, 3, 'int32', 7]);
rnd('truncatedNormal', 'default', [[500], undefined, undefined, undefined, 8]);
rnd('truncatedNormal', 'mean_stddev', [[500], -1, 0.5, undefined, 9]);
rnd('truncatedNormal', 'int32_rounds', [[500], 10, 2, 'int32', 10]);
rnd('multinomial', 'rank2', [T([0, 0, 0, 1, 2, 3], [2, 3]), 50, 11]);
rnd('multinomial', 'rank1', [T([0.1, 0.2, 0.7], [3]), 40, 12, true]);
rnd('multinomial', 'certain', [T([-1e9, 0, -1e9, 0, -1e9, -1e9], [2, 3]), 20, 13]);

// ------------------------------------------------------------------------------------------------
// tf.print: what console.log prints (tfjs's print(x, verbose) is console.log(x.toString(verbose)))

const prints = [];
function prn(name, x, verbose) {
  prints.push({name, args: [encode(x), encode(verbose)], text: x.toString(verbose)});
}
prn('rank1', T([1, 2, 3], [3]));
prn('rank1_fractions', T([-1 / 3, 0.1, 2.5e-8, 123456.789], [4]));
prn('rank1_halfway', T([0.00390625, -0.00390625, 1e-7, 5e-8], [4]));
prn('scalar_float', T([0.3], []));
prn('scalar_int', I([-7], []));
prn('scalar_bool', B([true], []));
prn('rank2_aligned', T([1, -0.5, 10, 2, 333.25, -4], [3, 2]));
prn('rank2_int32', I([1, -20, 300, 4], [2, 2]));
prn('rank3', T([1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2]));
prn('rank4', T([1, 2, 3, 4, 5, 6, 7, 8], [2, 1, 2, 2]));
prn('bool', B([true, false, true, true], [2, 2]));
prn('long_rank1', tf.range(0, 25));
prn('long_rank2_rows', tf.range(0, 50).reshape([25, 2]));
prn('long_rank2_cols', tf.range(0, 50).reshape([2, 25]));
prn('long_rank3', tf.range(0, 66).reshape([22, 3, 1]));
prn('non_finite', T([NaN, Infinity, -Infinity, -0], [4]));
prn('large', T([1e21, -3e25, 1e20, 1.5e-7], [4]));
prn('empty', T([], [0]));
prn('empty_rank2', T([], [0, 3]));
prn('verbose', T([1, 2, 3, 4], [2, 2]), true);
prn('verbose_scalar', I([5], []), true);
prn('verbose_bool', B([false], [1]), true);
prn('one_row', B([true, false], [1, 2]), true);
prn('one_by_one_by_two', T([1, 2], [1, 1, 2]));
prn('column', T([1, 2], [2, 1]));
prn('rank5', tf.range(0, 8).reshape([2, 1, 2, 1, 2]));

// How JS writes numbers (String(x)), which tfjs's messages and print use
const JS_NUMBERS = [0, -0, 1, -1, 3, 2.5, 0.1, -1 / 3, 1e-7, 1.5e-7, 1e-6, 0.000001234, 123456789,
  1e20, 1e21, 1.5e21, 123456789012345680000, 2 ** 53, 2 ** 70, 5e-324, 1.7976931348623157e308,
  Math.PI, 100, 1000000, 0.5e-6, 4.35, 0.30000001192092896, NaN, Infinity, -Infinity, 1e-300,
  -2.5e-8, 9.999999e20, 1e100];
const jsNumbers = JS_NUMBERS.map((x) => ({value: num(x), text: String(x)}));

// ------------------------------------------------------------------------------------------------
// Buffers

const buffers = [];
function buf(name, args, steps) {
  const b = tf.buffer(...args);
  const recorded = steps.map(([kind, ...rest]) => {
    if (kind === 'set') {
      b.set(...rest);
      return ['set', ...rest];
    }
    return ['get', ...rest, b.get(...rest)];
  });
  buffers.push({name, args: args.map(encode), steps: recorded, expected: encodeTensor(b.toTensor()),
                shape: b.shape, dtype: b.dtype, size: b.size, rank: b.rank});
}
buf('float32', [[2, 3]], [['set', 1.5, 0, 1], ['set', -2, 1, 2], ['get', 0, 1], ['get', 1, 0]]);
buf('int32_truncates', [[3], 'int32'], [['set', 2.7, 0], ['set', -2.7, 1], ['get', 0], ['get', 1]]);
buf('bool', [[2], 'bool'], [['set', 1, 1], ['get', 1], ['get', 0]]);
buf('with_values', [[2, 2], 'float32', new Float32Array([1, 2, 3, 4])], [['set', 9, 1, 1], ['get', 0, 1]]);

buf('rank1_no_locs', [[3]], [['set', 6], ['get']]);
const bufferErrors = [];
function bufErr(name, args, step) {
  const b = tf.buffer(...args);
  let message = null;
  try {
    if (step[0] === 'set') b.set(...step.slice(1)); else b.get(...step.slice(1));
  } catch (e) {
    message = e.message;
  }
  if (message === null) throw new Error(`buffer/${name}: expected tfjs to throw`);
  bufferErrors.push({name, args: args.map(encode), step, message});
}
bufErr('set_wrong_rank', [[2, 2]], ['set', 1, 0]);
bufErr('get_out_of_range', [[2, 2]], ['get', 2, 0]);
bufErr('get_negative', [[3]], ['get', -1]);
bufErr('scalar_set', [[]], ['set', 4]);

// ------------------------------------------------------------------------------------------------
// The utilities' observable behaviour

async function behaviours() {
  const out = [];
  const a = T([1, 2], [2]);
  const b = T([3], [1]);
  const c = T([4], [1]);
  tf.dispose({a, list: [b, {c}]});
  out.push({name: 'dispose/nested', op: 'dispose', result: [a.isDisposed, b.isDisposed, c.isDisposed]});
  const frame = tf.nextFrame();
  out.push({name: 'nextFrame/awaitable', op: 'nextFrame',
            result: {is_promise: frame instanceof Promise, resolves_to: encode(await frame)}});
  const indices = tf.util.createShuffledIndices(10);
  out.push({name: 'util.createShuffledIndices/ten', op: 'util.createShuffledIndices',
            result: {type: indices.constructor.name, sorted: Array.from(indices).sort((x, y) => x - y)}});
  const items = [1, 2, 3, 4, 5];
  const returned = tf.util.shuffle(items);
  out.push({name: 'util.shuffle/in_place', op: 'util.shuffle',
            result: {returns: encode(returned), sorted: items.slice().sort((x, y) => x - y)}});
  return out;
}

// ------------------------------------------------------------------------------------------------
// Where OPS.md deliberately differs from tfjs

diverge('concat', 'mixed_dtypes_promote', [[I([1, 2], [2]), T([1.5, 2.5], [2])]]);
diverge('stack', 'mixed_dtypes_promote', [[I([1, 2], [2]), T([1.5, 2.5], [2])]]);
diverge('softmax', 'non_last_axis', [R([2, 3]), 0]);
diverge('logSoftmax', 'non_last_axis', [R([2, 3]), 0]);
diverge('softplus', 'int32_is_float32', [I([-2, 0, 3], [3])]);
diverge('matMul', 'rank1_message', [R([3]), R([3, 2])]);
diverge('truncatedNormal', 'bool_message', [[2], 0, 1, 'bool']);

// ------------------------------------------------------------------------------------------------

(async () => {
  const covered = new Set([...cases, ...errors, ...random, ...divergences].map((c) => c.op));
  covered.add('print').add('buffer');
  const behaviourCases = await behaviours();
  behaviourCases.forEach((c) => covered.add(c.op));
  const ops = Object.entries(GROUPS).flatMap(([group, names]) => names.map((name) => ({name, group})));
  const missing = ops.filter((o) => !covered.has(o.name)).map((o) => o.name);
  if (ops.length !== 88 || missing.length) throw new Error(`op table: ${ops.length} ops, missing ${missing}`);
  const out = {
    generator: 'tests/reference/gen_ops.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    ops,
    cases,
    errors,
    random,
    prints,
    js_numbers: jsNumbers,
    buffers,
    buffer_errors: bufferErrors,
    behaviours: behaviourCases,
    divergences,
  };
  writeFixture(OUT, out);
  console.log(`wrote ${OUT}: ${cases.length} value cases (${cases.filter((c) => c.grads).length} ` +
              `with gradients), ${errors.length} errors, ${random.length} random, ` +
              `${prints.length} prints, ${buffers.length} buffers (tfjs ${tf.version.tfjs}, ` +
              `backend ${tf.getBackend()})`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
