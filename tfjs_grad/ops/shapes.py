"""Shape ops: reshape, transpose, concat, stack, unstack, split, slice, gather, expandDims,
squeeze, tile, pad.

Shapes, axes, sizes and paddings are static Python values, checked with tfjs's messages
when the op is called (at trace time under a transform). `concat` and `stack` promote mixed
dtypes (tfjs casts to the first tensor's dtype, or throws).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from .._tensors import INT, LIST, NUMERIC, ArrayLike, Shape, convert, op, upcast
from . import _checks, _js

__all__ = [
    "concat",
    "expand_dims",
    "expandDims",
    "gather",
    "pad",
    "reshape",
    "slice_",
    "split",
    "squeeze",
    "stack",
    "tile",
    "transpose",
    "unstack",
]


def _implicit_shape(shape: Sequence[int], size: int) -> tuple[int, ...]:
    """tfjs's `inferFromImplicitShape`: fill in the one -1."""
    shape = [int(d) for d in shape]
    known, implicit = 1, -1
    for i, dim in enumerate(shape):
        if dim >= 0:
            known *= dim
        elif dim == -1:
            if implicit != -1:
                raise ValueError(
                    f"Shapes can only have 1 implicit size. Found -1 at dim {implicit} and dim {i}"
                )
            implicit = i
        else:
            raise ValueError(f"Shapes can not be < 0. Found {dim} at dim {i}")
    if implicit == -1:
        if size > 0 and size != known:
            raise ValueError(f"Size({size}) must match the product of shape {_js.array(shape)}")
        return tuple(shape)
    if known == 0:
        raise ValueError(
            f"Cannot infer the missing size in [{_js.array(shape)}] when there are 0 elements"
        )
    if size % known != 0:
        raise ValueError(f"The implicit shape can't be a fractional number. Got {size} / {known}")
    shape[implicit] = size // known
    return tuple(shape)


@op("reshape", x=NUMERIC)
def reshape(x: ArrayLike, shape: Shape) -> jax.Array:
    """x with a new shape holding the same values; one -1 is inferred. Like `tf.reshape`.

    >>> import tfjs_grad as tf
    >>> tf.reshape([1, 2, 3, 4, 5, 6], [-1, 3])
    Tensor([[1., 2., 3.],
            [4., 5., 6.]], shape=(2, 3), dtype=float32)
    """
    new_shape = _implicit_shape(list(shape), x.size)
    if math.prod(new_shape) != x.size:
        raise ValueError(
            f"The new shape ({_js.array(new_shape)}) has {math.prod(new_shape)} elements and "
            f"the old shape ({_js.array(x.shape)}) has {x.size} elements. The new shape and old "
            "shape must have the same number of elements."
        )
    return jnp.reshape(x, new_shape)


@op("transpose", x=NUMERIC)
def transpose(x: ArrayLike, perm: Sequence[int] | None = None) -> jax.Array:
    """x with its axes permuted (reversed by default), like `tf.transpose`.

    >>> import tfjs_grad as tf
    >>> tf.transpose([[1, 2, 3]]).shape
    (3, 1)
    """
    if perm is None:
        return jnp.transpose(x)
    perm = [int(p) for p in perm]
    if len(perm) != x.ndim:
        raise ValueError(
            f"Error in transpose: rank of input {x.ndim} must match length of perm "
            f"{_js.array(perm)}."
        )
    if not all(0 <= p < x.ndim for p in perm):
        raise ValueError(
            f"All entries in 'perm' must be between 0 and {x.ndim - 1} but got {_js.array(perm)}"
        )
    return jnp.transpose(x, perm)


def _tensor_list(tensors: Any, fn: str) -> list[jax.Array]:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"Argument tensors passed to {fn} must be a `Tensor[]` or `TensorLike[]`")
    arrays = [convert(t, argument=f"tensors[{i}]", fn=fn) for i, t in enumerate(tensors)]
    if arrays:
        dtype = upcast(arrays, list(tensors))
        arrays = [a.astype(dtype) for a in arrays]
    return arrays


