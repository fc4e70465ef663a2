#!/usr/bin/env node
// Generates tests/reference/optimizers.json: reference optimizer trajectories from the REAL
// TensorFlow.js (pinned in tests/reference/package.json), pure-JS CPU backend.
//
// Run from the repo root:   node tests/reference/gen_optimizers.js
// (after `cd tests/reference && npm install --no-audit --no-fund`).
//
// The JSON is self-describing (see tests/reference/README.md) so the Python tests can replay every
// scenario with JAX without Node.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'optimizers.json');
const SEED = 20240607;
const N = 16, D_IN = 4, D_H = 8, D_OUT = 3;
const VAR_ORDER = ['w1', 'b1', 'w2', 'b2'];
const VAR_SHAPES = {w1: [D_IN, D_H], b1: [D_H], w2: [D_H, D_OUT], b2: [D_OUT]};

// ------------------------------------------------------------------------------------------------
// Deterministic data (mulberry32), rounded to float32.
const rand = mulberry32(SEED);
// uniform in [-scale, scale), rounded to float32
function uniformMatrix(rows, cols, scale) {
  const out = [];
  for (let i = 0; i < rows; i++) {
    const row = [];
    for (let j = 0; j < cols; j++) row.push(Math.fround((rand() * 2 - 1) * scale));
    out.push(row);
  }
  return out;
}
function uniformVector(n, scale) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(Math.fround((rand() * 2 - 1) * scale));
  return out;
}
// generation order matters (single PRNG stream): X, Y, w1, b1, w2, b2
const X = uniformMatrix(N, D_IN, 1.0);
const Y = uniformMatrix(N, D_OUT, 1.0);
const INIT = {
  w1: uniformMatrix(D_IN, D_H, 0.5),
  b1: uniformVector(D_H, 0.1),
  w2: uniformMatrix(D_H, D_OUT, 0.5),
  b2: uniformVector(D_OUT, 0.1),
};

// ------------------------------------------------------------------------------------------------
// Helpers

function assert(cond, msg) {
  if (!cond) throw new Error('ASSERTION FAILED: ' + msg);
}

function freshVars() {
  // Drop every registered variable (previous scenario's variables and optimizer state) so the
  // names w1,b1,w2,b2 can be re-registered, in this insertion order.
  tf.disposeVariables();
  const v = {};
  for (const name of VAR_ORDER) v[name] = tf.variable(tf.tensor(INIT[name], VAR_SHAPES[name], 'float32'), true, name);
  const keys = Object.keys(tf.engine().registeredVariables).filter(k => VAR_ORDER.includes(k));
  assert(JSON.stringify(keys) === JSON.stringify(VAR_ORDER), 'registered order ' + keys);
  return v;
}

function makeLosses(v, Xt, Yt) {
  const hidden = () => tf.tanh(tf.add(tf.matMul(Xt, v.w1), v.b1));
  const full = () => {
    const pred = tf.add(tf.matMul(hidden(), v.w2), v.b2);
    return tf.mean(tf.square(tf.sub(pred, Yt)));
  };
  const noB2 = () => {
    const pred = tf.matMul(hidden(), v.w2);
    return tf.mean(tf.square(tf.sub(pred, Yt)));
  };
  return {full, no_b2: noB2};
}

function snapshotVars(v) {
  const o = {};
  for (const name of VAR_ORDER) o[name] = v[name].arraySync();
  return o;
}

function tensorRecord(name, t) {
  return {name, shape: t.shape.slice(), dtype: t.dtype, values: t.arraySync()};
}

// slot groups (internal field names) per className, in getWeights() order
const SLOT_FIELDS = {
  SGD: [],
  Momentum: ['accumulations'],
  Adagrad: ['accumulatedGrads'],
  Adadelta: ['accumulatedGrads', 'accumulatedUpdates'],
  Adam: ['accumulatedFirstMoment', 'accumulatedSecondMoment'],
  Adamax: ['accumulatedFirstMoment', 'accumulatedWeightedInfNorm'],
  RMSProp: ['accumulatedMeanSquares', 'accumulatedMoments', 'accumulatedMeanGrads'],
};

function slotEntries(opt) {
  const out = [];
  for (const f of SLOT_FIELDS[opt.getClassName()]) {
    const arr = opt[f] || [];
    for (let i = 0; i < arr.length; i++) {
      assert(arr[i] != null, `hole in slot array ${f}[${i}]`);
      out.push({name: arr[i].originalName, variable: arr[i].variable});
    }
  }
  return out;
}

