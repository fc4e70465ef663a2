"""Pooling: maxPool, avgPool, their 3-D forms, maxPoolWithArgmax and pool, with tfjs's
padding rules (see `_geometry`).

Padding never takes part in a max, and an average counts only the cells inside the input
(so 'same' borders average fewer cells). `pool` with dilations follows tfjs's
space-to-batch construction, where 'same' padding is zeros that do take part.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from .._tensors import FLOAT, NUMERIC, ArrayLike, inside, op
from . import _geometry
from ._geometry import Pad
from ._results import ByKey, from_arrays

__all__ = [
    "MaxPoolWithArgmax",
    "avg_pool",
    "avg_pool3d",
    "avgPool",
    "avgPool3d",
    "max_pool",
    "max_pool3d",
    "max_pool_with_argmax",
    "maxPool",
    "maxPool3d",
    "maxPoolWithArgmax",
    "pool",
]


class MaxPoolWithArgmaxFields(NamedTuple):
    result: Tensor
    indexes: Tensor


class MaxPoolWithArgmax(ByKey, MaxPoolWithArgmaxFields):
    """`maxPoolWithArgmax`'s `{result, indexes}` (also by key)."""

    __slots__ = ()


def _lowest(dtype: Any) -> float | int | bool:
    # A Python scalar init value keeps this the differentiable reduce_window_max, even when
    # everything else is traced (inside tf.grad's f).
    if jnp.issubdtype(dtype, jnp.floating):
        return -math.inf
    if jnp.issubdtype(dtype, jnp.integer):
        return int(jnp.iinfo(dtype).min)
    return False


def _crop(x: jax.Array, pads: Any) -> tuple[jax.Array, list[tuple[int, int]]]:
    """x without the cells a negative high padding drops (JAX cannot differentiate a
    reduce_window with negative padding), and the padding left."""
    limits = [n + min(0, hi) for n, (_, hi) in zip(x.shape[1:-1], pads)]
    if all(limit == n for limit, n in zip(limits, x.shape[1:-1])):
        return x, list(pads)
    cropped = jax.lax.slice(x, (0,) * x.ndim, (x.shape[0], *limits, x.shape[-1]))
    return cropped, [(lo, max(0, hi)) for lo, hi in pads]


def _max_window(x: jax.Array, window: Sequence[int], stride: Sequence[int], pads: Any) -> jax.Array:
    x, pads = _crop(x, pads)
    full = [(0, 0), *pads, (0, 0)]
    return jax.lax.reduce_window(
        x, _lowest(x.dtype), jax.lax.max, (1, *window, 1), (1, *stride, 1), full
    )


def _taps(x: jax.Array, window: Sequence[int], dilation: Sequence[int]) -> jax.Array:
    """Every cell each stride-1 window of (already padded) 4-D x reads, stacked on a new
    first axis: [taps, batch, out_height, out_width, channels]."""
    out = [n - (k - 1) * d for n, k, d in zip(x.shape[1:3], window, dilation)]
    taps = []
    for i in range(window[0]):
        for j in range(window[1]):
            start = (0, i * dilation[0], j * dilation[1], 0)
            limit = (x.shape[0], start[1] + out[0], start[2] + out[1], x.shape[3])
            taps.append(jax.lax.slice(x, start, limit))
    return jnp.stack(taps)


def _avg_window(x: jax.Array, window: Sequence[int], stride: Sequence[int], pads: Any) -> jax.Array:
    x, pads = _crop(x, pads)
    full = [(0, 0), *pads, (0, 0)]
    total = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, *window, 1), (1, *stride, 1), full)
    counts = jnp.ones((1,) * len(window), jnp.float32)
    for i, axis in enumerate(range(1, x.ndim - 1)):
        along = _geometry.valid_counts(
            x.shape[axis], window[i], stride[i], pads[i][0], total.shape[axis]
        )
        # small host vectors, multiplied in the program: inside tf.jit no image-sized
        # constant is baked in
        vector = jnp.asarray(along, jnp.float32).reshape(
            [-1 if a == i else 1 for a in range(len(window))]
        )
        counts = counts * vector
    return (total / counts[None, ..., None]).astype(x.dtype)


def _geometry_of(
    x: jax.Array,
    rank: int,
    fn: str,
    message: str,
    filter_size: Any,
    strides: Any,
    pad: Pad,
    mode: Any,
) -> tuple[jax.Array, bool, tuple[int, ...], tuple[int, ...], list[tuple[int, int]]]:
    n = rank - 2
    xb, unbatched = _geometry.batched(x, rank, fn, message)
    _geometry.check_strides_or_dilations(fn, strides, 1, n)
    _geometry.check_rounding(fn, pad, mode)
    window, stride = _geometry.tuple_param(filter_size, n), _geometry.tuple_param(strides, n)
    pads = _geometry.padding(pad, xb.shape[1:-1], window, stride, mode)
    return xb, unbatched, window, stride, pads


def _unbatch(out: jax.Array, unbatched: bool) -> jax.Array:
    return out[0] if unbatched else out


