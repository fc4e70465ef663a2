"""`tf.image`: flips, color conversions, resizing, rotation, crops, projective transforms,
thresholds and non-max suppression, as tfjs 4.22's CPU backend computes them.

Sampling positions that depend only on shapes and Python numbers (resize, rotate) are
computed on the host in float64, as JS does, so nearest-pixel choices match tfjs; where
they depend on a tensor (`cropAndResize`'s boxes, `transform`'s matrices) they are traced,
so those ops are differentiable in their coordinates too. The non-max suppressions and
`threshold` are eager only (their results' shapes or values come from host-side logic).
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from .._tensors import FLOAT, INT, NUMERIC, ArrayLike, dtype_name, op
from ._results import ByKey, from_arrays
from .asynchronous import resolved

__all__ = [
    "NonMaxSuppressionPadded",
    "NonMaxSuppressionWithScore",
    "crop_and_resize",
    "cropAndResize",
    "flip_left_right",
    "flipLeftRight",
    "grayscale_to_rgb",
    "grayscaleToRGB",
    "non_max_suppression",
    "non_max_suppression_async",
    "non_max_suppression_padded",
    "non_max_suppression_padded_async",
    "non_max_suppression_with_score",
    "non_max_suppression_with_score_async",
    "nonMaxSuppression",
    "nonMaxSuppressionAsync",
    "nonMaxSuppressionPadded",
    "nonMaxSuppressionPaddedAsync",
    "nonMaxSuppressionWithScore",
    "nonMaxSuppressionWithScoreAsync",
    "resize_bilinear",
    "resize_nearest_neighbor",
    "resizeBilinear",
    "resizeNearestNeighbor",
    "rgb_to_grayscale",
    "rgbToGrayscale",
    "rotate_with_offset",
    "rotateWithOffset",
    "threshold",
    "transform",
]


class NonMaxSuppressionWithScoreFields(NamedTuple):
    selectedIndices: Tensor
    selectedScores: Tensor


class NonMaxSuppressionWithScore(ByKey, NonMaxSuppressionWithScoreFields):
    """`nonMaxSuppressionWithScore`'s `{selectedIndices, selectedScores}` (also by key)."""

    __slots__ = ()


class NonMaxSuppressionPaddedFields(NamedTuple):
    selectedIndices: Tensor
    validOutputs: Tensor


class NonMaxSuppressionPadded(ByKey, NonMaxSuppressionPaddedFields):
    """`nonMaxSuppressionPadded`'s `{selectedIndices, validOutputs}` (also by key)."""

    __slots__ = ()


_LUMA = (0.2989, 0.5870, 0.1140)


def _float(x: jax.Array) -> jax.Array:
    """x as a float array (int32 -> float32; float64 stays, for float64 derivatives)."""
    return x if jnp.issubdtype(x.dtype, jnp.floating) else x.astype(jnp.float32)


def _js_round(values: np.ndarray) -> np.ndarray:
    return np.floor(values + 0.5)  # JS Math.round: halves up


@op("image.flipLeftRight", image=FLOAT)
def flip_left_right(image: ArrayLike) -> jax.Array:
    """Mirror a batch of images `[batch, height, width, channels]` left to right, like
    `tf.image.flipLeftRight`.

    >>> import tfjs_grad as tf
    >>> tf.image.flipLeftRight(tf.reshape(tf.tensor1d([1, 2, 3]), [1, 1, 3, 1])).reshape(-1)
    Tensor([3., 2., 1.], shape=(3,), dtype=float32)
    """
    if image.ndim != 4:
        raise ValueError(f"Error in flipLeftRight: image must be rank 4,but got rank {image.ndim}.")
    return image[:, :, ::-1, :]


@op("image.grayscaleToRGB", image=NUMERIC)
def grayscale_to_rgb(image: ArrayLike) -> jax.Array:
    """Repeat a grayscale image's one channel three times, like `tf.image.grayscaleToRGB`.

    >>> import tfjs_grad as tf
    >>> tf.image.grayscale_to_rgb([[[0.5]]])
    Tensor([[[0.5, 0.5, 0.5]]], shape=(1, 1, 3), dtype=float32)
    """
    if image.ndim < 2:
        raise ValueError(
            f"Error in grayscaleToRGB: images must be at least rank 2, but got rank {image.ndim}."
        )
    if image.shape[-1] != 1:
        raise ValueError(
            "Error in grayscaleToRGB: last dimension of a grayscale image should be size 1, "
            f"but got size {image.shape[-1]}."
        )
    return jnp.tile(image, (1,) * (image.ndim - 1) + (3,))


