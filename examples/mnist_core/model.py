"""Port of mnist-core/model.js: two convolution + relu + max-pool blocks and a dense layer,
trained with `tf.train.sgd` on batches fetched inside the minimized function.

https://github.com/tensorflow/tfjs-examples/blob/master/mnist-core/model.js
"""

import math

import numpy as np

import tfjs_grad as tf

LEARNING_RATE = .1
BATCH_SIZE = 64
TRAIN_STEPS = 100

IMAGE_SIZE = 28
LABELS_SIZE = 10
optimizer = tf.train.sgd(LEARNING_RATE)

conv1OutputDepth = 8
conv1Weights = tf.variable(tf.randomNormal([5, 5, 1, conv1OutputDepth], 0, 0.1))

conv2InputDepth = conv1OutputDepth
conv2OutputDepth = 16
conv2Weights = tf.variable(
    tf.randomNormal([5, 5, conv2InputDepth, conv2OutputDepth], 0, 0.1))

fullyConnectedWeights = tf.variable(tf.randomNormal(
    [7 * 7 * conv2OutputDepth, LABELS_SIZE], 0,
    1 / math.sqrt(7 * 7 * conv2OutputDepth)))
fullyConnectedBias = tf.variable(tf.zeros([LABELS_SIZE]))


def loss(labels, ys):
    """Mean softmax cross-entropy of the logits `ys` against one-hot `labels`."""
    return tf.mean(tf.losses.softmaxCrossEntropy(labels, ys))


def model(inputXs):
    """Logits `[batch, 10]` of flat 784-pixel images `inputXs`."""
    xs = tf.reshape(inputXs, [-1, IMAGE_SIZE, IMAGE_SIZE, 1])

    strides = 2
    pad = 0

    def conv1():
        return tf.maxPool(tf.relu(tf.conv2d(xs, conv1Weights, 1, 'same')), [2, 2], strides, pad)
    layer1 = tf.tidy(conv1)

    def conv2():
        return tf.maxPool(
            tf.relu(tf.conv2d(layer1, conv2Weights, 1, 'same')), [2, 2], strides, pad)
    layer2 = tf.tidy(conv2)

    return tf.add(
        tf.matMul(tf.reshape(layer2, [-1, fullyConnectedWeights.shape[0]]), fullyConnectedWeights),
        fullyConnectedBias)


async def train(data, log):
    """`TRAIN_STEPS` optimizer steps, each on the batch its loss function fetches from `data`;
    `log(cost, step)` after each."""
    returnCost = True

    for i in range(TRAIN_STEPS):

        def lossOfNextBatch():
            batch = data.nextTrainBatch(BATCH_SIZE)
            return loss(batch.labels, model(batch.xs))
        cost = optimizer.minimize(lossOfNextBatch, returnCost)

        log(np.ravel(cost), i)
        await tf.nextFrame()


def predict(x):
    """The most likely digit of each image in `x`, as a list of ints."""

    def classes():
        axis = 1
        return tf.argMax(model(x), axis)
    pred = tf.tidy(classes)
    return np.ravel(pred).tolist()


def classesFromLabel(y):
    """The class index of each row of logits or one-hot labels `y`, as a list of ints."""
    axis = 1
    pred = tf.argMax(y, axis)

    return np.ravel(pred).tolist()
