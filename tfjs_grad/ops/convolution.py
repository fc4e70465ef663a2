"""Convolutions: conv1d, conv2d, conv3d, their transposes, depthwise, separable and
morphological (dilation2d), with tfjs's padding rules (see `_geometry`).

Each is one `lax.conv_general_dilated` (dilation2d: a max over the filter's taps); a
transpose is the derivative of the forward convolution with respect to its input, which is
what tfjs computes (`conv2DBackpropInput`), so JAX differentiates every one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from .._tensors import FLOAT, NUMERIC, ArrayLike, op, upcast
from . import _geometry
from ._geometry import Pad

__all__ = [
    "conv1d",
    "conv2d",
    "conv2d_transpose",
    "conv2dTranspose",
    "conv3d",
    "conv3d_transpose",
    "conv3dTranspose",
    "depthwise_conv2d",
    "depthwiseConv2d",
    "dilation2d",
    "separable_conv2d",
    "separableConv2d",
]

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


def _check_positive(fn: str, strides: Sequence[int], dilations: Sequence[int], word: str) -> None:
    if min(dilations) <= 0:
        raise ValueError(f"Error in {fn}: Dilated rates should be larger than 0.")
    if min(strides) <= 0:
        raise ValueError(f"Error in {fn}: {word} should be larger than 0.")


def _conv(
    x: jax.Array,
    filter: jax.Array,
    strides: Sequence[int],
    pad: Pad,
    dilations: Sequence[int],
    mode: str | None,
    channels_last: bool = True,
    groups: int = 1,
) -> jax.Array:
    """A batched N-d convolution (x: [batch, *spatial, channels] or channels first; filter:
    [*spatial, in / groups, out]) with tfjs's output size."""
    n = filter.ndim - 2
    spatial = _SPATIAL[n]
    size = x.shape[1:-1] if channels_last else x.shape[2:]
    window = [(k - 1) * d + 1 for k, d in zip(filter.shape[:n], dilations)]
    pads = _geometry.padding(pad, size, window, strides, mode, channels_last)
    layout = f"N{spatial}C" if channels_last else f"NC{spatial}"
    dtype = upcast([x, filter])
    return jax.lax.conv_general_dilated(
        x.astype(dtype),
        filter.astype(dtype),
        window_strides=tuple(strides),
        padding=pads,
        rhs_dilation=tuple(dilations),
        dimension_numbers=(layout, f"{spatial}IO", layout),
        feature_group_count=groups,
    )


def _unbatch(out: jax.Array, unbatched: bool) -> jax.Array:
    return out[0] if unbatched else out


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
    x4, unbatched = _geometry.batched(
        x, 4, "conv2d", "Error in {fn}: input must be rank 4, but got rank {rank}."
    )
    if filter.ndim != 4:
        raise ValueError(f"Error in conv2d: filter must be rank 4, but got rank {filter.ndim}.")
    _geometry.check_rounding("conv2d", pad, dim_rounding_mode)
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"Unknown dataFormat {data_format}")
    channels_last = data_format == "NHWC"
    depth = x4.shape[3] if channels_last else x4.shape[1]
    if depth != filter.shape[2]:
        raise ValueError(
            f"Error in conv2d: depth of input ({depth}) must match input depth for filter "
            f"{filter.shape[2]}."
        )
    _geometry.check_strides_or_dilations("conv2D", strides, dilations)
    stride, dilation = _geometry.tuple_param(strides, 2), _geometry.tuple_param(dilations, 2)
    _check_positive("conv2D", stride, dilation, "Strides")
    out = _conv(x4, filter, stride, pad, dilation, dim_rounding_mode, channels_last)
    return _unbatch(out, unbatched)