@op("RGBToGrayscale", image=NUMERIC)
def rgb_to_grayscale(image: ArrayLike) -> jax.Array:
    """0.2989 R + 0.587 G + 0.114 B, keeping a last axis of 1, like
    `tf.image.rgbToGrayscale`; an int32 image gives int32 (truncated).

    >>> import tfjs_grad as tf
    >>> tf.image.rgbToGrayscale([[1.0, 0.0, 0.0]])
    Tensor([[0.2989]], shape=(1, 1), dtype=float32)
    """
    if image.ndim < 2:
        raise ValueError(
            f"Error in RGBToGrayscale: images must be at least rank 2, but got rank {image.ndim}."
        )
    if image.shape[-1] != 3:
        raise ValueError(
            "Error in RGBToGrayscale: last dimension of an RGB image should be size 3, but got "
            f"size {image.shape[-1]}."
        )
    gray = _float(image)
    gray = gray @ jnp.asarray(_LUMA, gray.dtype)
    return gray[..., None].astype(image.dtype)


def _batched_image(fn: str, images: jax.Array, size: Sequence[int], align: bool, half: bool):
    if images.ndim not in (3, 4):
        raise ValueError(f"Error in {fn}: x must be rank 3 or 4, but got rank {images.ndim}.")
    if len(size) != 2:
        shown = ",".join(str(s) for s in size)
        raise ValueError(f"Error in {fn}: new shape must 2D, but got shape {shown}.")
    if half and align:
        raise ValueError(f"Error in {fn}: If halfPixelCenters is true, alignCorners must be false.")
    return (images[None], True) if images.ndim == 3 else (images, False)


def _ratio(old: int, new: int, align: bool) -> float:
    if align and new > 1:
        return (old - 1) / (new - 1)
    return old / new


@op("image.resizeBilinear", images=NUMERIC)
def resize_bilinear(
    images: ArrayLike,
    size: Sequence[int],
    align_corners: bool = False,
    half_pixel_centers: bool = False,
) -> jax.Array:
    """Bilinear resizing of `[batch, height, width, channels]` (or rank 3) images to
    `size = [new_height, new_width]`, like `tf.image.resizeBilinear`; float32.

    The gradient is the true one in every mode (tfjs's is wrong with `align_corners`,
    `half_pixel_centers`, or for non-square images).

    >>> import tfjs_grad as tf
    >>> tf.image.resizeBilinear(tf.reshape(tf.tensor1d([0, 2]), [1, 2, 1]), [1, 4])[0, :, 0]
    Tensor([0., 1., 2., 2.], shape=(4,), dtype=float32)
    """
    x, unbatched = _batched_image("resizeBilinear", images, size, align_corners, half_pixel_centers)
    x = _float(x)
    for axis, new in ((1, int(size[0])), (2, int(size[1]))):
        old = x.shape[axis]
        ratio = _ratio(old, new, align_corners)
        k = np.arange(new, dtype=np.float64)
        source = ratio * (k + 0.5) - 0.5 if half_pixel_centers else ratio * k
        low = np.maximum(0, np.floor(source))
        high = np.minimum(old - 1, np.ceil(source))
        frac = jnp.asarray(source - low, x.dtype).reshape(
            [-1 if a == axis else 1 for a in range(4)]
        )
        a = jnp.take(x, low.astype(np.int32), axis=axis)
        b = jnp.take(x, high.astype(np.int32), axis=axis)
        x = a + (b - a) * frac
    return x[0] if unbatched else x


@op("image.resizeNearestNeighbor", images=NUMERIC)
def resize_nearest_neighbor(
    images: ArrayLike,
    size: Sequence[int],
    align_corners: bool = False,
    half_pixel_centers: bool = False,
) -> jax.Array:
    """Nearest-neighbour resizing, like `tf.image.resizeNearestNeighbor` (align_corners
    rounds the source position, otherwise it is floored); keeps float32 or int32.

    >>> import tfjs_grad as tf
    >>> x = tf.reshape(tf.tensor1d([1, 2]), [1, 2, 1])
    >>> tf.image.resize_nearest_neighbor(x, [1, 4])[0, :, 0]
    Tensor([1., 1., 2., 2.], shape=(4,), dtype=float32)
    """
    x, unbatched = _batched_image(
        "resizeNearestNeighbor", images, size, align_corners, half_pixel_centers
    )
    if x.dtype not in (jnp.float32, jnp.int32) and not jnp.issubdtype(x.dtype, jnp.floating):
        raise ValueError("`images` must have `int32` or `float32` as dtype")
    for axis, new in ((1, int(size[0])), (2, int(size[1]))):
        old = x.shape[axis]
        ratio = _ratio(old, new, align_corners)
        k = np.arange(new, dtype=np.float64)
        source = ratio * (k + 0.5) if half_pixel_centers else ratio * k
        nearest = np.minimum(old - 1, _js_round(source) if align_corners else np.floor(source))
        if half_pixel_centers:
            nearest = np.maximum(0, nearest)
        x = jnp.take(x, nearest.astype(np.int32), axis=axis)
    return x[0] if unbatched else x


