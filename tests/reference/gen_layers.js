#!/usr/bin/env node
// Writes tests/reference/layers.json and tests/reference/layers_models/: what REAL
// TensorFlow.js 4.22 (pure-JS CPU backend) computes for its Layers API, for
// tests/test_layers.py and tests/test_models.py (which need no Node).
//
// Run from the repo root:   node tests/reference/gen_layers.js     (deterministic output)
//
// layers.json:
//   layers.<case>: one layer applied to symbolic inputs inside tf.model, every weight set
//     from mulberry32 (moving variances in [0.5, 1.5), the rest in [-0.5, 0.5)):
//     {factory, config (the tfjs config; a wrapped layer is {factory, config}),
//      initial_state (inputs after the first are the RNN's initialState),
//      input_shapes (no batch axis), inputs [{shape, values}], int_input (embedding),
//      weights [{name, shape, values}] (model.weights order), json (the layer's entry in
//      model.toJSON()), output_shape, outputs [{shape, values}] (inference),
//      cotangents [{shape, values}], grad_inputs (d sum(out * cot) / d inputs),
//      grad_weights {name: values} (both null with grad_error where tfjs has no gradient),
//      training: null | {outputs, weights} (apply with
//      training true, then every weight's value: batch norm's moving statistics),
//      summary (the lines of model.summary())}.
//   models.<case>: a whole model: {json (model.toJSON), weights, inputs, predictions,
//     summary, layer_names, dir (layers_models/<case>, the files tfjs's save handler got)}.
//   errors: messages tfjs gives for a few misuses.
// Floats are the exact JS doubles of the float32 values.
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require('@tensorflow/tfjs');
const {mulberry32} = require('./mulberry32');

const rand = mulberry32(20241202);
const uniform = (n, lo, hi) => Array.from({length: n}, () => Math.fround(lo + rand() * (hi - lo)));
const size = (shape) => shape.reduce((a, b) => a * b, 1);
const enc = (t) => ({shape: t.shape, values: Array.from(t.dataSync())});

function make(factory, config) {
  const c = {...config};
  if (c.layer) c.layer = make(c.layer.factory, c.layer.config);
  return tf.layers[factory](c);
}

function setWeights(model) {
  const values = model.weights.map((w) => {
    const lo = w.originalName.endsWith('moving_variance') ? 0.5 : -0.5;
    return tf.tensor(uniform(size(w.shape), lo, lo + 1), w.shape);
  });
  model.setWeights(values);
  return model.weights.map((w, i) => ({name: w.originalName, shape: w.shape,
                                       values: Array.from(values[i].dataSync())}));
}

function summary(model) {
  const lines = [];
  model.summary(undefined, undefined, (line) => lines.push(line));
  return lines;
}

