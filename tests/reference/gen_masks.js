#!/usr/bin/env node
// Writes tests/reference/masks.json: what REAL TensorFlow.js 4.22 (pure-JS CPU backend)
// computes when masks flow through a model (Embedding maskZero / Masking -> RNN layers), for
// tests/test_masks.py (which needs no Node).
//
// Run from the repo root:   node tests/reference/gen_masks.js     (deterministic output)
//
// masks.json:
//   cases.<id>: {kind: "sequential" | "functional",
//     layers: [{factory, config, inputs: [names] (functional only; "input" is tf.input)}]
//       (a wrapped layer's config has layer: {factory, config}),
//     input: {shape (no batch axis), dtype}, x {shape, values} (ids with zero padding, or
//     floats with all-zero steps), weights [{name, shape, values}] (model.weights order, set
//     with setWeights from mulberry32 in [-0.5, 0.5)),
//     outputs [{shape, values}] (model.predict), cotangents [{shape, values}],
//     grad_weights {originalName: values} (d sum(out * cot) / d weights, through model.apply),
//     fit: {y, epochs, batchSize, lr, loss (history.loss), weights (values after fit)}}
//       (sgd, meanSquaredError, shuffle false; single-output cases without dropout).
//   compute_mask: layer.computeMask results for a few layers: {case: {mask values}}.
//   errors: messages tfjs gives (computeMask of a layer without masking support).
// Floats are the exact JS doubles of the float32 values; masks are 0/1 numbers.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const rand = mulberry32(20261202);
const uniform = (n, lo, hi) => Array.from({length: n}, () => Math.fround(lo + rand() * (hi - lo)));
const size = (shape) => shape.reduce((a, b) => a * b, 1);
const enc = (t) => ({shape: t.shape, values: Array.from(t.dataSync())});

function make(factory, config) {
  const c = {...config};
  if (c.layer) c.layer = make(c.layer.factory, c.layer.config);
  return tf.layers[factory](c);
}

// Batch of 4 id sequences of length 5: post-padding, pre-padding, a zero inside, all zeros.
const IDS = [[3, 1, 4, 0, 0], [0, 0, 2, 5, 1], [1, 0, 3, 2, 0], [0, 0, 0, 0, 0]];
// Float steps for Masking: the same pattern, a step is masked where every feature is 0.
function floatSteps(features) {
  return IDS.map((row) => row.map((id) => (id === 0 ? Array(features).fill(0)
                                                    : uniform(features, -1, 1))));
}

function build(kind, layers, input) {
  if (kind === 'sequential') {
    const model = tf.sequential();
    layers.forEach((l, i) => {
      const config = {...l.config};
      if (i === 0) config.inputShape = input.shape;
      model.add(make(l.factory, config));
    });
    return model;
  }
  const x = tf.input({shape: input.shape, dtype: input.dtype});
  const made = {input: x};
  let last = null;
  for (const l of layers) {
    const ins = l.inputs.map((n) => made[n]);
    last = make(l.factory, l.config).apply(ins.length === 1 ? ins[0] : ins);
    made[l.config.name] = last;
  }
  return tf.model({inputs: x, outputs: last});
}

function maskCase(kind, layers, input, opts = {}) {
  const model = build(kind, layers, input);
  const values = model.weights.map((w) => tf.tensor(uniform(size(w.shape), -0.5, 0.5), w.shape));
  model.setWeights(values);
  const weights = model.weights.map((w, i) => ({name: w.originalName, shape: w.shape,
                                                values: Array.from(values[i].dataSync())}));
  const x = input.dtype === 'int32' ? tf.tensor(IDS, undefined, 'int32')
                                    : tf.tensor(floatSteps(input.shape[1]));
  const outs = [model.predict(x)].flat();
  const cots = outs.map((o) => tf.tensor(uniform(size(o.shape), -1, 1), o.shape));
  const loss = () => {
    const out = [model.apply(x)].flat();
    return tf.addN(out.map((o, i) => tf.sum(tf.mul(o, cots[i]))));
  };
  const vars = model.trainableWeights.map((w) => w.val);
  const {grads} = tf.variableGrads(loss, vars);
  const gradWeights = {};
  model.trainableWeights.forEach((w) => {
    gradWeights[w.originalName] = Array.from(grads[w.val.name].dataSync());
  });
  return {kind, layers, input, x: enc(x), weights, outputs: outs.map(enc),
          cotangents: cots.map(enc), grad_weights: gradWeights, model, outs};
}