@op("image.rotateWithOffset", image=FLOAT)
def rotate_with_offset(
    image: ArrayLike,
    radians: float,
    fill_value: float | Sequence[float] = 0,
    center: float | Sequence[float] = 0.5,
) -> jax.Array:
    """Rotate `[batch, height, width, channels]` images by `radians` about `center`, like
    `tf.image.rotateWithOffset`: each output pixel takes the nearest source pixel, or
    `fill_value` (a number, or one per channel; channel 3 then gets 255) outside.

    `center` is a fraction of the width and height: a number for both, or `[x, y]`.

    >>> import math
    >>> import tfjs_grad as tf
    >>> x = tf.reshape(tf.range(1, 10), [1, 3, 3, 1])
    >>> tf.image.rotate_with_offset(x, math.pi, 0, 1 / 3)[0, :, :, 0]
    Tensor([[9., 8., 7.],
            [6., 5., 4.],
            [3., 2., 1.]], shape=(3, 3), dtype=float32)
    """
    if image.ndim != 4:
        raise ValueError(
            f"Error in rotateWithOffset: image must be rank 4,but got rank {image.ndim}."
        )
    batch, height, width, channels = image.shape
    cx, cy = (center, center) if isinstance(center, (int, float)) else center
    cx, cy = width * float(cx), height * float(cy)
    sin, cos = math.sin(radians), math.cos(radians)
    y, x = np.meshgrid(
        np.arange(height, dtype=np.float64), np.arange(width, dtype=np.float64), indexing="ij"
    )
    sx = _js_round((x - cx) * cos - (y - cy) * sin + cx)
    sy = _js_round((x - cx) * sin + (y - cy) * cos + cy)
    inside = (sx >= 0) & (sx < width) & (sy >= 0) & (sy < height)
    index = np.where(inside, sy * width + sx, 0).astype(np.int32).reshape(-1)
    picked = jnp.take(image.reshape(batch, height * width, channels), index, axis=1)
    picked = picked.reshape(batch, height, width, channels)
    if isinstance(fill_value, (int, float)):
        fill = jnp.asarray(fill_value, image.dtype)
    else:
        per_channel = [255.0 if c == 3 else float(fill_value[c]) for c in range(channels)]
        fill = jnp.asarray(per_channel, image.dtype)
    return jnp.where(jnp.asarray(inside)[None, :, :, None], picked, fill)


def _gather_2d(image: jax.Array, rows: jax.Array, cols: jax.Array) -> jax.Array:
    """image[n, rows[n, i, j], cols[n, i, j], :] for image [n, H, W, C] (indices clipped)."""
    n, height, width, channels = image.shape
    flat = jnp.clip(rows, 0, height - 1) * width + jnp.clip(cols, 0, width - 1)
    picked = jnp.take_along_axis(
        image.reshape(n, height * width, channels), flat.reshape(n, -1, 1), axis=1
    )
    return picked.reshape(*rows.shape, channels)


