"""Port of boston-housing/normalization.js.

https://github.com/tensorflow/tfjs-examples/blob/master/boston-housing/normalization.js
"""

from types import SimpleNamespace

import tfjs_grad as tf


def determineMeanAndStddev(data):
    """Calculates the mean and standard deviation of each column of a data array;
    returns an object with `.dataMean` and `.dataStd` (1d tensors)."""
    dataMean = tf.mean(data, 0)
    # TODO(bileschi): Simplify when and if tf.var / tf.std added to the API.
    diffFromMean = tf.sub(data, dataMean)
    squaredDiffFromMean = tf.square(diffFromMean)
    variance = tf.mean(squaredDiffFromMean, 0)
    dataStd = tf.sqrt(variance)
    return SimpleNamespace(dataMean=dataMean, dataStd=dataStd)


def normalizeTensor(data, dataMean, dataStd):
    """Given expected mean and standard deviation, normalizes a dataset by subtracting the
    mean and dividing by the standard deviation."""
    return tf.div(tf.sub(data, dataMean), dataStd)