@op("concat", tensors=LIST)
def concat(tensors: Sequence[ArrayLike], axis: int = 0) -> jax.Array:
    """The tensors joined along axis, like `tf.concat`; mixed dtypes are promoted.

    >>> import tfjs_grad as tf
    >>> tf.concat([[1, 2], [3]])
    Tensor([1., 2., 3.], shape=(3,), dtype=float32)
    """
    arrays = _tensor_list(tensors, "concat")
    if not arrays:
        raise ValueError("Pass at least one tensor to concat")
    (axis,) = _checks.axes(axis, arrays[0].ndim)
    rank, first = arrays[0].ndim, arrays[0].shape
    for i, a in enumerate(arrays):
        if a.ndim != rank:
            raise ValueError(
                f"Error in concat{rank}D: rank of tensors[{i}] must be the same as the rank "
                f"of the rest ({rank})"
            )
        if any(r != axis and a.shape[r] != first[r] for r in range(rank)):
            raise ValueError(
                f"Error in concat{rank}D: Shape of tensors[{i}] ({_js.array(a.shape)}) does not "
                f"match the shape of the rest ({_js.array(first)}) along the non-concatenated "
                f"axis {i}."
            )
    return jnp.concatenate(arrays, axis=axis)


@op("stack", tensors=LIST)
def stack(tensors: Sequence[ArrayLike], axis: int = 0) -> jax.Array:
    """The tensors stacked along a new axis, like `tf.stack`; mixed dtypes are promoted.

    >>> import tfjs_grad as tf
    >>> tf.stack([[1, 2], [3, 4]], 1)
    Tensor([[1., 3.],
            [2., 4.]], shape=(2, 2), dtype=float32)
    """
    arrays = _tensor_list(tensors, "stack")
    if not arrays:
        raise ValueError("Pass at least one tensor to tf.stack")
    if axis > arrays[0].ndim:
        raise ValueError("Axis must be <= rank of the tensor")
    for a in arrays[1:]:
        if a.shape != arrays[0].shape:
            raise ValueError(
                "All tensors passed to stack must have matching shapes Shapes "
                f"{_js.array(arrays[0].shape)} and {_js.array(a.shape)} must match"
            )
    return jnp.stack(arrays, axis=axis)


@op("unstack", x=NUMERIC)
def unstack(x: ArrayLike, axis: int = 0) -> list[jax.Array]:
    """The slices of x along axis, as a list, like `tf.unstack`.

    >>> import tfjs_grad as tf
    >>> [t.tolist() for t in tf.unstack([[1, 2], [3, 4]])]
    [[1.0, 2.0], [3.0, 4.0]]
    """
    if not -x.ndim <= axis < x.ndim:
        raise ValueError(f"Axis = {axis} is not in [-{x.ndim}, {x.ndim})")
    return list(jnp.unstack(x, axis=axis))


