'use strict';
// tf.Tensor's non-op API in tfjs 4.22 (Node, CPU backend) -> tensor.json, read by
// tests/test_tensor.py. The method forms of the ops are checked against the op fixtures
// already recorded (ops*.json): x.op(...rest) must equal tf.op(x, ...rest).
//
// Each entry: {name, tensor (encoded as opcases.js does), dataSync: {ctor, values},
// arraySync, toString, toStringVerbose, shape, rank, size, dtype, bytes (byte length),
// buffer: {shape, dtype, values}}; plus cast/as*/clone/dispose behaviours.

const fs = require('fs');
const tf = require('@tensorflow/tfjs');
const {encode} = require('./opcases');

async function main() {
  const tensors = {
    scalar_float: tf.scalar(2.5),
    scalar_int: tf.scalar(-3, 'int32'),
    scalar_bool: tf.scalar(true, 'bool'),
    vector: tf.tensor1d([1, 2.5, -3]),
    matrix: tf.tensor2d([[1, 2.5, -3], [4, 5, 6]]),
    int_matrix: tf.tensor2d([[1, -20], [300, 4]], [2, 2], 'int32'),
    bools: tf.tensor1d([true, false, true], 'bool'),
    rank3: tf.tensor3d([[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),
    empty: tf.zeros([0, 2]),
    fractions: tf.tensor1d([-1 / 3, 0.1, 1e-8, 123456.789]),
  };
  const entries = [];
  for (const [name, t] of Object.entries(tensors)) {
    const data = t.dataSync();
    const buffer = t.bufferSync();
    entries.push({
      name,
      tensor: encode(t),
      dataSync: {ctor: data.constructor.name, values: Array.from(data)},
      data: Array.from(await t.data()),
      arraySync: t.arraySync(),
      array: await t.array(),
      toString: t.toString(),
      toStringVerbose: t.toString(true),
      shape: t.shape,
      rank: t.rank,
      size: t.size,
      dtype: t.dtype,
      bytes: (await t.bytes()).length,
      buffer: {shape: buffer.shape, dtype: buffer.dtype, values: Array.from(buffer.values)},
    });
  }
  const x = tf.tensor2d([[1.7, -1.7, 0], [2.5, -0.5, 3]]);
  const conversions = {
    toInt: encode(x.toInt()),
    toBool: encode(x.toBool()),
    toFloat: encode(tf.tensor1d([1, 2], 'int32').toFloat()),
    asType_int32: encode(x.asType('int32')),
    cast_bool: encode(x.cast('bool')),
    as1D: encode(x.as1D()),
    as2D: encode(x.as2D(3, 2)),
    as3D: encode(x.as3D(1, 3, 2)),
    as4D: encode(x.as4D(1, 1, 3, 2)),
    as5D: encode(x.as5D(1, 1, 1, 3, 2)),
    // one -1 is inferred, as reshape does (mnist-core calls as4D(-1, ...) and as2D(-1, ...))
    as2D_implicit: encode(x.as2D(-1, 2)),
    as4D_implicit: encode(x.as4D(-1, 1, 3, 2)),
    flatten: encode(x.flatten()),
    asScalar: encode(tf.tensor1d([7]).asScalar()),
    reshapeAs: encode(x.reshapeAs(tf.zeros([3, 2]))),
  };
  const errors = {};
  for (const [name, fn] of Object.entries({
    as2D_size: () => x.as2D(4, 2),
    as2D_fractional: () => x.as2D(-1, 4),
    asScalar_size: () => x.asScalar(),
  })) {
    try { fn(); errors[name] = null; } catch (e) { errors[name] = e.message; }
  }
  // clone and dispose
  const original = tf.tensor1d([1, 2, 3]);
  const copy = original.clone();
  original.dispose();
  let disposedRead = null;
  try { original.dataSync(); } catch (e) { disposedRead = e.message; }
  const behaviours = {
    clone_after_dispose: encode(copy),
    isDisposed_after: original.isDisposed,
    disposed_read: disposedRead,
    isDisposed_before: copy.isDisposed,
  };
  // buffer set/get, then toTensor
  const buf = tf.tensor2d([[1, 2], [3, 4]], [2, 2], 'int32').bufferSync();
  buf.set(9.7, 0, 1);
  behaviours.int_buffer_set = {get: buf.get(0, 1), toTensor: encode(buf.toTensor())};
  const v = tf.tensor1d([1, 2]).variable(false, 'gen_tensor_v', 'float32');
  behaviours.variable = {name: v.name, trainable: v.trainable, value: encode(v)};
  // JS numbers are float64: toTypedArray parses them straight into the dtype (Int32Array
  // truncates and wraps modulo 2**32, NaN and infinities give 0; bool is Math.round != 0)
  const numberValues = [16777217, -16777217, 16777219, 2147483647, 2147483648, 2147483653,
    -2147483649, 4294967299, 1e10, -1e10, 2.9, -2.9, 0.5, -0.5, 1.5, 2.5, 0.1, -0,
    9007199254740993, NaN, Infinity, -Infinity];
  const numbers = ['float32', 'int32', 'bool'].map((dtype) => ({
    dtype,
    values: numberValues.map((v) => encode(v)),
    tensor1d: encode(tf.tensor1d(numberValues, dtype)),
    scalars: numberValues.map((v) => encode(tf.scalar(v, dtype))),
  }));
  fs.writeFileSync(`${__dirname}/tensor.json`, JSON.stringify({
    generator: 'tests/reference/gen_tensor.js', tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(), entries, conversions, errors, behaviours, numbers,
  }, null, 1) + '\n');
}

main();
