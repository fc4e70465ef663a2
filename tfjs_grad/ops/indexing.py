"""Indexing ops of OPS2.md: stridedSlice, gatherND, scatterND, tensorScatterUpdate,
sparseToDense, unsortedSegmentSum.

Index tensors are int32 (array-likes are parsed so; float tensors raise tfjs's TypeError).
The ops are JAX indexing and `.at[]` updates, so they trace and differentiate, with the true
gradient where tfjs has none. As in JAX, out-of-range indices are not checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .._tensors import INT, NUMERIC, ArrayLike, Shape, convert, op
from . import _checks, _js

__all__ = [
    "gather_nd",
    "gatherND",
    "scatter_nd",
    "scatterND",
    "sparse_to_dense",
    "sparseToDense",
    "strided_slice",
    "stridedSlice",
    "tensor_scatter_update",
    "tensorScatterUpdate",
    "unsorted_segment_sum",
    "unsortedSegmentSum",
]


def _bit(mask: int, i: int) -> bool:
    return bool(int(mask) >> i & 1)


@op("stridedSlice", x=NUMERIC)
def strided_slice(
    x: ArrayLike,
    begin: Sequence[int],
    end: Sequence[int],
    strides: Sequence[int] | None = None,
    begin_mask: int = 0,
    end_mask: int = 0,
    ellipsis_mask: int = 0,
    new_axis_mask: int = 0,
    shrink_axis_mask: int = 0,
) -> jax.Array:
    """x sliced as TensorFlow's StridedSlice does, like `tf.stridedSlice`.

    Entry i of begin, end and strides slices one axis (negative values count from the end,
    negative strides walk backwards). Bit i of `begin_mask`/`end_mask` ignores begin[i]/end[i]
    (slice from the start/to the end), of `ellipsis_mask` makes entry i stand for every axis
    not otherwise named, of `new_axis_mask` inserts a size-1 axis, and of `shrink_axis_mask`
    takes the single index begin[i] and drops that axis. strides default to 1.

    >>> import tfjs_grad as tf
    >>> tf.strided_slice([[1, 2, 3], [4, 5, 6]], [0, 2], [2, 0], [1, -1]).tolist()
    [[3.0, 2.0], [6.0, 5.0]]
    """
    begin, end = [int(b) for b in begin], [int(e) for e in end]
    strides = [1] * len(begin) if strides is None else [int(s) for s in strides]
    for i, s in enumerate(strides):
        if s == 0:
            raise ValueError(f"strides[{i}] must be non-zero")
    if bin(int(ellipsis_mask)).count("1") > 1:
        raise ValueError("Multiple ellipses in slice is not allowed.")
    named = sum(
        not _bit(ellipsis_mask, i) and not _bit(new_axis_mask, i) for i in range(len(begin))
    )
    index: list[Any] = []
    dim = 0  # the axis of x that entry i slices
    for i in range(len(begin)):
        if _bit(ellipsis_mask, i):
            index.append(Ellipsis)
            dim += x.ndim - named
            continue
        if _bit(new_axis_mask, i):
            index.append(None)
            continue
        if _bit(shrink_axis_mask, i):
            if strides[i] <= 0:
                raise ValueError("only stride 1 allowed on non-range indexing.")
            forward = begin[i] + x.shape[dim] if begin[i] < 0 and dim < x.ndim else begin[i]
            if dim >= x.ndim or not 0 <= forward < x.shape[dim]:
                raise ValueError(f"slice index {forward} of dimension {dim} out of bounds.")
            index.append(forward)
        else:
            start = None if _bit(begin_mask, i) else begin[i]
            stop = None if _bit(end_mask, i) else end[i]
            index.append(slice(start, stop, strides[i] if i < len(strides) else 1))
        dim += 1
    return x[tuple(index)]


def _index_tuple(indices: jax.Array) -> tuple[jax.Array, ...]:
    return tuple(jnp.moveaxis(indices, -1, 0))


@op("gatherND", x=NUMERIC, indices=INT)
def gather_nd(x: ArrayLike, indices: ArrayLike) -> jax.Array:
    """The slices of x at int32 index vectors (the last axis of `indices`), like
    `tf.gatherND`: the result's shape is `indices.shape[:-1] + x.shape[K:]`.

    >>> import tfjs_grad as tf
    >>> tf.gather_nd([[1, 2], [3, 4]], [[0, 1], [1, 0]]).tolist()
    [2.0, 3.0]
    """
    return x[_index_tuple(indices)]


def _scatter_checks(updates: jax.Array, indices: jax.Array, shape: Sequence[int]) -> None:
    """tfjs's scatter_nd_util.validateInput, with its messages."""
    if indices.ndim < 1:
        raise ValueError(
            "tf.scatterND() expects the indices to be rank 1 or higher, but the rank was "
            f"{indices.ndim}."
        )
    if updates.ndim < 1:
        raise ValueError(
            "tf.scatterND() expects the updates to be rank 1 or higher, but the rank was "
            f"{updates.ndim}."
        )
    if len(shape) < 1:
        raise ValueError(
            f"Output rank must be greater or equal to 1, but got shape: {_js.array(shape)}"
        )
    slice_dim = indices.shape[-1] if indices.ndim > 1 else 1
    batch_dim = indices.ndim - 1 if indices.ndim > 1 else 1
    error = (
        "Must have updates.shape = indices.shape[:batchDim] + shape[sliceDim:], got "
        f"updates.shape: {_js.array(updates.shape)}, indices.shape: {_js.array(indices.shape)}, "
        f"shape: {_js.array(shape)}, sliceDim: {slice_dim}, and batchDim: {batch_dim}."
    )
    if updates.ndim < batch_dim:
        raise ValueError(f"{error} update.rank < {batch_dim}. ")
    if len(shape) < slice_dim + (updates.ndim - batch_dim):
        raise ValueError(f"{error} Output shape length < {slice_dim + updates.ndim - batch_dim}")
    if updates.ndim != batch_dim + len(shape) - slice_dim:
        raise ValueError(f"{error} update.rank != {batch_dim + len(shape) - slice_dim}")
    for d in range(batch_dim):
        if updates.shape[d] != indices.shape[d]:
            raise ValueError(
                f"{error} updates.shape[{d}] ({updates.shape[d]}) != indices.shape[{d}] "
                f"({indices.shape[d]})."
            )
    for d in range(updates.ndim - batch_dim):
        if updates.shape[d + batch_dim] != shape[d + slice_dim]:
            raise ValueError(
                f"{error} updates.shape[{d + batch_dim}] ({updates.shape[d + batch_dim]}) != "
                f"shape[{d + batch_dim}] ({shape[d + batch_dim]})"
            )