function layerCase(name, factory, config, inputShapes, opts = {}) {
  const batch = opts.batch || 2;
  const layer = make(factory, {...config, name});
  const xs = inputShapes.map((s, i) => tf.input({shape: s, name: `${name}_in${i}`}));
  const y = opts.initialState ? layer.apply(xs[0], {initialState: xs.slice(1)})
                              : layer.apply(xs.length === 1 ? xs[0] : xs);
  const ys = Array.isArray(y) ? y : [y];
  const model = tf.model({inputs: xs, outputs: ys, name: `${name}_model`});
  const weights = setWeights(model);
  const inputs = inputShapes.map((s) => {
    const shape = [batch, ...s];
    if (opts.intInput) {
      return tf.tensor(Array.from({length: size(shape)}, () => Math.floor(rand() * opts.intInput)),
                       shape);
    }
    return tf.tensor(uniform(size(shape), -1, 1), shape);
  });
  const outs = [model.predict(inputs.length === 1 ? inputs[0] : inputs)].flat();
  const cots = outs.map((o) => tf.tensor(uniform(size(o.shape), -1, 1), o.shape));
  const loss = (...args) => {
    const out = [model.apply(args.length === 1 ? args[0] : args)].flat();
    return tf.addN(out.map((o, i) => tf.sum(tf.mul(o, cots[i]))));
  };
  // tfjs has no gradient for some cases (dilated convolutions): null, with its message.
  let gradInputs = null;
  let gradWeights = null;
  let gradError = null;
  try {
    gradInputs = opts.intInput ? null : tf.grads(loss)(inputs).map(enc);
    const vars = model.trainableWeights.map((w) => w.val);
    if (vars.length) {
      const {grads} = tf.variableGrads(() => loss(...inputs), vars);
      gradWeights = {};
      model.trainableWeights.forEach((w) => {
        gradWeights[w.originalName] = Array.from(grads[w.val.name].dataSync());
      });
    }
  } catch (e) {
    gradInputs = gradWeights = null;
    gradError = e.message;
  }
  const json = model.toJSON(null, false).config.layers.find((l) => l.name === name);
  let training = null;
  if (opts.training) {
    const tout = [model.apply(inputs.length === 1 ? inputs[0] : inputs, {training: true})].flat();
    training = {outputs: tout.map(enc),
                weights: model.weights.map((w) => ({name: w.originalName,
                                                    values: Array.from(w.read().dataSync())}))};
  }
  return {
    factory, config, input_shapes: inputShapes, inputs: inputs.map(enc),
    initial_state: Boolean(opts.initialState),
    int_input: Boolean(opts.intInput), weights,
    json: {class_name: json.class_name, config: json.config},
    output_shape: layer.outputShape, outputs: outs.map(enc), cotangents: cots.map(enc),
    grad_inputs: gradInputs, grad_weights: gradWeights, grad_error: gradError, training, summary: summary(model),
  };
}

