"""Convolution and pooling: conv2d, maxPool, avgPool, with tfjs's padding rules.

`pad` is 'valid', 'same' (TensorFlow's: output ceil(in / stride), the extra padding after),
a number (zero padding on every side, the output size rounded by `dim_rounding_mode`, by
default truncated), or explicit `[[0, 0], [top, bottom], [left, right], [0, 0]]`. Padding
never takes part in a max, and an average counts only the cells inside the input.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._tensors import FLOAT, NUMERIC, ArrayLike, op, upcast
from . import _checks, _js

__all__ = ["avg_pool", "avgPool", "conv2d", "max_pool", "maxPool"]

Pad = str | int | Sequence[Sequence[int]]
_ROUNDING = {"floor": math.floor, "round": None, "ceil": math.ceil}


def _round(value: float, mode: str | None) -> int:
    if mode is None:
        return math.trunc(value)
    if mode not in _ROUNDING:
        raise ValueError(f"Unknown roundingMode {mode}")
    if mode == "round":
        return math.floor(value + 0.5)  # JS Math.round
    return _ROUNDING[mode](value)


def _check_rounding(fn: str, pad: Any, mode: str | None) -> None:
    """tfjs's `checkPadOnDimRoundingMode`: a rounding mode needs integer padding."""
    if mode is None:
        return
    if isinstance(pad, str):
        bad = [pad]
    elif isinstance(pad, (int, float)):
        bad = [] if float(pad).is_integer() else [pad]
    else:
        bad = [v for row in pad for v in row if not float(v).is_integer()]
    if bad:
        shown = bad[0] if isinstance(bad[0], str) else _js.number(bad[0])
        raise ValueError(
            f"Error in {fn}: pad must be an integer when using dimRoundingMode {mode} but got "
            f"pad {shown}."
        )


