"""Port of custom-layer/custom_layer.js, line by line.

https://github.com/tensorflow/tfjs-examples/blob/master/custom-layer/custom_layer.js
"""

import tfjs_grad as tf


class Antirectifier(tf.layers.Layer):
    """This custom layer is similar to the 'relu' non-linear Activation `Layer`, but
    it keeps both the negative and positive signal.  The input is centered at the
    mean value, and then the negative activations and positive activations are
    separated into different channels, meaning that there are twice as many
    output channels as input channels.

    Implementing a custom `Layer` in general involves specifying a `call`
    function, and possibly also a `computeOutputShape` and `build` function. This
    layer does not need a custom `build` function because it does not store any
    variables.
    """

    def __init__(self):
        super().__init__({})
        self.supportsMasking = True

    def computeOutputShape(self, inputShape):
        """This layer only works on 4D Tensors [batch, height, width, channels],
        and produces output with twice as many channels.

        layer.computeOutputShapes must be overridden in the case that the output
        shape is not the same as the input shape.
        """
        return [inputShape[0], inputShape[1], inputShape[2], 2 * inputShape[3]]

    def call(self, inputs, kwargs):
        """Centers the input and applies the following function to every element of
        the input.

            x => [max(x, 0), max(-x, 0)]

        The theory being that there may be signal in the both negative and positive
        portions of the input.  Note that this will double the number of channels.
        `inputs`: Tensor to be treated. `kwargs`: only used as a pass through to call
        hooks.  Unused in this example code.
        """
        input = inputs
        if isinstance(input, list):
            input = input[0]
        self.invokeCallHook(inputs, kwargs)
        origShape = input.shape
        flatShape = (
            [origShape[0], origShape[1] * origShape[2] * origShape[3]])
        flattened = input.reshape(flatShape)
        centered = tf.sub(flattened, flattened.mean(1).expandDims(1))
        pos = centered.relu().reshape(origShape)
        neg = centered.neg().relu().reshape(origShape)
        return tf.concat([pos, neg], 3)

    # If a custom layer class is to support serialization, it must implement
    # the `className` static getter.
    className = 'Antirectifier'


tf.serialization.registerClass(Antirectifier)  # Needed for serialization.


def antirectifier():
    return Antirectifier()
