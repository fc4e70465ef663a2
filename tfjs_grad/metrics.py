"""`tf.metrics`: tfjs-layers' metric functions, and the per-sample losses `compile` names.

Every function takes `(yTrue, yPred)` and returns tfjs's result: one value per sample
(the last axis reduced) for the accuracies and the losses, one scalar for `precision`,
`recall` and `r2Score`. The formulas, op order and the clipping epsilon (1e-7) are
tfjs 4.22's (tfjs-layers `metrics.ts` and `losses.ts`). All are differentiable where tfjs's
are and work under `jax.jit` / `tf.jit`.

>>> import tfjs_grad as tf
>>> tf.metrics.binaryAccuracy([[1.0], [0.0]], [[0.7], [0.6]]).tolist()
[1.0, 0.0]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._tensor import Tensor
from ._tensors import NUMERIC, op

__all__ = [
    "MAPE",
    "MSE",
    "binaryAccuracy",
    "binary_accuracy",
    "binaryCrossentropy",
    "binary_crossentropy",
    "categoricalAccuracy",
    "categorical_accuracy",
    "categoricalCrossentropy",
    "categorical_crossentropy",
    "cosine",
    "cosineProximity",
    "cosine_proximity",
    "mape",
    "meanAbsoluteError",
    "mean_absolute_error",
    "meanAbsolutePercentageError",
    "mean_absolute_percentage_error",
    "meanSquaredError",
    "mean_squared_error",
    "mse",
    "precision",
    "r2Score",
    "r2_score",
    "recall",
    "sparseCategoricalAccuracy",
    "sparse_categorical_accuracy",
]

EPSILON = 1e-7
"""tfjs-layers' `epsilon()`: the clip applied to probabilities in the cross-entropies."""

_F32_MAX = float(np.finfo(np.float32).max)


def _float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(jnp.float32)