async function addFit(c) {
  // Dropout draws its own numbers in fit: no fit for a case that has one.
  if (c.outs.length !== 1 || c.layers.some((l) => l.factory === 'dropout')) return;
  const y = tf.tensor(uniform(size(c.outs[0].shape), -1, 1), c.outs[0].shape);
  const lr = 0.1;
  c.model.compile({optimizer: tf.train.sgd(lr), loss: 'meanSquaredError'});
  const x = tf.tensor(c.x.values, c.x.shape, c.input.dtype);
  const history = await c.model.fit(x, y, {epochs: 2, batchSize: 2, shuffle: false, verbose: 0});
  c.fit = {y: enc(y), epochs: 2, batchSize: 2, lr, loss: history.history.loss,
           weights: c.model.weights.map((w) => Array.from(w.read().dataSync()))};
}

const IDS_IN = {shape: [5], dtype: 'int32'};
const emb = (extra = {}) => ({factory: 'embedding',
                              config: {inputDim: 6, outputDim: 3, maskZero: true, ...extra}});

const CASES = {};
function seqCase(id, layers, input = IDS_IN) {
  CASES[id] = maskCase('sequential', layers, input);
}
function funCase(id, layers, input = IDS_IN) {
  CASES[id] = maskCase('functional', layers, input);
}

for (const rnn of ['simpleRNN', 'lstm', 'gru']) {
  for (const returnSequences of [false, true]) {
    for (const goBackwards of [false, true]) {
      const id = `${rnn}_${returnSequences ? 'seq' : 'last'}${goBackwards ? '_back' : ''}`;
      const layers = [emb(), {factory: rnn, config: {units: 4, returnSequences, goBackwards}}];
      // After a sequence output the mask goes on: through a Dense (which passes it) into a
      // second RNN that returns its last output.
      if (returnSequences) {
        layers.push({factory: 'dense', config: {units: 3}});
        layers.push({factory: rnn, config: {units: 2}});
      } else {
        layers.push({factory: 'dense', config: {units: 2}});
      }
      seqCase(id, layers);
    }
  }
}
// Embedding without maskZero: no mask at all.
seqCase('lstm_nomask', [emb({maskZero: false}), {factory: 'lstm', config: {units: 3}}]);
// Masking over float steps.
seqCase('masking_gru', [{factory: 'masking', config: {maskValue: 0}},
                        {factory: 'gru', config: {units: 3, returnSequences: true}}],
        {shape: [5, 2], dtype: 'float32'});
// Bidirectional: each direction skips the masked steps.
seqCase('bidirectional_lstm_concat', [emb(), {factory: 'bidirectional', config: {
  layer: {factory: 'lstm', config: {units: 3}}, mergeMode: 'concat'}}]);
seqCase('bidirectional_gru_seq_sum', [emb(), {factory: 'bidirectional', config: {
  layer: {factory: 'gru', config: {units: 2, returnSequences: true}}, mergeMode: 'sum'}},
  {factory: 'simpleRNN', config: {units: 2}}]);
// A layer without masking support drops the mask, but the executor's kwargs keep the last
// one: the LSTM after a same-padded conv1d still skips the steps that embedding masked.
seqCase('conv1d_stale_mask_lstm', [emb(), {factory: 'conv1d', config: {
  filters: 2, kernelSize: 3, padding: 'same'}}, {factory: 'lstm', config: {units: 2}}]);
