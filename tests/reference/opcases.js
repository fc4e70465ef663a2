'use strict';
// What the op fixture generators share: how tfjs values are encoded into JSON, deterministic
// inputs, and a Recorder that runs an op in the real tfjs and records its value, gradients,
// error or random draw. Read by the Python side through tests/op_fixtures.py.
//
// Encodings: {t: "tensor", dtype, shape, values} | {t: "number", v} | {t: "bool", v} |
// {t: "string", v} | {t: "null"} | {t: "undefined"} (JS undefined: Python passes None) |
// {t: "array", items} | {t: "typed", dtype, values} (a TypedArray) | {t: "object", fields} |
// {t: "function", name} (a JS callback: the Python test maps the name to a callable).
// Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity". A complex64
// tensor's values are [re0, im0, re1, im1, ...].

const fs = require('fs');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

function num(x) {
  return Number.isFinite(x) ? x : String(x);
}

function encodeTensor(t) {
  let values;
  if (t.dtype === 'complex64') {
    const re = tf.real(t).dataSync();
    const im = tf.imag(t).dataSync();
    values = [];
    for (let i = 0; i < re.length; i++) values.push(num(re[i]), num(im[i]));
  } else {
    values = Array.from(t.dataSync(), (v) => (t.dtype === 'bool' ? v !== 0 : num(v)));
  }
  return {t: 'tensor', dtype: t.dtype, shape: t.shape, values};
}

const TYPED = [[Float32Array, 'float32'], [Int32Array, 'int32'], [Uint8Array, 'uint8'],
               [Uint32Array, 'uint32']];

function encode(value) {
  if (value === undefined) return {t: 'undefined'};
  if (value === null) return {t: 'null'};
  if (value instanceof tf.Tensor) return encodeTensor(value);
  if (typeof value === 'number') return {t: 'number', v: num(value)};
  if (typeof value === 'boolean') return {t: 'bool', v: value};
  if (typeof value === 'string') return {t: 'string', v: value};
  if (typeof value === 'function') return {t: 'function', name: value.fixtureName || value.name};
  if (Array.isArray(value)) return {t: 'array', items: value.map(encode)};
  for (const [cls, dtype] of TYPED) {
    if (value instanceof cls) return {t: 'typed', dtype, values: Array.from(value, num)};
  }
  if (typeof value === 'object') {
    return {t: 'object', fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, encode(v)]))};
  }
  throw new Error(`cannot encode ${value}`);
}

// 'add' is tf.add; 'image.resizeBilinear' is tf.image.resizeBilinear ('util.x': tf.util.x).
function resolve(op) {
  return op.split('.').reduce((owner, part) => owner[part], tf);
}

function call(op, args) {
  return resolve(op)(...args);
}

// Readable inputs from a seeded generator, away from the kinks ops have at 0 and free of
// ties (a tie or a kink is where tfjs's and JAX's gradient conventions differ).
function inputs(seed) {
  const rand = mulberry32(seed);
  // Distinct values in [lo, hi), rounded to 3 decimals, at least 0.05 away from 0.
  function R(shape, lo = -2, hi = 2) {
    const size = shape.reduce((a, b) => a * b, 1);
    const seen = new Set();
    const values = [];
    while (values.length < size) {
      const v = Math.round((lo + (hi - lo) * rand()) * 1000) / 1000;
      if (Math.abs(v) < 0.05 || seen.has(v)) continue;
      seen.add(v);
      values.push(v);
    }
    return tf.tensor(values, shape, 'float32');
  }
  return {
    rand,
    R,
    T: (values, shape, dtype = 'float32') => tf.tensor(values, shape, dtype),
    I: (values, shape) => tf.tensor(values, shape, 'int32'),
    B: (values, shape) => tf.tensor(values, shape, 'bool'),
  };
}

function floatPaths(args) {
  const paths = [];
  args.forEach((a, i) => {
    if (a instanceof tf.Tensor && a.dtype === 'float32') paths.push([i]);
    if (Array.isArray(a)) {
      a.forEach((b, j) => {
        if (b instanceof tf.Tensor && b.dtype === 'float32') paths.push([i, j]);
      });
    }
  });
  return paths;
}

function leaves(out) {
  if (out instanceof tf.Tensor) return [out];
  if (Array.isArray(out)) return out.flatMap(leaves);
  if (out && typeof out === 'object') return Object.values(out).flatMap(leaves);
  return [];
}

function substitute(args, paths, xs) {
  const copy = args.map((a) => (Array.isArray(a) ? a.slice() : a));
  paths.forEach((p, k) => {
    if (p.length === 1) copy[p[0]] = xs[k];
    else copy[p[0]][p[1]] = xs[k];
  });
  return copy;
}