def _padding(
    pad: Pad,
    size: tuple[int, int],
    window: tuple[int, int],
    strides: tuple[int, int],
    mode: str | None,
    channels_last: bool,
) -> list[tuple[int, int]]:
    """(low, high) padding of the two spatial axes so that XLA's window output has tfjs's size.

    `window` is the effective (dilated) filter size.
    """
    if isinstance(pad, str) and pad == "same":
        out = [math.ceil(n / s) for n, s in zip(size, strides)]
        total = [max(0, (o - 1) * s + w - n) for o, s, w, n in zip(out, strides, window, size)]
        return [(t // 2, t - t // 2) for t in total]
    if isinstance(pad, str) and pad == "valid":
        return [(0, 0), (0, 0)]
    if isinstance(pad, (int, float)) and not isinstance(pad, bool):
        before = [int(pad), int(pad)]
        out = [_round((n - w + 2 * pad) / s + 1, mode) for n, w, s in zip(size, window, strides)]
    elif isinstance(pad, (list, tuple)) and len(pad) == 4:
        rows, cols = (pad[1], pad[2]) if channels_last else (pad[2], pad[3])
        before = [int(rows[0]), int(cols[0])]
        out = [
            _round((n - w + lo + hi) / s + 1, mode)
            for n, w, s, (lo, hi) in zip(size, window, strides, (rows, cols))
        ]
    else:
        shown = _js.array(pad) if isinstance(pad, (list, tuple)) else pad
        raise ValueError(f"Unknown padding parameter: {shown}")
    # tfjs clips windows to the input, so whatever the output size needs is padding.
    return [
        (lo, (o - 1) * s + w - n - lo) for lo, o, s, w, n in zip(before, out, strides, window, size)
    ]


def _batched(x: jax.Array, fn: str, message: str) -> tuple[jax.Array, bool]:
    if x.ndim == 3:
        return x[None], True
    if x.ndim != 4:
        raise ValueError(message.format(fn=fn, rank=x.ndim))
    return x, False


def _check_strides_or_dilations(fn: str, strides: Any, dilations: Any) -> None:
    if min(_checks.pair(strides)) > 1 and min(_checks.pair(dilations)) > 1:
        raise ValueError(
            f"Error in {fn}: Either strides or dilations must be 1. Got strides "
            f"{_js.array(np.atleast_1d(strides))} and dilations "
            f"'{_js.array(np.atleast_1d(dilations))}'"
        )


@op("conv2d", x=FLOAT, filter=FLOAT)
def conv2d(
    x: ArrayLike,
    filter: ArrayLike,
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str = "NHWC",
    dilations: int | Sequence[int] = 1,
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """2-D convolution, like `tf.conv2d`.

    Args:
      x: `[batch, height, width, in_channels]` (`'NCHW'`: channels first), or rank 3 without
        the batch axis.
      filter: `[filter_height, filter_width, in_channels, out_channels]`.
      strides: an int or `[stride_height, stride_width]`.
      pad: 'valid', 'same', a number, or explicit `[[0, 0], [top, bottom], [left, right],
        [0, 0]]`.
      data_format: 'NHWC' or 'NCHW'.
      dilations: an int or a pair; strides and dilations cannot both exceed 1.
      dim_rounding_mode: 'floor', 'round' or 'ceil' for a numeric pad.

    >>> import tfjs_grad as tf
    >>> tf.conv2d(tf.ones([1, 3, 3, 1]), tf.ones([2, 2, 1, 1]), 1, "valid")[..., 0]
    Tensor([[[4., 4.],
             [4., 4.]]], shape=(1, 2, 2), dtype=float32)
    """
    x4, unbatched = _batched(
        x, "conv2d", "Error in {fn}: input must be rank 4, but got rank {rank}."
    )
    if filter.ndim != 4:
        raise ValueError(f"Error in conv2d: filter must be rank 4, but got rank {filter.ndim}.")
    _check_rounding("conv2d", pad, dim_rounding_mode)
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"Unknown dataFormat {data_format}")
    channels_last = data_format == "NHWC"
    depth = x4.shape[3] if channels_last else x4.shape[1]
    if depth != filter.shape[2]:
        raise ValueError(
            f"Error in conv2d: depth of input ({depth}) must match input depth for filter "
            f"{filter.shape[2]}."
        )
    _check_strides_or_dilations("conv2D", strides, dilations)
    if min(_checks.pair(dilations)) <= 0:
        raise ValueError("Error in conv2D: Dilated rates should be larger than 0.")
    if min(_checks.pair(strides)) <= 0:
        raise ValueError("Error in conv2D: Strides should be larger than 0.")
    stride, dilation = _checks.pair(strides), _checks.pair(dilations)
    size = (x4.shape[1], x4.shape[2]) if channels_last else (x4.shape[2], x4.shape[3])
    window = tuple((k - 1) * d + 1 for k, d in zip(filter.shape[:2], dilation))
    padding = _padding(pad, size, window, stride, dim_rounding_mode, channels_last)
    dtype = upcast([x4, filter])
    out = jax.lax.conv_general_dilated(
        x4.astype(dtype),
        filter.astype(dtype),
        window_strides=stride,
        padding=padding,
        rhs_dilation=dilation,
        dimension_numbers=(data_format, "HWIO", data_format),
    )
    return out[0] if unbatched else out


def _pool_geometry(
    x: jax.Array, fn: str, message: str, filter_size: Any, strides: Any, pad: Pad, mode: Any
) -> tuple[jax.Array, bool, tuple[int, int], tuple[int, int], list[tuple[int, int]]]:
    x4, unbatched = _batched(x, fn, message)
    _check_strides_or_dilations(fn, strides, 1)
    _check_rounding(fn, pad, mode)
    window, stride = _checks.pair(filter_size), _checks.pair(strides)
    padding = _padding(pad, (x4.shape[1], x4.shape[2]), window, stride, mode, True)
    return x4, unbatched, window, stride, padding


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
    x4, unbatched, window, stride, padding = _pool_geometry(
        x,
        "maxPool",
        "Error in {fn}: input must be rank 4 but got rank {rank}.",
        filter_size,
        strides,
        pad,
        dim_rounding_mode,
    )
    # A Python scalar init value keeps this the differentiable reduce_window_max, even when
    # everything else is traced (inside tf.grad's f).
    if jnp.issubdtype(x4.dtype, jnp.floating):
        init: float | int | bool = -math.inf
    elif jnp.issubdtype(x4.dtype, jnp.integer):
        init = int(jnp.iinfo(x4.dtype).min)
    else:
        init = False
    out = jax.lax.reduce_window(
        x4, init, jax.lax.max, (1, *window, 1), (1, *stride, 1), [(0, 0), *padding, (0, 0)]
    )
    return out[0] if unbatched else out


def _valid_counts(size: int, window: int, stride: int, low: int, out: int) -> np.ndarray:
    """How many cells of each output window along one axis lie inside the input."""
    starts = np.arange(out) * stride - low
    return np.clip(starts + window, 0, size) - np.clip(starts, 0, size)


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
    x4, unbatched, window, stride, padding = _pool_geometry(
        x,
        "avgPool",
        "Error in {fn}: x must be rank 4 but got rank {rank}.",
        filter_size,
        strides,
        pad,
        dim_rounding_mode,
    )
    total = jax.lax.reduce_window(
        x4, 0.0, jax.lax.add, (1, *window, 1), (1, *stride, 1), [(0, 0), *padding, (0, 0)]
    )
    rows, cols = (
        _valid_counts(x4.shape[axis], window[i], stride[i], padding[i][0], total.shape[axis])
        for i, axis in enumerate((1, 2))
    )
    # Two small host vectors, multiplied in the program: inside tf.jit no image-sized
    # constant is baked in.
    counts = jnp.asarray(rows, jnp.float32)[:, None] * jnp.asarray(cols, jnp.float32)[None, :]
    out = (total / counts[None, :, :, None]).astype(x4.dtype)
    return out[0] if unbatched else out


avgPool = avg_pool
maxPool = max_pool
