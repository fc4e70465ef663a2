"""Port of boston-housing/normalization.js.

https://github.com/tensorflow/tfjs-examples/blob/master/boston-housing/normalization.js
"""

from types import SimpleNamespace


def determineMeanAndStddev(data):
    """Calculates the mean and standard deviation of each column of a data array;
    returns an object with `.dataMean` and `.dataStd` (1d tensors)."""
    dataMean = data.mean(0)
    # TODO(bileschi): Simplify when and if tf.var / tf.std added to the API.
    diffFromMean = data.sub(dataMean)
    squaredDiffFromMean = diffFromMean.square()
    variance = squaredDiffFromMean.mean(0)
    dataStd = variance.sqrt()
    return SimpleNamespace(dataMean=dataMean, dataStd=dataStd)


def normalizeTensor(data, dataMean, dataStd):
    """Given expected mean and standard deviation, normalizes a dataset by subtracting the
    mean and dividing by the standard deviation."""
    return data.sub(dataMean).div(dataStd)
