#!/usr/bin/env node
// Generates tests/reference/ops2_nn.json: OPS2.md's convolution and pooling, normalization,
// fused, spectral, signal and image ops as the real TensorFlow.js 4.22 (CPU backend) runs
// them: values, dtypes, shapes, gradients of sum(op(...) * w), error messages, and the
// Tensor-method forms. Read by tests/test_ops2_nn.py (through tests/op_fixtures.py) and by
// tests/test_ops_transforms.py.
//
// Run from the repo root:   node tests/reference/gen_ops2_nn.js
// Layout as ops.json (see gen_ops.js and opcases.js); the awaitable ops' cases hold the value
// their Promise resolves to. `grads_note` marks cases whose gradient is checked against finite
// differences instead (tfjs has none, or a wrong one: see OPS2.md).
'use strict';

const path = require('path');
const {tf, Recorder, inputs, writeFixture} = require('./opcases');

const OUT = path.join(__dirname, 'ops2_nn.json');

const GROUPS = {
  convolution: ['conv1d', 'conv2dTranspose', 'conv3d', 'conv3dTranspose', 'depthwiseConv2d',
                'separableConv2d', 'dilation2d', 'avgPool3d', 'maxPool3d', 'maxPoolWithArgmax',
                'pool', 'localResponseNormalization'],
  normalization: ['batchNorm', 'batchNorm2d', 'batchNorm3d', 'batchNorm4d', 'movingAverage'],
  fused: ['fused.matMul', 'fused.conv2d', 'fused.depthwiseConv2d'],
  spectral: ['fft', 'ifft', 'rfft', 'irfft', 'spectral.fft', 'spectral.ifft', 'spectral.rfft',
             'spectral.irfft'],
  signal: ['signal.hannWindow', 'signal.hammingWindow', 'signal.frame', 'signal.stft'],
  image: ['image.flipLeftRight', 'image.grayscaleToRGB', 'image.rgbToGrayscale',
          'image.resizeBilinear', 'image.resizeNearestNeighbor', 'image.rotateWithOffset',
          'image.cropAndResize', 'image.nonMaxSuppression', 'image.nonMaxSuppressionAsync',
          'image.nonMaxSuppressionWithScore', 'image.nonMaxSuppressionWithScoreAsync',
          'image.nonMaxSuppressionPadded', 'image.nonMaxSuppressionPaddedAsync',
          'image.threshold', 'image.transform'],
};

// The groups written so far (the others follow as they are implemented).
const WRITTEN = ['convolution', 'normalization'];

const {R, T, I} = inputs(20261202);
const recorder = new Recorder();
const val = recorder.val.bind(recorder);
const err = recorder.err.bind(recorder);
const meth = recorder.meth.bind(recorder);
const V = 'ValueError';
const TE = 'TypeError';
const NOGRAD = {grad: false};

// -- convolution and pooling
const x1d = R([1, 5, 2]);
const f1d = R([2, 2, 3]);
val('conv1d', 'valid', [x1d, f1d, 1, 'valid']);
val('conv1d', 'same_stride_2', [x1d, f1d, 2, 'same']);
val('conv1d', 'rank2_dilated', [R([6, 2]), f1d, 1, 'valid', 'NWC', 2]);
err('conv1d', 'ncw', [x1d, f1d, 1, 'valid', 'NCW'], V);
err('conv1d', 'depth_mismatch', [R([1, 5, 3]), f1d, 1, 'valid'], V);

const xt = R([1, 3, 3, 2]);
const ft = R([2, 2, 1, 2]);
val('conv2dTranspose', 'same_stride_2', [xt, ft, [1, 6, 6, 1], 2, 'same']);
val('conv2dTranspose', 'valid_rank3', [R([3, 3, 2]), ft, [4, 4, 1], 1, 'valid']);
val('conv2dTranspose', 'valid_stride_2_odd', [xt, R([3, 3, 2, 2]), [1, 7, 7, 2], 2, 'valid']);
err('conv2dTranspose', 'out_depth', [xt, ft, [1, 6, 6, 2], 2, 'same'], V);

const x3d = R([1, 3, 3, 3, 1]);
const f3d = R([2, 2, 2, 1, 2]);
val('conv3d', 'valid', [x3d, f3d, 1, 'valid']);
val('conv3d', 'same_stride_2_rank4', [R([3, 4, 3, 1]), f3d, 2, 'same']);
val('conv3d', 'dilated', [x3d, R([2, 2, 2, 1, 1]), 1, 'valid', 'NDHWC', [2, 1, 1]]);
err('conv3d', 'rank3', [R([3, 3, 1]), f3d, 1, 'valid'], V);
val('conv3dTranspose', 'valid', [R([1, 2, 2, 2, 2]), f3d, [1, 3, 3, 3, 1], 1, 'valid']);
val('conv3dTranspose', 'same_stride_2', [R([2, 2, 2, 2]), f3d, [4, 4, 4, 1], 2, 'same']);