// Non-slot internal state variables (Adam: accBeta1/2, Adamax: iteration/accBeta1).
function extraState(opt) {
  const cls = opt.getClassName();
  if (cls === 'Adam') return {accBeta1: opt.accBeta1.arraySync(), accBeta2: opt.accBeta2.arraySync()};
  if (cls === 'Adamax') return {iteration: opt.iteration.arraySync(), accBeta1: opt.accBeta1.arraySync()};
  return null;
}

async function recordState(opt, rec) {
  rec.iterations = opt.iterations;
  rec.slot_names = slotEntries(opt).map(s => s.name);
  try {
    const ws = await opt.getWeights();
    rec.weights = ws.map(w => tensorRecord(w.name, w.tensor));
    rec.weights_error = null;
    // getWeights() = [iter] + slots in slot order
    assert(JSON.stringify(ws.map(w => w.name)) === JSON.stringify(['iter'].concat(rec.slot_names)),
           'getWeights names vs slot arrays: ' + ws.map(w => w.name));
  } catch (e) {
    rec.weights = null;
    rec.weights_error = e.message;
    // Adamax: expose the slot variables we read from the optimizer's internals instead.
    rec.slots_internal = slotEntries(opt).map(s => tensorRecord(s.name, s.variable));
  }
  rec.extra_state = extraState(opt);
}

// ------------------------------------------------------------------------------------------------
// MLP scenarios

const FULL_SNAPSHOTS = [1, 2, 5, 10, 20, 40, 60];

// A phase: {from, to, call: 'minimize'|'applyGradients', loss: 'full'|'no_b2',
//           var_list: null|[names], null_vars: [names] (applyGradients only)}
async function runScenario(spec) {
  const v = freshVars();
  const Xt = tf.keep(tf.tensor2d(X)), Yt = tf.keep(tf.tensor2d(Y));
  const losses = makeLosses(v, Xt, Yt);
  const opt = tf.train[spec.factory](...spec.args);
  const rec = {
    id: spec.id,
    group: spec.group,
    factory: spec.factory,
    args: spec.args,
    requested_args: spec.requested_args || null,
    class_name: opt.getClassName(),
    config: opt.getConfig(),
    steps: spec.phases[spec.phases.length - 1].to,
    phases: spec.phases,
    note: spec.note || null,
    cost: [],
    snapshot_steps: spec.snapshots,
    snapshots: [],
  };
  const expectSlots = spec.expectSlotVarOrder;  // variable order of slot positions after each phase
  for (let pi = 0; pi < spec.phases.length; pi++) {
    const ph = spec.phases[pi];
    for (let step = ph.from; step <= ph.to; step++) {
      let cost;
      if (ph.call === 'minimize') {
        const vl = ph.var_list == null ? undefined : ph.var_list.map(n => v[n]);
        const c = opt.minimize(losses[ph.loss], true, vl);
        cost = c.dataSync()[0];
        c.dispose();
      } else {
        const {value, grads} = tf.variableGrads(losses[ph.loss], VAR_ORDER.map(n => v[n]));
        cost = value.dataSync()[0];
        const dict = {};
        for (const n of VAR_ORDER) dict[n] = ph.null_vars.includes(n) ? null : grads[n];
        assert(JSON.stringify(Object.keys(dict)) === JSON.stringify(VAR_ORDER), 'dict key order');
        opt.applyGradients(dict);
        tf.dispose([value, grads]);
      }
      rec.cost.push(cost);
      if (spec.snapshots.includes(step)) rec.snapshots.push({step, vars: snapshotVars(v)});
      assert(opt.iterations === step, `iterations ${opt.iterations} != ${step}`);
    }
    if (expectSlots) {
      const cls = opt.getClassName();
      const groups = SLOT_FIELDS[cls].filter(f => !(cls === 'RMSProp' && f === 'accumulatedMeanGrads' && !opt.centered));
      for (const f of groups) {
        const names = opt[f].map(s => s.originalName.split('/')[0]);
        assert(JSON.stringify(names) === JSON.stringify(expectSlots[pi]),
               `${spec.id} phase ${pi}: slot var order ${names} != ${expectSlots[pi]}`);
      }
    }
  }
  await recordState(opt, rec);
  opt.dispose();
  tf.dispose([Xt, Yt]);
  return rec;
}

