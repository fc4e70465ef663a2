#!/usr/bin/env node
// Writes tests/reference/snake_dqn.json: a short training run of the tfjs-examples program
// snake-dqn (https://github.com/tensorflow/tfjs-examples/tree/master/snake-dqn) by the real
// TensorFlow.js 4.22 (pure-JS CPU backend), for tests/test_snake_dqn.py, which runs the
// unchanged port examples/snake_dqn on the same draws and compares.
//
// Run from the repo root:   node tests/reference/gen_snake.js
//
// Written for this project from the example's description; the code below is this script's
// own. The run: a 7x7 board, snake of 2, one fruit; the deep-Q network of dqn.js (conv2d 128,
// batchNormalization, conv2d 256, batchNormalization, conv2d 256, flatten, dense 100 relu,
// dropout 0.25, dense 3) twice: the online network and the target network, frozen with
// `model.trainable = false`. The replay memory is filled by epsilon-greedy play, then each
// frame trains the online network on a replayed batch (tf.variableGrads of the mean squared
// error between Q(s, a) in training mode and r + gamma * max Q_target(s'), applied by Adam) and
// plays one step, until a game ends at or after maxNumFrames; every syncEveryFrames frames the
// target network takes the online network's weights (setWeights(getWeights()) with the
// trainable workaround for tfjs issue 1807).
//
// Randomness, all reproducible from the schema:
// - Math.random() is mulberry32(math_seed) (tests/reference/mulberry32.js); `math_draws` is
//   how many draws the run made (epsilon tests, random actions, snake and fruit positions, the
//   replay memory's tf.util.shuffle). The initializers' and dropout's own seeding draws come
//   from a separate stream and are not counted.
// - Every weight is then set per layer: values = mulberry32(weight_seed + 100 * network +
//   10 * layerIndex + KINDS.indexOf(kind)) (network 0: online, 1: target), scaled as
//   kernel: (2u - 1) * sqrt(3 / fanIn) (fanIn = size / lastDim), bias: (u - 0.5) / 10,
//   gamma: 1 + (u - 0.5) / 5, beta and moving_mean: (u - 0.5) / 5, moving_variance: 1 + u / 2;
//   rounded to float32 by tf.tensor.
// - Dropout's masks are recorded (`dropout_masks`, one string of '0'/'1' per training step,
//   the [batchSize, 100] mask in row-major order; '1' keeps). Where the dropout input is 0 the
//   mask cannot be read from the output and is written '1' (it changes nothing there).
//
// Schema: {header, setup: {...}, math_seed, weight_seed, kinds, math_draws,
//   weight_names: {online: [[layerIndex, kind]], target: [[layerIndex, kind]],
//                  target_trainable: [[layerIndex, kind]]}   (model.weights order),
//   frames: [[action, reward, done, greedyQ | null]]   (every playStep, in order),
//   steps: [{sample: [replay indices], loss, grads: [summary] (online trainableWeights order)}],
//   dropout_masks: [string],
//   syncs: [{frame, probe_online: [[3]], probe_target_before: [[3]], probe_target_after: [[3]]}],
//   log: [line]  (train.js's console lines, without the frames/s part),
//   final: {online: [summary] (model.weights order), target: [summary] (its weights order),
//           probe_online: [[3]], probe_target: [[3]], frame_count, epsilon}}
// A summary is {layer, kind, shape, sum, norm, picks: values at floor(size * (k + 0.5) / 8),
// k = 0..7, full: all values, only for BatchNormalization's 1-D weights in `final`}. Probes are the
// predictions for the states in replay slots 0..3 at the time of the first sync.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'snake_dqn.json');
const setup = {
  height: 7, width: 7, numFruits: 1, initLen: 2,
  replayBufferSize: 24, epsilonInit: 0.5, epsilonFinal: 0.3, epsilonDecayFrames: 30,
  learningRate: 1e-3, batchSize: 8, gamma: 0.99, cumulativeRewardThreshold: 100,
  maxNumFrames: 32, syncEveryFrames: 28,
};
const MATH_SEED = 11;
const WEIGHT_SEED = 2019;
const KINDS = ['kernel', 'bias', 'gamma', 'beta', 'moving_mean', 'moving_variance'];
const NUM_ACTIONS = 3;
const DEATH = -10, FRUIT = 10, NOTHING = -0.2;

