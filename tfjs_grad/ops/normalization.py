"""Normalization: batchNorm (and its rank-checked 2d/3d/4d forms), localResponseNormalization
and movingAverage.

`batchNorm` is `(x - mean) / sqrt(variance + varianceEpsilon) * scale + offset`, broadcast
as tfjs does, with `varianceEpsilon` 0.001 by default; it is differentiable with or without
offset and scale (tfjs's gradient crashes without them).
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from .._tensors import NUMERIC, ArrayLike, convert, op
from . import _checks

__all__ = [
    "batch_norm",
    "batch_norm2d",
    "batch_norm3d",
    "batch_norm4d",
    "batchNorm",
    "batchNorm2d",
    "batchNorm3d",
    "batchNorm4d",
    "local_response_normalization",
    "localResponseNormalization",
    "moving_average",
    "movingAverage",
]


def _float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


def _normalize(
    x: jax.Array,
    mean: jax.Array,
    variance: jax.Array,
    offset: jax.Array | None,
    scale: jax.Array | None,
    epsilon: float,
) -> jax.Array:
    for name, t in (("variance", variance), ("offset", offset), ("scale", scale)):
        if t is not None and t.ndim != mean.ndim:
            raise ValueError(
                f"Batch normalization gradient requires mean and {name} to have equal ranks."
            )
    parts = [t for t in (x, mean, variance, offset, scale) if t is not None]
    _checks.broadcast(*(t.shape for t in parts))
    out = (_float(x) - mean) * jax.lax.rsqrt(_float(variance) + epsilon)
    if scale is not None:
        out = out * scale
    if offset is not None:
        out = out + offset
    return out.astype(jnp.result_type(out.dtype, jnp.float32))


@op("batchNorm", x=NUMERIC, mean=NUMERIC, variance=NUMERIC, offset=NUMERIC, scale=NUMERIC)
def batch_norm(
    x: ArrayLike,
    mean: ArrayLike,
    variance: ArrayLike,
    offset: ArrayLike | None = None,
    scale: ArrayLike | None = None,
    variance_epsilon: float = 0.001,
) -> jax.Array:
    """Batch normalization with given statistics, like `tf.batchNorm`.

    >>> import tfjs_grad as tf
    >>> tf.batch_norm([[1.0, 3.0]], [1.0, 1.0], [4.0, 1.0], None, None, 0.0)
    Array([[0., 2.]], dtype=float32)
    """
    return _normalize(x, mean, variance, offset, scale, variance_epsilon)


def _ranked(rank: int, allowed: tuple[int, ...]) -> Any:
    label = f"batchNorm{rank}D"
    allowed_text = " or ".join(f"rank {r}" for r in allowed)

    def check(x: jax.Array, **stats: jax.Array | None) -> None:
        if x.ndim != rank:
            raise ValueError(f"Error in {label}: x must be rank {rank} but got rank {x.ndim}.")
        for name, t in stats.items():
            if t is not None and t.ndim not in allowed:
                raise ValueError(
                    f"Error in {label}: {name} must be {allowed_text} but got rank {t.ndim}."
                )

    return check


_CHECK_2D = _ranked(2, (2, 1))
_CHECK_3D = _ranked(3, (3, 1))
_CHECK_4D = _ranked(4, (4, 1))


@op("batchNorm", x=NUMERIC, mean=NUMERIC, variance=NUMERIC, offset=NUMERIC, scale=NUMERIC)
def batch_norm2d(
    x: ArrayLike,
    mean: ArrayLike,
    variance: ArrayLike,
    offset: ArrayLike | None = None,
    scale: ArrayLike | None = None,
    variance_epsilon: float = 0.001,
) -> jax.Array:
    """`batchNorm` of a rank-2 x (statistics of rank 1 or 2), like `tf.batchNorm2d`.

    >>> import tfjs_grad as tf
    >>> tf.batch_norm2d([[2.0]], [1.0], [1.0], None, None, 0.0)
    Array([[1.]], dtype=float32)
    """
    _CHECK_2D(x, mean=mean, variance=variance, scale=scale, offset=offset)
    return _normalize(x, mean, variance, offset, scale, variance_epsilon)


@op("batchNorm", x=NUMERIC, mean=NUMERIC, variance=NUMERIC, offset=NUMERIC, scale=NUMERIC)
def batch_norm3d(
    x: ArrayLike,
    mean: ArrayLike,
    variance: ArrayLike,
    offset: ArrayLike | None = None,
    scale: ArrayLike | None = None,
    variance_epsilon: float = 0.001,
) -> jax.Array:
    """`batchNorm` of a rank-3 x (statistics of rank 1 or 3), like `tf.batchNorm3d`.

    >>> import tfjs_grad as tf
    >>> tf.batch_norm3d([[[2.0]]], [1.0], [1.0], None, None, 0.0).shape
    (1, 1, 1)
    """
    _CHECK_3D(x, mean=mean, variance=variance, scale=scale, offset=offset)
    return _normalize(x, mean, variance, offset, scale, variance_epsilon)


@op("batchNorm", x=NUMERIC, mean=NUMERIC, variance=NUMERIC, offset=NUMERIC, scale=NUMERIC)
def batch_norm4d(
    x: ArrayLike,
    mean: ArrayLike,
    variance: ArrayLike,
    offset: ArrayLike | None = None,
    scale: ArrayLike | None = None,
    variance_epsilon: float = 0.001,
) -> jax.Array:
    """`batchNorm` of a rank-4 x (statistics of rank 1 or 4), like `tf.batchNorm4d`.

    >>> import tfjs_grad as tf
    >>> tf.batch_norm4d(tf.ones([1, 1, 1, 2]), [1.0, 0.0], [1.0, 1.0], None, None, 0.0)
    Array([[[[0., 1.]]]], dtype=float32)
    """
    _CHECK_4D(x, mean=mean, variance=variance, scale=scale, offset=offset)
    return _normalize(x, mean, variance, offset, scale, variance_epsilon)


@op("localResponseNormalization", x=NUMERIC)
def local_response_normalization(
    x: ArrayLike,
    depth_radius: int = 5,
    bias: float = 1,
    alpha: float = 1,
    beta: float = 0.5,
) -> jax.Array:
    """x / (bias + alpha * sum of x^2 over the channels within depth_radius) ^ beta, over
    the last axis of a rank 3 or 4 x, like `tf.localResponseNormalization`.

    >>> import tfjs_grad as tf
    >>> tf.local_response_normalization(tf.ones([1, 1, 1, 2]), 1, 1, 1, 1)
    Array([[[[0.33333334, 0.33333334]]]], dtype=float32)
    """
    if x.ndim not in (3, 4):
        raise ValueError(
            "Error in localResponseNormalization: x must be rank 3 or 4 but got\n"
            f"               rank {x.ndim}."
        )
    if not float(depth_radius).is_integer():
        raise ValueError(
            "Error in localResponseNormalization: depthRadius must be an integer but got "
            f"depthRadius {depth_radius}."
        )
    radius = int(depth_radius)
    xf = _float(x)
    squares = jax.lax.reduce_window(
        xf * xf,
        0.0,
        jax.lax.add,
        (1,) * (x.ndim - 1) + (2 * radius + 1,),
        (1,) * x.ndim,
        [(0, 0)] * (x.ndim - 1) + [(radius, radius)],
    )
    return xf * jnp.power(bias + alpha * squares, -beta)


@op("movingAverage", v=NUMERIC, x=NUMERIC)
def moving_average(
    v: ArrayLike,
    x: ArrayLike,
    decay: ArrayLike,
    step: ArrayLike | None = None,
    zero_debias: bool = True,
) -> jax.Array:
    """`v + (x - v) * (1 - decay)`, divided by `1 - decay ^ step` when `zero_debias`, like
    `tf.movingAverage`.

    >>> import tfjs_grad as tf
    >>> tf.moving_average([0.0], [1.0], 0.5, 1)
    Array([1.], dtype=float32)
    """
    if v.dtype != x.dtype:
        raise ValueError(
            f"The dtypes of the first({v.dtype}) and second({x.dtype}) input must match"
        )
    if tuple(v.shape) != tuple(x.shape):
        raise ValueError("Shape mismatch in v and x")
    rate = convert(decay, argument="decay", fn="movingAverage")
    update = (x - v) * (1 - rate)
    if zero_debias:
        if step is None:
            raise ValueError("When using zeroDebias: true, step is required.")
        steps = convert(step, argument="step", fn="movingAverage")
        update = update / (1 - jnp.power(rate, steps))
    return (v + update).astype(jnp.result_type(v.dtype, rate.dtype))


batchNorm = batch_norm
batchNorm2d = batch_norm2d
batchNorm3d = batch_norm3d
batchNorm4d = batch_norm4d
localResponseNormalization = local_response_normalization
movingAverage = moving_average