const MAIN = [
  ['sgd', 'sgd', [0.1]],
  ['momentum', 'momentum', [0.1, 0.9]],
  ['momentum_nesterov', 'momentum', [0.05, 0.5, true]],
  ['adagrad', 'adagrad', [0.1]],
  ['adagrad_init0.5', 'adagrad', [0.05, 0.5]],
  ['adadelta_default', 'adadelta', []],
  ['adadelta_custom', 'adadelta', [1.0, 0.5, 1e-3]],
  ['adam_default', 'adam', []],
  ['adam_custom', 'adam', [0.01, 0.8, 0.99, 1e-4]],
  ['adamax_default', 'adamax', []],
  ['adamax_custom', 'adamax', [0.01, 0.8, 0.99, 1e-4, 0.1]],
  ['rmsprop', 'rmsprop', [0.01]],
  ['rmsprop_momentum', 'rmsprop', [0.01, 0.8, 0.5, 1e-6]],
  // Requested settings were (0.001, 0.9, 0.5, 1e-7, true); that goes NaN at step 1 (tfjs computes
  // sqrt(ms' - (mg'^2 + eps)) and 0.09*g^2 < 1e-7 for two w2 entries with |g| < ~1e-3). Only eps is
  // changed (see CENTERED_NOTE).
  ['rmsprop_centered', 'rmsprop', [0.001, 0.9, 0.5, 1e-10, true]],
];
const CENTERED_NOTE =
  'Requested args were [0.001, 0.9, 0.5, 1e-7, true], but tfjs centered RMSProp SUBTRACTS eps inside ' +
  'the sqrt (sqrt(ms\' - (mg\'^2 + eps))) and at step 1 ms\'-mg\'^2 = 0.09*g^2 < 1e-7 for w2 entries ' +
  '9 and 19 (flat index), so those became NaN after step 1. Only eps was lowered to 1e-10: over ' +
  'all 60 steps min(ms-mg^2) = 5.5e-9 (55x eps) and min((ms-mg^2)/ms) = 1.5e-2, so the run is ' +
  'finite and not dominated by cancellation; still, this is the most rounding-sensitive scenario.';
const REQUESTED_ARGS = {rmsprop_centered: [0.001, 0.9, 0.5, 1e-7, true]};
const MAIN_NOTES = {rmsprop_centered: CENTERED_NOTE};

const PARTIAL_OPTS = [
  ['adam', 'adam', [0.01]],
  ['momentum', 'momentum', [0.1, 0.9]],
  ['rmsprop', 'rmsprop', [0.01, 0.9, 0.5]],
  ['adagrad', 'adagrad', [0.1]],
  ['adamax', 'adamax', [0.01]],
];

const NOTE_UNCONNECTED =
  'Steps 1-10 minimize a loss without +b2, so b2 is unconnected: variableGrads omits it and ' +
  'minimize() calls applyGradients({w1,b1,w2}) (map form, JS insertion order). tfjs matches slots by ' +
  'position: w1->0, b1->1, w2->2. Steps 11-30 pass {w1,b1,w2,b2}: the first three keep positions 0-2 ' +
  'and b2 gets the new position 3, whose slots are created lazily at step 11 from b2 (zeros / ' +
  'initialAccumulatorValue). Positional and name-keyed slot matching therefore coincide. Global state ' +
  'still advances while b2 is absent: iterations, Adam accBeta1/accBeta2 and Adamax iteration/accBeta1 ' +
  'are updated once per call, so b2\'s first Adam/Adamax update at step 11 uses bias correction ' +
  'with t=11 (and Adamax lr decay with iteration=10).';
const NOTE_VARLIST =
  'Steps 1-10 call minimize(loss, true, [w1, b1]): only w1,b1 are differentiated and applyGradients ' +
  'receives the array [{w1},{b1}] -> slot positions 0,1. Steps 11-20 call minimize(loss, true) ' +
  '(map form {w1,b1,w2,b2}): w1,b1 keep positions 0,1; w2,b2 take the new positions 2,3 with ' +
  'fresh slots created at step 11. Positional and name-keyed matching coincide. Global state ' +
  '(iterations, Adam accBeta*, Adamax iteration/accBeta1) advances on every call, so w2,b2 start ' +
  'with t=11 bias correction.';