def _nd(indices: jax.Array) -> jax.Array:
    return indices[:, None] if indices.ndim == 1 else indices


@op("scatterND", indices=INT, updates=NUMERIC)
def scatter_nd(indices: ArrayLike, updates: ArrayLike, shape: Shape) -> jax.Array:
    """A zero tensor of `shape` with `updates` added at the int32 index vectors `indices`
    (duplicates add up), like `tf.scatterND`.

    >>> import tfjs_grad as tf
    >>> tf.scatter_nd([[1], [3], [1]], [5, 6, 7], [4]).tolist()
    [0.0, 12.0, 0.0, 6.0]
    """
    shape = _checks.sized_shape(shape, "scatterND", updates.dtype)
    _scatter_checks(updates, indices, shape)
    return jnp.zeros(shape, updates.dtype).at[_index_tuple(_nd(indices))].add(updates)


@op("tensorScatterUpdate", tensor=NUMERIC, indices=INT, updates=NUMERIC)
def tensor_scatter_update(tensor: ArrayLike, indices: ArrayLike, updates: ArrayLike) -> jax.Array:
    """`tensor` with the slices at the int32 index vectors `indices` replaced by `updates`,
    like `tf.tensorScatterUpdate`.

    >>> import tfjs_grad as tf
    >>> tf.tensor_scatter_update([1, 2, 3], [[0], [2]], [9, 8]).tolist()
    [9.0, 2.0, 8.0]
    """
    _scatter_checks(updates, indices, tensor.shape)
    if tensor.dtype != updates.dtype:
        raise ValueError(
            "tensor and updates must have the same dtype, instead they are "
            f"{tensor.dtype} and {updates.dtype}."
        )
    return tensor.at[_index_tuple(_nd(indices))].set(updates)


