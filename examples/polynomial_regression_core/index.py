"""Port of polynomial-regression-core/index.js: learn a, b, c, d of y = a·x³ + b·x² + c·x + d.

https://github.com/tensorflow/tfjs-examples/blob/master/polynomial-regression-core/index.js

The four coefficients are Variables drawn with `random.random()` (the original's
`Math.random()`); 75 steps of `tf.train.sgd(0.5)` minimise the mean squared error of
`predict(xs)` against the normalised targets of `data.generateData`.
"""

import asyncio
import random
from types import SimpleNamespace

import tfjs_grad as tf

from .data import generateData
from .ui import plotData, plotDataAndPredictions, renderCoefficients

a = tf.variable(tf.scalar(random.random()))
b = tf.variable(tf.scalar(random.random()))
c = tf.variable(tf.scalar(random.random()))
d = tf.variable(tf.scalar(random.random()))


numIterations = 75
learningRate = 0.5
optimizer = tf.train.sgd(learningRate)


def predict(x):
    """The cubic with the current coefficients at `x`."""

    def cubic():
        return (a.mul(x.pow(tf.scalar(3, 'int32')))
                .add(b.mul(x.square()))
                .add(c.mul(x))
                .add(d))
    return tf.tidy(cubic)


def loss(prediction, labels):
    """Mean of the squared differences between `prediction` and `labels`."""
    error = prediction.sub(labels).square().mean()
    return error


async def train(xs, ys, numIterations):
    """`numIterations` optimizer steps on the whole data set, yielding to the event loop after
    each one."""
    for _ in range(numIterations):

        def lossOfPredictions():
            pred = predict(xs)
            return loss(pred, ys)
        optimizer.minimize(lossOfPredictions)

        await tf.nextFrame()


async def learnCoefficients():
    """Generate the data, show the untrained fit, train, show the trained fit."""
    trueCoefficients = SimpleNamespace(a=-.8, b=-.2, c=.9, d=.5)
    trainingData = generateData(100, trueCoefficients)

    renderCoefficients('#data .coeff', trueCoefficients)
    await plotData('#data .plot', trainingData.xs, trainingData.ys)

    renderCoefficients('#random .coeff', SimpleNamespace(
        a=a.dataSync()[0],
        b=b.dataSync()[0],
        c=c.dataSync()[0],
        d=d.dataSync()[0],
    ))
    predictionsBefore = predict(trainingData.xs)
    await plotDataAndPredictions(
        '#random .plot', trainingData.xs, trainingData.ys, predictionsBefore)

    await train(trainingData.xs, trainingData.ys, numIterations)

    renderCoefficients('#trained .coeff', SimpleNamespace(
        a=a.dataSync()[0],
        b=b.dataSync()[0],
        c=c.dataSync()[0],
        d=d.dataSync()[0],
    ))
    predictionsAfter = predict(trainingData.xs)
    await plotDataAndPredictions(
        '#trained .plot', trainingData.xs, trainingData.ys, predictionsAfter)

    predictionsBefore.dispose()
    predictionsAfter.dispose()


if __name__ == "__main__":
    asyncio.run(learnCoefficients())