const NOTE_NULL =
  'Steps 1-5 call applyGradients({w1: g_w1, b1: null, w2: g_w2, b2: null}) with gradients from ' +
  'tf.variableGrads(full_loss, [w1,b1,w2,b2]); steps 6-10 pass all four gradients. The null ' +
  'entries are still keys of the dict, so positions are w1->0, b1->1, w2->2, b2->3 in every ' +
  'call (no shift) and positional == name-keyed. tfjs creates the slots of b1,b2 at step 1 even ' +
  'though their gradient is null (they appear in getWeights), leaves b1,b2 and their slots ' +
  'untouched during steps 1-5, and iterations / Adam accBeta* / Adamax iteration,accBeta1 still ' +
  'advance on those calls. cost[k] is the loss value returned by variableGrads before step k+1.';

function allSpecs() {
  const specs = [];
  for (const [id, factory, args] of MAIN) {
    specs.push({
      id, group: 'full', factory, args,
      requested_args: REQUESTED_ARGS[id] || null,
      note: MAIN_NOTES[id] || null,
      phases: [{from: 1, to: 60, call: 'minimize', loss: 'full', var_list: null}],
      snapshots: FULL_SNAPSHOTS,
      expectSlotVarOrder: factory === 'sgd' ? null : [VAR_ORDER],
    });
  }
  for (const [name, factory, args] of PARTIAL_OPTS) {
    specs.push({
      id: `unconnected_b2/${name}`, group: 'unconnected_b2', factory, args,
      phases: [
        {from: 1, to: 10, call: 'minimize', loss: 'no_b2', var_list: null},
        {from: 11, to: 30, call: 'minimize', loss: 'full', var_list: null},
      ],
      snapshots: [1, 2, 5, 10, 11, 12, 20, 30],
      expectSlotVarOrder: [['w1', 'b1', 'w2'], VAR_ORDER],
      note: NOTE_UNCONNECTED,
    });
    specs.push({
      id: `varlist_subset/${name}`, group: 'varlist_subset', factory, args,
      phases: [
        {from: 1, to: 10, call: 'minimize', loss: 'full', var_list: ['w1', 'b1']},
        {from: 11, to: 20, call: 'minimize', loss: 'full', var_list: null},
      ],
      snapshots: [1, 2, 5, 10, 11, 12, 15, 20],
      expectSlotVarOrder: [['w1', 'b1'], VAR_ORDER],
      note: NOTE_VARLIST,
    });
    specs.push({
      id: `null_grads/${name}`, group: 'null_grads', factory, args,
      phases: [
        {from: 1, to: 5, call: 'applyGradients', loss: 'full', var_list: null, null_vars: ['b1', 'b2']},
        {from: 6, to: 10, call: 'applyGradients', loss: 'full', var_list: null, null_vars: []},
      ],
      snapshots: [1, 2, 3, 4, 5, 6, 7, 10],
      expectSlotVarOrder: [VAR_ORDER, VAR_ORDER],
      note: NOTE_NULL,
    });
  }
  return specs;
}

// ------------------------------------------------------------------------------------------------
// Two-step examples of TFJS_BEHAVIOR.md section 3.3

const TWO_STEP = [
  // id, factory, args, documented weights (null = not documented) [step1, step2]
  ['sgd', 'sgd', [0.1], [[0.95, 2.1], [0.75, 2.075]]],
  ['momentum', 'momentum', [0.1, 0.9], [[0.95, 2.1], [0.705, 2.165]]],
  ['momentum_nesterov', 'momentum', [0.1, 0.9, true], [[0.905, 2.19], [0.4845, 2.2235]]],
  ['adagrad', 'adagrad', [0.1], [[0.9154846, 2.0953462], null]],
  ['adadelta', 'adadelta', [], [[0.9995, 2.001], [0.9975, 2.00075]]],
  ['adam', 'adam', [], [[0.999, 2.001], null]],
  ['adamax', 'adamax', [], [[0.998, 2.002], null]],
  ['rmsprop', 'rmsprop', [0.1], [[0.6837729, 2.3162277], null]],
  ['rmsprop_centered', 'rmsprop', [0.1, 0.9, 0.5, null, true], [[0.6666659, 2.3333335], null]],
];
const W0 = [1, 2], G = [[0.5, -1], [2, 0.25]];

