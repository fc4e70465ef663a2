"""Port of mnist-core/model.js: two convolution + relu + max-pool blocks and a dense layer,
trained with `tf.train.sgd` on batches fetched inside the minimized function.

https://github.com/tensorflow/tfjs-examples/blob/master/mnist-core/model.js
"""

import math

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
    return tf.losses.softmaxCrossEntropy(labels, ys).mean()


def model(inputXs):
    """Logits `[batch, 10]` of flat 784-pixel images `inputXs`."""
    xs = inputXs.as4D(-1, IMAGE_SIZE, IMAGE_SIZE, 1)

    strides = 2
    pad = 0

    def conv1():
        return (xs.conv2d(conv1Weights, 1, 'same')
                .relu()
                .maxPool([2, 2], strides, pad))
    layer1 = tf.tidy(conv1)

    def conv2():
        return (layer1.conv2d(conv2Weights, 1, 'same')
                .relu()
                .maxPool([2, 2], strides, pad))
    layer2 = tf.tidy(conv2)

    return (layer2.as2D(-1, fullyConnectedWeights.shape[0])
            .matMul(fullyConnectedWeights)
            .add(fullyConnectedBias))


async def train(data, log):
    """`TRAIN_STEPS` optimizer steps, each on the batch its loss function fetches from `data`;
    `log(cost, step)` after each."""
    returnCost = True

    for i in range(TRAIN_STEPS):

        def lossOfNextBatch():
            batch = data.nextTrainBatch(BATCH_SIZE)
            return loss(batch.labels, model(batch.xs))
        cost = optimizer.minimize(lossOfNextBatch, returnCost)

        log(cost.dataSync(), i)
        await tf.nextFrame()


def predict(x):
    """The most likely digit of each image in `x`, as a list of ints."""

    def classes():
        axis = 1
        return model(x).argMax(axis)
    pred = tf.tidy(classes)
    return pred.dataSync().tolist()


def classesFromLabel(y):
    """The class index of each row of logits or one-hot labels `y`, as a list of ints."""
    axis = 1
    pred = y.argMax(axis)

    return pred.dataSync().tolist()