# -- the metrics (tfjs-layers metrics.ts) ------------------------------------------------
@op("binaryAccuracy", y_true=NUMERIC, y_pred=NUMERIC)
def binary_accuracy(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: the fraction of entries where `yPred > 0.5` equals `yTrue`.

    >>> import tfjs_grad as tf
    >>> tf.metrics.binaryAccuracy([[1, 0], [1, 1]], [[0.9, 0.2], [0.4, 0.8]]).tolist()
    [1.0, 0.5]
    """
    thresholded = (y_pred > 0.5).astype(y_true.dtype)
    return jnp.mean((y_true == thresholded).astype(jnp.float32), axis=-1)


@op("categoricalAccuracy", y_true=NUMERIC, y_pred=NUMERIC)
def categorical_accuracy(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: 1 where the arg-max of `yPred` is the arg-max of `yTrue` (one-hot).

    >>> import tfjs_grad as tf
    >>> tf.metrics.categoricalAccuracy([[0, 1], [1, 0]], [[0.2, 0.8], [0.3, 0.7]]).tolist()
    [1.0, 0.0]
    """
    return (jnp.argmax(y_true, axis=-1) == jnp.argmax(y_pred, axis=-1)).astype(jnp.float32)


@op("sparseCategoricalAccuracy", y_true=NUMERIC, y_pred=NUMERIC)
def sparse_categorical_accuracy(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: 1 where the arg-max of `yPred` is the class id in `yTrue` (`[N]` or `[N, 1]`).

    >>> import tfjs_grad as tf
    >>> tf.metrics.sparseCategoricalAccuracy([[1], [0]], [[0.2, 0.8], [0.3, 0.7]]).tolist()
    [1.0, 0.0]
    """
    if y_true.ndim == y_pred.ndim:
        y_true = jnp.squeeze(y_true, axis=y_true.ndim - 1)
    predicted = jnp.argmax(y_pred, axis=-1).astype(y_true.dtype)
    return (y_true == predicted).astype(jnp.float32)


def _count(mask: jax.Array) -> jax.Array:
    return jnp.sum(mask.astype(jnp.int32)).astype(jnp.float32)


@op("precision", y_true=NUMERIC, y_pred=NUMERIC)
def precision(y_true: Any, y_pred: Any) -> jax.Array:
    """tp / (tp + fp) over the whole batch, entries compared to exactly 1 and 0 (0 if none).

    tfjs counts a prediction only where it *equals* 1 or 0: threshold probabilities first.

    >>> import tfjs_grad as tf
    >>> float(tf.metrics.precision([1, 0, 1, 1], [1, 1, 0, 1]))
    0.6666666865348816
    """
    tp = _count((y_true == 1) & (y_pred == 1))
    fp = _count((y_true == 0) & (y_pred == 1))
    denominator = tp + fp
    return jnp.where(denominator > 0, tp / jnp.where(denominator > 0, denominator, 1), 0.0)


@op("recall", y_true=NUMERIC, y_pred=NUMERIC)
def recall(y_true: Any, y_pred: Any) -> jax.Array:
    """tp / (tp + fn) over the whole batch, entries compared to exactly 1 and 0 (0 if none).

    >>> import tfjs_grad as tf
    >>> float(tf.metrics.recall([1, 0, 1, 1], [1, 1, 0, 1]))
    0.6666666865348816
    """
    tp = _count((y_true == 1) & (y_pred == 1))
    fn = _count((y_true == 1) & (y_pred == 0))
    denominator = tp + fn
    return jnp.where(denominator > 0, tp / jnp.where(denominator > 0, denominator, 1), 0.0)


@op("r2Score", y_true=NUMERIC, y_pred=NUMERIC)
def r2_score(y_true: Any, y_pred: Any) -> jax.Array:
    """The coefficient of determination over all entries: 1 - SS_res / SS_tot (a scalar).

    >>> import tfjs_grad as tf
    >>> float(tf.metrics.r2Score([1, 2, 3], [1, 2, 4]))
    0.5
    """
    residuals = jnp.sum(jnp.square(y_true - y_pred))
    total = jnp.sum(jnp.square(y_true - jnp.mean(y_true)))
    return 1 - residuals / total


# -- the per-sample losses (tfjs-layers losses.ts), also tf.metrics ------------------------
@op("meanSquaredError", y_true=NUMERIC, y_pred=NUMERIC)
def mean_squared_error(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean over the last axis of `(yPred - yTrue)**2`.

    >>> import tfjs_grad as tf
    >>> tf.metrics.meanSquaredError([[1, 2], [0, 0]], [[1, 4], [1, 1]]).tolist()
    [2.0, 1.0]
    """
    return jnp.mean(jnp.square(_float(y_pred - y_true)), axis=-1)


@op("meanAbsoluteError", y_true=NUMERIC, y_pred=NUMERIC)
def mean_absolute_error(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean over the last axis of `|yPred - yTrue|`.

    >>> import tfjs_grad as tf
    >>> tf.metrics.meanAbsoluteError([[1, 2], [0, 0]], [[1, 4], [1, -1]]).tolist()
    [1.0, 1.0]
    """
    return jnp.mean(jnp.abs(_float(y_pred - y_true)), axis=-1)


@op("meanAbsolutePercentageError", y_true=NUMERIC, y_pred=NUMERIC)
def mean_absolute_percentage_error(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: 100 × mean of `|(yTrue - yPred) / max(|yTrue|, 1e-7)|` over the last axis.

    >>> import tfjs_grad as tf
    >>> tf.metrics.MAPE([[2, 4]], [[1, 5]]).tolist()
    [37.5]
    """
    diff = _float(y_true - y_pred)
    clipped = jnp.clip(jnp.abs(_float(y_true)), EPSILON, _F32_MAX)
    return 100 * jnp.mean(jnp.abs(diff / clipped), axis=-1)


@op("meanSquaredLogarithmicError", y_true=NUMERIC, y_pred=NUMERIC)
def mean_squared_logarithmic_error(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean of `(log(1 + max(yPred, eps)) - log(1 + max(yTrue, eps)))**2`."""
    first = jnp.log(1 + jnp.clip(_float(y_pred), EPSILON, _F32_MAX))
    second = jnp.log(1 + jnp.clip(_float(y_true), EPSILON, _F32_MAX))
    return jnp.mean(jnp.square(first - second), axis=-1)


@op("squaredHinge", y_true=NUMERIC, y_pred=NUMERIC)
def squared_hinge(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean of `max(0, 1 - yTrue * yPred)**2`."""
    return jnp.mean(jnp.square(jnp.maximum(0.0, 1 - _float(y_true * y_pred))), axis=-1)


@op("hinge", y_true=NUMERIC, y_pred=NUMERIC)
def hinge(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean of `max(0, 1 - yTrue * yPred)`."""
    return jnp.mean(jnp.maximum(0.0, 1 - _float(y_true * y_pred)), axis=-1)


@op("categoricalHinge", y_true=NUMERIC, y_pred=NUMERIC)
def categorical_hinge(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: `max(0, 1 + max((1 - yTrue) * yPred) - sum(yTrue * yPred))`."""
    pos = jnp.sum(_float(y_true * y_pred), axis=-1)
    neg = jnp.max(_float((1 - y_true) * y_pred), axis=-1)
    return jnp.maximum(0.0, 1 + (neg - pos))


@op("logcosh", y_true=NUMERIC, y_pred=NUMERIC)
def logcosh(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean of `d + softplus(-2d) - log 2` with `d = yPred - yTrue`."""
    d = _float(y_pred - y_true)
    return jnp.mean(d + jax.nn.softplus(-2 * d) - math.log(2), axis=-1)


def _categorical_crossentropy(target: jax.Array, output: jax.Array) -> jax.Array:
    output = _float(output)
    output = output / jnp.sum(output, axis=-1, keepdims=True)
    output = jnp.clip(output, EPSILON, 1 - EPSILON)
    return -jnp.sum(target.astype(jnp.float32) * jnp.log(output), axis=-1)


@op("categoricalCrossentropy", y_true=NUMERIC, y_pred=NUMERIC)
def categorical_crossentropy(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: `-sum(yTrue * log(clip(p, 1e-7, 1 - 1e-7)))`, p = yPred renormalized.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.metrics.categoricalCrossentropy([[0, 1]], [[0.5, 0.5]]).tolist()]
    [0.6931]
    """
    return _categorical_crossentropy(y_true, y_pred)


@op("sparseCategoricalCrossentropy", y_true=NUMERIC, y_pred=NUMERIC)
def sparse_categorical_crossentropy(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: categorical cross-entropy against the one-hot of the class ids in `yTrue`.

    >>> import tfjs_grad as tf
    >>> from tfjs_grad.metrics import sparse_categorical_crossentropy as scce
    >>> [round(v, 4) for v in scce([[1]], [[0.2, 0.8]]).tolist()]
    [0.2231]
    """
    flat = jnp.floor(jnp.reshape(_float(y_true), (-1,))).astype(jnp.int32)
    output = jnp.clip(_float(y_pred), EPSILON, 1 - EPSILON)
    one_hot = jax.nn.one_hot(flat, output.shape[-1], dtype=jnp.int32).reshape(output.shape)
    return _categorical_crossentropy(one_hot, output)


@op("binaryCrossentropy", y_true=NUMERIC, y_pred=NUMERIC)
def binary_crossentropy(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean over the last axis of the logistic loss of `logit(clip(yPred))`.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.metrics.binaryCrossentropy([[1.0]], [[0.8]]).tolist()]
    [0.2231]
    """
    y = jnp.clip(_float(y_pred), EPSILON, 1 - EPSILON)
    logits = jnp.log(y / (1 - y))
    labels = _float(y_true)
    if labels.shape != logits.shape:
        raise ValueError(
            "logits and labels must have the same shape, but got shapes "
            f"{list(labels.shape)} and {list(logits.shape)}"
        )
    per = jax.nn.relu(logits) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))
    return jnp.mean(per, axis=-1)


@op("kullbackLeiblerDivergence", y_true=NUMERIC, y_pred=NUMERIC)
def kullback_leibler_divergence(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: `sum(yTrue * log(clip(yTrue) / clip(yPred)))`, clipped to [1e-7, 1]."""
    t, p = _float(y_true), _float(y_pred)
    return jnp.sum(t * jnp.log(jnp.clip(t, EPSILON, 1) / jnp.clip(p, EPSILON, 1)), axis=-1)


@op("poisson", y_true=NUMERIC, y_pred=NUMERIC)
def poisson(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: mean of `yPred - yTrue * log(yPred + 1e-7)`."""
    p = _float(y_pred)
    return jnp.mean(p - _float(y_true) * jnp.log(EPSILON + p), axis=-1)


def _l2_normalize(x: jax.Array) -> jax.Array:
    x = _float(x)
    square_sum = jnp.sum(jnp.square(x), axis=-1, keepdims=True)
    return x / jnp.sqrt(jnp.maximum(square_sum, EPSILON))


@op("cosineProximity", y_true=NUMERIC, y_pred=NUMERIC)
def cosine_proximity(y_true: Any, y_pred: Any) -> jax.Array:
    """Per sample: minus the cosine of the angle between `yTrue` and `yPred` (last axis).

    >>> import tfjs_grad as tf
    >>> tf.metrics.cosineProximity([[1, 0], [0, 2]], [[2, 0], [1, 0]]).tolist()
    [-1.0, -0.0]
    """
    return -jnp.sum(_l2_normalize(y_true) * _l2_normalize(y_pred), axis=-1)


# tfjs's names and aliases
binaryAccuracy = binary_accuracy
binaryCrossentropy = binary_crossentropy
categoricalAccuracy = categorical_accuracy
categoricalCrossentropy = categorical_crossentropy
cosineProximity = cosine_proximity
cosine = cosine_proximity
meanAbsoluteError = mean_absolute_error
meanAbsolutePercentageError = mean_absolute_percentage_error
meanSquaredError = mean_squared_error
r2Score = r2_score
sparseCategoricalAccuracy = sparse_categorical_accuracy
sparseCategoricalCrossentropy = sparse_categorical_crossentropy
MAE = mae = mean_absolute_error
MAPE = mape = mean_absolute_percentage_error
MSE = mse = mean_squared_error

Fn = Callable[[Any, Any], Tensor]

LOSSES: dict[str, Fn] = {
    "meanSquaredError": mean_squared_error,
    "meanAbsoluteError": mean_absolute_error,
    "meanAbsolutePercentageError": mean_absolute_percentage_error,
    "meanSquaredLogarithmicError": mean_squared_logarithmic_error,
    "squaredHinge": squared_hinge,
    "hinge": hinge,
    "categoricalHinge": categorical_hinge,
    "logcosh": logcosh,
    "categoricalCrossentropy": categorical_crossentropy,
    "sparseCategoricalCrossentropy": sparse_categorical_crossentropy,
    "binaryCrossentropy": binary_crossentropy,
    "kullbackLeiblerDivergence": kullback_leibler_divergence,
    "poisson": poisson,
    "cosineProximity": cosine_proximity,
}
"""`compile({loss: name})`'s names (tfjs-layers' `lossesMap`), per-sample functions."""

METRICS: dict[str, Fn] = {
    "binaryAccuracy": binary_accuracy,
    "categoricalAccuracy": categorical_accuracy,
    "precision": precision,
    "categoricalCrossentropy": categorical_crossentropy,
    "sparseCategoricalCrossentropy": sparse_categorical_crossentropy,
    "mse": mean_squared_error,
    "MSE": mean_squared_error,
    "mae": mean_absolute_error,
    "MAE": mean_absolute_error,
    "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error,
    "cosine": cosine_proximity,
}
"""`compile({metrics: [name]})`'s names besides 'accuracy'/'acc'/'crossentropy'/'ce'
(tfjs-layers' `metricsMap`)."""


def metric_name(fn: Any) -> str:
    """tfjs's `getLossOrMetricName`: a string as given, else the name it has in the maps."""
    if isinstance(fn, str):
        return fn
    for table in (LOSSES, METRICS):
        for key, value in table.items():
            if value is fn:
                return key
    return getattr(fn, "__name__", type(fn).__name__)


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