// Flatten does not support masking: the mask is dropped, no error.
seqCase('flatten_dense', [emb(), {factory: 'flatten', config: {}},
                          {factory: 'dense', config: {units: 2}}]);
// TimeDistributed(dense) passes the mask on to the RNN.
seqCase('time_distributed_simple_rnn', [emb(), {factory: 'timeDistributed', config: {
  layer: {factory: 'dense', config: {units: 3}}}}, {factory: 'simpleRNN', config: {units: 2}}]);
// Functional: two branches from one masked embedding, concatenated.
funCase('functional_branches', [
  {...emb({name: 'emb'}), inputs: ['input']},
  {factory: 'lstm', config: {name: 'fwd', units: 3}, inputs: ['emb']},
  {factory: 'gru', config: {name: 'back', units: 2, goBackwards: true}, inputs: ['emb']},
  {factory: 'concatenate', config: {name: 'cat'}, inputs: ['fwd', 'back']},
  {factory: 'dense', config: {name: 'out', units: 2}, inputs: ['cat']},
]);
funCase('functional_dropout_stack', [
  {...emb({name: 'emb'}), inputs: ['input']},
  {factory: 'dropout', config: {name: 'drop', rate: 0.5}, inputs: ['emb']},
  {factory: 'simpleRNN', config: {name: 'rnn1', units: 3, returnSequences: true},
   inputs: ['drop']},
  {factory: 'lstm', config: {name: 'rnn2', units: 2, goBackwards: true}, inputs: ['rnn1']},
]);

// computeMask of single layers.
const ids = tf.tensor(IDS, undefined, 'int32');
const steps = tf.tensor(floatSteps(2));
const embLayer = tf.layers.embedding({inputDim: 6, outputDim: 3, maskZero: true});
const mask = embLayer.computeMask(ids);
const computeMask = {
  embedding: enc(mask),
  embedding_no_mask_zero:
      tf.layers.embedding({inputDim: 6, outputDim: 3}).computeMask(ids) === null,
  masking: enc(tf.layers.masking({maskValue: 0}).computeMask(steps)),
  dense_passes: enc(tf.layers.dense({units: 2}).computeMask(steps, mask)),
  lstm_seq: enc(tf.layers.lstm({units: 2, returnSequences: true}).computeMask(steps, mask)),
  lstm_last: tf.layers.lstm({units: 2}).computeMask(steps, mask) === null,
  supports_masking: {
    dense: tf.layers.dense({units: 2}).supportsMasking,
    flatten: tf.layers.flatten().supportsMasking,
    lstm: tf.layers.lstm({units: 2}).supportsMasking,
    embedding_mask_zero: embLayer.supportsMasking,
    embedding: Boolean(tf.layers.embedding({inputDim: 2, outputDim: 2}).supportsMasking),
    conv1d: tf.layers.conv1d({filters: 1, kernelSize: 1}).supportsMasking,
    masking: tf.layers.masking().supportsMasking,
  },
};
const errors = {};
try {
  tf.layers.flatten({name: 'flat'}).computeMask(steps, mask);
} catch (e) {
  errors.flatten_compute_mask = `${e.name}: ${e.message}`;
}

(async () => {
  for (const c of Object.values(CASES)) await addFit(c);
  const cases = {};
  for (const [id, c] of Object.entries(CASES)) {
    const {model, outs, ...rest} = c;
    cases[id] = rest;
    for (const v of [...c.outputs.flatMap((o) => o.values),
                     ...Object.values(c.grad_weights).flat()]) {
      if (!Number.isFinite(v)) throw new Error(`${id}: non-finite value`);
    }
  }
  const doc = {
    header: {generator: 'tests/reference/gen_masks.js', tfjs_version: tf.version.tfjs,
             backend: tf.getBackend(), node_version: process.version},
    cases, compute_mask: computeMask, errors,
  };
  fs.writeFileSync(path.join(__dirname, 'masks.json'), JSON.stringify(doc, null, 0) + '\n');
  console.log(`wrote masks.json: ${Object.keys(cases).length} cases`);
})();