const xd = R([1, 4, 4, 2]);
const fd = R([2, 2, 2, 2]);
val('depthwiseConv2d', 'valid', [xd, fd, 1, 'valid']);
val('depthwiseConv2d', 'same_stride_2_rank3', [R([5, 5, 2]), R([3, 3, 2, 1]), 2, 'same']);
val('depthwiseConv2d', 'dilated', [R([1, 5, 5, 2]), fd, 1, 'valid', 'NHWC', 2]);
val('depthwiseConv2d', 'explicit_pad', [xd, fd, 1, [[0, 0], [1, 0], [0, 1], [0, 0]]]);
err('depthwiseConv2d', 'channels', [R([1, 4, 4, 3]), fd, 1, 'valid'], V);
err('depthwiseConv2d', 'int32', [I([1, 2, 3, 4], [1, 2, 2, 1]), R([1, 1, 1, 1]), 1, 'valid'], TE);

const pw = R([1, 1, 4, 3]);
val('separableConv2d', 'valid', [xd, fd, pw, 1, 'valid']);
val('separableConv2d', 'same_stride_2', [R([1, 5, 5, 2]), fd, pw, 2, 'same']);
val('separableConv2d', 'dilated_rank3', [R([5, 5, 2]), fd, pw, 1, 'valid', 2]);
err('separableConv2d', 'pointwise_depth', [xd, fd, R([1, 1, 3, 3]), 1, 'valid'], V);

val('dilation2d', 'valid', [xd, R([2, 2, 2]), 1, 'valid']);
val('dilation2d', 'same_stride_2_rank3', [R([5, 5, 2]), R([3, 3, 2]), 2, 'same']);
val('dilation2d', 'dilated', [R([1, 5, 5, 1]), R([2, 2, 1]), 1, 'same', [2, 2]]);
err('dilation2d', 'depth', [xd, R([2, 2, 3]), 1, 'valid'], V);

const x5 = R([1, 4, 4, 4, 1]);
val('avgPool3d', 'valid', [x5, 2, 2, 'valid']);
val('avgPool3d', 'same_rank4', [R([3, 3, 3, 2]), 2, 2, 'same'], NOGRAD);
val('avgPool3d', 'same_interior', [x5, 2, 2, 'same']);
err('avgPool3d', 'rank3', [R([3, 3, 3]), 2, 1, 'valid'], V);
val('maxPool3d', 'valid', [x5, 2, 2, 'valid']);
val('maxPool3d', 'same_rank4', [R([3, 3, 3, 2]), 3, 1, 'same']);
val('maxPool3d', 'filter_triple', [x5, [2, 1, 3], [1, 2, 1], 'valid']);

const xa = R([2, 4, 4, 2]);
val('maxPoolWithArgmax', 'valid', [xa, 2, 2, 'valid']);
val('maxPoolWithArgmax', 'same_with_batch', [xa, 3, 2, 'same', true]);

const xp = R([1, 5, 5, 1]);
val('pool', 'max_dilated_valid', [xp, 2, 'max', 'valid', 2, 1]);
val('pool', 'avg_same_stride_2', [xp, 2, 'avg', 'same', 1, 2], NOGRAD);
val('pool', 'max_same_dilated', [R([6, 6, 1]), [2, 2], 'max', 'same', [2, 2], 1]);
val('pool', 'avg_valid', [xp, [2, 3], 'avg', 'valid', 1, [1, 2]]);
err('pool', 'dilations_and_strides', [xp, 2, 'max', 'valid', 2, 2], V);

val('localResponseNormalization', 'defaults', [R([1, 2, 2, 6])]);
val('localResponseNormalization', 'radius_1_rank3', [R([2, 2, 4]), 1, 2, 0.5, 0.75]);
err('localResponseNormalization', 'rank2', [R([2, 4])], V);