const mathStream = mulberry32(MATH_SEED);
let mathDraws = 0;
const counted = () => { mathDraws++; return mathStream(); };
const aside = mulberry32(99);
Math.random = counted;
function uncounted(fn) {
  Math.random = aside;
  try { return fn(); } finally { Math.random = counted; }
}
const randomInt = (lo, hi) => Math.floor((hi - lo) * Math.random()) + lo;

// --- the game -----------------------------------------------------------------------------
const TURNS = {l: ['d', 'u'], u: ['l', 'r'], r: ['u', 'd'], d: ['r', 'l']};  // [left, right]
const MOVES = {l: [0, -1], u: [-1, 0], r: [0, 1], d: [1, 0]};
const game = {
  reset() {
    const y = randomInt(0, setup.height);
    const x = randomInt(setup.initLen - 1, setup.width);
    this.snake = Array.from({length: setup.initLen}, (_, i) => [y, x - i]);
    this.dir = 'r';
    this.fruits = [];
    this.addFruits();
  },
  addFruits() {
    const missing = setup.numFruits - this.fruits.length;
    if (missing <= 0) return;
    const taken = new Set(this.snake.map(([y, x]) => y * setup.width + x));
    const free = [];
    for (let k = 0; k < setup.height * setup.width; k++) if (!taken.has(k)) free.push(k);
    for (let n = 0; n < missing; n++) {
      const k = free[randomInt(0, free.length)];
      this.fruits.push([Math.floor(k / setup.width), k % setup.width]);
      if (missing > 1) free.splice(free.indexOf(k), 1);
    }
  },
  state() { return {s: this.snake.slice(), f: this.fruits.slice()}; },
  step(action) {
    if (action === 1) this.dir = TURNS[this.dir][0];
    if (action === 2) this.dir = TURNS[this.dir][1];
    const [y, x] = [this.snake[0][0] + MOVES[this.dir][0], this.snake[0][1] + MOVES[this.dir][1]];
    const off = y < 0 || x < 0 || y >= setup.height || x >= setup.width;
    if (off || this.snake.slice(1).some(([sy, sx]) => sy === y && sx === x)) {
      return {reward: DEATH, done: true, eaten: false, next: null};
    }
    this.snake.unshift([y, x]);
    const hit = this.fruits.findIndex(([fy, fx]) => fy === y && fx === x);
    if (hit >= 0) {
      this.fruits.splice(hit, 1);
      this.addFruits();
    } else {
      this.snake.pop();
    }
    return {reward: hit >= 0 ? FRUIT : NOTHING, done: false, eaten: hit >= 0, next: this.state()};
  },
};
function boards(states) {
  const b = tf.buffer([states.length, setup.height, setup.width, 2]);
  states.forEach((s, n) => {
    if (s == null) return;
    s.s.forEach(([y, x], i) => b.set(i === 0 ? 2 : 1, n, y, x, 0));
    s.f.forEach(([y, x]) => b.set(1, n, y, x, 1));
  });
  return b.toTensor();
}