async function runTwoStep([id, factory, args, documented]) {
  tf.disposeVariables();
  const w = tf.variable(tf.tensor1d(W0), true, 'w');
  const opt = tf.train[factory](...args);
  const rec = {
    id, factory, args, class_name: opt.getClassName(), config: opt.getConfig(),
    var_name: 'w', w0: W0, grads: G, weights_after: [], documented, matches_documented: null,
  };
  for (const g of G) {
    const gt = tf.tensor1d(g);
    opt.applyGradients({w: gt});
    gt.dispose();
    rec.weights_after.push(w.arraySync());
  }
  let ok = true;
  documented.forEach((d, k) => {
    if (d == null) return;
    for (let j = 0; j < 2; j++) if (Math.abs(d[j] - rec.weights_after[k][j]) > 1e-6) ok = false;
  });
  rec.matches_documented = ok;
  await recordState(opt, rec);
  opt.dispose();
  return rec;
}

// ------------------------------------------------------------------------------------------------

function checkFinite(x, where) {
  if (typeof x === 'number') {
    assert(Number.isFinite(x), 'non-finite number at ' + where);
  } else if (Array.isArray(x)) {
    x.forEach((y, i) => checkFinite(y, where + '[' + i + ']'));
  } else if (x && typeof x === 'object') {
    for (const k of Object.keys(x)) checkFinite(x[k], where + '.' + k);
  }
}

async function main() {
  await tf.setBackend('cpu');
  await tf.ready();
  assert(tf.getBackend() === 'cpu', 'backend');

  const header = {
    generator: 'tests/reference/gen_optimizers.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    backend_epsilon: tf.backend().epsilon(),
    float_precision: tf.backend().floatPrecision(),
    node_version: process.version,
    float_format: 'All tensor values are float32 values written as the exact JS double ' +
      '(np.float32(v) recovers them bit-exactly). Nested lists follow the tensor shape ' +
      '(scalars are plain numbers).',
  };
  const problem = {
    prng: 'mulberry32',
    seed: SEED,
    generation: 'one PRNG stream in this order: X (16x4, U[-1,1)), Y (16x3, U[-1,1)), ' +
      'w1 (4x8, U[-0.5,0.5)), b1 (8, U[-0.1,0.1)), w2 (8x3, U[-0.5,0.5)), b2 (3, U[-0.1,0.1)); ' +
      'each value = Math.fround((u*2-1)*scale), row-major',
    var_order: VAR_ORDER,
    var_shapes: VAR_SHAPES,
    losses: {
      full: 'tf.mean(tf.square(tf.sub(tf.add(tf.matMul(tf.tanh(tf.add(tf.matMul(X, w1), b1)), w2), b2), Y)))',
      no_b2: 'tf.mean(tf.square(tf.sub(tf.matMul(tf.tanh(tf.add(tf.matMul(X, w1), b1)), w2), Y)))',
    },
    X, Y, init: INIT,
  };

  const scenarios = [];
  for (const spec of allSpecs()) {
    scenarios.push(await runScenario(spec));
  }
  const twoStep = [];
  for (const t of TWO_STEP) twoStep.push(await runTwoStep(t));

  const out = {header, problem, scenarios, two_step: twoStep};
  checkFinite(out, 'root');
  const text = JSON.stringify(out);
  fs.writeFileSync(OUT, text + '\n');

  // Summary
  console.log(`tfjs ${header.tfjs_version}, backend ${header.backend}, eps ${header.backend_epsilon}`);
  console.log(`wrote ${path.relative(process.cwd(), OUT)}: ${(text.length / 1024).toFixed(1)} KiB, ` +
              `${scenarios.length} scenarios, ${twoStep.length} two-step examples`);
  for (const s of scenarios) {
    const c = s.cost;
    console.log(`  ${s.id.padEnd(26)} ${s.config ? '' : ''}steps=${String(s.steps).padStart(2)} ` +
                `cost ${c[0].toFixed(5)} -> ${c[c.length - 1].toFixed(5)}  ` +
                `weights=${s.weights ? s.weights.length : 'n/a'} slots=${s.slot_names.length}`);
  }
  for (const t of twoStep) {
    console.log(`  two_step/${t.id.padEnd(18)} ${JSON.stringify(t.weights_after)} ` +
                `documented match: ${t.matches_documented}`);
  }
  const bad = twoStep.filter(t => !t.matches_documented).map(t => t.id);
  if (bad.length) console.log('WARNING: two-step results differ from TFJS_BEHAVIOR.md 3.3 for: ' + bad.join(', '));
  if (text.length > 1.5e6) console.log('WARNING: JSON larger than 1.5 MB');
}

main().catch(e => { console.error(e); process.exit(1); });