const LAYERS = [
  ['dense', 'dense', {units: 3, activation: 'relu'}, [[4]]],
  ['dense_3d', 'dense', {units: 2}, [[3, 4]]],
  ['dense_nobias_sigmoid', 'dense', {units: 2, useBias: false, activation: 'sigmoid'}, [[3]]],
  ['dense_softmax', 'dense', {units: 4, activation: 'softmax'}, [[3]]],
  ['conv1d_same_stride', 'conv1d', {filters: 2, kernelSize: 3, padding: 'same', strides: 2},
   [[7, 3]]],
  ['conv1d_dilated', 'conv1d', {filters: 2, kernelSize: 2, dilationRate: 2}, [[6, 2]]],
  ['conv2d', 'conv2d', {filters: 3, kernelSize: 3, activation: 'relu'}, [[5, 5, 2]]],
  ['conv2d_same_stride', 'conv2d', {filters: 2, kernelSize: [2, 3], strides: 2, padding: 'same'},
   [[5, 6, 2]]],
  ['conv2d_dilated', 'conv2d', {filters: 2, kernelSize: 2, dilationRate: 2}, [[6, 6, 1]]],
  ['conv2d_channels_first', 'conv2d', {filters: 2, kernelSize: 2, dataFormat: 'channelsFirst'},
   [[2, 4, 3]]],
  ['conv3d', 'conv3d', {filters: 2, kernelSize: 2, strides: [1, 2, 1]}, [[3, 4, 3, 2]]],
  ['conv2d_transpose_same', 'conv2dTranspose',
   {filters: 2, kernelSize: 3, strides: 2, padding: 'same'}, [[3, 3, 2]]],
  ['conv2d_transpose_valid', 'conv2dTranspose', {filters: 2, kernelSize: 2}, [[3, 4, 1]]],
  ['depthwise_conv2d', 'depthwiseConv2d', {kernelSize: 3, depthMultiplier: 2, padding: 'same'},
   [[4, 4, 2]]],
  ['separable_conv2d', 'separableConv2d', {filters: 3, kernelSize: 2}, [[4, 4, 2]]],
  ['max_pooling1d', 'maxPooling1d', {poolSize: 2}, [[6, 2]]],
  ['average_pooling1d_same', 'averagePooling1d', {poolSize: 3, strides: 1, padding: 'same'},
   [[5, 2]]],
  ['max_pooling2d', 'maxPooling2d', {poolSize: 2}, [[4, 5, 2]]],
  ['max_pooling2d_same', 'maxPooling2d', {poolSize: 3, strides: 2, padding: 'same'}, [[5, 5, 1]]],
  ['average_pooling2d', 'averagePooling2d', {poolSize: [2, 2]}, [[4, 4, 2]]],
  ['average_pooling2d_same', 'averagePooling2d', {poolSize: 2, strides: 2, padding: 'same'},
   [[5, 5, 2]]],
  ['global_average_pooling1d', 'globalAveragePooling1d', {}, [[4, 3]]],
  ['global_max_pooling1d', 'globalMaxPooling1d', {}, [[4, 3]]],
  ['global_average_pooling2d', 'globalAveragePooling2d', {}, [[3, 4, 2]]],
  ['global_max_pooling2d', 'globalMaxPooling2d', {}, [[3, 4, 2]]],
  ['flatten', 'flatten', {}, [[2, 3, 2]]],
  ['reshape', 'reshape', {targetShape: [3, 4]}, [[12]]],
  ['permute', 'permute', {dims: [2, 1]}, [[3, 4]]],
  ['repeat_vector', 'repeatVector', {n: 3}, [[2]]],
  ['dropout', 'dropout', {rate: 0.5}, [[6]]],
  ['activation_tanh', 'activation', {activation: 'tanh'}, [[5]]],
  ['activation_softplus', 'activation', {activation: 'softplus'}, [[5]]],
  ['activation_softmax', 'activation', {activation: 'softmax'}, [[5]]],
  ['activation_elu', 'activation', {activation: 'elu'}, [[5]]],
  ['activation_selu', 'activation', {activation: 'selu'}, [[5]]],
  ['activation_relu6', 'activation', {activation: 'relu6'}, [[5]]],
  ['activation_softsign', 'activation', {activation: 'softsign'}, [[5]]],
  ['activation_hard_sigmoid', 'activation', {activation: 'hardSigmoid'}, [[5]]],
  ['activation_swish', 'activation', {activation: 'swish'}, [[5]]],
  ['activation_mish', 'activation', {activation: 'mish'}, [[5]]],
  ['activation_gelu', 'activation', {activation: 'gelu'}, [[5]]],
  ['activation_log_softmax', 'activation', {activation: 'logSoftmax'}, [[5]]],
  ['batch_normalization', 'batchNormalization', {}, [[4]], {batch: 5, training: true}],
  ['batch_normalization_conv', 'batchNormalization', {momentum: 0.9}, [[3, 3, 2]],
   {training: true}],
  ['batch_normalization_plain', 'batchNormalization', {center: false, scale: false,
                                                       epsilon: 0.01}, [[3]],
   {batch: 4}],  // training mode: tfjs 4.22 reads the missing gamma and throws
  ['layer_normalization', 'layerNormalization', {}, [[5]], {training: true}],
  ['layer_normalization_3d', 'layerNormalization', {epsilon: 0.01}, [[3, 4]]],
  ['embedding', 'embedding', {inputDim: 6, outputDim: 3}, [[4]], {intInput: 6}],
  ['simple_rnn', 'simpleRNN', {units: 3}, [[4, 2]]],
  ['simple_rnn_sequences_backwards', 'simpleRNN',
   {units: 2, returnSequences: true, goBackwards: true, activation: 'relu'}, [[3, 2]]],
  ['lstm', 'lstm', {units: 3}, [[4, 2]]],
  ['lstm_sequences', 'lstm', {units: 2, returnSequences: true}, [[3, 3]]],
  ['lstm_state', 'lstm', {units: 2, returnState: true}, [[3, 2]]],
  ['lstm_unit_forget_bias', 'lstm', {units: 2, unitForgetBias: true}, [[3, 2]]],
  ['lstm_initial_state', 'lstm', {units: 2, returnSequences: true}, [[3, 2], [2], [2]],
   {initialState: true}],
  ['gru_initial_state', 'gru', {units: 2}, [[3, 2], [2]], {initialState: true}],
  ['gru', 'gru', {units: 3}, [[4, 2]]],
  ['gru_sequences', 'gru', {units: 2, returnSequences: true, recurrentActivation: 'sigmoid'},
   [[3, 2]]],
  ['bidirectional_lstm', 'bidirectional',
   {layer: {factory: 'lstm', config: {units: 2, name: 'bd_lstm'}}}, [[3, 2]]],
  ['bidirectional_gru_sum', 'bidirectional',
   {layer: {factory: 'gru', config: {units: 2, returnSequences: true, name: 'bd_gru'}},
    mergeMode: 'sum'}, [[3, 2]]],
  ['time_distributed', 'timeDistributed',
   {layer: {factory: 'dense', config: {units: 2, name: 'td_dense'}}}, [[3, 4]]],
  ['concatenate', 'concatenate', {}, [[3], [2]]],
  ['concatenate_axis1', 'concatenate', {axis: 1}, [[2, 3], [1, 3]]],
  ['add', 'add', {}, [[3], [3]]],
  ['multiply', 'multiply', {}, [[3], [3]]],
  ['average', 'average', {}, [[3], [3]]],
  ['maximum', 'maximum', {}, [[3], [3]]],
  ['minimum', 'minimum', {}, [[3], [3]]],
  ['re_lu', 'reLU', {maxValue: 0.5}, [[6]]],
  ['leaky_re_lu', 'leakyReLU', {alpha: 0.2}, [[6]]],
  ['prelu', 'prelu', {sharedAxes: [1]}, [[3, 4]]],
  ['elu_layer', 'elu', {}, [[6]]],
  ['thresholded_re_lu', 'thresholdedReLU', {theta: 0.3}, [[6]]],
  ['softmax_layer', 'softmax', {}, [[4]]],  // tfjs: axis 1, the last axis only
  ['zero_padding2d', 'zeroPadding2d', {padding: [[1, 0], [2, 1]]}, [[2, 3, 1]]],
  ['cropping2d', 'cropping2D', {cropping: [[1, 0], [0, 1]]}, [[3, 4, 2]]],
  ['up_sampling2d', 'upSampling2d', {size: [2, 3]}, [[2, 2, 1]]],
  ['up_sampling2d_bilinear', 'upSampling2d', {size: [2, 2], interpolation: 'bilinear'}, [[3, 2, 1]]],
  ['gaussian_noise', 'gaussianNoise', {stddev: 0.3}, [[4]]],
  ['gaussian_dropout', 'gaussianDropout', {rate: 0.3}, [[4]]],
  ['alpha_dropout', 'alphaDropout', {rate: 0.3}, [[4]]],
  ['masking', 'masking', {maskValue: 0}, [[3, 2]]],
  ['rescaling', 'rescaling', {scale: 0.5, offset: -1}, [[4]]],
  ['dot', 'dot', {axes: 1}, [[3], [3]]],
  ['dot_normalize', 'dot', {axes: [2, 2], normalize: true}, [[2, 3], [4, 3]]],
  ['dense_regularized', 'dense', {units: 2, kernelRegularizer: tf.regularizers.l2({l2: 0.1}),
                                  kernelConstraint: tf.constraints.maxNorm({maxValue: 1})},
   [[3]]],
];

