"""Reductions: sums, products, means, extremes and their indices, logSumExp, moments.

`axis=None` reduces every axis; an axis may be an int or a list, negative counting from the
end. `argMax`/`argMin` reduce **axis 0** by default, as tfjs's do.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import jax
import jax.numpy as jnp

from .._tensors import NUMERIC, ArrayLike, op
from . import _checks

__all__ = [
    "Moments",
    "arg_max",
    "arg_min",
    "argMax",
    "argMin",
    "log_sum_exp",
    "logSumExp",
    "max_",
    "mean",
    "min_",
    "moments",
    "prod",
    "sum_",
]

Axis = int | Sequence[int] | None


class Moments(NamedTuple):
    """What `moments` returns (tfjs: `{mean, variance}`)."""

    mean: jax.Array
    variance: jax.Array


def _float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


@op("sum", x=NUMERIC)
def sum_(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """The sum over axis, like `tf.sum`; keeps x's dtype, bool sums to int32.

    >>> import tfjs_grad as tf
    >>> tf.sum([[1, 2], [3, 4]], 1)
    Tensor([3., 7.], shape=(2,), dtype=float32)
    """
    dtype = jnp.int32 if x.dtype == jnp.bool_ else x.dtype
    return jnp.sum(x, axis=_checks.axes(axis, x.ndim), keepdims=keep_dims, dtype=dtype)


@op("prod", x=NUMERIC)
def prod(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """The product over axis, like `tf.prod`; keeps x's dtype, bool gives int32.

    >>> import tfjs_grad as tf
    >>> tf.prod([[1, 2], [3, 4]])
    Tensor(24., shape=(), dtype=float32)
    """
    dtype = jnp.int32 if x.dtype == jnp.bool_ else x.dtype
    return jnp.prod(x, axis=_checks.axes(axis, x.ndim), keepdims=keep_dims, dtype=dtype)


@op("mean", x=NUMERIC)
def mean(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """The mean over axis, like `tf.mean`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.mean(tf.tensor1d([1, 2], "int32"))
    Tensor(1.5, shape=(), dtype=float32)
    """
    return jnp.mean(_float(x), axis=_checks.axes(axis, x.ndim), keepdims=keep_dims)


@op("max", x=NUMERIC)
def max_(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """The maximum over axis, like `tf.max`.

    >>> import tfjs_grad as tf
    >>> tf.max([[1, 5], [3, 2]], 0)
    Tensor([3., 5.], shape=(2,), dtype=float32)
    """
    return jnp.max(x, axis=_checks.axes(axis, x.ndim), keepdims=keep_dims)


@op("min", x=NUMERIC)
def min_(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """The minimum over axis, like `tf.min`.

    >>> import tfjs_grad as tf
    >>> tf.min([[1, 5], [3, 2]], -1, True)
    Tensor([[1.],
            [2.]], shape=(2, 1), dtype=float32)
    """
    return jnp.min(x, axis=_checks.axes(axis, x.ndim), keepdims=keep_dims)


@op("argMax", x=NUMERIC)
def arg_max(x: ArrayLike, axis: int = 0) -> jax.Array:
    """int32 index of the largest value along axis (**0 by default**), like `tf.argMax`.

    Ties give the first index.

    >>> import tfjs_grad as tf
    >>> tf.arg_max([[1, 5], [3, 2]])
    Tensor([1, 0], shape=(2,), dtype=int32)
    """
    (axis,) = _checks.axes(axis, x.ndim)
    return jnp.argmax(x, axis=axis).astype(jnp.int32)


@op("argMin", x=NUMERIC)
def arg_min(x: ArrayLike, axis: int = 0) -> jax.Array:
    """int32 index of the smallest value along axis (**0 by default**), like `tf.argMin`.

    >>> import tfjs_grad as tf
    >>> tf.arg_min([[1, 5], [3, 2]], 1)
    Tensor([0, 1], shape=(2,), dtype=int32)
    """
    (axis,) = _checks.axes(axis, x.ndim)
    return jnp.argmin(x, axis=axis).astype(jnp.int32)


@op("logSumExp", x=NUMERIC)
def log_sum_exp(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """log(sum(exp(x))) over axis, computed stably, like `tf.logSumExp`.

    >>> import tfjs_grad as tf
    >>> tf.log_sum_exp([0, 0])
    Tensor(0.6931472, shape=(), dtype=float32)
    """
    return jax.nn.logsumexp(_float(x), axis=_checks.axes(axis, x.ndim), keepdims=keep_dims)


@op("moments", x=NUMERIC)
def moments(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> Moments:
    """Mean and population variance over axis, like `tf.moments`.

    >>> import tfjs_grad as tf
    >>> mean, variance = tf.moments([1, 2, 3, 4])
    >>> mean.arraySync(), variance.arraySync()
    (2.5, 1.25)
    """
    axes = _checks.axes(axis, x.ndim)
    x = _float(x)
    average = jnp.mean(x, axis=axes, keepdims=True)
    variance = jnp.mean(jnp.square(x - average), axis=axes, keepdims=keep_dims)
    return Moments(average if keep_dims else jnp.squeeze(average, axes), variance)


argMax = arg_max
argMin = arg_min
logSumExp = log_sum_exp
