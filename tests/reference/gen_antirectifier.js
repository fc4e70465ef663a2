#!/usr/bin/env node
// Writes tests/reference/antirectifier.json: tfjs-examples' custom-layer (custom_layer.js's
// Antirectifier as written, index.js's customLayerDemo and tensorToCanvas) run by the real
// tfjs 4.22 on a small seeded picture, for tests/test_examples.py and examples/custom_layer.
//
// Run from the repo root:   node tests/reference/gen_antirectifier.js
//
// Changed from the original: the page's cat.jpg is a 6x5 RGBA picture of mulberry32(2018)
// bytes given to tf.browser.fromPixels as {data, width, height} (examples/custom_layer/ui.py
// makes the same one); a canvas is an object that keeps the ImageData put on it, and
// ImageData is {width, height, data: Uint8ClampedArray}, as in a browser. Also recorded: the
// layer's output, its computeOutputShape, and a model holding it saved to JSON by tfjs.
//
// Schema: {header, image: {data, width, height}, output: {shape, values},
//   canvases: [{width, height, data}], output_shape, model_json}
'use strict';

const fs = require('fs');
const path = require('path');
const tf = require(path.join(__dirname, 'node_modules', '@tensorflow', 'tfjs'));
const {mulberry32} = require('./mulberry32');

const OUT = path.join(__dirname, 'antirectifier.json');

// -- custom_layer.js, as written ---------------------------------------------------------
class Antirectifier extends tf.layers.Layer {
  constructor() {
    super({});
    this.supportsMasking = true;
  }
  computeOutputShape(inputShape) {
    return [inputShape[0], inputShape[1], inputShape[2], 2 * inputShape[3]]
  }
  call(inputs, kwargs) {
    let input = inputs;
    if (Array.isArray(input)) {
      input = input[0];
    }
    this.invokeCallHook(inputs, kwargs);
    const origShape = input.shape;
    const flatShape =
        [origShape[0], origShape[1] * origShape[2] * origShape[3]];
    const flattened = input.reshape(flatShape);
    const centered = tf.sub(flattened, flattened.mean(1).expandDims(1));
    const pos = centered.relu().reshape(origShape);
    const neg = centered.neg().relu().reshape(origShape);
    return tf.concat([pos, neg], 3);
  }
  static get className() {
    return 'Antirectifier';
  }
}
tf.serialization.registerClass(Antirectifier);
function antirectifier() {
  return new Antirectifier();
}

// -- the page ----------------------------------------------------------------------------
const WIDTH = 6, HEIGHT = 5;
const draw = mulberry32(2018);
const catData = new Uint8Array(WIDTH * HEIGHT * 4);
for (let k = 0; k < catData.length; k++) catData[k] = k % 4 !== 3 ? Math.floor(draw() * 256) : 255;
const cat = {data: catData, width: WIDTH, height: HEIGHT};
class ImageData {
  constructor(width, height) {
    this.width = width; this.height = height;
    this.data = new Uint8ClampedArray(width * height * 4);
  }
}
const makeCanvas = () => {
  const canvas = {width: 0, height: 0, imageData: null};
  canvas.getContext = () => ({putImageData: (data) => { canvas.imageData = data; }});
  return canvas;
};

// -- index.js, as written (the page's elements replaced as above) ------------------------
let output;
const canvases = [];
function customLayerDemo() {
  const img = tf.browser.fromPixels(cat).toFloat().expandDims(0);
  const layer = antirectifier();
  output = layer.apply(img);
  const [posTensor, negTensor] = tf.split(layer.apply(img), 2, 3);
  const posCanvas = makeCanvas();
  tensorToCanvas(posTensor, posCanvas);
  canvases.push(posCanvas);
  const negCanvas = makeCanvas();
  tensorToCanvas(negTensor, negCanvas);
  canvases.push(negCanvas);
}
function tensorToCanvas(tensor, canvas) {
  const ctx = canvas.getContext('2d');
  const [batch, height, width, nChan] = tensor.shape;
  console.assert(nChan == 3);
  console.assert(batch == 1);
  canvas.width = width;
  canvas.height = height;
  const imageData = new ImageData(width, height);
  const data = tensor.dataSync();
  for (let i = 0; i < height * width; ++i) {
    const i4 = i * 4;
    const i3 = i * 3;
    imageData.data[i4 + 0] = data[i3 + 0] * 2;
    imageData.data[i4 + 1] = data[i3 + 1] * 2;
    imageData.data[i4 + 2] = data[i3 + 2] * 2;
    imageData.data[i4 + 3] = 255;
  }
  ctx.putImageData(imageData, 0, 0);
}
customLayerDemo();

const model = tf.sequential({layers: [
  tf.layers.conv2d({inputShape: [HEIGHT, WIDTH, 3], filters: 2, kernelSize: 2}),
  antirectifier(),
]});

fs.writeFileSync(OUT, JSON.stringify({
  header: `tfjs ${tf.version.tfjs}: custom-layer's Antirectifier on a ${WIDTH}x${HEIGHT} ` +
      'mulberry32(2018) picture',
  image: {data: Array.from(catData), width: WIDTH, height: HEIGHT},
  output: {shape: output.shape, values: Array.from(output.dataSync())},
  canvases: canvases.map(c => ({width: c.width, height: c.height,
                                data: Array.from(c.imageData.data)})),
  output_shape: model.outputs[0].shape,
  model_json: model.toJSON(null, false),
}));
console.log(`wrote ${OUT}`);
