"""Port of polynomial-regression-core/data.js: noisy points on a cubic, targets scaled to [0, 1].

https://github.com/tensorflow/tfjs-examples/blob/master/polynomial-regression-core/data.js
"""

from types import SimpleNamespace

import tfjs_grad as tf


def generateData(numPoints, coeff, sigma=0.04):
    """`numPoints` xs uniform in [-1, 1) and their cubic `coeff` values plus Gaussian noise of
    standard deviation `sigma`, min/max-normalised; returns an object with `.xs` and `.ys`."""

    def generate():
        [a, b, c, d] = [
            tf.scalar(coeff.a), tf.scalar(coeff.b), tf.scalar(coeff.c),
            tf.scalar(coeff.d)
        ]

        xs = tf.randomUniform([numPoints], -1, 1)

        three = tf.scalar(3, 'int32')
        ys = (a.mul(xs.pow(three))
              .add(b.mul(xs.square()))
              .add(c.mul(xs))
              .add(d)
              .add(tf.randomNormal([numPoints], 0, sigma)))

        ymin = ys.min()
        ymax = ys.max()
        yrange = ymax.sub(ymin)
        ysNormalized = ys.sub(ymin).div(yrange)

        return SimpleNamespace(
            xs=xs,
            ys=ysNormalized
        )
    return tf.tidy(generate)