@op("maxPool", x=NUMERIC)
def max_pool(
    x: ArrayLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """2-D max pooling over NHWC input, like `tf.maxPool`; padding never wins the max.

    >>> import tfjs_grad as tf
    >>> x = tf.reshape(tf.range(1, 10), [3, 3, 1])
    >>> tf.max_pool(x, 2, 2, "same")[..., 0]
    Tensor([[5., 6.],
            [8., 9.]], shape=(2, 2), dtype=float32)
    """
    message = "Error in {fn}: input must be rank 4 but got rank {rank}."
    xb, unbatched, window, stride, pads = _geometry_of(
        x, 4, "maxPool", message, filter_size, strides, pad, dim_rounding_mode
    )
    return _unbatch(_max_window(xb, window, stride, pads), unbatched)


@op("avgPool", x=FLOAT)
def avg_pool(
    x: ArrayLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """2-D average pooling over NHWC input, like `tf.avgPool`: padding is not counted.

    >>> import tfjs_grad as tf
    >>> x = tf.reshape(tf.range(1, 10), [3, 3, 1])
    >>> tf.avg_pool(x, 2, 2, "same")[..., 0]
    Tensor([[3. , 4.5],
            [7.5, 9. ]], shape=(2, 2), dtype=float32)
    """
    message = "Error in {fn}: x must be rank 4 but got rank {rank}."
    xb, unbatched, window, stride, pads = _geometry_of(
        x, 4, "avgPool", message, filter_size, strides, pad, dim_rounding_mode
    )
    return _unbatch(_avg_window(xb, window, stride, pads), unbatched)


def _check_ndhwc(fn: str, data_format: str) -> None:
    if data_format != "NDHWC":
        raise ValueError(
            f"Error in {fn}: Only NDHWC is currently supported, but got dataFormat of {data_format}"
        )


@op("maxPool3d", x=NUMERIC)
def max_pool3d(
    x: ArrayLike,
    filter_size: int | Sequence[int] = (1, 1, 1),
    strides: int | Sequence[int] = 1,
    pad: Pad = "valid",
    dim_rounding_mode: str | None = None,
    data_format: str = "NDHWC",
) -> jax.Array:
    """3-D max pooling over `[batch, depth, height, width, channels]` (or without the batch
    axis), like `tf.maxPool3d` (tfjs has no default strides or pad: 1 and 'valid' here).

    >>> import tfjs_grad as tf
    >>> tf.max_pool3d(tf.reshape(tf.range(0, 8), [2, 2, 2, 1]), 2, 2, "valid").reshape(-1)
    Tensor([7.], shape=(1,), dtype=float32)
    """
    message = "Error in {fn}: x must be rank 5 but got rank {rank}."
    if x.ndim not in (4, 5):
        raise ValueError(message.format(fn="maxPool3d", rank=x.ndim))
    _check_ndhwc("maxPool3d", data_format)
    xb, unbatched, window, stride, pads = _geometry_of(
        x, 5, "maxPool3d", message, filter_size, strides, pad, dim_rounding_mode
    )
    return _unbatch(_max_window(xb, window, stride, pads), unbatched)


@op("avgPool3d", x=FLOAT)
def avg_pool3d(
    x: ArrayLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    dim_rounding_mode: str | None = None,
    data_format: str = "NDHWC",
) -> jax.Array:
    """3-D average pooling, like `tf.avgPool3d`: padding is not counted, and the gradient is
    the true one at 'same' borders too (tfjs's divides by the full window there).

    >>> import tfjs_grad as tf
    >>> tf.avg_pool3d(tf.reshape(tf.range(0, 8), [2, 2, 2, 1]), 2, 2, "valid").reshape(-1)
    Tensor([3.5], shape=(1,), dtype=float32)
    """
    message = "Error in {fn}: x must be rank 5 but got rank {rank}."
    if x.ndim not in (4, 5):
        raise ValueError(message.format(fn="avgPool3d", rank=x.ndim))
    _check_ndhwc("avgPool3d", data_format)
    if min(_geometry.tuple_param(strides, 3)) <= 0:
        raise ValueError(
            f"Error in avgPool3d: Stride must be > 0, but got '{_geometry.js_param(strides)}'"
        )
    xb, unbatched, window, stride, pads = _geometry_of(
        x, 5, "avgPool3d", message, filter_size, strides, pad, dim_rounding_mode
    )
    return _unbatch(_avg_window(xb, window, stride, pads), unbatched)


@op("maxPoolWithArgmax", x=NUMERIC)
def max_pool_with_argmax(
    x: ArrayLike,
    filter_size: int | Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    include_batch_in_index: bool = False,
) -> MaxPoolWithArgmax:
    """2-D max pooling that also says where each max came from, like `tf.maxPoolWithArgmax`.

    Returns `{result, indexes}` (a NamedTuple): `indexes` is int32, the flat position
    `((b * height + y) * width + x) * channels + c` of the max in x (without the `b` term
    unless `include_batch_in_index`); the first of equal values wins.

    >>> import tfjs_grad as tf
    >>> r = tf.max_pool_with_argmax(tf.reshape(tf.tensor1d([1, 5, 2, 0]), [1, 2, 2, 1]), 2, 2,
    ...                             "valid")
    >>> r.result.reshape(-1), r["indexes"].reshape(-1)
    (Tensor([5.], shape=(1,), dtype=float32), Tensor([1], shape=(1,), dtype=int32))
    """
    message = "Error in {fn}: input must be rank 4 but got rank {rank}."
    if x.ndim != 4:
        raise ValueError(message.format(fn="maxPoolWithArgmax", rank=x.ndim))
    xb, _, window, stride, pads = _geometry_of(
        x, 4, "maxPoolWithArgmax", message, filter_size, strides, pad, None
    )
    batch, height, width, channels = xb.shape
    out = [
        (n + lo + hi - k) // s + 1
        for n, (lo, hi), k, s in zip((height, width), pads, window, stride)
    ]
    padded = jax.lax.pad(
        xb,
        jnp.asarray(_lowest(xb.dtype), xb.dtype),
        [(0, 0, 0), *((lo, hi, 0) for lo, hi in pads), (0, 0, 0)],
    )
    rows, cols = (np.arange(o) * s - lo for o, s, (lo, _) in zip(out, stride, pads))
    taps, places = [], []
    for i in range(window[0]):
        for j in range(window[1]):
            start = (0, i, j, 0)
            limit = (
                batch,
                i + (out[0] - 1) * stride[0] + 1,
                j + (out[1] - 1) * stride[1] + 1,
                channels,
            )
            taps.append(jax.lax.slice(padded, start, limit, (1, stride[0], stride[1], 1)))
            places.append((rows + i)[:, None] * width + (cols + j)[None, :])
    stacked = jnp.stack(taps)
    best = jnp.argmax(stacked, axis=0)
    result = jnp.max(stacked, axis=0)
    place = jnp.asarray(np.stack(places), jnp.int32)[:, None, :, :, None]
    flat = jnp.take_along_axis(place, best[None], axis=0)[0] * channels
    flat = flat + jnp.arange(channels, dtype=jnp.int32)
    if include_batch_in_index:
        flat = flat + (jnp.arange(batch, dtype=jnp.int32) * (height * width * channels)).reshape(
            -1, 1, 1, 1
        )
    return from_arrays(MaxPoolWithArgmax, result, flat.astype(jnp.int32))


@op("pool", input=NUMERIC)
def pool(
    input: ArrayLike,
    window_shape: int | Sequence[int],
    pooling_type: str,
    pad: Pad,
    dilations: int | Sequence[int] | None = None,
    strides: int | Sequence[int] | None = None,
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """'max' or 'avg' pooling with dilated windows, like `tf.pool` (dilations default 1,
    strides 1; strides and dilations cannot both exceed 1).

    With dilations > 1 it follows tfjs's space-to-batch construction: 'same' pads zeros,
    which take part in the max and the average.

    >>> import tfjs_grad as tf
    >>> x = tf.reshape(tf.range(0, 9), [3, 3, 1])
    >>> tf.pool(x, 2, "max", "valid", 2)[..., 0]
    Tensor([[8.]], shape=(1, 1), dtype=float32)
    """
    dilations = 1 if dilations is None else dilations
    strides = 1 if strides is None else strides
    if isinstance(pad, (int, float)) and not isinstance(pad, bool) and pad == 0:
        pad = "valid"
    x4, unbatched = (input[None], True) if input.ndim == 3 else (input, False)
    _geometry.check_strides_or_dilations("pool", strides, dilations)
    dilation = _geometry.tuple_param(dilations, 2)
    if dilation == (1, 1):
        pooled = max_pool if pooling_type != "avg" else avg_pool
        return _unbatch(
            inside(pooled)(x4, window_shape, strides, pad, dim_rounding_mode), unbatched
        )
    if pooling_type == "avg" and not jnp.issubdtype(x4.dtype, jnp.floating):
        x4 = x4.astype(jnp.float32)
    window = _geometry.tuple_param(window_shape, 2)
    if isinstance(pad, str) and pad == "same":
        extra = [(k - 1) * d for k, d in zip(window, dilation)]
        base = [(e // 2, e - e // 2) for e in extra]
    elif isinstance(pad, str) and pad == "valid":
        base = [(0, 0), (0, 0)]
    else:
        raise ValueError(f"Unknown padding parameter: {_geometry.js_param(pad)}")
    # a max over the taps: JAX has no derivative of a window-dilated reduce_window max
    taps = _taps(jnp.pad(x4, [(0, 0), *base, (0, 0)]), window, dilation)
    if pooling_type == "avg":
        out = (jnp.sum(taps, axis=0) / (window[0] * window[1])).astype(x4.dtype)
    else:
        out = jnp.max(taps, axis=0)
    return _unbatch(out, unbatched)


avgPool = avg_pool
avgPool3d = avg_pool3d
maxPool = max_pool
maxPool3d = max_pool3d
maxPoolWithArgmax = max_pool_with_argmax
