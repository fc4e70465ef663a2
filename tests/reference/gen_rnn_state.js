#!/usr/bin/env node
// Writes tests/reference/rnn_state.json: TensorFlow.js 4.22's stateful recurrent layers and
// tf.layers.rnn with built-in, stacked and custom cells, for tests/test_rnn_state.py.
//
// Run from the repo root:   node tests/reference/gen_rnn_state.js     (deterministic output)
//
// Every model's weights are set from mulberry32 draws (recorded as `weights`, in
// model.getWeights() order); inputs likewise.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const rand = mulberry32(3524);
const enc = (t) => ({shape: t.shape, values: Array.from(t.dataSync())});
const draw = (shape, scale = 1) => {
  const n = shape.reduce((a, b) => a * b, 1);
  return tf.tensor(Array.from({length: n}, () => Math.fround((rand() * 2 - 1) * scale)), shape);
};
const setDrawnWeights = (model) => {
  const ws = model.getWeights().map((w) => draw(w.shape, 0.6));
  model.setWeights(ws);
  return ws.map(enc);
};
const silent = {verbose: 0};

async function main() {
  const out = {};

  // 1. A stateful LSTM's predictions over three consecutive batches, then after resetStates.
  {
    const model = tf.sequential({layers: [
      tf.layers.lstm({units: 3, stateful: true, batchInputShape: [2, 3, 4]})]});
    const weights = setDrawnWeights(model);
    const xs = [draw([2, 3, 4]), draw([2, 3, 4]), draw([2, 3, 4])];
    const predictions = xs.map((x) => enc(model.predict(x)));
    const states = model.layers[0].states.map(enc);
    model.resetStates();
    const afterReset = enc(model.predict(xs[0]));
    const given = [draw([2, 3]), draw([2, 3])];
    model.layers[0].resetStates(given);
    const afterGiven = enc(model.predict(xs[0]));
    const applied = enc(model.layers[0].apply(xs[1]));
    out.stateful_lstm = {weights, inputs: xs.map(enc), predictions, states,
                         after_reset: afterReset, given_states: given.map(enc),
                         after_given: afterGiven, apply_after: applied};
  }

  // 2. A stateful GRU trained with fit (states carried across batches), shuffle false.
  {
    const model = tf.sequential({layers: [
      tf.layers.gru({units: 2, stateful: true, batchInputShape: [2, 4, 3]}),
      tf.layers.dense({units: 1})]});
    const weights = setDrawnWeights(model);
    const x = draw([6, 4, 3]);
    const y = draw([6, 1]);
    model.compile({optimizer: tf.train.sgd(0.1), loss: 'meanSquaredError'});
    const h = await model.fit(x, y, {epochs: 2, batchSize: 2, shuffle: false, ...silent});
    const states = model.layers[0].states.map(enc);
    const finalWeights = model.getWeights().map(enc);
    out.stateful_gru_fit = {weights, x: enc(x), y: enc(y), history: h.history, states,
                            final_weights: finalWeights};
  }

  // 3. tf.layers.rnn over stackedRNNCells([lstmCell, simpleRNNCell]).
  {
    const input = tf.input({shape: [4, 3]});
    const rnn = tf.layers.rnn({
      cell: tf.layers.stackedRNNCells({cells: [tf.layers.lstmCell({units: 3}),
                                               tf.layers.simpleRNNCell({units: 2})]}),
      returnSequences: true, returnState: true});
    const outs = rnn.apply(input);
    const model = tf.model({inputs: input, outputs: outs});
    const weights = setDrawnWeights(model);
    const x = draw([2, 4, 3]);
    const predictions = model.predict(x).map(enc);
    // a cell list and goBackwards; a gruCell alone
    const rnn2 = tf.layers.rnn({cell: [tf.layers.gruCell({units: 2}), tf.layers.simpleRNNCell(
      {units: 3})], goBackwards: true});
    const m2 = tf.sequential({layers: [tf.layers.inputLayer({inputShape: [4, 3]}), rnn2]});
    const weights2 = setDrawnWeights(m2);
    // the saved config of a tf.layers.rnn over named stacked cells
    const named = tf.sequential({name: 'named_model', layers: [tf.layers.rnn({
      name: 'named_rnn', inputShape: [4, 3], returnSequences: true,
      cell: tf.layers.stackedRNNCells({name: 'named_stack', cells: [
        tf.layers.lstmCell({name: 'named_lstm_cell', units: 3}),
        tf.layers.gruCell({name: 'named_gru_cell', units: 2})]})})]});
    out.saved_config = named.toJSON(null, false).config.layers[0];
    const single = tf.layers.rnn({name: 'single_rnn', cell: tf.layers.gruCell({units: 2})});
    single.apply(tf.input({shape: [4, 3]}));
    out.weight_names = {stacked: named.weights.map((w) => w.name),
                        single: single.weights.map((w) => w.name)};
    // a mask from a masking layer: masked steps keep the previous output and states
    const masked = tf.sequential({layers: [
      tf.layers.masking({maskValue: 0, inputShape: [4, 3]}),
      tf.layers.rnn({cell: tf.layers.simpleRNNCell({units: 2}), returnSequences: true})]});
    const maskedWeights = setDrawnWeights(masked);
    const xm = x.mul(tf.tensor([1, 0, 1, 1, 1, 1, 0, 0], [2, 4, 1]));
    out.masked = {weights: maskedWeights, x: enc(xm), prediction: enc(masked.predict(xm))};
    out.stacked = {weights, x: enc(x), output_shapes: outs.map((t) => t.shape), predictions,
                   weight_shapes: model.getWeights().map((w) => w.shape),
                   list_cells: {weights: weights2, prediction: enc(m2.predict(x)),
                                state_size: rnn2.cell.stateSize}};
  }

  // 4. A custom cell (a tf.layers.Layer with stateSize and call([input, ...states])).
  {
    class MinimalRNNCell extends tf.layers.Layer {
      constructor(config) {
        super(config);
        this.units = config.units;
        this.stateSize = config.units;
      }
      build(inputShape) {
        this.kernel = this.addWeight('kernel', [inputShape[inputShape.length - 1], this.units],
                                     'float32', tf.initializers.glorotUniform({}));
        this.recurrentKernel = this.addWeight('recurrent_kernel', [this.units, this.units],
                                              'float32', tf.initializers.glorotUniform({}));
        this.built = true;
      }
      call(inputs, kwargs) {
        const [x, h] = inputs;
        const output = x.matMul(this.kernel.read()).add(h.matMul(this.recurrentKernel.read()))
          .tanh();
        return [output, output];
      }
      static get className() { return 'MinimalRNNCell'; }
    }
    const model = tf.sequential({layers: [
      tf.layers.rnn({cell: new MinimalRNNCell({units: 3}), inputShape: [4, 2]}),
      tf.layers.dense({units: 1})]});
    const weights = setDrawnWeights(model);
    const x = draw([8, 4, 2]);
    const y = draw([8, 1]);
    const prediction = enc(model.predict(x));
    const seq = tf.layers.rnn({cell: new MinimalRNNCell({units: 3}), returnSequences: true,
                               returnState: true});
    const seqOut = seq.apply(x);
    seq.setWeights(weights.slice(0, 2).map((w) => tf.tensor(w.values, w.shape)));
    const seqOut2 = seq.apply(x);
    const h0 = draw([8, 3]);
    const fromH0 = seq.apply(x, {initialState: [h0]});
    model.compile({optimizer: tf.train.sgd(0.2), loss: 'meanSquaredError'});
    const h = await model.fit(x, y, {epochs: 3, batchSize: 4, shuffle: false, ...silent});
    out.custom_cell = {weights, x: enc(x), y: enc(y), prediction,
                       sequences: seqOut2.map(enc), initial_state: enc(h0),
                       from_initial_state: fromH0.map(enc), history: h.history,
                       final_weights: model.getWeights().map(enc)};
    tf.dispose(seqOut);
  }

  // 5. Errors.
  const errors = {};
  try {
    tf.sequential({layers: [tf.layers.lstm({units: 2, stateful: true, inputShape: [3, 4]})]});
  } catch (e) { errors.no_batch_size = e.message; }
  try {
    tf.layers.lstm({units: 2}).resetStates();
  } catch (e) { errors.not_stateful = e.message; }
  try {
    const l = tf.layers.simpleRNN({units: 2, stateful: true, batchInputShape: [2, 3, 4]});
    tf.sequential({layers: [l]});
    l.resetStates([tf.zeros([3, 2])]);
  } catch (e) { errors.bad_state_shape = e.message; }
  {
    const m = tf.sequential({layers: [
      tf.layers.gru({units: 2, stateful: true, batchInputShape: [2, 4, 3]})]});
    m.compile({optimizer: 'sgd', loss: 'meanSquaredError'});
    try {
      await m.fit(tf.zeros([5, 4, 3]), tf.zeros([5, 2]), {batchSize: 2, verbose: 0});
    } catch (e) { errors.fit_not_divisible = e.message; }
    try { m.predict(tf.zeros([5, 4, 3])); } catch (e) { errors.predict_wrong_batch = e.message; }
  }
  out.errors = errors;

  fs.writeFileSync(path.join(__dirname, 'rnn_state.json'), JSON.stringify(out, null, 0) + '\n');
}

main();