// -- normalization
const xb = R([2, 3]);
const mean3 = R([3]);
const var3 = R([3], 0.5, 2);
const off3 = R([3]);
const sc3 = R([3]);
val('batchNorm', 'full', [xb, mean3, var3, off3, sc3]);
val('batchNorm', 'no_offset_scale', [xb, mean3, var3]);  // tfjs's gradient crashes here
val('batchNorm', 'rank4_eps', [R([1, 2, 2, 3]), mean3, var3, off3, sc3, 0.01]);
val('batchNorm', 'scale_only', [xb, mean3, var3, undefined, sc3]);
err('batchNorm', 'ranks', [xb, mean3, R([1, 3], 0.5, 2)], V);
val('batchNorm2d', 'full', [xb, mean3, var3, off3, sc3]);
err('batchNorm2d', 'rank3', [R([1, 2, 3]), mean3, var3], V);
val('batchNorm3d', 'no_offset_scale', [R([2, 2, 3]), mean3, var3]);
val('batchNorm4d', 'full', [R([1, 2, 2, 3]), mean3, var3, off3, sc3, 0.1]);
val('movingAverage', 'zero_debias', [R([3]), R([3]), 0.9, 3]);
val('movingAverage', 'no_debias', [R([2, 2]), R([2, 2]), 0.5, undefined, false]);

// -- fused
const fa = R([2, 3]);
const fb = R([3, 4]);
const fbias = R([4]);
val('fused.matMul', 'relu_bias', [{a: fa, b: fb, bias: fbias, activation: 'relu'}]);
val('fused.matMul', 'transpose_b_leakyrelu', [{a: fa, b: R([4, 3]), transposeB: true, activation: 'leakyrelu', leakyreluAlpha: 0.1}]);
val('fused.matMul', 'transpose_a_prelu', [{a: R([3, 2]), b: fb, transposeA: true, bias: fbias, activation: 'prelu', preluActivationWeights: R([4])}]);
val('fused.matMul', 'linear', [{a: fa, b: fb}]);
val('fused.matMul', 'sigmoid_batched', [{a: R([2, 2, 3]), b: R([2, 3, 2]), activation: 'sigmoid'}]);
val('fused.conv2d', 'relu_bias', [{x: xd, filter: R([2, 2, 2, 3]), strides: 1, pad: 'valid', bias: R([3]), activation: 'relu'}]);
val('fused.conv2d', 'elu_same_stride_2', [{x: xd, filter: R([2, 2, 2, 3]), strides: 2, pad: 'same', activation: 'elu'}]);
val('fused.depthwiseConv2d', 'relu6_bias', [{x: xd, filter: fd, strides: 1, pad: 'same', bias: R([4]), activation: 'relu6'}]);

// -- spectral
const c24 = tf.complex(R([2, 4]), R([2, 4]));
val('fft', 'rank2', [c24]);
val('fft', 'rank1', [tf.complex(R([3]), R([3]))]);
err('fft', 'float32', [R([4])], TE);
val('ifft', 'rank2', [tf.complex(R([2, 3]), R([2, 3]))]);
err('ifft', 'float32', [R([4])], TE);
val('rfft', 'rank2', [R([2, 6])]);
val('rfft', 'pad_to_8', [R([5]), 8]);
val('rfft', 'crop_to_4', [R([2, 6]), 4]);
err('rfft', 'complex', [c24], TE);
val('irfft', 'rank2', [c24]);
val('irfft', 'rank1', [tf.complex(R([5]), R([5]))]);
val('irfft', 'rank3', [tf.complex(R([2, 1, 3]), R([2, 1, 3]))]);
val('irfft', 'two_bins', [tf.complex(R([2, 2]), R([2, 2]))]);
val('spectral.fft', 'rank2', [c24]);
val('spectral.ifft', 'rank2', [c24]);
val('spectral.rfft', 'rank1', [R([6])]);
val('spectral.irfft', 'rank2', [c24]);

// -- signal
val('signal.hannWindow', 'odd', [5]);
val('signal.hannWindow', 'even', [6]);
val('signal.hannWindow', 'one', [1]);
val('signal.hammingWindow', 'even', [6]);
val('signal.hammingWindow', 'odd', [7]);
val('signal.frame', 'plain', [R([10]), 4, 3]);
val('signal.frame', 'pad_end', [R([7]), 3, 2, true, -1]);
val('signal.frame', 'too_short', [R([3]), 4, 1]);
val('signal.stft', 'hann', [R([16]), 8, 4]);
function ones(n) {
  return tf.ones([n]);
}
val('signal.stft', 'fft_length_window_fn', [R([10]), 4, 2, 8, ones]);

// -- image
val('image.flipLeftRight', 'batch', [R([2, 2, 3, 2])]);
err('image.flipLeftRight', 'rank3', [R([2, 3, 2])], V);
val('image.grayscaleToRGB', 'rank3', [R([2, 2, 1])]);
val('image.grayscaleToRGB', 'rank4', [R([1, 2, 2, 1])]);
err('image.grayscaleToRGB', 'last_dim', [R([2, 2, 2])], V);
val('image.rgbToGrayscale', 'rank3', [R([2, 2, 3], 0, 255)]);
val('image.rgbToGrayscale', 'int32_truncates', [I([10, 200, 30, 255, 0, 7], [2, 3])]);
err('image.rgbToGrayscale', 'last_dim', [R([2, 2, 2])], V);