function serializeConfig(config) {
  // Regularizer/constraint objects in a case's config as the Python side builds them.
  const out = {};
  for (const [k, v] of Object.entries(config)) {
    if (v && typeof v.getClassName === 'function') {
      out[k] = {class_name: v.getClassName(), config: v.getConfig()};
    } else {
      out[k] = v;
    }
  }
  return out;
}

// -- whole models ------------------------------------------------------------------------------

async function saveTo(model, dir) {
  fs.rmSync(dir, {recursive: true, force: true});
  fs.mkdirSync(dir, {recursive: true});
  await model.save(tf.io.withSaveHandler(async (artifacts) => {
    const json = {
      modelTopology: artifacts.modelTopology,
      weightsManifest: [{paths: ['weights.bin'], weights: artifacts.weightSpecs}],
      format: artifacts.format, generatedBy: artifacts.generatedBy,
      convertedBy: artifacts.convertedBy,
    };
    fs.writeFileSync(path.join(dir, 'model.json'), JSON.stringify(json));
    fs.writeFileSync(path.join(dir, 'weights.bin'), Buffer.from(artifacts.weightData));
    return {modelArtifactsInfo: {dateSaved: new Date(), modelTopologyType: 'JSON'}};
  }));
}

function mlp() {
  return tf.sequential({name: 'mlp', layers: [
    tf.layers.dense({units: 5, activation: 'relu', inputShape: [4], name: 'mlp_d1'}),
    tf.layers.dropout({rate: 0.25, name: 'mlp_drop'}),
    tf.layers.dense({units: 3, activation: 'softmax', name: 'mlp_d2'}),
  ]});
}