@op("cropAndResize", image=NUMERIC, boxes=FLOAT, box_ind=INT)
def crop_and_resize(
    image: ArrayLike,
    boxes: ArrayLike,
    box_ind: ArrayLike,
    crop_size: Sequence[int],
    method: str = "bilinear",
    extrapolation_value: float = 0,
) -> jax.Array:
    """Crop boxes out of a batch of images and resize each to `crop_size`, like
    `tf.image.cropAndResize`.

    Args:
      image: `[batch, height, width, channels]`.
      boxes: `[n, 4]` float, normalized `[y1, x1, y2, x2]` (may extend past [0, 1]).
      box_ind: `[n]` int32, the image each box is cut from.
      crop_size: `[crop_height, crop_width]`.
      method: 'bilinear' or 'nearest'.
      extrapolation_value: the value for samples outside the image.

    >>> import tfjs_grad as tf
    >>> img = tf.reshape(tf.tensor1d([0, 1, 2, 3]), [1, 2, 2, 1])
    >>> tf.image.cropAndResize(img, [[0, 0, 1, 1]], tf.tensor1d([0], "int32"), [3, 3])[0, ..., 0]
    Tensor([[0. , 0.5, 1. ],
            [1. , 1.5, 2. ],
            [2. , 2.5, 3. ]], shape=(3, 3), dtype=float32)
    """
    n = boxes.shape[0]
    if image.ndim != 4:
        raise ValueError(f"Error in cropAndResize: image must be rank 4,but got rank {image.ndim}.")
    shown = ",".join(str(d) for d in boxes.shape)
    if boxes.ndim != 2 or boxes.shape[1] != 4:
        raise ValueError(
            f"Error in cropAndResize: boxes must be have size [{n},4] but had shape {shown}."
        )
    if box_ind.ndim != 1 or box_ind.shape[0] != n:
        raise ValueError(
            f"Error in cropAndResize: boxInd must be have size [{n}] but had shape {shown}."
        )
    if len(crop_size) != 2:
        raise ValueError(
            "Error in cropAndResize: cropSize must be of length 2, but got length "
            f"{len(crop_size)}."
        )
    if crop_size[0] < 1 or crop_size[1] < 1:
        raise ValueError(f"cropSize must be atleast [1,1], but was {','.join(map(str, crop_size))}")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"method must be bilinear or nearest, but was {method}")
    size = (int(crop_size[0]), int(crop_size[1]))
    return _crop_kernel(image, boxes, box_ind, size, method, float(extrapolation_value))


# one compiled program per configuration: eagerly, op-by-op dispatch would compile each of
# its many small steps separately
@functools.partial(jax.jit, static_argnums=(3, 4, 5))
def _crop_kernel(
    image: jax.Array,
    boxes: jax.Array,
    box_ind: jax.Array,
    crop_size: tuple[int, int],
    method: str,
    extrapolation_value: float,
) -> jax.Array:
    n = boxes.shape[0]
    batch, height, width, _ = image.shape

    def positions(low: jax.Array, high: jax.Array, size: int, crop: int) -> jax.Array:
        if crop > 1:
            step = (high - low) * (size - 1) / (crop - 1)
            return low[:, None] * (size - 1) + jnp.arange(crop, dtype=boxes.dtype) * step[:, None]
        return (0.5 * (low + high) * (size - 1))[:, None]

    ys = positions(boxes[:, 0], boxes[:, 2], height, int(crop_size[0]))  # [n, crop_height]
    xs = positions(boxes[:, 1], boxes[:, 3], width, int(crop_size[1]))  # [n, crop_width]
    dtype = jnp.result_type(_float(image).dtype, boxes.dtype)
    source = jnp.take(image.astype(dtype), jnp.clip(box_ind, 0, batch - 1), axis=0)
    grid = (n, ys.shape[1], xs.shape[1])
    rows_of = lambda r: jnp.broadcast_to(r[:, :, None], grid)  # noqa: E731
    cols_of = lambda c: jnp.broadcast_to(c[:, None, :], grid)  # noqa: E731
    if method == "bilinear":
        top, left = jnp.floor(ys), jnp.floor(xs)
        bottom, right = jnp.ceil(ys), jnp.ceil(xs)
        y_lerp = (ys - top)[:, :, None, None]
        x_lerp = (xs - left)[:, None, :, None]
        t, b = rows_of(top.astype(jnp.int32)), rows_of(bottom.astype(jnp.int32))
        lft, rgt = cols_of(left.astype(jnp.int32)), cols_of(right.astype(jnp.int32))
        top_row = (
            _gather_2d(source, t, lft)
            + (_gather_2d(source, t, rgt) - _gather_2d(source, t, lft)) * x_lerp
        )
        bottom_left = _gather_2d(source, b, lft)
        bottom_row = bottom_left + (_gather_2d(source, b, rgt) - bottom_left) * x_lerp
        out = top_row + (bottom_row - top_row) * y_lerp
    else:
        r = rows_of(jnp.floor(ys + 0.5).astype(jnp.int32))
        c = cols_of(jnp.floor(xs + 0.5).astype(jnp.int32))
        out = _gather_2d(source, r, c)
    inside = ((ys >= 0) & (ys <= height - 1))[:, :, None] & ((xs >= 0) & (xs <= width - 1))[
        :, None, :
    ]
    out = jnp.where(inside[..., None], out, jnp.asarray(extrapolation_value, dtype))
    # tfjs leaves the crops of an out-of-range box index at 0
    return jnp.where((box_ind < batch)[:, None, None, None], out, 0.0)


