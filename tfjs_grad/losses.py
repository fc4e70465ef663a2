"""Losses (`tf.losses`): tfjs 4.22's loss functions, their reductions and their quirks.

Each loss computes a per-element loss exactly as tfjs does (same formula, same op order, all
float32 for Python inputs) and hands it to :func:`compute_weighted_loss`. Positional order and
defaults are tfjs's. Every function is differentiable and works under ``jax.jit``; the only
Python-level branches are on static values (shapes, ``reduction``, ``label_smoothing``).
"""

from __future__ import annotations

import enum
from typing import Any, TypeAlias

import jax
import jax.numpy as jnp

from ._tensors import NUMERIC, inside, op
from ._tensors import js_shape as _js_shape

__all__ = [
    "Reduction",
    "absolute_difference",
    "compute_weighted_loss",
    "cosine_distance",
    "hinge_loss",
    "huber_loss",
    "log_loss",
    "mean_squared_error",
    "sigmoid_cross_entropy",
    "softmax_cross_entropy",
    "absoluteDifference",
    "computeWeightedLoss",
    "cosineDistance",
    "hingeLoss",
    "huberLoss",
    "logLoss",
    "meanSquaredError",
    "sigmoidCrossEntropy",
    "softmaxCrossEntropy",
]

TensorLike: TypeAlias = Any
"""A jax/numpy array, a Python scalar or nested list (float32), or a `Variable`."""


class Reduction(enum.IntEnum):
    """How a loss is reduced; tfjs's numeric enum (`tf.Reduction`)."""

    NONE = 0
    MEAN = 1
    SUM = 2
    SUM_BY_NONZERO_WEIGHTS = 3


def _as_float(labels: jax.Array, logits: jax.Array) -> tuple[jax.Array, jax.Array]:
    # tfjs casts both to float32; a custom_jvp needs float inputs to carry tangents.
    dtype = jnp.result_type(labels.dtype, logits.dtype, jnp.float32)
    return labels.astype(dtype), logits.astype(dtype)


def _check_shapes(fn_name: str, a: jax.Array, b: jax.Array) -> None:
    if a.shape != b.shape:
        a_shape, b_shape = _js_shape(a.shape), _js_shape(b.shape)
        raise ValueError(f"Error in {fn_name}:  Shapes {a_shape} and {b_shape} must match")


def _reduction(reduction: Any) -> Reduction:
    if not isinstance(reduction, bool):  # JS `true !== 1`
        try:
            return Reduction(reduction)
        except (ValueError, TypeError):
            pass
    raise ValueError(f"Unknown reduction: {reduction}")


