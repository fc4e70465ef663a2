#!/usr/bin/env node
// Writes tests/reference/rnn_wrappers.json: TensorFlow.js 4.22's stateful LSTM inside
// bidirectional and timeDistributed, for tests/test_rnn_wrappers.py.
//
// Run from the repo root:   node tests/reference/gen_rnn_wrappers.js     (deterministic output)
//
// Weights are mulberry32 draws (recorded as `weights`, in model.getWeights() order); inputs
// likewise.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const rand = mulberry32(3535);
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
const errorOf = (f) => {
  try {
    f();
  } catch (e) {
    return e.message;
  }
  return null;
};

function main() {
  const out = {};

  // 1. bidirectional(stateful lstm): both directions carry their states across predict calls;
  //    model.resetStates() and the wrapper's resetStates() zero both.
  {
    const model = tf.sequential({layers: [tf.layers.bidirectional({
      layer: tf.layers.lstm({units: 2, stateful: true}), batchInputShape: [2, 3, 4]})]});
    const weights = setDrawnWeights(model);
    const xs = [draw([2, 3, 4]), draw([2, 3, 4])];
    const predictions = xs.map((x) => enc(model.predict(x)));
    const wrapper = model.layers[0];
    const states = [...wrapper.forwardLayer.states, ...wrapper.backwardLayer.states].map(enc);
    model.resetStates();
    const afterReset = enc(model.predict(xs[0]));
    wrapper.resetStates();
    const afterWrapperReset = enc(model.predict(xs[1]));
    out.bidirectional = {weights, inputs: xs.map(enc), predictions, states,
                         after_reset: afterReset, after_wrapper_reset: afterWrapperReset,
                         model_stateful: model.stateful, wrapper_stateful: wrapper.stateful};
  }

  // 2. timeDistributed(stateful lstm): tfjs runs the lstm once per outer step, so its states
  //    carry from step to step and across calls; the wrapper is not stateful, so
  //    model.resetStates() leaves the lstm's states alone; the lstm's own resetStates() zeroes
  //    them.
  {
    const model = tf.sequential({layers: [tf.layers.timeDistributed({
      layer: tf.layers.lstm({units: 2, stateful: true}), batchInputShape: [2, 3, 2, 4]})]});
    const weights = setDrawnWeights(model);
    const x = draw([2, 3, 2, 4]);
    const predictions = [enc(model.predict(x)), enc(model.predict(x))];
    model.resetStates();
    const afterModelReset = enc(model.predict(x));
    model.layers[0].layer.resetStates();
    const afterLayerReset = enc(model.predict(x));
    out.time_distributed = {weights, x: enc(x), predictions, after_model_reset: afterModelReset,
                            after_layer_reset: afterLayerReset,
                            model_stateful: model.stateful,
                            wrapper_stateful: model.layers[0].stateful};
  }

  out.errors = {
    wrapper_reset_not_stateful: errorOf(() => {
      const td = tf.layers.timeDistributed({layer: tf.layers.lstm({units: 2, stateful: true})});
      td.resetStates();
    }),
  };

  const file = path.join(__dirname, 'rnn_wrappers.json');
  fs.writeFileSync(file, JSON.stringify(out) + '\n');
  console.log(`wrote ${file}`);
}

main();