def _map_coordinate(coord: jax.Array, length: int, mode: str) -> jax.Array:
    """tfjs's Transform kernel's `mapCoord`: where an outside coordinate reads from."""
    if mode == "constant":
        return coord
    if mode == "nearest":
        return jnp.clip(coord, 0, length - 1)
    if length <= 1:
        return jnp.where((coord < 0) | (coord > length - 1), 0.0, coord).clip(0, length - 1)
    if mode == "reflect":
        size2 = 2 * length
        below = size2 * jnp.trunc(-coord / size2) + coord
        below = jnp.where(below < -length, below + size2, -below - 1)
        above = coord - size2 * jnp.trunc(coord / size2)
        above = jnp.where(above >= length, size2 - above - 1, above)
    elif mode == "wrap":
        span = length - 1
        below = coord + length * (jnp.trunc(-coord / span) + 1)
        above = coord - length * jnp.trunc(coord / span)
    else:
        return coord
    mapped = jnp.where(coord < 0, below, jnp.where(coord > length - 1, above, coord))
    return jnp.clip(mapped, 0, length - 1)


@op("image.transform", image=FLOAT, transforms=FLOAT)
def transform(
    image: ArrayLike,
    transforms: ArrayLike,
    interpolation: str = "nearest",
    fill_mode: str = "constant",
    fill_value: float = 0,
    output_shape: Sequence[int] | None = None,
) -> jax.Array:
    """Apply projective transforms to a batch of images, like `tf.image.transform`.

    Each row `[a0, a1, a2, b0, b1, b2, c0, c1]` of `transforms` ([batch, 8] or [1, 8]) maps
    the output pixel (x, y) to the input point `((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) /
    k)` with `k = c0 x + c1 y + 1`. `interpolation` is 'nearest' or 'bilinear'; `fill_mode`
    'constant' (`fill_value` outside), 'reflect', 'wrap' or 'nearest'.

    >>> import tfjs_grad as tf
    >>> img = tf.reshape(tf.tensor1d([1, 2, 3]), [1, 1, 3, 1])
    >>> shift = tf.tensor2d([[1, 0, 1, 0, 1, 0, 0, 0]])
    >>> tf.image.transform(img, shift).reshape(-1)
    Tensor([2., 3., 0.], shape=(3,), dtype=float32)
    """
    if image.ndim != 4:
        raise ValueError(f"Error in transform: image must be rank 4,but got rank {image.ndim}.")
    if (
        transforms.ndim != 2
        or transforms.shape[0] not in (image.shape[0], 1)
        or transforms.shape[1] != 8
    ):
        raise ValueError("Error in transform: Input transform should be batch x 8 or 1 x 8")
    if output_shape is not None and len(output_shape) != 2:
        shown = ",".join(str(d) for d in output_shape)
        raise ValueError(
            f"Error in transform: outputShape must be [height, width] or null, but got {shown}."
        )
    if interpolation not in ("nearest", "bilinear"):
        raise ValueError(
            f"Error in Transform: Expect 'nearest' or 'bilinear', but got {interpolation}"
        )
    shape = None if output_shape is None else (int(output_shape[0]), int(output_shape[1]))
    return _transform_kernel(image, transforms, interpolation, fill_mode, float(fill_value), shape)


@functools.partial(jax.jit, static_argnums=(2, 3, 4, 5))
def _transform_kernel(
    image: jax.Array,
    transforms: jax.Array,
    interpolation: str,
    fill_mode: str,
    fill_value: float,
    output_shape: tuple[int, int] | None,
) -> jax.Array:
    batch, height, width, _ = image.shape
    out_h, out_w = (height, width) if output_shape is None else output_shape
    t = jnp.broadcast_to(transforms, (batch, 8))[:, :, None, None]
    y, x = jnp.meshgrid(
        jnp.arange(out_h, dtype=t.dtype), jnp.arange(out_w, dtype=t.dtype), indexing="ij"
    )
    projection = t[:, 6] * x + t[:, 7] * y + 1
    safe = jnp.where(projection == 0, 1.0, projection)
    in_x = _map_coordinate((t[:, 0] * x + t[:, 1] * y + t[:, 2]) / safe, width, fill_mode)
    in_y = _map_coordinate((t[:, 3] * x + t[:, 4] * y + t[:, 5]) / safe, height, fill_mode)
    fill = jnp.asarray(fill_value, image.dtype)

    def read(rows: jax.Array, cols: jax.Array) -> jax.Array:
        inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
        values = _gather_2d(image, rows.astype(jnp.int32), cols.astype(jnp.int32))
        return jnp.where(inside[..., None], values, fill)

    if interpolation == "nearest":
        out = read(jnp.floor(in_y + 0.5), jnp.floor(in_x + 0.5))
    else:
        y0, x0 = jnp.floor(in_y), jnp.floor(in_x)
        y1, x1 = y0 + 1, x0 + 1
        wx0, wx1 = (x1 - in_x)[..., None], (in_x - x0)[..., None]
        upper = wx0 * read(y0, x0) + wx1 * read(y0, x1)
        lower = wx0 * read(y1, x0) + wx1 * read(y1, x1)
        out = (y1 - in_y)[..., None] * upper + (in_y - y0)[..., None] * lower
    return jnp.where((projection == 0)[..., None], fill, out).astype(image.dtype)