@op("split", x=NUMERIC)
def split(x: ArrayLike, num_or_size_splits: int | Sequence[int], axis: int = 0) -> list[jax.Array]:
    """x cut along axis into equal parts or parts of given sizes (one may be -1), like
    `tf.split`.

    >>> import tfjs_grad as tf
    >>> [t.tolist() for t in tf.split([1, 2, 3, 4, 5], [2, -1])]
    [[1.0, 2.0], [3.0, 4.0, 5.0]]
    """
    (axis,) = _checks.axes(axis, x.ndim)
    length = x.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        if length % num_or_size_splits != 0:
            raise ValueError("Number of splits must evenly divide the axis.")
        sizes = [length // int(num_or_size_splits)] * int(num_or_size_splits)
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if sizes.count(-1) > 1:
            raise ValueError("There should be only one negative value in split array.")
        if -1 in sizes:
            sizes[sizes.index(-1)] = length - sum(s for s in sizes if s > 0)
        if sum(sizes) != length:
            raise ValueError("The sum of sizes must match the size of the axis dimension.")
    return jnp.split(x, np.cumsum(sizes)[:-1].tolist(), axis=axis)


def _slice_params(
    x: jax.Array, begin: int | Sequence[int], size: int | Sequence[int] | None
) -> tuple[list[int], list[int]]:
    """tfjs's `parseSliceParams`: short lists are padded, size -1 means to the end."""
    rank = x.ndim
    begin = [int(begin)] if isinstance(begin, (int, np.integer)) else [int(b) for b in begin]
    begin += [0] * (rank - len(begin))
    if -1 in begin:
        raise ValueError("slice() does not support negative begin indexing.")
    if size is None:
        size = []
    size = [int(size)] if isinstance(size, (int, np.integer)) else [int(s) for s in size]
    size += [-1] * (rank - len(size))
    for i, s in enumerate(size):
        if s < -1:
            raise ValueError(
                f"Negative size values should be exactly -1 but got {s} for the slice() size "
                f"at index {i}."
            )
    size = [s if s >= 0 else x.shape[i] - begin[i] for i, s in enumerate(size)]
    if len(begin) != rank:
        raise ValueError(
            f"Error in slice{rank}D: Length of begin {_js.array(begin)} must match the rank of "
            f"the array ({rank})."
        )
    if len(size) != rank:
        raise ValueError(
            f"Error in slice{rank}D: Length of size {_js.array(size)} must match the rank of "
            f"the array ({rank})."
        )
    for i in range(rank):
        if begin[i] + size[i] > x.shape[i]:
            raise ValueError(
                f"Error in slice{rank}D: begin[{i}] + size[{i}] ({begin[i] + size[i]}) would "
                f"overflow input.shape[{i}] ({x.shape[i]})"
            )
    return begin, size


@op("slice", x=NUMERIC)
def slice_(
    x: ArrayLike, begin: int | Sequence[int], size: int | Sequence[int] | None = None
) -> jax.Array:
    """The block of x starting at begin with the given size (-1 or missing: to the end),
    like `tf.slice`.

    >>> import tfjs_grad as tf
    >>> tf.slice([[1, 2, 3], [4, 5, 6]], [0, 1], [2, -1])
    Tensor([[2., 3.],
            [5., 6.]], shape=(2, 2), dtype=float32)
    """
    begin, size = _slice_params(x, begin, size)
    return jax.lax.slice(x, begin, [b + s for b, s in zip(begin, size)])


def _check_indices(indices: jax.Array, axis_size: int) -> None:
    if isinstance(indices, Tracer):
        return  # values are not known while tracing
    flat = np.asarray(indices).reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat > axis_size - 1))
    if bad.size:
        raise ValueError(f"GatherV2: the index value {flat[bad[0]]} is not in [0, {axis_size - 1}]")


@op("gather", x=NUMERIC, indices=INT)
def gather(x: ArrayLike, indices: ArrayLike, axis: int = 0, batch_dims: int = 0) -> jax.Array:
    """The slices of x at the int32 `indices` along axis, like `tf.gather`.

    The first `batch_dims` axes of x and indices are batch axes, gathered pairwise.
    An index out of range raises when the indices are concrete (not while tracing).

    >>> import tfjs_grad as tf
    >>> tf.gather([10, 20, 30], [2, 0])
    Tensor([30., 10.], shape=(2,), dtype=float32)
    """
    (axis,) = _checks.axes(axis, x.ndim)
    rank = indices.ndim
    if batch_dims != 0 and not -rank <= batch_dims <= rank:
        raise ValueError(
            f"Expect batchDims in the range of [-{rank}, {rank}], but got {batch_dims}"
        )
    if batch_dims < 0:
        batch_dims += rank
    if batch_dims > x.ndim:
        raise ValueError(f"batchDims ({batch_dims}) must be less than rank(x) ({x.ndim}).")
    if axis < batch_dims:
        raise ValueError(f"batchDims ({batch_dims}) must be less than or equal to axis ({axis}).")
    for i in range(batch_dims):
        if x.shape[i] != indices.shape[i]:
            raise ValueError(
                f"x.shape[{i}]: {x.shape[i]} should be equal to indices.shape[{i}]: "
                f"{indices.shape[i]}."
            )
    _check_indices(indices, x.shape[axis])

    def take(x: jax.Array, indices: jax.Array) -> jax.Array:
        return jnp.take(x, indices, axis=axis - batch_dims)

    for _ in range(batch_dims):
        take = jax.vmap(take)
    return take(x, indices)


