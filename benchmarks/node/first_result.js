#!/usr/bin/env node
// Benchmark run (one per process): tfjs 4.22's first `fit` call on a tfjs-examples recurrent
// model, from `fit` called to the first epoch's logs (see benchmarks/_first_result.py, which
// passes the model's shapes as JSON and builds the same models in tfjs_grad).
//   node benchmarks/node/first_result.js <addition-rnn|lstm-text-generation> <cpu|wasm> <spec JSON>
// Prints one JSON line: {first_epoch_s, fit_s, epoch_loss}.
'use strict';

const {loadTfjs} = require('./runtime');

// Random one-hot characters: [...shape, vocab] float32.
function oneHot(tf, shape, vocab) {
  return tf.tidy(() => tf.oneHot(tf.randomUniform(shape, 0, vocab, 'int32'), vocab).toFloat());
}

// The example's createAndCompileModel(1, 128, 'LSTM', 2, 12) and its fit arguments.
function additionRnn(tf, spec) {
  const model = tf.sequential();
  model.add(tf.layers.lstm({
    units: spec.units, recurrentInitializer: 'glorotNormal', inputShape: [spec.in_len, spec.vocab],
  }));
  model.add(tf.layers.repeatVector({n: spec.out_len}));
  model.add(tf.layers.lstm({
    units: spec.units, recurrentInitializer: 'glorotNormal', returnSequences: true,
  }));
  model.add(tf.layers.timeDistributed({layer: tf.layers.dense({units: spec.vocab})}));
  model.add(tf.layers.activation({activation: 'softmax'}));
  model.compile({loss: 'categoricalCrossentropy', optimizer: 'adam', metrics: ['accuracy']});
  const x = oneHot(tf, [spec.train, spec.in_len], spec.vocab);
  const y = oneHot(tf, [spec.train, spec.out_len], spec.vocab);
  const validationData = [
    oneHot(tf, [spec.validation, spec.in_len], spec.vocab),
    oneHot(tf, [spec.validation, spec.out_len], spec.vocab),
  ];
  return {model, x, y, args: {batchSize: spec.batch, validationData, yieldEvery: 'epoch'}, callbacks: {}};
}

// The example's createModel(40, 57, 128), compileModel(model, 1e-2) and one fitModel epoch.
function lstmTextGeneration(tf, spec) {
  const model = tf.sequential();
  model.add(tf.layers.lstm({
    units: spec.units, returnSequences: false, inputShape: [spec.in_len, spec.vocab],
  }));
  model.add(tf.layers.dense({units: spec.vocab, activation: 'softmax'}));
  model.compile({optimizer: tf.train.rmsprop(spec.learning_rate), loss: 'categoricalCrossentropy'});
  const x = oneHot(tf, [spec.train, spec.in_len], spec.vocab);
  const y = oneHot(tf, [spec.train], spec.vocab);
  const batchLosses = [];
  return {
    model, x, y,
    args: {batchSize: spec.batch, validationSplit: spec.validation_split},
    callbacks: {onBatchEnd: async (batch, logs) => { batchLosses.push(logs.loss); }},
  };
}

const BUILDERS = {'addition-rnn': additionRnn, 'lstm-text-generation': lstmTextGeneration};

async function main() {
  const [name, backend, specJson] = process.argv.slice(2);
  const {tf, detail} = await loadTfjs(backend);
  const {model, x, y, args, callbacks} = BUILDERS[name](tf, JSON.parse(specJson));
  const seen = {};
  const start = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - start) / 1e9;
  const onEpochEnd = async (epoch, logs) => {
    if (seen.first_epoch_s === undefined) {
      seen.first_epoch_s = seconds();
      seen.epoch_loss = logs.loss;
    }
  };
  await model.fit(x, y, {...args, epochs: 1, verbose: 0, callbacks: {...callbacks, onEpochEnd}});
  const fitSeconds = seconds();
  process.stdout.write(JSON.stringify({...seen, fit_s: fitSeconds, detail}) + '\n');
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