# -- non-max suppression (eager only: host-side greedy selection, as tfjs's CPU kernel)


def _iou(boxes: np.ndarray, i: int, j: int) -> float:
    a, b = boxes[i], boxes[j]
    ya0, xa0, ya1, xa1 = min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])
    yb0, xb0, yb1, xb1 = min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])
    area_a = (ya1 - ya0) * (xa1 - xa0)
    area_b = (yb1 - yb0) * (xb1 - xb0)
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter = max(min(ya1, yb1) - max(ya0, yb0), 0.0) * max(min(xa1, xb1) - max(xa0, xb0), 0.0)
    return inter / (area_a + area_b - inter)


def _check_nms(
    boxes: jax.Array, scores: jax.Array, max_output_size: int, iou: float, sigma: float
) -> int:
    n = boxes.shape[0] if boxes.ndim else 0
    if not 0 <= iou <= 1:
        raise ValueError(f"iouThreshold must be in [0, 1], but was '{_js_number(iou)}'")
    if boxes.ndim != 2:
        raise ValueError(f"boxes must be a 2D tensor, but was of rank '{boxes.ndim}'")
    if boxes.shape[1] != 4:
        raise ValueError(f"boxes must have 4 columns, but 2nd dimension was {boxes.shape[1]}")
    if scores.ndim != 1:
        raise ValueError("scores must be a 1D tensor")
    if scores.shape[0] != n:
        raise ValueError(
            f"scores has incompatible shape with boxes. Expected {n}, but was {scores.shape[0]}"
        )
    if not 0 <= sigma <= 1:
        raise ValueError(f"softNmsSigma must be in [0, 1], but was '{_js_number(sigma)}'")
    return min(int(max_output_size), n)


def _js_number(x: float) -> str:
    from ._js import number

    return number(x)


def _suppress(
    boxes: jax.Array,
    scores: jax.Array,
    max_output_size: int,
    iou_threshold: float,
    score_threshold: float,
    sigma: float,
) -> tuple[list[int], list[float]]:
    """tfjs's `nonMaxSuppressionImpl_`: greedy selection by score (soft-NMS for sigma > 0)."""
    box_values = np.asarray(boxes, np.float64)
    score_values = np.asarray(scores, np.float32).astype(np.float64)
    limit = _check_nms(boxes, scores, max_output_size, iou_threshold, sigma)
    # candidates ascending by (score, -index): the last is the best, the lower index on ties
    candidates = sorted(
        ((float(s), -i, 0) for i, s in enumerate(score_values) if s > score_threshold)
    )
    scale = -0.5 / sigma if sigma > 0 else 0.0
    selected: list[int] = []
    selected_scores: list[float] = []
    while len(selected) < limit and candidates:
        score, neg_index, begin = candidates.pop()
        original, index = score, -neg_index
        if original < score_threshold:
            break
        ignore = False
        for j in range(len(selected) - 1, begin - 1, -1):
            iou = _iou(box_values, index, selected[j])
            if iou >= iou_threshold:
                ignore = True
                break
            score *= math.exp(scale * iou * iou) if iou <= iou_threshold else 0.0
            if score <= score_threshold:
                break
        if ignore:
            continue
        if score == original:
            selected.append(index)
            selected_scores.append(score)
        elif score > score_threshold:
            bisect.insort(candidates, (score, -index, len(selected)))
    return selected, selected_scores