@op("expandDims", x=NUMERIC)
def expand_dims(x: ArrayLike, axis: int = 0) -> jax.Array:
    """x with a new axis of size 1 at axis, like `tf.expandDims`.

    >>> import tfjs_grad as tf
    >>> tf.expand_dims([1, 2], 1).shape
    (2, 1)
    """
    if axis > x.ndim:
        raise ValueError("Axis must be <= rank of the tensor")
    if axis < -(x.ndim + 1):
        raise ValueError(f"Axis must be in the interval [{-(x.ndim + 1)}, {x.ndim}]")
    return jnp.expand_dims(x, axis)


@op("squeeze", x=NUMERIC)
def squeeze(x: ArrayLike, axis: int | Sequence[int] | None = None) -> jax.Array:
    """x without its size-1 axes (only those listed in axis, when given), like `tf.squeeze`.

    >>> import tfjs_grad as tf
    >>> tf.squeeze([[1], [2]]).shape
    (2,)
    """
    if axis is None or (not isinstance(axis, (int, np.integer)) and len(axis) == 0):
        return jnp.squeeze(x)
    axes = sorted(_checks.axes(axis, x.ndim))
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"Can't squeeze axis {a} since its dim '{x.shape[a]}' is not 1")
    return jnp.squeeze(x, tuple(axes))


@op("tile", x=NUMERIC)
def tile(x: ArrayLike, reps: Sequence[int]) -> jax.Array:
    """x repeated reps[i] times along each axis i, like `tf.tile`.

    >>> import tfjs_grad as tf
    >>> tf.tile([1, 2], [2])
    Tensor([1., 2., 1., 2.], shape=(4,), dtype=float32)
    """
    reps = list(reps)
    if len(reps) != x.ndim:
        # tfjs's message says "transpose" here too
        raise ValueError(
            f"Error in transpose: rank of input {x.ndim} must match length of reps "
            f"{_js.array(reps)}."
        )
    where = f"x shape [{_js.array(x.shape)}], reps [{_js.array(reps)}]"
    _checks.check_size(
        _checks.product(d * r for d, r in zip(x.shape, reps)), "tile", "reps", x.dtype, where
    )
    return jnp.tile(x, [int(r) for r in reps])


@op("pad", x=NUMERIC)
def pad(x: ArrayLike, paddings: Sequence[Sequence[int]], constant_value: float = 0) -> jax.Array:
    """x padded with `constant_value`: `paddings[i] = [before, after]` for axis i, like
    `tf.pad`.

    >>> import tfjs_grad as tf
    >>> tf.pad([1, 2], [[1, 2]])
    Tensor([0., 1., 2., 0., 0.], shape=(5,), dtype=float32)
    """
    if x.ndim == 0:
        raise ValueError("pad(scalar) is not defined. Pass non-scalar to pad")
    pairs = [(before, after) for before, after in paddings]
    if len(pairs) != x.ndim:
        raise ValueError(
            f"Error in pad: paddings must have one [before, after] pair per axis of x "
            f"(rank {x.ndim}), but got {len(pairs)}"
        )
    padded = _checks.product(d + before + after for d, (before, after) in zip(x.shape, pairs))
    _checks.check_size(padded, "pad", "paddings", x.dtype, f"x shape [{_js.array(x.shape)}]")
    widths = [(int(before), int(after)) for before, after in pairs]
    return jnp.pad(x, widths, constant_values=jnp.asarray(constant_value).astype(x.dtype))


expandDims = expand_dims
