#!/usr/bin/env node
// Writes tests/reference/fashion_mnist_vae.json: tfjs-examples' fashion-mnist-vae (model.js's
// encoder, ZLayer, decoder, vae and vaeLoss as written, train.js's loop of optimizer.minimize
// over _.chunk'ed batches) trained by the real tfjs 4.22 on small synthetic images, for
// tests/test_examples.py and examples/fashion_mnist_vae.
//
// Run from the repo root:   node tests/reference/gen_fashion_mnist_vae.js
//
// Changed from the original for size and reproducibility only: 4x4 images (originalDim 16)
// made by mulberry32(2019) in [0, 1) as examples/fashion_mnist_vae/data.py makes them,
// instead of the Fashion-MNIST file; intermediateDim 8, latentDim 2, batchSize 8, 2 epochs.
// The Math.random() draws of loadImages's tf.util.shuffle come from mulberry32(7) and are
// recorded; the initializers' draws come from another stream (not recorded) and the
// weights are then set with setWeights from mulberry32(35) (recorded as `init`). ZLayer's
// tf.randomNormal is the real one; each draw is recorded (`epsilons`) for the Python test to
// replay. Previews (train.js's generate) are recorded instead of printed.
//
// Schema: {header, sizes, math_random, init: [weights], epsilons: [[...]], used: [index into epsilons per step], losses: [...],
//   previews: [[...]], final: [weights], weight_shapes}
'use strict';

const fs = require('fs');
const path = require('path');
const realTf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'fashion_mnist_vae.json');
const IMAGE_HEIGHT = 4, IMAGE_WIDTH = 4, NUM_IMAGES = 20;
const IMAGE_FLAT_SIZE = IMAGE_HEIGHT * IMAGE_WIDTH;
const INTERMEDIATE_DIM = 8, LATENT_DIM = 2;
const epochs = 2, batchSize = 8;

const epsilons = [];
const tf = Object.create(realTf);
Object.defineProperty(tf, "randomNormal", {value: (...args) => {
  const t = realTf.randomNormal(...args);
  epsilons.push(Array.from(t.dataSync()));
  return t;
}});

// -- model.js, as written ---------------------------------------------------------------
function encoder(opts) {
  const {originalDim, intermediateDim, latentDim} = opts;
  const inputs = tf.input({shape: [originalDim], name: 'encoder_input'});
  const x = tf.layers.dense({units: intermediateDim, activation: 'relu'})
                .apply(inputs);
  const zMean = tf.layers.dense({units: latentDim, name: 'z_mean'}).apply(x);
  const zLogVar =
      tf.layers.dense({units: latentDim, name: 'z_log_var'}).apply(x);
  const z =
      new ZLayer({name: 'z', outputShape: [latentDim]}).apply([zMean, zLogVar]);
  const enc = tf.model({
    inputs: inputs,
    outputs: [zMean, zLogVar, z],
    name: 'encoder',
  });
  return enc;
}

class ZLayer extends tf.layers.Layer {
  constructor(config) {
    super(config);
  }
  computeOutputShape(inputShape) {
    tf.util.assert(inputShape.length === 2 && Array.isArray(inputShape[0]),
        () => `Expected exactly 2 input shapes. But got: ${inputShape}`);
    return inputShape[0];
  }
  call(inputs, kwargs) {
    const [zMean, zLogVar] = inputs;
    const batch = zMean.shape[0];
    const dim = zMean.shape[1];
    const mean = 0;
    const std = 1.0;
    const epsilon = tf.randomNormal([batch, dim], mean, std);
    return zMean.add(zLogVar.mul(0.5).exp().mul(epsilon));
  }
  static get className() {
    return 'ZLayer';
  }
}
tf.serialization.registerClass(ZLayer);

function decoder(opts) {
  const {originalDim, intermediateDim, latentDim} = opts;
  const input = tf.input({shape: [latentDim]});
  let y = tf.layers.dense({
    units: intermediateDim,
    activation: 'relu'
  }).apply(input);
  y = tf.layers.dense({
    units: originalDim,
    activation: 'sigmoid'
  }).apply(y);
  const dec = tf.model({inputs: input, outputs: y});
  return dec;
}

function vae(encoder, decoder) {
  const inputs = encoder.inputs;
  const encoderOutputs = encoder.apply(inputs);
  const encoded = encoderOutputs[2];
  const decoderOutput = decoder.apply(encoded);
  const v = tf.model({
    inputs: inputs,
    outputs: [decoderOutput, ...encoderOutputs],
    name: 'vae_mlp',
  });
  return v;
}

function vaeLoss(inputs, outputs) {
  return tf.tidy(() => {
    const originalDim = inputs.shape[1];
    const decoderOutput = outputs[0];
    const zMean = outputs[1];
    const zLogVar = outputs[2];
    const reconstructionLoss =
        tf.losses.meanSquaredError(inputs, decoderOutput).mul(originalDim);
    let klLoss = zLogVar.add(1).sub(zMean.square()).sub(zLogVar.exp());
    klLoss = klLoss.sum(-1).mul(-0.5);
    return reconstructionLoss.add(klLoss).mean();
  });
}