@op("image.nonMaxSuppression", eager_only=True, boxes=FLOAT, scores=FLOAT)
def non_max_suppression(
    boxes: ArrayLike,
    scores: ArrayLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
) -> jax.Array:
    """Greedy non-max suppression, like `tf.image.nonMaxSuppression`: the int32 indices of
    at most `max_output_size` boxes (`[n, 4]`, `[y1, x1, y2, x2]`) by descending score,
    dropping any whose IoU with a kept box is >= `iou_threshold`. Eager only.

    >>> import tfjs_grad as tf
    >>> boxes = tf.tensor2d([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 5, 1, 6]])
    >>> tf.image.nonMaxSuppression(boxes, tf.tensor1d([0.9, 0.8, 0.7]), 3)
    Tensor([0, 2], shape=(2,), dtype=int32)
    """
    selected, _ = _suppress(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0)
    return jnp.asarray(selected, jnp.int32)


@op("image.nonMaxSuppressionAsync", eager_only=True, boxes=FLOAT, scores=FLOAT)
def non_max_suppression_async(
    boxes: ArrayLike,
    scores: ArrayLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
) -> Any:
    """`nonMaxSuppression` as an awaitable, like `tf.image.nonMaxSuppressionAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     return await tf.image.nonMaxSuppressionAsync([[0, 0, 1, 1]], [0.5], 1)
    >>> asyncio.run(main())
    Tensor([0], shape=(1,), dtype=int32)
    """
    selected, _ = _suppress(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0)
    return resolved(jnp.asarray(selected, jnp.int32))


@op("image.nonMaxSuppressionWithScore", eager_only=True, boxes=FLOAT, scores=FLOAT)
def non_max_suppression_with_score(
    boxes: ArrayLike,
    scores: ArrayLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    soft_nms_sigma: float = 0.0,
) -> NonMaxSuppressionWithScore:
    """Non-max suppression that also returns the kept scores, like
    `tf.image.nonMaxSuppressionWithScore`: `{selectedIndices, selectedScores}`; with
    `soft_nms_sigma > 0` overlapping boxes are down-weighted by exp(-iou^2 / (2 sigma))
    instead of dropped (soft-NMS). Eager only.

    >>> import tfjs_grad as tf
    >>> r = tf.image.nonMaxSuppressionWithScore([[0, 0, 1, 1], [0, 5, 1, 6]], [0.5, 0.9], 2)
    >>> r.selectedIndices, r.selected_scores
    (Tensor([1, 0], shape=(2,), dtype=int32), Tensor([0.9, 0.5], shape=(2,), dtype=float32))
    """
    selected, kept = _suppress(
        boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma
    )
    return from_arrays(
        NonMaxSuppressionWithScore, jnp.asarray(selected, jnp.int32), jnp.asarray(kept, jnp.float32)
    )


@op("image.nonMaxSuppressionWithScoreAsync", eager_only=True, boxes=FLOAT, scores=FLOAT)
def non_max_suppression_with_score_async(
    boxes: ArrayLike,
    scores: ArrayLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    soft_nms_sigma: float = 0.0,
) -> Any:
    """`nonMaxSuppressionWithScore` as an awaitable, like
    `tf.image.nonMaxSuppressionWithScoreAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     r = await tf.image.nonMaxSuppressionWithScoreAsync([[0, 0, 1, 1]], [0.5], 1)
    ...     return r.selectedScores
    >>> asyncio.run(main())
    Tensor([0.5], shape=(1,), dtype=float32)
    """
    return resolved(
        non_max_suppression_with_score(
            boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma
        )
    )


@op("image.nonMaxSuppressionPadded", eager_only=True, boxes=FLOAT, scores=FLOAT)
def non_max_suppression_padded(
    boxes: ArrayLike,
    scores: ArrayLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    pad_to_max_output_size: bool = False,
) -> NonMaxSuppressionPadded:
    """Non-max suppression returning `{selectedIndices, validOutputs}`, like
    `tf.image.nonMaxSuppressionPadded`: with `pad_to_max_output_size` the indices are
    padded with 0 to `max_output_size`; `validOutputs` is an int32 scalar. Eager only.

    >>> import tfjs_grad as tf
    >>> r = tf.image.nonMaxSuppressionPadded([[0, 0, 1, 1]], [0.5], 3, 0.5, 0, True)
    >>> r.selectedIndices, r.validOutputs
    (Tensor([0, 0, 0], shape=(3,), dtype=int32), Tensor(1, shape=(), dtype=int32))
    """
    selected, _ = _suppress(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0)
    valid = len(selected)
    if pad_to_max_output_size:
        selected += [0] * max(0, int(max_output_size) - valid)
    return from_arrays(
        NonMaxSuppressionPadded, jnp.asarray(selected, jnp.int32), jnp.asarray(valid, jnp.int32)
    )