@op("sparseToDense", sparse_indices=INT, sparse_values=NUMERIC)
def sparse_to_dense(
    sparse_indices: ArrayLike,
    sparse_values: ArrayLike,
    output_shape: Shape,
    default_value: Any = 0,
) -> jax.Array:
    """A tensor of `output_shape` holding `sparse_values` at `sparse_indices` and
    `default_value` elsewhere, in the values' dtype, like `tf.sparseToDense`.

    `sparse_indices` is a scalar or vector (positions along a rank-1 output) or a matrix of
    index vectors; `sparse_values` a scalar (used everywhere) or one value per index.

    >>> import tfjs_grad as tf
    >>> tf.sparse_to_dense(tf.tensor1d([0, 3], "int32"), [5, 6], [4]).tolist()
    [5.0, 0.0, 0.0, 6.0]
    """
    output_shape = _checks.shape_arg(output_shape)
    default = convert(default_value, argument="defaultValue", fn="sparseToDense")
    if default.ndim != 0:
        raise ValueError("defaultValue must be a scalar.")
    count = sparse_indices.shape[0] if sparse_indices.ndim > 0 else 1
    dims = sparse_indices.shape[1] if sparse_indices.ndim > 1 else 1
    if sparse_indices.ndim > 2:
        raise ValueError(
            f"sparseIndices should be a scalar, vector, or matrix, but got shape "
            f"{_js.array(sparse_indices.shape)}."
        )
    if dims != len(output_shape):
        raise ValueError(
            f"outputShape has incorrect number of elements:, {len(output_shape)}, should be: "
            f"{dims}."
        )
    if sparse_values.ndim > 1 or (sparse_values.ndim == 1 and sparse_values.shape[0] != count):
        raise ValueError(
            f"sparseValues has incorrect shape {_js.array(sparse_values.shape)}, should be [] "
            f"or [{count}]"
        )
    _checks.sized_shape(output_shape, "sparseToDense", sparse_values.dtype, "outputShape")
    index = jnp.reshape(sparse_indices, (count, dims))
    dense = jnp.full(output_shape, default.astype(sparse_values.dtype))
    return dense.at[_index_tuple(index)].set(sparse_values)


@op("unsortedSegmentSum", x=NUMERIC, segment_ids=INT)
def unsorted_segment_sum(x: ArrayLike, segment_ids: ArrayLike, num_segments: int) -> jax.Array:
    """The sums of x's rows (axis 0) grouped by int32 `segment_ids`, `num_segments` of them,
    like `tf.unsortedSegmentSum`.

    >>> import tfjs_grad as tf
    >>> tf.unsorted_segment_sum([1, 2, 3], tf.tensor1d([1, 0, 1], "int32"), 2).tolist()
    [2.0, 4.0]
    """
    if int(num_segments) != num_segments:
        raise ValueError("numSegments must be of dtype int")
    return jax.ops.segment_sum(x, segment_ids, num_segments=int(num_segments))


gatherND = gather_nd
scatterND = scatter_nd
sparseToDense = sparse_to_dense
stridedSlice = strided_slice
tensorScatterUpdate = tensor_scatter_update
unsortedSegmentSum = unsorted_segment_sum