// -- data.js's loadImages and batchImages, on synthetic pixels ---------------------------
function loadImages() {
  const draw = mulberry32(2019);
  const images = [];
  for (let n = 0; n < NUM_IMAGES; n++) {
    const array = new Float32Array(IMAGE_FLAT_SIZE);
    for (let i = 0; i < IMAGE_FLAT_SIZE; i++) array[i] = draw();
    images.push(array);
  }
  tf.util.shuffle(images);
  return images;
}

function batchImages(imagesData) {
  const numImages = imagesData.length;
  const flat = [];
  for (let i = 0; i < numImages; i++) {
    const image = imagesData[i];
    for (let j = 0; j < image.length; j++) flat.push(image[j]);
  }
  return tf.tensor3d(flat, [numImages, IMAGE_WIDTH, IMAGE_HEIGHT], 'float32');
}

function chunk(array, size) {  // lodash's _.chunk
  const out = [];
  for (let i = 0; i < array.length; i += size) out.push(array.slice(i, i + size));
  return out;
}

// -- train.js's train() and generate(), recording instead of printing -------------------
const recorded = [];
const mathDraw = mulberry32(7);
Math.random = () => { const v = mathDraw(); recorded.push(v); return v; };
const images = loadImages();
Math.random = mulberry32(99);  // the initializers' and randomNormal's seeds, not recorded

const vaeOpts = {originalDim: IMAGE_FLAT_SIZE, intermediateDim: INTERMEDIATE_DIM,
                 latentDim: LATENT_DIM};
const encoderModel = encoder(vaeOpts);
const decoderModel = decoder(vaeOpts);
const vaeModel = vae(encoderModel, decoderModel);
const initDraw = mulberry32(35);
const init = vaeModel.getWeights().map(w => {
  const values = Array.from({length: w.size}, () => initDraw() * 0.8 - 0.4);
  return realTf.tensor(values, w.shape);
});
vaeModel.setWeights(init);

// tfjs draws ZLayer's epsilon several times per step (the nested encoder model runs once per
// output it gives the outer model); find which draw reached the decoder's output.
const used = [];
function whichEpsilon(outputs) {
  const drawn = epsilons.slice(-3);
  const errors = drawn.map(eps => realTf.tidy(() => {
    const z = outputs[1].add(outputs[2].mul(0.5).exp().mul(realTf.tensor(eps, outputs[1].shape)));
    return decoderModel.predict(z).sub(outputs[0]).abs().max().dataSync()[0];
  }));
  const best = errors.indexOf(Math.min(...errors));
  if (errors[best] > 1e-6) throw new Error(`no epsilon reproduces the output: ${errors}`);
  return epsilons.length - drawn.length + best;
}

const optimizer = tf.train.adam();
const batches = chunk(images, batchSize);
const losses = [], previews = [];
for (let i = 0; i < epochs; i++) {
  for (let j = 0; j < batches.length; j++) {
    const currentBatchSize = batches[j].length;
    const batchedImages = batchImages(batches[j]);
    const reshaped = batchedImages.reshape([currentBatchSize, vaeOpts.originalDim]);
    optimizer.minimize(() => {
      const outputs = vaeModel.apply(reshaped);
      const loss = vaeLoss(reshaped, outputs, vaeOpts);
      losses.push(loss.dataSync()[0]);
      used.push(whichEpsilon(outputs));
      return loss;
    });
    tf.dispose([batchedImages, reshaped]);
  }
  const targetZ = tf.zeros([vaeOpts.latentDim]).expandDims();
  const generated = (decoderModel.predict(targetZ));
  previews.push(Array.from(generated.dataSync()));
  tf.dispose([targetZ, generated]);
}

const weights = ws => ws.map(w => Array.from(w.dataSync()));
fs.writeFileSync(OUT, JSON.stringify({
  header: `tfjs ${realTf.version.tfjs}: fashion-mnist-vae, ${NUM_IMAGES} synthetic ` +
      `${IMAGE_HEIGHT}x${IMAGE_WIDTH} images, ${epochs} epochs of batches of ${batchSize}`,
  sizes: {imageHeight: IMAGE_HEIGHT, imageWidth: IMAGE_WIDTH, numImages: NUM_IMAGES,
          intermediateDim: INTERMEDIATE_DIM, latentDim: LATENT_DIM, epochs, batchSize},
  math_random: recorded,
  weight_shapes: vaeModel.getWeights().map(w => w.shape),
  weight_names: vaeModel.weights.map(w => w.originalName),
  init: weights(init),
  epsilons,
  used,
  losses,
  previews,
  final: weights(vaeModel.getWeights()),
}));
console.log(`wrote ${OUT}: losses ${losses.map(l => l.toFixed(4)).join(' ')}`);
