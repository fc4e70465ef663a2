"""tf.sparse (OPS2.md "Math, sparse, ragged"): sparseFillEmptyRows, sparseReshape,
sparseSegmentSum, sparseSegmentMean.

A sparse tensor is dense `indices` ([n, rank] int32), `values` ([n]) and a dense shape. The
result's shape depends on the indices' values, so the index and shape arguments must be
concrete (EagerOnlyError while JAX traces them); the values may be traced, so the results
are differentiable with respect to them (tfjs has no gradient for these ops; this is the true
derivative, the indices held fixed).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from .._tensors import NUMERIC, ArrayLike, op
from . import _js
from ._eager import host
from ._results import ByKey, from_arrays

__all__ = [
    "SparseFillEmptyRows",
    "SparseReshape",
    "sparse_fill_empty_rows",
    "sparse_reshape",
    "sparse_segment_mean",
    "sparse_segment_sum",
    "sparseFillEmptyRows",
    "sparseReshape",
    "sparseSegmentMean",
    "sparseSegmentSum",
]


class SparseFillEmptyRowsFields(NamedTuple):
    outputIndices: Tensor
    outputValues: Tensor
    emptyRowIndicator: Tensor
    reverseIndexMap: Tensor


class SparseFillEmptyRows(ByKey, SparseFillEmptyRowsFields):
    """`sparseFillEmptyRows`'s four outputs (also by key)."""

    __slots__ = ()


class SparseReshapeFields(NamedTuple):
    outputIndices: Tensor
    outputShape: Tensor


class SparseReshape(ByKey, SparseReshapeFields):
    """`sparseReshape`'s `{outputIndices, outputShape}` (also by key)."""

    __slots__ = ()


def _rank(argument: str, value: Any, rank: int, sep: str = " ") -> None:
    if value.ndim != rank:
        kind = {0: "a scalar", 1: "Tensor1D", 2: "Tensor2D"}[rank]
        raise ValueError(
            f"{argument} should be {kind} but received shape{sep}{_js.array(value.shape)}"
        )


@op("sparseFillEmptyRows", values=NUMERIC, default_value=NUMERIC)
def sparse_fill_empty_rows(
    indices: ArrayLike, values: ArrayLike, dense_shape: ArrayLike, default_value: ArrayLike
) -> SparseFillEmptyRows:
    """Give every empty row of a sparse tensor one entry `[row, 0, ...]` of default_value,
    like `tf.sparse.sparseFillEmptyRows`.

    Returns:
      `{outputIndices, outputValues, emptyRowIndicator, reverseIndexMap}`: the entries in
      row order (stable within a row); bool per dense row, true where it was empty; for each
      input entry its position in the output.

    >>> import tfjs_grad as tf
    >>> r = tf.sparse.sparse_fill_empty_rows([[0, 0], [2, 1]], [5.0, 6.0], [3, 2], -1)
    >>> r.outputIndices.tolist(), r.outputValues.tolist(), r.emptyRowIndicator.tolist()
    ([[0, 0], [1, 0], [2, 1]], [5.0, -1.0, 6.0], [False, True, False])
    """
    name = "sparseFillEmptyRows"
    idx = host(name, "indices", indices).astype(np.int64)
    shape = host(name, "denseShape", dense_shape).astype(np.int64)
    default_value = default_value.astype(values.dtype)
    _rank("Indices", idx, 2, "\n        ")
    _rank("Values", values, 1)
    _rank("Dense shape", shape, 1)
    _rank("Default value", default_value, 0)
    n, rank = idx.shape
    dense_rows = int(shape[0])
    rows = idx[:, 0]
    if n and (rows.min() < 0 or rows.max() >= dense_rows):
        bad = int(np.nonzero((rows < 0) | (rows >= dense_rows))[0][0])
        raise ValueError(f"indices({bad}, 0) is invalid: {rows[bad]} >= {dense_rows}")
    counts = np.bincount(rows, minlength=dense_rows)
    empty = counts == 0
    per_row = np.where(empty, 1, counts)
    starts = np.concatenate([[0], np.cumsum(per_row)[:-1]]).astype(np.int64)
    order = np.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    within = np.arange(n) - np.searchsorted(sorted_rows, sorted_rows, "left")
    position = np.empty(n, np.int64)
    position[order] = starts[sorted_rows] + within
    total = int(per_row.sum())
    out_indices = np.zeros((total, rank), np.int32)
    out_indices[position] = idx
    out_indices[starts[empty], 0] = np.nonzero(empty)[0]
    fill = jnp.broadcast_to(default_value.astype(values.dtype), (total,))
    out_values = fill.at[position].set(values) if n else fill
    return from_arrays(
        SparseFillEmptyRows,
        jnp.asarray(out_indices),
        out_values,
        jnp.asarray(empty),
        jnp.asarray(position.astype(np.int32)),
    )