function weightsFor(out) {
  let offset = 0;
  return leaves(out).filter((t) => t.dtype === 'float32').map((t) => {
    const size = t.size;
    const values = Array.from({length: size}, (_, i) => 0.5 + ((i + offset) % 7) * 0.25);
    offset += size;
    return tf.tensor(values, t.shape, 'float32');
  });
}

// Collects cases; `write` saves them with one case per line (small diffs, plain JSON).
class Recorder {
  // moments: record the mean and variance of random draws (gen_ops.js predates them).
  constructor({moments = true} = {}) {
    this.moments = moments;
    this.cases = [];
    this.errors = [];
    this.random = [];
    this.divergences = [];
    this.methods = [];
  }

  // A value case and, where the result has float32 leaves, the gradients of
  // sum_k sum(leaf_k * w_k) with respect to every float32 tensor argument. grad: false where
  // tfjs's gradient is known to be wrong; a gradient tfjs cannot compute is recorded as such.
  // Either way `grads_note` says why there is no reference gradient, and the Python test checks
  // those against finite differences instead.
  val(op, name, args, {grad = true} = {}) {
    const out = call(op, args);
    const entry = {name: `${op}/${name}`, op, args: args.map(encode), expected: encode(out), grads: null};
    const paths = floatPaths(args);
    const weights = weightsFor(out);
    if (paths.length && weights.length) {
      if (!grad) {
        entry.grads_note = "tfjs's gradient differs from the derivative here";
      } else {
        const f = (...xs) => {
          const floats = leaves(call(op, substitute(args, paths, xs))).filter((t) => t.dtype === 'float32');
          return floats.map((t, k) => tf.sum(tf.mul(t, weights[k]))).reduce((a, b) => tf.add(a, b));
        };
        try {
          const grads = tf.grads(f)(paths.map((p) => (p.length === 1 ? args[p[0]] : args[p[0]][p[1]])));
          entry.grads = {wrt: paths, weights: weights.map(encodeTensor), expected: grads.map(encodeTensor)};
        } catch (e) {
          entry.grads_note = `tfjs throws: ${e.message}`;
        }
      }
    }
    this.cases.push(entry);
    return out;
  }

  // An error case; `error` is the Python type the op must raise ('TypeError' or 'ValueError').
  err(op, name, args, error) {
    let message = null;
    try {
      call(op, args);
    } catch (e) {
      message = e.message;
    }
    if (message === null) throw new Error(`${op}/${name}: expected tfjs to throw`);
    this.errors.push({name: `${op}/${name}`, op, args: args.map(encode), error, message});
  }

  // A random draw: dtype, shape and range (the numbers themselves are JAX's), plus mean and
  // variance for checks of the law.
  rnd(op, name, args) {
    const out = call(op, args);
    const values = Array.from(out.dataSync());
    const entry = {name: `${op}/${name}`, op, args: args.map(encode), dtype: out.dtype,
                   shape: out.shape, min: Math.min(...values), max: Math.max(...values)};
    if (this.moments) {
      const mean = values.reduce((a, b) => a + b, 0) / Math.max(values.length, 1);
      entry.mean = num(mean);
      entry.variance = num(values.reduce((a, b) => a + (b - mean) ** 2, 0) / Math.max(values.length, 1));
    }
    this.random.push(entry);
  }

  // The method form `x.<method>(...rest)` on args[0] (a tensor): its value, as tfjs gives it.
  meth(method, name, args) {
    const out = args[0][method](...args.slice(1));
    this.methods.push({name: `${method}/${name}`, method, args: args.map(encode), expected: encode(out)});
    return out;
  }

  // Where the contract chooses differently from tfjs on purpose: what tfjs gives.
  diverge(op, name, args) {
    let tfjs;
    try {
      tfjs = {expected: encode(call(op, args))};
    } catch (e) {
      tfjs = {message: e.message};
    }
    this.divergences.push({name: `${op}/${name}`, op, args: args.map(encode), tfjs});
  }

  covered() {
    const ops = [...this.cases, ...this.errors, ...this.random, ...this.divergences].map((c) => c.op);
    return new Set(ops);
  }
}

function writeFixture(file, out) {
  const lines = Object.entries(out).map(([k, v]) => {
    const body = Array.isArray(v) ? `[\n  ${v.map((x) => JSON.stringify(x)).join(',\n  ')}\n ]`
                                  : JSON.stringify(v);
    return ` ${JSON.stringify(k)}: ${body}`;
  });
  fs.writeFileSync(file, `{\n${lines.join(',\n')}\n}\n`);
}

module.exports = {tf, num, encode, encodeTensor, resolve, call, inputs, leaves, Recorder, writeFixture};