@op("conv1d", x=FLOAT, filter=FLOAT)
def conv1d(
    x: ArrayLike,
    filter: ArrayLike,
    stride: int,
    pad: Pad,
    data_format: str = "NWC",
    dilation: int = 1,
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """1-D convolution over `[batch, width, in_channels]` (or `[width, in_channels]`), like
    `tf.conv1d`; the filter is `[filter_width, in_channels, out_channels]`.

    >>> import tfjs_grad as tf
    >>> tf.conv1d(tf.ones([1, 4, 1]), tf.ones([2, 1, 1]), 1, "same")[0, :, 0]
    Tensor([2., 2., 2., 1.], shape=(4,), dtype=float32)
    """
    x3, unbatched = _geometry.batched(
        x, 3, "conv1d", "Error in {fn}: input must be rank 3, but got rank {rank}."
    )
    if filter.ndim != 3:
        raise ValueError(f"Error in conv1d: filter must be rank 3, but got rank {filter.ndim}.")
    _geometry.check_rounding("conv1d", pad, dim_rounding_mode)
    if x3.shape[2] != filter.shape[1]:
        raise ValueError(
            f"Error in conv1d: depth of input ({x3.shape[2]}) must match input depth for filter "
            f"{filter.shape[1]}."
        )
    if stride > 1 and dilation > 1:
        raise ValueError(
            "Error in conv1D: Either stride or dilation must be 1. Got stride "
            f"{_geometry.js_param(stride)} and dilation '{_geometry.js_param(dilation)}'"
        )
    _check_positive("conv1D", (stride,), (dilation,), "Stride")
    if data_format != "NWC":
        raise ValueError(
            f"Error in conv1d: got dataFormat of {data_format} but only NWC is currently supported."
        )
    out = _conv(x3, filter, (int(stride),), pad, (int(dilation),), dim_rounding_mode)
    return _unbatch(out, unbatched)


@op("conv3d", x=FLOAT, filter=FLOAT)
def conv3d(
    x: ArrayLike,
    filter: ArrayLike,
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str = "NDHWC",
    dilations: int | Sequence[int] = (1, 1, 1),
) -> jax.Array:
    """3-D convolution over `[batch, depth, height, width, in_channels]` (or without the
    batch axis), like `tf.conv3d`; the filter is `[d, h, w, in_channels, out_channels]`.

    >>> import tfjs_grad as tf
    >>> tf.conv3d(tf.ones([2, 2, 2, 1]), tf.ones([2, 2, 2, 1, 1]), 1, "valid").reshape(-1)
    Tensor([8.], shape=(1,), dtype=float32)
    """
    x5, unbatched = _geometry.batched(
        x, 5, "conv3d", "Error in {fn}: input must be rank 5, but got rank {rank}."
    )
    if filter.ndim != 5:
        raise ValueError(f"Error in conv3d: filter must be rank 5, but got rank {filter.ndim}.")
    if x5.shape[4] != filter.shape[3]:
        raise ValueError(
            f"Error in conv3d: depth of input ({x5.shape[4]}) must match input depth for filter "
            f"{filter.shape[3]}."
        )
    _geometry.check_strides_or_dilations("conv3D", strides, dilations, 3)
    if data_format != "NDHWC":
        raise ValueError(
            f"Error in conv3d: got dataFormat of {data_format} but only NDHWC is currently "
            "supported."
        )
    stride, dilation = _geometry.tuple_param(strides, 3), _geometry.tuple_param(dilations, 3)
    _check_positive("conv3D", stride, dilation, "Strides")
    return _unbatch(_conv(x5, filter, stride, pad, dilation, None), unbatched)


def _transpose(
    forward: Callable[[jax.Array], jax.Array], x: jax.Array, shape: Sequence[int]
) -> jax.Array:
    """The input-gradient of `forward` at cotangent x: what tfjs's conv*BackpropInput gives."""
    dtype = jnp.result_type(x.dtype, jnp.float32)
    _, pullback = jax.vjp(forward, jnp.zeros(tuple(shape), dtype))
    return pullback(x.astype(dtype))[0]


def _check_transpose(
    fn: str, x: jax.Array, filter: jax.Array, shape: Sequence[int], rank: int
) -> None:
    if len(shape) != x.ndim:
        raise ValueError(f"Length of inShape ({len(shape)}) and rank of dy ({x.ndim}) must match")
    if len(shape) != rank:
        raise ValueError(
            f"Error in {fn}: inShape must be length {rank}, but got length {len(shape)}."
        )
    if filter.ndim != rank:
        raise ValueError(f"Error in {fn}: filter must be rank {rank}, but got rank {filter.ndim}")
    if shape[-1] != filter.shape[-2]:
        raise ValueError(
            f"Error in {fn}: depth of input ({shape[-1]}) must match input depth for filter "
            f"{filter.shape[-2]}."
        )
    if x.shape[-1] != filter.shape[-1]:
        raise ValueError(
            f"Error in {fn}: depth of output ({x.shape[-1]}) must match output depth for filter "
            f"{filter.shape[-1]}."
        )


@op("conv2dTranspose", x=FLOAT, filter=FLOAT)
def conv2d_transpose(
    x: ArrayLike,
    filter: ArrayLike,
    output_shape: Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """The transpose of `conv2d` (the gradient of its input), like `tf.conv2dTranspose`.

    Args:
      x: `[batch, height, width, in_channels]` or rank 3.
      filter: `[filter_height, filter_width, out_channels, in_channels]`.
      output_shape: the result's shape, with or without the batch axis (as x).
      strides: as the forward `conv2d`'s (from `output_shape` to x).
      pad: as the forward `conv2d`'s.
      dim_rounding_mode: as the forward `conv2d`'s.

    >>> import tfjs_grad as tf
    >>> tf.conv2d_transpose(tf.ones([1, 1, 1]), tf.ones([2, 2, 1, 1]), [2, 2, 1], 1, "valid").shape
    (2, 2, 1)
    """
    shape = [int(d) for d in output_shape]
    if len(shape) != x.ndim:
        raise ValueError(f"Length of inShape ({len(shape)}) and rank of dy ({x.ndim}) must match")
    x4, unbatched = (x[None], True) if x.ndim == 3 else (x, False)
    shape4 = [1, *shape] if unbatched else shape
    _check_transpose("conv2dDerInput", x4, filter, shape4, 4)
    _geometry.check_rounding("conv2dDerInput", pad, dim_rounding_mode)
    stride = _geometry.tuple_param(strides, 2)

    def forward(z: jax.Array) -> jax.Array:
        return _conv(z, filter, stride, pad, (1, 1), dim_rounding_mode)

    return _unbatch(_transpose(forward, x4, shape4), unbatched)


@op("conv3dTranspose", x=FLOAT, filter=FLOAT)
def conv3d_transpose(
    x: ArrayLike,
    filter: ArrayLike,
    output_shape: Sequence[int],
    strides: int | Sequence[int],
    pad: Pad,
) -> jax.Array:
    """The transpose of `conv3d`, like `tf.conv3dTranspose` (filter `[d, h, w, out, in]`);
    differentiable (tfjs has no gradient for it).

    >>> import tfjs_grad as tf
    >>> tf.conv3d_transpose(tf.ones([1, 1, 1, 1]), tf.ones([2, 1, 1, 1, 1]), [2, 1, 1, 1], 1,
    ...                     "valid").reshape(-1)
    Tensor([1., 1.], shape=(2,), dtype=float32)
    """
    shape = [int(d) for d in output_shape]
    if len(shape) != x.ndim:
        raise ValueError(f"Length of inShape ({len(shape)}) and rank of dy ({x.ndim}) must match")
    x5, unbatched = (x[None], True) if x.ndim == 4 else (x, False)
    shape5 = [1, *shape] if unbatched else shape
    _check_transpose("conv3dDerInput", x5, filter, shape5, 5)
    stride = _geometry.tuple_param(strides, 3)

    def forward(z: jax.Array) -> jax.Array:
        return _conv(z, filter, stride, pad, (1, 1, 1), None)

    return _unbatch(_transpose(forward, x5, shape5), unbatched)


def _depthwise(
    fn: str,
    x: jax.Array,
    filter: jax.Array,
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str,
    dilations: int | Sequence[int],
    mode: str | None,
) -> jax.Array:
    x4, unbatched = _geometry.batched(
        x, 4, fn, "Error in {fn}: input must be rank 4, but got rank {rank}."
    )
    if filter.ndim != 4:
        raise ValueError(f"Error in {fn}: filter must be rank 4, but got rank {filter.ndim}.")
    channels_last = data_format == "NHWC"
    channels = x4.shape[3] if channels_last else x4.shape[1]
    if channels != filter.shape[2]:
        raise ValueError(
            f"Error in depthwiseConv2d: number of input channels ({channels}) must match the "
            f"inChannels dimension in filter {filter.shape[2]}."
        )
    _geometry.check_rounding("depthwiseConv2d", pad, mode)
    _geometry.check_strides_or_dilations("depthwiseConv2d", strides, dilations)
    stride, dilation = _geometry.tuple_param(strides, 2), _geometry.tuple_param(dilations, 2)
    h, w, c, m = filter.shape
    # channel k * multiplier + j of the result is input channel k convolved with filter[..., k, j]
    grouped = filter.reshape(h, w, 1, c * m)
    out = _conv(x4, grouped, stride, pad, dilation, mode, channels_last, groups=c)
    return _unbatch(out, unbatched)


@op("depthwiseConv2d", x=FLOAT, filter=FLOAT)
def depthwise_conv2d(
    x: ArrayLike,
    filter: ArrayLike,
    strides: int | Sequence[int],
    pad: Pad,
    data_format: str = "NHWC",
    dilations: int | Sequence[int] = (1, 1),
    dim_rounding_mode: str | None = None,
) -> jax.Array:
    """Depthwise 2-D convolution, like `tf.depthwiseConv2d`: each input channel convolved
    with its own `channel_multiplier` filters.

    The filter is `[filter_height, filter_width, in_channels, channel_multiplier]`; the
    result has `in_channels * channel_multiplier` channels (input channel k's come at
    `k * multiplier ...`). Differentiable with dilations too (tfjs's gradient is not).

    >>> import tfjs_grad as tf
    >>> tf.depthwise_conv2d(tf.ones([1, 2, 2, 2]), tf.ones([2, 2, 2, 1]), 1, "valid")
    Tensor([[[[4., 4.]]]], shape=(1, 1, 1, 2), dtype=float32)
    """
    return _depthwise(
        "depthwiseConv2d", x, filter, strides, pad, data_format, dilations, dim_rounding_mode
    )


@op("separableConv2d", x=FLOAT, depthwise_filter=FLOAT, pointwise_filter=FLOAT)
def separable_conv2d(
    x: ArrayLike,
    depthwise_filter: ArrayLike,
    pointwise_filter: ArrayLike,
    strides: int | Sequence[int],
    pad: Pad,
    dilation: int | Sequence[int] = (1, 1),
    data_format: str = "NHWC",
) -> jax.Array:
    """A depthwise convolution followed by a 1x1 (pointwise) one, like `tf.separableConv2d`.

    Args:
      x: `[batch, height, width, in_channels]` or rank 3.
      depthwise_filter: `[h, w, in_channels, channel_multiplier]`.
      pointwise_filter: `[1, 1, in_channels * channel_multiplier, out_channels]`.

    >>> import tfjs_grad as tf
    >>> tf.separable_conv2d(tf.ones([2, 2, 1]), tf.ones([2, 2, 1, 1]), tf.ones([1, 1, 1, 2]),
    ...                     1, "valid")
    Tensor([[[4., 4.]]], shape=(1, 1, 2), dtype=float32)
    """
    x4, unbatched = (x[None], True) if x.ndim == 3 else (x, False)
    if data_format == "NCHW":
        raise ValueError(
            "separableConv2d currently does not support dataFormat NCHW; only NHWC is supported"
        )
    fn = "separableConv2d"
    if x4.ndim != 4:
        raise ValueError(f"Error in {fn}: input must be rank 4, but got rank {x4.ndim}.")
    if depthwise_filter.ndim != 4:
        raise ValueError(
            f"Error in {fn}: depthwise filter must be rank 4, but got rank {depthwise_filter.ndim}."
        )
    if pointwise_filter.ndim != 4:
        raise ValueError(
            f"Error in {fn}: pointwise filter must be rank 4, but got rank {depthwise_filter.ndim}."
        )
    if pointwise_filter.shape[0] != 1:
        raise ValueError(
            f"Error in {fn}: the first dimension of pointwise filter  must be 1, but got "
            f"{pointwise_filter.shape[0]}."
        )
    if pointwise_filter.shape[1] != 1:
        raise ValueError(
            f"Error in {fn}: the second dimension of pointwise filter must be 1, but got "
            f"{pointwise_filter.shape[1]}."
        )
    depth = depthwise_filter.shape[2] * depthwise_filter.shape[3]
    if pointwise_filter.shape[2] != depth:
        raise ValueError(
            f"Error in {fn}: the third dimension of pointwise filter must be {depth}, but got "
            f"{pointwise_filter.shape[2]}."
        )
    deep = _depthwise(
        "depthwiseConv2d", x4, depthwise_filter, strides, pad, data_format, dilation, None
    )
    out = _conv(deep, pointwise_filter, (1, 1), "valid", (1, 1), None)
    return _unbatch(out, unbatched)


@op("dilation2d", x=NUMERIC, filter=NUMERIC)
def dilation2d(
    x: ArrayLike,
    filter: ArrayLike,
    strides: int | Sequence[int],
    pad: Pad,
    dilations: int | Sequence[int] = (1, 1),
    data_format: str = "NHWC",
) -> jax.Array:
    """Grayscale morphological dilation, like `tf.dilation2d`: the max over each window of
    `x + filter` (filter `[h, w, channels]`); padding never wins the max.

    >>> import tfjs_grad as tf
    >>> x = tf.reshape(tf.tensor1d([1, 5, 2, 0]), [1, 2, 2, 1])
    >>> tf.dilation2d(x, tf.zeros([2, 2, 1]), 1, "valid").reshape(-1)
    Tensor([5.], shape=(1,), dtype=float32)
    """
    fn = "dilation2d"
    if x.ndim not in (3, 4):
        raise ValueError(f"Error in {fn}: input must be rank 3 or 4, but got rank {x.ndim}.")
    if filter.ndim != 3:
        raise ValueError(f"Error in {fn}: filter must be rank 3, but got rank {filter.ndim}.")
    if data_format != "NHWC":
        raise ValueError(
            f"Error in {fn}: Only NHWC is currently supported, but got dataFormat of {data_format}"
        )
    x4, unbatched = (x[None], True) if x.ndim == 3 else (x, False)
    if x4.shape[3] != filter.shape[2]:
        raise ValueError(
            f"Error in {fn}:  input and filter must have the same depth: {x4.shape[3]} vs "
            f"{filter.shape[2]}"
        )
    stride, dilation = _geometry.tuple_param(strides, 2), _geometry.tuple_param(dilations, 2)
    dtype = upcast([x4, filter])
    x4, filter = x4.astype(dtype), filter.astype(dtype)
    (h, w), size = filter.shape[:2], x4.shape[1:3]
    window = [(k - 1) * d + 1 for k, d in zip((h, w), dilation)]
    pads = _geometry.padding(pad, size, window, stride, None)
    out = [(n + lo + hi - k) // s + 1 for n, (lo, hi), k, s in zip(size, pads, window, stride)]
    low = jnp.finfo(dtype).min if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min
    config = [(0, 0, 0), *((lo, hi, 0) for lo, hi in pads), (0, 0, 0)]
    padded = jax.lax.pad(x4, jnp.asarray(low, dtype), config)
    taps = []
    for i in range(h):
        for j in range(w):
            start = (0, i * dilation[0], j * dilation[1], 0)
            limit = (
                x4.shape[0],
                start[1] + (out[0] - 1) * stride[0] + 1,
                start[2] + (out[1] - 1) * stride[1] + 1,
                x4.shape[3],
            )
            window_values = jax.lax.slice(padded, start, limit, (1, stride[0], stride[1], 1))
            taps.append(window_values + filter[i, j])
    return _unbatch(jnp.max(jnp.stack(taps), axis=0), unbatched)


conv2dTranspose = conv2d_transpose
conv3dTranspose = conv3d_transpose
depthwiseConv2d = depthwise_conv2d
separableConv2d = separable_conv2d