@op("sparseReshape")
def sparse_reshape(
    input_indices: ArrayLike, input_shape: ArrayLike, new_shape: ArrayLike
) -> SparseReshape:
    """The indices of a sparse tensor reshaped from input_shape to new_shape (one dim may be
    -1), like `tf.sparse.sparseReshape`.

    Returns:
      `{outputIndices, outputShape}`, both int32.

    >>> import tfjs_grad as tf
    >>> r = tf.sparse.sparse_reshape([[0, 1], [1, 0]], [2, 2], [-1])
    >>> r.outputIndices.tolist(), r.outputShape.tolist()
    ([[1], [2]], [4])
    """
    name = "sparseReshape"
    idx = host(name, "inputIndices", input_indices).astype(np.int64)
    old = host(name, "inputShape", input_shape).astype(np.int64)
    new = host(name, "newShape", new_shape).astype(np.int64).copy()
    _rank("Input indices", idx, 2, "\n        ")
    _rank("Input shape", old, 1)
    _rank("New shape", new, 1)
    dense_size = int(np.prod(old))
    unknown = np.nonzero(new == -1)[0]
    if len(unknown) > 1:
        raise ValueError(
            f"only one output dimension may be -1, not both {unknown[0]} and {unknown[1]}"
        )
    known = int(np.prod(new[new != -1]))
    if len(unknown):
        if known == 0 or dense_size % known:
            raise ValueError(
                "Input to reshape is a SparseTensor with "
                f"{dense_size} dense values, but the requested shape requires a multiple of "
                f"{known}. inputShape={_js.array(old)} outputShape= {_js.array(new)}"
            )
        new[unknown[0]] = dense_size // known
    if int(np.prod(new)) != dense_size:
        raise ValueError(
            f"Input to reshape is a tensor with {dense_size} dense values, but the requested "
            f"shape has {int(np.prod(new))}. inputShape={_js.array(old)} "
            f"outputShape={_js.array(new)}"
        )
    strides = np.concatenate([np.cumprod(old[::-1])[::-1][1:], [1]]).astype(np.int64)
    linear = idx @ strides if idx.size else np.zeros(idx.shape[0], np.int64)
    out = np.zeros((idx.shape[0], len(new)), np.int64)
    for axis in range(len(new) - 1, -1, -1):  # unravel, last axis first
        out[:, axis] = linear % new[axis] if new[axis] else 0
        linear = linear // new[axis] if new[axis] else linear
    return from_arrays(
        SparseReshape,
        jnp.asarray(out.reshape(idx.shape[0], len(new)).astype(np.int32)),
        jnp.asarray(new.astype(np.int32)),
    )


def _segments(
    name: str, data: jax.Array, indices: jax.Array, segment_ids: jax.Array, mean: bool
) -> jax.Array:
    idx = host(name, "indices", indices).astype(np.int64)
    ids = host(name, "segmentIds", segment_ids).astype(np.int64)
    if data.ndim < 1:
        raise ValueError("Data should be at least 1 dimensional but received scalar")
    _rank("Indices", idx, 1, "\n         ")
    _rank("Segment ids", ids, 1, "\n         ")
    if idx.shape != ids.shape:
        raise ValueError("segmentIds and indices should have same size.")
    if np.any(np.diff(ids) < 0):
        raise ValueError("segment ids are not increasing")
    if len(idx) and (idx.min() < 0 or idx.max() >= data.shape[0]):
        i = int(np.nonzero((idx < 0) | (idx >= data.shape[0]))[0][0])
        raise ValueError(f"Bad: indices[{i}] == {idx[i]} out of range [0, {data.shape[0]})")
    segments = int(ids[-1]) + 1 if len(ids) else 0
    if len(ids) and ids[0] < 0:
        raise ValueError("segment ids must be >= 0")
    rows = jnp.take(data, jnp.asarray(idx.astype(np.int32)), axis=0)
    total = jax.ops.segment_sum(rows, jnp.asarray(ids.astype(np.int32)), segments)
    if not mean:
        return total
    counts = np.maximum(np.bincount(ids, minlength=segments), 1).astype(np.float32)
    counts = counts.reshape((segments,) + (1,) * (data.ndim - 1))
    return (total / jnp.asarray(counts)).astype(data.dtype)


@op("sparseSegmentSum", data=NUMERIC)
def sparse_segment_sum(data: ArrayLike, indices: ArrayLike, segment_ids: ArrayLike) -> jax.Array:
    """Rows of data picked by indices, summed per (sorted) segment id, like
    `tf.sparse.sparseSegmentSum`; the result has `segmentIds[-1] + 1` rows (gaps are 0).

    >>> import tfjs_grad as tf
    >>> tf.sparse.sparse_segment_sum([[1, 2], [3, 4], [5, 6]], [0, 2, 1], [0, 0, 1]).tolist()
    [[6.0, 8.0], [3.0, 4.0]]
    """
    return _segments("sparseSegmentSum", data, indices, segment_ids, mean=False)


@op("sparseSegmentMean", data=NUMERIC)
def sparse_segment_mean(data: ArrayLike, indices: ArrayLike, segment_ids: ArrayLike) -> jax.Array:
    """Rows of data picked by indices, averaged per (sorted) segment id, like
    `tf.sparse.sparseSegmentMean`; an empty segment is 0.

    >>> import tfjs_grad as tf
    >>> tf.sparse.sparse_segment_mean([[1, 2], [3, 4], [5, 6]], [0, 2, 1], [0, 0, 1]).tolist()
    [[3.0, 4.0], [3.0, 4.0]]
    """
    return _segments("sparseSegmentMean", data, indices, segment_ids, mean=True)


sparseFillEmptyRows = sparse_fill_empty_rows
sparseReshape = sparse_reshape
sparseSegmentMean = sparse_segment_mean
sparseSegmentSum = sparse_segment_sum


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