function cnn() {
  return tf.sequential({name: 'cnn', layers: [
    tf.layers.conv2d({filters: 3, kernelSize: 3, activation: 'relu', inputShape: [6, 6, 2],
                      name: 'cnn_conv'}),
    tf.layers.batchNormalization({name: 'cnn_bn'}),
    tf.layers.maxPooling2d({poolSize: 2, name: 'cnn_pool'}),
    tf.layers.flatten({name: 'cnn_flat'}),
    tf.layers.dense({units: 2, name: 'cnn_out'}),
  ]});
}

function twoInputs() {
  const a = tf.input({shape: [3], name: 'two_a'});
  const b = tf.input({shape: [2], name: 'two_b'});
  const ha = tf.layers.dense({units: 4, activation: 'tanh', name: 'two_ha'}).apply(a);
  const hb = tf.layers.dense({units: 4, name: 'two_hb'}).apply(b);
  const sum = tf.layers.add({name: 'two_add'}).apply([ha, hb]);
  const cat = tf.layers.concatenate({name: 'two_cat'}).apply([sum, ha]);
  const out = tf.layers.dense({units: 2, name: 'two_out'}).apply(cat);
  return tf.model({inputs: [a, b], outputs: out, name: 'two'});
}

function rnn() {
  return tf.sequential({name: 'rnn', layers: [
    tf.layers.embedding({inputDim: 7, outputDim: 3, inputLength: 4, inputShape: [4],
                         name: 'rnn_emb'}),
    tf.layers.lstm({units: 4, returnSequences: true, name: 'rnn_lstm'}),
    tf.layers.gru({units: 3, name: 'rnn_gru'}),
    tf.layers.dense({units: 1, activation: 'sigmoid', name: 'rnn_out'}),
  ]});
}

function batchnorm() {
  return tf.sequential({name: 'bnorder', layers: [
    tf.layers.dense({units: 3, inputShape: [2], name: 'bo_d1'}),
    tf.layers.batchNormalization({name: 'bo_bn'}),
    tf.layers.dense({units: 1, name: 'bo_d2'}),
  ]});
}

function frozen() {
  return tf.sequential({name: 'frozen', layers: [
    tf.layers.dense({units: 3, inputShape: [2], name: 'fr_d1', trainable: false}),
    tf.layers.dense({units: 1, name: 'fr_d2'}),
  ]});
}