const img = R([1, 3, 4, 2]);
val('image.resizeBilinear', 'up_down', [img, [5, 3]]);
val('image.resizeBilinear', 'align_corners', [img, [5, 6], true], NOGRAD);
val('image.resizeBilinear', 'half_pixel', [img, [2, 6], false, true], NOGRAD);
val('image.resizeBilinear', 'rank3', [R([4, 4, 1]), [2, 3]]);
val('image.resizeBilinear', 'align_corners_to_1', [img, [1, 3], true], NOGRAD);
err('image.resizeBilinear', 'both_flags', [img, [2, 2], true, true], V);
err('image.resizeBilinear', 'rank2', [R([3, 4]), [2, 2]], V);
val('image.resizeNearestNeighbor', 'up', [img, [5, 7]]);
val('image.resizeNearestNeighbor', 'align_corners', [img, [5, 3], true]);
val('image.resizeNearestNeighbor', 'half_pixel', [img, [2, 6], false, true], NOGRAD);
val('image.resizeNearestNeighbor', 'int32_rank3', [I([1, 2, 3, 4, 5, 6], [2, 3, 1]), [3, 2]]);
err('image.resizeNearestNeighbor', 'both_flags', [img, [2, 2], true, true], V);

val('image.rotateWithOffset', 'default_center', [R([1, 4, 5, 1]), 0.5]);
val('image.rotateWithOffset', 'fill_center_pair', [R([2, 4, 5, 2]), 1.2, -1, [0.3, 0.6]]);
val('image.rotateWithOffset', 'rgb_fill', [R([1, 3, 3, 3]), 2.0, [10, 20, 30]]);
err('image.rotateWithOffset', 'rank3', [R([4, 5, 1]), 0.5], V);

const boxes = T([0, 0, 1, 1, 0.1, 0.2, 0.7, 0.9, -0.2, 0.1, 0.55, 1.3], [3, 4]);
val('image.cropAndResize', 'bilinear', [R([2, 4, 4, 1]), boxes, I([0, 1, 1], [3]), [3, 3]]);
val('image.cropAndResize', 'nearest_extrapolate', [R([2, 4, 4, 2]), boxes, I([1, 0, 1], [3]), [2, 3], 'nearest', -1]);
val('image.cropAndResize', 'one_by_one', [R([1, 4, 4, 1]), T([0.1, 0.2, 0.6, 0.7], [1, 4]), I([0], [1]), [1, 1]]);
err('image.cropAndResize', 'method', [R([1, 4, 4, 1]), boxes, I([0, 0, 0], [3]), [2, 2], 'cubic'], V);

const nmsBoxes = T([0, 0, 1, 1, 0, 0.1, 1, 1.1, 0, -0.1, 1, 0.9, 0, 10, 1, 11, 0, 10.1, 1, 11.1,
                    0, 100, 1, 101], [6, 4]);
const nmsScores = T([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], [6]);
val('image.nonMaxSuppression', 'three', [nmsBoxes, nmsScores, 3]);
val('image.nonMaxSuppression', 'thresholds', [nmsBoxes, nmsScores, 6, 0.9, 0.55]);
err('image.nonMaxSuppression', 'iou', [nmsBoxes, nmsScores, 3, 1.5], V);
err('image.nonMaxSuppression', 'scores_shape', [nmsBoxes, T([1, 2], [2]), 3], V);
val('image.nonMaxSuppressionWithScore', 'soft', [nmsBoxes, nmsScores, 6, 0.6, 0.1, 0.5]);
val('image.nonMaxSuppressionWithScore', 'hard', [nmsBoxes, nmsScores, 4]);
val('image.nonMaxSuppressionPadded', 'padded', [nmsBoxes, nmsScores, 5, 0.5, 0.4, true]);
val('image.nonMaxSuppressionPadded', 'unpadded', [nmsBoxes, nmsScores, 5, 0.5, 0.4]);

const gray = T([0.1, 0.9, 0.4, 0.6, 0.2, 0.7], [2, 3, 1]);
val('image.threshold', 'binary_default', [gray]);
val('image.threshold', 'rgb_inverted', [T([10, 200, 30, 255, 0, 7, 90, 120, 160, 3, 250, 80], [2, 2, 3]), 'binary', true, 0.3]);
val('image.threshold', 'otsu_int32', [I([10, 20, 200, 210, 15, 220, 12, 205, 30], [3, 3, 1]), 'otsu']);
err('image.threshold', 'rank4', [R([1, 2, 2, 1])], V);
err('image.threshold', 'method', [gray, 'mean'], V);

