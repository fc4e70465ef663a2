#!/usr/bin/env node
// Writes tests/reference/data.json: TensorFlow.js 4.22's tf.data (seeded shuffle orders,
// batching, sizes, csv parsing) and model.fitDataset / evaluateDataset, for
// tests/test_data.py.
//
// Run from the repo root:   node tests/reference/gen_data.js     (deterministic output)
//
// data.json: {shuffles: [{name, values: [pass1, pass2]}], batches, sizes: {name: n|'Infinity'|null},
//   csv: [{name, text, config, elements, columnNames} | {name, text, config, error}],
//   fit: [{name, config, weights_before, data, history, weights_after, evaluate}]}
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const range = (n) => Array.from({length: n}, (_, i) => i);
const size = (ds) => (ds.size === Infinity ? 'Infinity' : ds.size);
const plain = (x) => {
  if (x instanceof tf.Tensor) return {shape: x.shape, values: Array.from(x.dataSync())};
  if (Array.isArray(x)) return x.map(plain);
  if (x !== null && typeof x === 'object') {
    const out = {};
    for (const k of Object.keys(x)) out[k] = plain(x[k]);
    return out;
  }
  return x === undefined ? null : x;
};

async function passes(ds, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(plain(await ds.toArray()));
  return out;
}

async function main() {
  const shuffles = [];
  const addShuffle = async (name, ds, n) => shuffles.push({name, values: await passes(ds, n)});
  await addShuffle('ten_window4_abc', tf.data.array(range(10)).shuffle(4, 'abc'), 2);
  await addShuffle('ten_window4_abc_same_each',
                   tf.data.array(range(10)).shuffle(4, 'abc', false), 2);
  await addShuffle('seven_window20_42', tf.data.array(range(7)).shuffle(20, 42), 2);
  await addShuffle('twelve_window1_x', tf.data.array(range(12)).shuffle(1, 'x'), 1);
  await addShuffle('twenty_window6_take5', tf.data.array(range(20)).shuffle(6, 's').take(5), 2);
  await addShuffle('five_repeat2', tf.data.array(range(5)).shuffle(5, 'r').repeat(2), 1);
  await addShuffle('nine_batch2', tf.data.array(range(9)).shuffle(3, 7).batch(2), 1);

  const rows = range(7).map((i) => ({a: i, b: [i, i + 0.5]}));
  const batches = {
    dicts_small_last: plain(await tf.data.array(rows).batch(3).toArray()),
    dicts_no_small_last: plain(await tf.data.array(rows).batch(3, false).toArray()),
    tensors: plain(await tf.data.array(range(4).map((i) => tf.tensor1d([i, -i]))).batch(3)
                       .toArray()),
    skip_negative: plain(await tf.data.array(range(4)).skip(-1).toArray()),
    take_negative: plain(await tf.data.array(range(4)).take(-1).toArray()),
    filter_map: plain(await tf.data.array(range(10)).filter((x) => x % 3 === 0)
                          .map((x) => x * 2).toArray()),
    concatenate: plain(await tf.data.array([1, 2]).concatenate(tf.data.array([3])).toArray()),
    zip_nested: plain(await tf.data.zip({p: [tf.data.array([1, 2, 3]), tf.data.array([4, 5])],
                                         q: tf.data.array(['a', 'b', 'c'])}).toArray()),
  };
  const ten = tf.data.array(range(10));
  const sizes = {
    batch3: size(ten.batch(3)), batch3_no_small: size(ten.batch(3, false)),
    repeat: size(ten.repeat()), repeat2: size(ten.repeat(2)), repeat0: size(ten.repeat(0)),
    take20: size(ten.take(20)), take4: size(ten.take(4)), skip3: size(ten.skip(3)),
    skip20: size(ten.skip(20)), skip_negative: size(ten.skip(-1)), filter: size(ten.filter(() => true)),
    repeat_filter: size(ten.repeat().filter(() => true)), concat: size(ten.concatenate(ten)),
    concat_inf: size(ten.concatenate(ten.repeat())), shuffle: size(ten.shuffle(3)),
    zip: size(tf.data.zip([ten, ten.take(4)])),
    generator: size(tf.data.generator(function* () { yield 1; })),
  };

  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tfjs-data-'));
  const csvCases = [
    {name: 'header_labels', text: 'a,b,label\n1,2.5,0\n3,-4e-1,1\n',
     config: {columnConfigs: {label: {isLabel: true}}}},
    {name: 'quotes_and_blanks', text: 'x,name,flag\n1,"Smith, J",true\n,"say ""hi""",0\n2,plain,no\n',
     config: {columnConfigs: {x: {default: 7}, flag: {dtype: 'bool'}}}},
    {name: 'no_header_int', text: '1.7,2\r\n3.2,4\r\n', config: {hasHeader: false,
     columnNames: ['p', 'q'], columnConfigs: {p: {dtype: 'int32'}}}},
    {name: 'configured_only', text: 'a,b,c\n1,2,3\n4,5,6\n',
     config: {columnConfigs: {c: {isLabel: true}, a: {}}, configuredColumnsOnly: true}},
    {name: 'whitespace', text: 'a b  c\n1 2  3\n', config: {delimWhitespace: true}},
    {name: 'semicolon_strings', text: 'k;v\nInfinity;0x1F\n1_0;  \n', config: {delimiter: ';'}},
    {name: 'bad_row', text: 'a,b\n1,2\n3\n', config: {}},
    {name: 'required_empty', text: 'a,b\n1,\n', config: {columnConfigs: {b: {required: true}}}},
    {name: 'unknown_config_column', text: 'a,b\n1,2\n', config: {columnConfigs: {z: {}}}},
  ];
  const csv = [];
  for (const c of csvCases) {
    const file = path.join(dir, `${c.name}.csv`);
    fs.writeFileSync(file, c.text);
    const ds = tf.data.csv(`file://${file}`, c.config);
    try {
      const elements = plain(await ds.toArray());
      csv.push({name: c.name, text: c.text, config: c.config, elements,
                columnNames: await ds.columnNames()});
    } catch (e) {
      csv.push({name: c.name, text: c.text, config: c.config, error: e.message});
    }
  }

  // fitDataset: a 3-4-1 network, fixed weights, 22 samples, shuffled batches of 5.
  const rand = mulberry32(37);
  const u = () => Math.fround(rand() * 2 - 1);
  const xRows = range(22).map(() => [u(), u(), u()]);
  const yRows = xRows.map(([a, b, c]) => [Math.fround(a - 2 * b + 0.5 * c * c)]);
  const vxRows = range(8).map(() => [u(), u(), u()]);
  const vyRows = vxRows.map(([a, b, c]) => [Math.fround(a - 2 * b + 0.5 * c * c)]);
  const weights = [[3, 4], [4], [4, 1], [1]].map((s) => {
    const n = s.reduce((p, q) => p * q, 1);
    return {shape: s, values: range(n).map(() => Math.fround(u() * 0.6))};
  });
  const makeModel = () => {
    const model = tf.sequential();
    model.add(tf.layers.dense({units: 4, activation: 'relu', inputShape: [3]}));
    model.add(tf.layers.dense({units: 1}));
    model.setWeights(weights.map((w) => tf.tensor(w.values, w.shape)));
    model.compile({optimizer: tf.train.sgd(0.05), loss: 'meanSquaredError', metrics: ['mae']});
    return model;
  };
  const train = () => tf.data.zip({xs: tf.data.array(xRows), ys: tf.data.array(yRows)});
  const val = () => tf.data.zip({xs: tf.data.array(vxRows), ys: tf.data.array(vyRows)}).batch(3);
  const fit = [];
  {
    const model = makeModel();
    const ds = train().shuffle(22, 'fit').batch(5);
    const batchLosses = [];
    const h = await model.fitDataset(ds, {epochs: 3, validationData: val(), verbose: 0,
      callbacks: {onBatchEnd: async (b, logs) => { batchLosses.push([b, logs.size, logs.loss]); }}});
    fit.push({name: 'shuffled_batches_val_dataset', history: h.history, batch_logs: batchLosses,
              weights_after: plain(model.getWeights()),
              evaluate: plain(await model.evaluateDataset(val(), {batches: 2}))});
  }
  {
    const model = makeModel();
    const ds = train().batch(4).repeat();
    const h = await model.fitDataset(ds, {epochs: 2, batchesPerEpoch: 4, verbose: 0,
      validationData: [tf.tensor2d(vxRows), tf.tensor2d(vyRows)], validationBatchSize: 5});
    fit.push({name: 'batches_per_epoch_val_tensors', history: h.history,
              weights_after: plain(model.getWeights())});
  }
  {
    const model = makeModel();
    const ds = train().map(({xs, ys}) => [xs, ys]).batch(6);  // arrays, not {xs, ys}
    try {
      await model.fitDataset(ds, {epochs: 1, verbose: 0});
      fit.push({name: 'array_elements', error: null});
    } catch (e) {
      fit.push({name: 'array_elements', error: e.message});
    }
  }
  const out = {x: xRows, y: yRows, val_x: vxRows, val_y: vyRows, weights, shuffles, batches,
               sizes, csv, fit};
  fs.writeFileSync(path.join(__dirname, 'data.json'), JSON.stringify(out) + '\n');
}

main().catch((e) => { console.error(e); process.exit(1); });
