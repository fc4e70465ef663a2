#!/usr/bin/env node
// Writes tests/reference/cart_pole.json: the policy-gradient training of the tfjs-examples program
// cart-pole (https://github.com/tensorflow/tfjs-examples/tree/master/cart-pole) run by the real
// TensorFlow.js 4.22 (pure-JS CPU backend) for a few short games, with every random draw
// recorded, so that tests/test_examples.py can feed the same draws to examples/cart_pole.
//
// Run from the repo root:   node tests/reference/gen_cart_pole.js
// (after `cd tests/reference && npm install --no-audit --no-fund`).
//
// Written for this project from the example's description (REINFORCE: a tf.sequential policy of
// elu dense layers and one logit; per step, the gradient of the sigmoid cross-entropy between
// the logit and the sampled action; discounted, normalised returns scale and average those
// gradients, which an Adam optimizer applies); the code below is this script's own.
//
// Schema: {header, hidden_layer_sizes, learning_rate, discount_rate, num_games,
//   max_steps_per_game, iterations,
//   math_random: [..]   (the Math.random() draws that set the cart-pole's random states: four
//                        for the constructor, then four per game, in order),
//   init: [{shape, values}]  (the policy's weights, kernel then bias per layer, as set),
//   rounds: [ {             (one per call of the training routine)
//     game_steps: [num_games],
//     steps: [ {state: [x, xDot, theta, thetaDot] (JS doubles, before the step),
//               left_prob, action} ]   (every step of every game, in order),
//     gradients: [{shape, values}]  (the scaled, averaged gradients given to applyGradients),
//     weights: [{shape, values}]    (the policy's weights after that update) } ]}
// Tensor values are float32 stored as the exact JS double, flat in row-major order.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'cart_pole.json');
const SEED = 4;
const setup = {
  hidden_layer_sizes: [16, 8],
  learning_rate: 0.05,
  discount_rate: 0.95,
  num_games: 3,
  max_steps_per_game: 12,
  iterations: 2,
};

// tf.multinomial seeds itself from Math.random: a seeded stream makes the whole run repeatable.
Math.random = mulberry32(SEED);
const weightDraw = mulberry32(SEED + 1);

const mathRandom = [];
function recordedRandom() {
  const value = Math.random();
  mathRandom.push(value);
  return value;
}

// The cart-pole system (Barto, Sutton and Anderson's constants), integrated with Euler steps.
const physics = {
  gravity: 9.8, massCart: 1.0, massPole: 0.1, halfPole: 0.5, force: 10.0, tau: 0.02,
  xLimit: 2.4, thetaLimit: 12 / 360 * 2 * Math.PI,
};
physics.totalMass = physics.massCart + physics.massPole;
physics.poleMoment = physics.massPole * physics.halfPole;

function randomState() {
  return {
    x: recordedRandom() - 0.5,
    xDot: (recordedRandom() - 0.5) * 1,
    theta: (recordedRandom() - 0.5) * 2 * (6 / 360 * 2 * Math.PI),
    thetaDot: (recordedRandom() - 0.5) * 0.5,
  };
}
function advance(s, action) {
  const p = physics;
  const push = action > 0 ? p.force : -p.force;
  const cos = Math.cos(s.theta);
  const sin = Math.sin(s.theta);
  const temp = (push + p.poleMoment * s.thetaDot * s.thetaDot * sin) / p.totalMass;
  const thetaAcc = (p.gravity * sin - cos * temp) /
      (p.halfPole * (4 / 3 - p.massPole * cos * cos / p.totalMass));
  const xAcc = temp - p.poleMoment * thetaAcc * cos / p.totalMass;
  s.x += p.tau * s.xDot;
  s.xDot += p.tau * xAcc;
  s.theta += p.tau * s.thetaDot;
  s.thetaDot += p.tau * thetaAcc;
  return Math.abs(s.x) > p.xLimit || Math.abs(s.theta) > p.thetaLimit;
}

// The policy: elu dense layers, then one linear unit; weights glorot-uniform from a seeded draw.
const policy = tf.sequential();
setup.hidden_layer_sizes.forEach((units, i) => policy.add(
    tf.layers.dense({units, activation: 'elu', inputShape: i === 0 ? [4] : undefined})));