const timg = R([1, 4, 4, 1]);
val('image.transform', 'translate_bilinear', [timg, T([1, 0, 0.3, 0, 1, -0.7, 0, 0], [1, 8]), 'bilinear']);
val('image.transform', 'projective_reflect', [timg, T([0.9, 0.2, -0.3, -0.1, 1.1, 0.4, 0.01, 0.02], [1, 8]), 'nearest', 'reflect', 0, [3, 5]]);
val('image.transform', 'wrap', [R([1, 3, 3, 2]), T([1, 0, 1.3, 0, 1, -1.2, 0, 0], [1, 8]), 'bilinear', 'wrap']);
val('image.transform', 'nearest_fill', [timg, T([1.2, 0, -1.1, 0, 0.8, 1.7, 0, 0], [1, 8]), 'nearest', 'nearest', 0]);
val('image.transform', 'constant_fill', [timg, T([1, 0.1, 1.6, 0, 1, -1.8, 0, 0], [1, 8]), 'bilinear', 'constant', 0.5]);
err('image.transform', 'transform_shape', [timg, T([1, 0, 0, 0, 1, 0], [1, 6])], V);

// -- Tensor methods (tfjs's chained forms)
meth('conv1d', 'valid', [x1d, f1d, 1, 'valid']);
meth('conv2dTranspose', 'same', [xt, ft, [1, 6, 6, 1], 2, 'same']);
meth('depthwiseConv2d', 'valid', [xd, fd, 1, 'valid']);
meth('separableConv2d', 'valid', [xd, fd, pw, 1, 'valid']);
meth('dilation2d', 'valid', [xd, R([2, 2, 2]), 1, 'valid']);
meth('pool', 'max', [xp, 2, 'max', 'valid', 2, 1]);
meth('localResponseNormalization', 'defaults', [R([1, 2, 2, 6])]);
meth('batchNorm', 'full', [xb, mean3, var3, off3, sc3]);
meth('fft', 'rank2', [c24]);
meth('ifft', 'rank2', [c24]);
meth('rfft', 'rank2', [R([2, 6])]);
meth('irfft', 'rank2', [c24]);
meth('resizeBilinear', 'up_down', [img, [5, 3]]);
meth('resizeNearestNeighbor', 'align_corners', [img, [5, 3], true]);

// ------------------------------------------------------------------------------------------------

async function asyncCases() {
  // The awaitable ops: what their Promise resolves to (values only; they are eager only).
  const calls = [
    ['image.nonMaxSuppressionAsync', 'three', [nmsBoxes, nmsScores, 3]],
    ['image.nonMaxSuppressionWithScoreAsync', 'soft', [nmsBoxes, nmsScores, 6, 0.6, 0.1, 0.5]],
    ['image.nonMaxSuppressionPaddedAsync', 'padded', [nmsBoxes, nmsScores, 5, 0.5, 0.4, true]],
  ];
  const {encode} = require('./opcases');
  for (const [op, name, args] of calls) {
    const promise = tf.image[op.split('.')[1]](...args);
    if (!(promise instanceof Promise)) throw new Error(`${op}: not a Promise`);
    const out = await promise;
    recorder.cases.push({name: `${op}/${name}`, op, args: args.map(encode), expected: encode(out),
                         grads: null, awaitable: true});
  }
}

(async () => {
  await asyncCases();
  const ops = Object.entries(GROUPS).filter(([g]) => WRITTEN.includes(g)).flatMap(([group, names]) => names.map((name) => ({name, group})));
  const covered = recorder.covered();
  const missing = ops.filter((o) => !covered.has(o.name)).map((o) => o.name);
  if (missing.length) throw new Error(`op table: missing ${missing}`);
  const names = new Set(ops.map((o) => o.name));
  const keep = (c) => names.has(c.op) || names.has(c.method);
  const out = {
    generator: 'tests/reference/gen_ops2_nn.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    ops,
    cases: recorder.cases.filter(keep),
    errors: recorder.errors.filter(keep),
    methods: recorder.methods.filter(keep),
  };
  writeFixture(OUT, out);
  console.log(`wrote ${OUT}: ${ops.length} ops, ${recorder.cases.length} value cases ` +
              `(${recorder.cases.filter((c) => c.grads).length} with gradients), ` +
              `${recorder.errors.length} errors, ${recorder.methods.length} methods`);
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
