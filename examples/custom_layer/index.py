"""Port of custom-layer/index.js: the Antirectifier applied to an image, its positive and
negative halves drawn on two canvases.

https://github.com/tensorflow/tfjs-examples/blob/master/custom-layer/index.js

    python -m examples.custom_layer.index

The page (the cat image, the canvases, `ImageData`) is stood in for by ui.py.
"""

import tfjs_grad as tf

from .custom_layer import antirectifier
from .ui import ImageData, document


def customLayerDemo():
    imgElement = document.getElementById('cat')
    # Layer expects first dimension to be batch, therefore expandDims.
    img = tf.browser.fromPixels(imgElement).toFloat().expandDims(0)
    layer = antirectifier()
    [posTensor, negTensor] = tf.split(layer.apply(img), 2, 3)
    posCanvas = document.createElement('canvas')
    tensorToCanvas(posTensor, posCanvas)
    document.getElementById('output_image_1').appendChild(posCanvas)
    negCanvas = document.createElement('canvas')
    tensorToCanvas(negTensor, negCanvas)
    document.getElementById('output_image_2').appendChild(negCanvas)


def tensorToCanvas(tensor, canvas):
    ctx = canvas.getContext('2d')
    [batch, height, width, nChan] = tensor.shape
    assert nChan == 3
    assert batch == 1
    canvas.width = width
    canvas.height = height
    imageData = ImageData(width, height)
    data = tensor.dataSync()
    for i in range(height * width):
        i4 = i * 4
        i3 = i * 3
        imageData.data[i4 + 0] = data[i3 + 0] * 2
        imageData.data[i4 + 1] = data[i3 + 1] * 2
        imageData.data[i4 + 2] = data[i3 + 2] * 2
        imageData.data[i4 + 3] = 255
    ctx.putImageData(imageData, 0, 0)


if __name__ == '__main__':
    customLayerDemo()
    for id in ('output_image_1', 'output_image_2'):
        canvas = document.getElementById(id).children[0]
        print(id, canvas.width, 'x', canvas.height, canvas.imageData.data.bytes.tolist())