@op("image.nonMaxSuppressionPaddedAsync", eager_only=True, boxes=FLOAT, scores=FLOAT)
def non_max_suppression_padded_async(
    boxes: ArrayLike,
    scores: ArrayLike,
    max_output_size: int,
    iou_threshold: float = 0.5,
    score_threshold: float = -math.inf,
    pad_to_max_output_size: bool = False,
) -> Any:
    """`nonMaxSuppressionPadded` as an awaitable, like
    `tf.image.nonMaxSuppressionPaddedAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     r = await tf.image.nonMaxSuppressionPaddedAsync([[0, 0, 1, 1]], [0.5], 2)
    ...     return r.validOutputs
    >>> asyncio.run(main())
    Tensor(1, shape=(), dtype=int32)
    """
    return resolved(
        non_max_suppression_padded(
            boxes, scores, max_output_size, iou_threshold, score_threshold, pad_to_max_output_size
        )
    )


def _otsu(gray: np.ndarray) -> float:
    """tfjs's Otsu threshold: the first histogram split maximising the between-class
    variance (float32, as tfjs computes it)."""
    values = np.floor(gray.astype(np.float32) + np.float32(0.5)).astype(np.int64).reshape(-1)
    histogram = np.bincount(values[(values >= 0) & (values < 256)], minlength=256)
    histogram = histogram.astype(np.float32)
    total = np.float32(gray.shape[0] * gray.shape[1])
    best, best_index = np.float32(0), -1
    bins = np.arange(256, dtype=np.float32)
    with np.errstate(divide="ignore", invalid="ignore"):
        for index in range(255):
            first, second = histogram[: index + 1], histogram[index + 1 :]
            w_first, w_second = first.sum() / total, second.sum() / total
            mean_first = (first * bins[: index + 1]).sum() / first.sum()
            mean_second = (
                second * (bins[: 255 - index] + np.float32(index + 1))
            ).sum() / second.sum()
            between = w_first * w_second * (mean_first - mean_second) * (mean_first - mean_second)
            if between > best:
                best, best_index = between, index
    return float(best_index)


@op("image.threshold", eager_only=True, image=NUMERIC)
def threshold(
    image: ArrayLike,
    method: str = "binary",
    inverted: bool = False,
    thresh_value: float = 0.5,
) -> jax.Array:
    """Binarize a `[height, width, 1 or 3]` image, like `tf.image.threshold`: int32 255 where
    the grayscale value exceeds `thresh_value * 255` (inverted: is at most it), else 0;
    `method='otsu'` picks the threshold from the histogram. Eager only.

    >>> import tfjs_grad as tf
    >>> tf.image.threshold(tf.tensor3d([[[100], [200]]]))[..., 0]
    Tensor([[  0, 255]], shape=(1, 2), dtype=int32)
    """
    if image.ndim != 3:
        raise ValueError(f"Error in threshold: image must be rank 3,but got rank {image.ndim}.")
    if image.shape[2] not in (1, 3):
        raise ValueError(
            "Error in threshold: image color channel must be equal to 3 or 1but got "
            f"{image.shape[2]}."
        )
    if image.dtype not in (jnp.int32, jnp.float32):
        raise ValueError(
            "Error in dtype: image dtype must be int32 or float32,but got dtype "
            f"{dtype_name(image.dtype)}."
        )
    if method not in ("otsu", "binary"):
        raise ValueError(f"Method must be binary or otsu, but was {method}")
    host = np.asarray(image)
    if host.shape[2] == 3:
        r, g, b = (host[..., c : c + 1].astype(np.float32) for c in range(3))
        red, green, blue = (np.float32(c) for c in _LUMA)
        gray = (r * red + g * green) + b * blue
    else:
        gray = host
    level = np.float32(thresh_value) * np.float32(255) if method == "binary" else _otsu(gray)
    passed = gray <= level if inverted else gray > level
    return jnp.asarray(passed.astype(np.int32) * 255)


cropAndResize = crop_and_resize
flipLeftRight = flip_left_right
grayscaleToRGB = grayscale_to_rgb
nonMaxSuppression = non_max_suppression
nonMaxSuppressionAsync = non_max_suppression_async
nonMaxSuppressionPadded = non_max_suppression_padded
nonMaxSuppressionPaddedAsync = non_max_suppression_padded_async
nonMaxSuppressionWithScore = non_max_suppression_with_score
nonMaxSuppressionWithScoreAsync = non_max_suppression_with_score_async
resizeBilinear = resize_bilinear
resizeNearestNeighbor = resize_nearest_neighbor
rgbToGrayscale = rgb_to_grayscale
rotateWithOffset = rotate_with_offset


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