// --- the networks ----------------------------------------------------------------------------
function network() {
  const conv = (filters, extra) => tf.layers.conv2d(
      Object.assign({filters, kernelSize: 3, strides: 1, activation: 'relu'}, extra));
  const model = tf.sequential();
  model.add(conv(128, {inputShape: [setup.height, setup.width, 2]}));
  model.add(tf.layers.batchNormalization());
  model.add(conv(256));
  model.add(tf.layers.batchNormalization());
  model.add(conv(256));
  model.add(tf.layers.flatten());
  model.add(tf.layers.dense({units: 100, activation: 'relu'}));
  model.add(tf.layers.dropout({rate: 0.25}));
  model.add(tf.layers.dense({units: NUM_ACTIONS}));
  return model;
}
const kindOf = w => KINDS.find(k => w.originalName.endsWith('/' + k));
function initialise(model, which) {
  model.layers.forEach((layer, i) => {
    if (layer.weights.length === 0) return;
    layer.setWeights(layer.weights.map(w => {
      const kind = kindOf(w);
      const draw = mulberry32(WEIGHT_SEED + 100 * which + 10 * i + KINDS.indexOf(kind));
      const fanIn = w.shape.length > 1 ? w.shape.reduce((a, b) => a * b) / w.shape[w.shape.length - 1] : 1;
      const scale = {
        kernel: u => (2 * u - 1) * Math.sqrt(3 / fanIn), bias: u => (u - 0.5) / 10,
        gamma: u => 1 + (u - 0.5) / 5, beta: u => (u - 0.5) / 5,
        moving_mean: u => (u - 0.5) / 5, moving_variance: u => 1 + u / 2,
      }[kind];
      const size = w.shape.reduce((a, b) => a * b, 1);
      return tf.tensor(Array.from({length: size}, () => scale(draw())), w.shape);
    }));
  });
}
const layerOf = (model, w) => model.layers.findIndex(l => l.weights.includes(w));
const names = model => model.weights.map(w => [layerOf(model, w), kindOf(w)]);
const round8 = v => Number(v.toPrecision(8));
function summary(model, w, value, full = false) {
  const values = Array.from(value.dataSync());
  const size = values.length;
  const out = {
    layer: layerOf(model, w), kind: kindOf(w), shape: w.shape,
    sum: round8(values.reduce((a, b) => a + b, 0)),
    norm: round8(Math.sqrt(values.reduce((a, b) => a + b * b, 0))),
    picks: Array.from({length: 8}, (_, k) => round8(values[Math.floor(size * (k + 0.5) / 8)])),
  };
  if (full && w.shape.length === 1 && model.layers[out.layer].getClassName() === 'BatchNormalization') {
    out.full = values.map(round8);
  }
  return out;
}

game.reset();  // the example builds its game before its agent
const online = uncounted(network);
const target = uncounted(network);
target.trainable = false;
const weightNames = {online: names(online), target: names(target)};
target.trainable = true;
weightNames.target_trainable = names(target);
target.trainable = false;
initialise(online, 0);
initialise(target, 1);

// Dropout in training mode: tfjs's own mask (its seeding draw uncounted), recorded.
const masks = [];
const dropout = online.layers[7];
const dropoutCall = dropout.call.bind(dropout);
dropout.call = (inputs, kwargs) => {
  const out = uncounted(() => dropoutCall(inputs, kwargs));
  if (kwargs && kwargs.training) {
    const x = (Array.isArray(inputs) ? inputs[0] : inputs).dataSync();
    const y = out.dataSync();
    masks.push(Array.from(y, (v, i) => (v !== 0 || x[i] === 0 ? '1' : '0')).join(''));
  }
  return out;
};

// --- the agent ---------------------------------------------------------------------------------
const memory = {items: new Array(setup.replayBufferSize).fill(null), next: 0,
                order: Array.from({length: setup.replayBufferSize}, (_, i) => i)};
const agent = {frameCount: 0, total: 0, eaten: 0, epsilon: null};
const frames = [];
game.reset();  // the agent's constructor resets the game again
function playStep() {
  const decay = (setup.epsilonFinal - setup.epsilonInit) / setup.epsilonDecayFrames;
  agent.epsilon = agent.frameCount >= setup.epsilonDecayFrames ? setup.epsilonFinal :
      setup.epsilonInit + decay * agent.frameCount;
  agent.frameCount++;
  const state = game.state();
  let action, q = null;
  if (Math.random() < agent.epsilon) {
    action = randomInt(0, NUM_ACTIONS);
  } else {
    tf.tidy(() => {
      const qs = online.predict(boards([state]));
      q = Array.from(qs.dataSync()).map(round8);
      action = qs.argMax(-1).dataSync()[0];
    });
  }
  const {reward, done, eaten, next} = game.step(action);
  memory.items[memory.next] = [state, action, reward, done, next];
  memory.next = (memory.next + 1) % setup.replayBufferSize;
  agent.total += reward;
  if (eaten) agent.eaten++;
  const out = {total: agent.total, done, eaten: agent.eaten};
  frames.push([action, reward, done, q]);
  if (done) {
    agent.total = 0;
    agent.eaten = 0;
    game.reset();
  }
  return out;
}