@op("computeWeightedLoss", losses=NUMERIC, weights=NUMERIC)
def compute_weighted_loss(
    losses: TensorLike,
    weights: TensorLike | None = None,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Weights a per-element loss and reduces it, as every tfjs loss does.

    With weights: NONE gives ``losses * weights`` (broadcast); SUM its sum; MEAN
    ``sum(losses * weights) / sum(weights)``, divided again by ``losses.size / weights.size``
    when that is above 1 (so a scalar weight cancels out); SUM_BY_NONZERO_WEIGHTS divides the
    sum by the number of nonzero broadcast weights, which makes all-zero weights NaN (tfjs).

    Args:
      losses: per-element loss, any shape.
      weights: optional, must broadcast with ``losses``.
      reduction: a `Reduction` or its int value.

    Returns:
      The weighted loss: a scalar, or the broadcast shape for ``Reduction.NONE``.

    >>> from tfjs_grad import losses
    >>> losses.compute_weighted_loss([[1.0, 2.0], [3.0, 4.0]], [[1.0], [0.0]])
    Tensor(1.5, shape=(), dtype=float32)
    """
    w = weights
    if w is not None:
        try:
            jnp.broadcast_shapes(losses.shape, w.shape)
        except ValueError:
            raise ValueError(
                "Operands could not be broadcast together with shapes "
                f"{_js_shape(losses.shape)} and {_js_shape(w.shape)}."
            ) from None
    reduction = _reduction(reduction)
    weighted = losses if w is None else losses * w
    if reduction == Reduction.NONE:
        return weighted
    if reduction == Reduction.SUM:
        return jnp.sum(weighted)
    if w is None:  # MEAN and SUM_BY_NONZERO_WEIGHTS agree without weights
        return jnp.sum(weighted) / losses.size
    if reduction == Reduction.MEAN:
        result = jnp.sum(weighted) / jnp.sum(w)
        broadcast_factor = losses.size / w.size
        return result / broadcast_factor if broadcast_factor > 1 else result
    num_nonzero = jnp.sum(w * jnp.ones(losses.shape) != 0).astype(jnp.float32)
    return jnp.sum(weighted) / num_nonzero


@op("absoluteDifference", labels=NUMERIC, predictions=NUMERIC, weights=NUMERIC)
def absolute_difference(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Absolute difference ``|labels - predictions|``, weighted and reduced.

    Args:
      labels: ground truth, same shape as ``predictions``.
      predictions: predicted values.
      weights: optional, broadcast against the per-element loss.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.absolute_difference([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    Tensor(1., shape=(), dtype=float32)
    """
    _check_shapes("absoluteDifference", labels, predictions)
    return inside(compute_weighted_loss)(jnp.abs(labels - predictions), weights, reduction)


@op("meanSquaredError", labels=NUMERIC, predictions=NUMERIC, weights=NUMERIC)
def mean_squared_error(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Squared error ``(labels - predictions)**2``, weighted and reduced.

    Args:
      labels: ground truth, same shape as ``predictions``.
      predictions: predicted values.
      weights: optional, broadcast against the per-element loss.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.mean_squared_error([1.0, 2.0, 3.0], [2.0, 2.0, 5.0])
    Tensor(1.6666666, shape=(), dtype=float32)
    """
    _check_shapes("meanSquaredError", labels, predictions)
    return inside(compute_weighted_loss)(jnp.square(labels - predictions), weights, reduction)


@op("cosineDistance", labels=NUMERIC, predictions=NUMERIC, weights=NUMERIC)
def cosine_distance(
    labels: TensorLike,
    predictions: TensorLike,
    axis: int | None,
    weights: TensorLike | None = None,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Cosine distance ``1 - sum(labels * predictions, axis)`` of unit vectors.

    Like tfjs, the inputs are not normalised, and the reduced axis is kept (size 1).

    Args:
      labels: ground truth, same shape as ``predictions``.
      predictions: predicted values.
      axis: the axis to sum over; None sums over all axes.
      weights: optional, broadcast against the per-element loss (``axis`` kept as size 1).
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.cosine_distance([[1.0, 0.0], [0.0, 1.0]], [[0.5, 0.5], [0.5, 0.25]], 1,
    ...                        reduction=losses.Reduction.NONE)
    Tensor([[0.5 ],
            [0.75]], shape=(2, 1), dtype=float32)
    """
    _check_shapes("cosineDistance", labels, predictions)
    distance = 1 - jnp.sum(labels * predictions, axis=axis, keepdims=True)
    return inside(compute_weighted_loss)(distance, weights, reduction)


@op("hingeLoss", labels=NUMERIC, predictions=NUMERIC, weights=NUMERIC)
def hinge_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Hinge loss ``relu(1 - (2 * labels - 1) * predictions)`` for 0/1 labels.

    Labels are mapped to -1/+1 by ``2 * labels - 1``, so a -1 label becomes -3 (tfjs).

    Args:
      labels: 0/1 ground truth, same shape as ``predictions``.
      predictions: predicted scores.
      weights: optional, broadcast against the per-element loss.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.hinge_loss([1.0, 0.0, 1.0, 0.0], [0.3, 0.3, 2.0, -2.0])
    Tensor(0.5, shape=(), dtype=float32)
    """
    _check_shapes("hingeLoss", labels, predictions)
    signs = 2 * labels - 1
    return inside(compute_weighted_loss)(jax.nn.relu(1 - signs * predictions), weights, reduction)


@op("huberLoss", labels=NUMERIC, predictions=NUMERIC, weights=NUMERIC)
def huber_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    delta: float = 1.0,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Huber loss: quadratic up to ``delta``, linear beyond.

    With ``e = |predictions - labels|`` and ``q = min(e, delta)``:
    ``0.5 * q**2 + delta * (e - q)``.

    Args:
      labels: ground truth, same shape as ``predictions``.
      predictions: predicted values.
      weights: optional, broadcast against the per-element loss.
      delta: where the loss turns from quadratic to linear.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.huber_loss([0.0, 0.0, 0.0], [0.5, 1.0, 3.0], reduction=losses.Reduction.NONE)
    Tensor([0.125, 0.5  , 2.5  ], shape=(3,), dtype=float32)
    """
    _check_shapes("huberLoss", labels, predictions)
    error = jnp.abs(predictions - labels)
    quadratic = jnp.minimum(error, delta)
    linear = error - quadratic
    return inside(compute_weighted_loss)(
        0.5 * jnp.square(quadratic) + delta * linear, weights, reduction
    )


@op("logLoss", labels=NUMERIC, predictions=NUMERIC, weights=NUMERIC)
def log_loss(
    labels: TensorLike,
    predictions: TensorLike,
    weights: TensorLike | None = None,
    epsilon: float = 1e-7,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Log loss of probabilities: ``-y*log(p + eps) - (1 - y)*log(1 - p + eps)``.

    Args:
      labels: ground truth ``y``, same shape as ``predictions``.
      predictions: predicted probabilities ``p``.
      weights: optional, broadcast against the per-element loss.
      epsilon: added inside both logs.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.log_loss([1.0, 0.0], [0.5, 0.5])
    Tensor(0.69314694, shape=(), dtype=float32)
    """
    _check_shapes("logLoss", labels, predictions)
    l1 = -(labels * jnp.log(predictions + epsilon))
    l2 = (1 - labels) * jnp.log(1 - predictions + epsilon)
    return inside(compute_weighted_loss)(l1 - l2, weights, reduction)


@jax.custom_jvp
def _sigmoid_cross_entropy_with_logits(labels: jax.Array, logits: jax.Array) -> jax.Array:
    return jax.nn.relu(logits) - logits * labels + jnp.log1p(jnp.exp(-jnp.abs(logits)))


@_sigmoid_cross_entropy_with_logits.defjvp
def _sigmoid_cross_entropy_jvp(
    primals: tuple[jax.Array, jax.Array], tangents: tuple[jax.Array, jax.Array]
) -> tuple[jax.Array, jax.Array]:
    # The kinks of relu and abs at 0 cancel in the value, but JAX's conventions there
    # (relu' = 0, abs' = 1) would give -z instead of sigmoid(0) - z: state the derivative.
    labels, logits = primals
    labels_dot, logits_dot = tangents
    loss = _sigmoid_cross_entropy_with_logits(labels, logits)
    return loss, (jax.nn.sigmoid(logits) - labels) * logits_dot - logits * labels_dot


@op("sigmoidCrossEntropy", multi_class_labels=NUMERIC, logits=NUMERIC, weights=NUMERIC)
def sigmoid_cross_entropy(
    multi_class_labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike | None = None,
    label_smoothing: float = 0.0,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Sigmoid cross entropy of logits ``x`` and labels ``z``, stable for any ``x``.

    Computes ``max(x, 0) - x*z + log1p(exp(-|x|))``. When ``label_smoothing > 0`` the labels
    are first smoothed towards 1/2: ``z * (1 - label_smoothing) + 0.5 * label_smoothing``.

    Args:
      multi_class_labels: labels ``z`` in [0, 1], same shape as ``logits``.
      logits: unscaled log-odds ``x``.
      weights: optional, broadcast against the per-element loss.
      label_smoothing: a Python float; values <= 0 leave the labels alone.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.sigmoid_cross_entropy([1.0, 0.0, 1.0], [2.0, -1.0, -30.0],
    ...                              reduction=losses.Reduction.NONE)
    Tensor([ 0.126928 ,  0.3132617, 30.       ], shape=(3,), dtype=float32)
    """
    labels = multi_class_labels
    _check_shapes("sigmoidCrossEntropy", labels, logits)
    if label_smoothing > 0:
        labels = labels * (1 - label_smoothing) + 0.5 * label_smoothing
    per_element = _sigmoid_cross_entropy_with_logits(*_as_float(labels, logits))
    return inside(compute_weighted_loss)(per_element, weights, reduction)


@jax.custom_jvp
def _softmax_cross_entropy_with_logits(labels: jax.Array, logits: jax.Array) -> jax.Array:
    log_probs = logits - jax.nn.logsumexp(logits, axis=-1, keepdims=True)
    return -jnp.sum(labels * log_probs, axis=-1)


@_softmax_cross_entropy_with_logits.defjvp
def _softmax_cross_entropy_jvp(
    primals: tuple[jax.Array, jax.Array], tangents: tuple[jax.Array, jax.Array]
) -> tuple[jax.Array, jax.Array]:
    # tfjs's customGrad: d/dlogits = softmax(logits) - labels, even when the labels do not sum
    # to 1. d/dlabels is the true derivative -log_softmax(logits) (API.md, fidelity policy).
    labels, logits = primals
    labels_dot, logits_dot = tangents
    log_probs = logits - jax.nn.logsumexp(logits, axis=-1, keepdims=True)
    loss = -jnp.sum(labels * log_probs, axis=-1)
    loss_dot = jnp.sum((jnp.exp(log_probs) - labels) * logits_dot - log_probs * labels_dot, -1)
    return loss, loss_dot


@op("softmaxCrossEntropy", onehot_labels=NUMERIC, logits=NUMERIC, weights=NUMERIC)
def softmax_cross_entropy(
    onehot_labels: TensorLike,
    logits: TensorLike,
    weights: TensorLike | None = None,
    label_smoothing: float = 0.0,
    reduction: Reduction | int = Reduction.SUM_BY_NONZERO_WEIGHTS,
) -> jax.Array:
    """Softmax cross entropy over the last axis, ``-sum(y * log_softmax(x), -1)``.

    When ``label_smoothing > 0`` the labels become
    ``y * (1 - label_smoothing) + label_smoothing / shape[1]``: like tfjs, the divisor is
    dimension 1 even for rank-3 inputs, and rank-1 inputs cannot be smoothed. The gradient
    with respect to the logits is tfjs's ``softmax(x) - y``.

    Args:
      onehot_labels: one-hot (or probability) labels ``y``, same shape as ``logits``.
      logits: unscaled logits ``x``; classes along the last axis.
      weights: optional, broadcast against the loss of shape ``logits.shape[:-1]``.
      label_smoothing: a Python float; values <= 0 leave the labels alone.
      reduction: a `Reduction` or its int value.

    Returns:
      The loss (see :func:`compute_weighted_loss`).

    >>> from tfjs_grad import losses
    >>> losses.softmax_cross_entropy([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
    ...                              [[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])
    Tensor(3.210496, shape=(), dtype=float32)
    """
    labels = onehot_labels
    _check_shapes("softmaxCrossEntropy", labels, logits)
    if label_smoothing > 0:
        if labels.ndim < 2:
            raise ValueError(
                "values passed to tensor(values) must be a number/boolean/string or an array "
                "of numbers/booleans/strings, or a TypedArray"
            )
        labels = labels * (1 - label_smoothing) + label_smoothing / labels.shape[1]
    per_example = _softmax_cross_entropy_with_logits(*_as_float(labels, logits))
    return inside(compute_weighted_loss)(per_example, weights, reduction)


absoluteDifference = absolute_difference
computeWeightedLoss = compute_weighted_loss
cosineDistance = cosine_distance
hingeLoss = hinge_loss
huberLoss = huber_loss
logLoss = log_loss
meanSquaredError = mean_squared_error
sigmoidCrossEntropy = sigmoid_cross_entropy
softmaxCrossEntropy = softmax_cross_entropy


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
