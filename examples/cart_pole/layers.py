"""The smallest `tf.sequential` / `tf.layers.dense` that cart-pole's policy needs, written with
`tf.variable` weights (tfjs_grad has no Layers API). Not a port: tfjs's Dense computes
`activation(x · kernel + bias)` with a glorot-uniform kernel and a zero bias, and so does this.
"""

import itertools
import math

import tfjs_grad as tf

_ACTIVATIONS = {None: lambda x: x, 'linear': lambda x: x, 'elu': tf.elu}
_layerIds = itertools.count(1)


class Dense:
    """A dense layer; its weights are made when it is added to a `Sequential`."""

    def __init__(self, units, activation=None, inputShape=None):
        self.units = units
        self.activation = _ACTIVATIONS[activation]
        self.inputShape = inputShape
        self.name = f'dense_Dense{next(_layerIds)}'

    def build(self, inputSize):
        """Make the kernel `[inputSize, units]` and the bias `[units]`, named as tfjs names
        them (`dense_Dense1/kernel`, ...)."""
        limit = math.sqrt(6 / (inputSize + self.units))
        kernel = tf.randomUniform([inputSize, self.units], -limit, limit)
        self.kernel = tf.variable(kernel, True, f'{self.name}/kernel')
        self.bias = tf.variable(tf.zeros([self.units]), True, f'{self.name}/bias')

    def apply(self, x):
        """`activation(x · kernel + bias)`."""
        return self.activation(tf.add(tf.matMul(x, self.kernel), self.bias))


class Sequential:
    """Layers applied one after another."""

    def __init__(self):
        self.layers = []

    def add(self, layer):
        """Append `layer`, sized by the previous layer's units (or its own `inputShape`)."""
        inputSize = self.layers[-1].units if self.layers else layer.inputShape[0]
        layer.build(inputSize)
        self.layers.append(layer)

    def predict(self, x):
        """The output of the last layer for the batch `x`."""
        for layer in self.layers:
            x = layer.apply(x)
        return x

    @property
    def weights(self):
        """The Variables, kernel then bias for each layer, in order (as tfjs's `getWeights`)."""
        return [v for layer in self.layers for v in (layer.kernel, layer.bias)]


def sequential():
    """An empty `Sequential`, like `tf.sequential()`."""
    return Sequential()


def dense(units, activation=None, inputShape=None):
    """A `Dense` layer, like `tf.layers.dense({units, activation, inputShape})`."""
    return Dense(units, activation, inputShape)
