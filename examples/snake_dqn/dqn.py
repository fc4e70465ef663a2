"""Port of snake-dqn/dqn.js: the deep-Q network and the copying of its weights.

https://github.com/tensorflow/tfjs-examples/blob/master/snake-dqn/dqn.js

>>> from examples.snake_dqn.dqn import copyWeights, createDeepQNetwork
>>> online, target = createDeepQNetwork(9, 9, 3), createDeepQNetwork(9, 9, 3)
>>> target.trainable = False
>>> copyWeights(target, online)
>>> import tfjs_grad as tf
>>> x = tf.zeros([1, 9, 9, 2])
>>> float(online.predict(x).sub(target.predict(x)).abs().max().dataSync()[0]) < 1e-6
True
>>> target.trainable
False
"""

import tfjs_grad as tf


def createDeepQNetwork(h, w, numActions):
    """Three 3x3 relu convolutions (two followed by batch normalization), then a dense
    layer of 100 relu units, dropout 0.25, and one linear output per action."""
    if not (isinstance(h, int) and h > 0):
        raise ValueError(f"Expected height to be a positive integer, but got {h}")
    if not (isinstance(w, int) and w > 0):
        raise ValueError(f"Expected width to be a positive integer, but got {w}")
    if not (isinstance(numActions, int) and numActions > 1):
        raise ValueError(
            f"Expected numActions to be a integer greater than 1, "
            f"but got {numActions}")

    model = tf.sequential()
    model.add(tf.layers.conv2d({
        'filters': 128,
        'kernelSize': 3,
        'strides': 1,
        'activation': 'relu',
        'inputShape': [h, w, 2]
    }))
    model.add(tf.layers.batchNormalization())
    model.add(tf.layers.conv2d({
        'filters': 256,
        'kernelSize': 3,
        'strides': 1,
        'activation': 'relu'
    }))
    model.add(tf.layers.batchNormalization())
    model.add(tf.layers.conv2d({
        'filters': 256,
        'kernelSize': 3,
        'strides': 1,
        'activation': 'relu'
    }))
    model.add(tf.layers.flatten())
    model.add(tf.layers.dense({'units': 100, 'activation': 'relu'}))
    model.add(tf.layers.dropout({'rate': 0.25}))
    model.add(tf.layers.dense({'units': numActions}))

    return model


def copyWeights(destNetwork, srcNetwork):
    """Copy the weights from a source deep-Q network to another."""
    # tfjs orders a model's weights differently when it is not trainable (tfjs issue
    # 1807), so the destination takes the source's `trainable` while it is set.
    originalDestNetworkTrainable = None
    if destNetwork.trainable != srcNetwork.trainable:
        originalDestNetworkTrainable = destNetwork.trainable
        destNetwork.trainable = srcNetwork.trainable

    destNetwork.setWeights(srcNetwork.getWeights())

    # None means the two networks' `trainable` agreed from the start.
    if originalDestNetworkTrainable is not None:
        destNetwork.trainable = originalDestNetworkTrainable