function shared() {
  const x = tf.input({shape: [3], name: 'sh_x'});
  const d = tf.layers.dense({units: 3, name: 'sh_d'});
  const y = d.apply(d.apply(x));
  return tf.model({inputs: x, outputs: y, name: 'shared'});
}

const MODELS = [
  ['mlp', mlp, [[4]]],
  ['cnn', cnn, [[6, 6, 2]]],
  ['two_inputs', twoInputs, [[3], [2]]],
  ['rnn', rnn, [[4]], 7],
  ['batchnorm', batchnorm, [[2]]],
  ['frozen', frozen, [[2]]],
  ['shared', shared, [[3]]],
];

async function modelCase(name, build, inputShapes, intInput) {
  const model = build();
  const weights = setWeights(model);
  const inputs = inputShapes.map((s) => {
    const shape = [3, ...s];
    if (intInput) {
      return tf.tensor(Array.from({length: size(shape)}, () => Math.floor(rand() * intInput)),
                       shape);
    }
    return tf.tensor(uniform(size(shape), -1, 1), shape);
  });
  const predictions = model.predict(inputs.length === 1 ? inputs[0] : inputs);
  const dir = path.join(__dirname, 'layers_models', name);
  await saveTo(model, dir);
  return {
    json: model.toJSON(null, false), weights, inputs: inputs.map(enc),
    predictions: [predictions].flat().map(enc), summary: summary(model),
    layer_names: model.layers.map((l) => l.name),
    weight_names: model.weights.map((w) => w.name),
    trainable_names: model.trainableWeights.map((w) => w.originalName),
    dir: `layers_models/${name}`,
  };
}

function errors() {
  const out = {};
  const catchMsg = (f) => { try { f(); } catch (e) { return e.message; } return null; };
  out.unknown_activation = catchMsg(() => tf.layers.dense({units: 2, activation: 'nope'}));
  out.first_layer = catchMsg(() => tf.sequential().add(tf.layers.dense({units: 2})));
  const m = tf.sequential({layers: [tf.layers.dense({units: 2, inputShape: [4], name: 'err_d'})]});
  out.predict_shape = catchMsg(() => m.predict(tf.zeros([2, 3])));
  out.predict_rank = catchMsg(() => m.predict(tf.zeros([2, 3, 4])));
  out.set_weights_count = catchMsg(() => m.setWeights([tf.zeros([4, 2])]));
  out.set_weights_shape = catchMsg(() => m.setWeights([tf.zeros([3, 2]), tf.zeros([2])]));
  const x = tf.input({shape: [4]});
  out.layer_input = catchMsg(() => tf.layers.dense({units: 2, name: 'err_l'}).apply(
      tf.layers.dense({units: 2, inputShape: [3]}).apply(tf.input({shape: [3]}))) &&
      m.layers[0].apply(tf.zeros([2, 3])));
  out.dense_input = catchMsg(() => m.layers[0].apply(tf.zeros([2, 3])));
  void x;
  return out;
}

async function main() {
  await tf.setBackend('cpu');
  const layers = {};
  for (const [name, factory, config, shapes, opts] of LAYERS) {
    if (typeof tf.layers[factory] !== 'function') throw new Error(`no tf.layers.${factory}`);
    layers[name] = layerCase(name, factory, config, shapes, opts);
    layers[name].config = serializeConfig(config);
  }
  const models = {};
  for (const [name, build, shapes, intInput] of MODELS) {
    models[name] = await modelCase(name, build, shapes, intInput);
  }
  const doc = {tfjs_version: tf.version.tfjs, layers, models, errors: errors()};
  fs.writeFileSync(path.join(__dirname, 'layers.json'), JSON.stringify(doc, null, 0) + '\n');
  console.log(`wrote ${Object.keys(layers).length} layer cases, ${Object.keys(models).length} ` +
              'models');
}

main().catch((e) => { console.error(e); process.exit(1); });