policy.add(tf.layers.dense({units: 1}));
policy.setWeights(policy.getWeights().map(w => {
  if (w.rank === 1) return tf.zeros(w.shape);
  const limit = Math.sqrt(6 / (w.shape[0] + w.shape[1]));
  return tf.tensor(Array.from({length: w.size}, () => (weightDraw() * 2 - 1) * limit), w.shape);
}));
const snapshot = tensors => tensors.map(t => ({shape: t.shape, values: Array.from(t.dataSync())}));
const init = snapshot(policy.getWeights());
const names = policy.trainableWeights.map(w => w.val.name);

function discountedNormalized(rewardLists, rate) {
  const returns = rewardLists.map(rewards => {
    const out = new Float32Array(rewards.length);
    let later = 0;
    for (let i = rewards.length - 1; i >= 0; i--) out[i] = later = rate * later + rewards[i];
    return tf.tensor1d(out);
  });
  const all = tf.concat(returns);
  const mean = tf.mean(all);
  const std = tf.sqrt(tf.mean(tf.square(tf.sub(all, mean))));
  return returns.map(r => tf.div(tf.sub(r, mean), std));
}

const optimizer = tf.train.adam(setup.learning_rate);
const cart = randomState();  // the example's environment draws a state when it is built
const rounds = [];
for (let round = 0; round < setup.iterations; round++) {
  const perGame = [];  // [game][step] -> {name: gradient}
  const rewardLists = [];
  const steps = [];
  for (let game = 0; game < setup.num_games; game++) {
    Object.assign(cart, randomState());
    const rewards = [];
    const stepGrads = [];
    for (let step = 0; step < setup.max_steps_per_game; step++) {
      const record = {state: [cart.x, cart.xDot, cart.theta, cart.thetaDot]};
      const {grads} = tf.variableGrads(() => {
        const logit = policy.predict(tf.tensor2d([record.state]));
        const left = tf.sigmoid(logit);
        const sampled = tf.multinomial(tf.concat([left, tf.sub(1, left)], 1), 1, null, true);
        record.left_prob = left.dataSync()[0];
        record.action = sampled.dataSync()[0];
        const target = tf.sub(1, tf.tensor2d([[record.action]], [1, 1], 'int32'));
        return tf.reshape(tf.losses.sigmoidCrossEntropy(target, logit), []);
      });
      stepGrads.push(grads);
      steps.push(record);
      const done = advance(cart, record.action);
      rewards.push(done ? 0 : 1);
      if (done) break;
    }
    perGame.push(stepGrads);
    rewardLists.push(rewards);
  }
  const returns = discountedNormalized(rewardLists, setup.discount_rate);
  const averaged = {};
  for (const name of names) {
    const scaled = perGame.map((stepGrads, game) => {
      const stacked = tf.stack(stepGrads.map(g => g[name]));
      const r = returns[game];
      return tf.mul(stacked, tf.reshape(r, r.shape.concat(Array(stacked.rank - 1).fill(1))));
    });
    averaged[name] = tf.mean(tf.concat(scaled, 0), 0);
  }
  optimizer.applyGradients(averaged);
  rounds.push({
    game_steps: rewardLists.map(r => r.length),
    steps,
    gradients: snapshot(names.map(name => averaged[name])),
    weights: snapshot(policy.getWeights()),
  });
}

const lengths = rounds.flatMap(r => r.game_steps);
if (!lengths.some(n => n === setup.max_steps_per_game) || !lengths.some(n => n < setup.max_steps_per_game)) {
  console.warn(`note: game lengths ${lengths} do not cover both a finished and a capped game`);
}
const out = {
  header: {
    generator: 'tests/reference/gen_cart_pole.js',
    tfjs_version: tf.version.tfjs,
    backend: tf.getBackend(),
    node_version: process.version,
  },
  ...setup,
  math_random: mathRandom,
  init,
  rounds,
};
fs.writeFileSync(OUT, JSON.stringify(out) + '\n');
console.log(`wrote ${OUT}: game lengths ${lengths}`);