const steps = [];
function trainOnReplayBatch(optimizer) {
  tf.util.shuffle(memory.order);
  const sample = memory.order.slice(0, setup.batchSize);
  const batch = sample.map(i => memory.items[i]);
  const column = k => batch.map(e => e[k]);
  const {value, grads} = tf.variableGrads(() => tf.tidy(() => {
    const taken = tf.oneHot(tf.tensor1d(column(1), 'int32'), NUM_ACTIONS);
    const qs = online.apply(boards(column(0)), {training: true}).mul(taken).sum(-1);
    const notDone = tf.scalar(1).sub(tf.tensor1d(column(3)).asType('float32'));
    const best = target.predict(boards(column(4))).max(-1);
    const goal = tf.tensor1d(column(2)).add(best.mul(notDone).mul(setup.gamma));
    return tf.losses.meanSquaredError(goal, qs);
  }));
  const trainable = online.trainableWeights;
  if (Object.keys(grads).length !== trainable.length ||
      !trainable.every(w => grads[w.val.name] != null)) {
    throw new Error(`gradients for ${Object.keys(grads)}, not the online network's weights`);
  }
  process.stderr.write(`step ${steps.length + 1} (frame ${agent.frameCount})\n`);
  steps.push({
    sample, loss: round8(value.dataSync()[0]),
    grads: trainable.map(w => summary(online, w, grads[w.val.name])),
  });
  optimizer.applyGradients(grads);
  tf.dispose([value, grads]);
}

function copyWeights(dest, src) {
  const before = dest.trainable;
  dest.trainable = src.trainable;
  dest.setWeights(src.getWeights());
  dest.trainable = before;
}

const predictions = (model, states) => tf.tidy(
    () => model.predict(boards(states)).arraySync().map(row => row.map(round8)));

// --- train.js's loop ---------------------------------------------------------------------------
const log = [];
const syncs = [];
let probeStates = null;
for (let i = 0; i < setup.replayBufferSize; i++) playStep();
const rewards = new Array(100).fill(null);
const eatens = new Array(100).fill(null);
const average = buffer => buffer.reduce((a, b) => a + b) / buffer.length;
const optimizer = tf.train.adam(setup.learningRate);
while (true) {
  trainOnReplayBatch(optimizer);
  const {total, done, eaten} = playStep();
  if (done) {
    rewards.shift(); rewards.push(total);
    eatens.shift(); eatens.push(eaten);
    const averageReward = average(rewards);
    log.push(`Frame #${agent.frameCount}: cumulativeReward100=${averageReward.toFixed(1)}; ` +
             `eaten100=${average(eatens).toFixed(2)} (epsilon=${agent.epsilon.toFixed(3)})`);
    if (averageReward >= setup.cumulativeRewardThreshold || agent.frameCount >= setup.maxNumFrames) {
      break;
    }
  }
  if (agent.frameCount % setup.syncEveryFrames === 0) {
    probeStates = probeStates || memory.items.slice(0, 4).map(e => e[0]);
    const sync = {frame: agent.frameCount, probe_target_before: predictions(target, probeStates)};
    copyWeights(target, online);
    sync.probe_online = predictions(online, probeStates);
    sync.probe_target_after = predictions(target, probeStates);
    syncs.push(sync);
    log.push('Sync\'ed weights from online network to target network');
  }
}
if (syncs.length === 0 || steps.length <= syncs[0].frame - setup.replayBufferSize) {
  throw new Error('the run must train after a sync: change the setup');
}

const out = {
  header: {generator: 'tests/reference/gen_snake.js', tfjs_version: tf.version.tfjs,
           backend: tf.getBackend(), node_version: process.version},
  setup, math_seed: MATH_SEED, weight_seed: WEIGHT_SEED, kinds: KINDS, math_draws: mathDraws,
  weight_names: weightNames, frames, steps, dropout_masks: masks, syncs, log,
  final: {
    online: online.weights.map(w => summary(online, w, w.read(), true)),
    target: target.weights.map(w => summary(target, w, w.read(), true)),
    probe_online: predictions(online, probeStates),
    probe_target: predictions(target, probeStates),
    frame_count: agent.frameCount, epsilon: agent.epsilon,
  },
};
fs.writeFileSync(OUT, JSON.stringify(out) + '\n');
console.log(`wrote ${OUT}: ${frames.length} frames, ${steps.length} training steps, ` +
            `${syncs.length} sync(s), ${mathDraws} Math.random draws`);
