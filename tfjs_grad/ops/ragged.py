"""Ragged ops (OPS2.md "Math, sparse, ragged"): raggedGather, raggedRange,
raggedTensorToTensor.

A ragged tensor is flat `values` and, per ragged dimension, int32 row splits (row i holds
values[splits[i]:splits[i + 1]]). Splits, indices and shapes decide the result's shape, so
they must be concrete (EagerOnlyError while JAX traces them); the values may be traced, and
the results are differentiable with respect to them (the true derivative: tfjs has none).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from .._tensors import NUMERIC, ArrayLike, convert, op
from ._eager import host
from ._results import ByKey, from_arrays

__all__ = [
    "RaggedGather",
    "RaggedRange",
    "ragged_gather",
    "ragged_range",
    "ragged_tensor_to_tensor",
    "raggedGather",
    "raggedRange",
    "raggedTensorToTensor",
]


class RaggedGatherFields(NamedTuple):
    outputNestedSplits: list[Tensor]
    outputDenseValues: Tensor


class RaggedGather(ByKey, RaggedGatherFields):
    """`raggedGather`'s `{outputNestedSplits, outputDenseValues}` (also by key)."""

    __slots__ = ()


class RaggedRangeFields(NamedTuple):
    rtNestedSplits: Tensor
    rtDenseValues: Tensor


class RaggedRange(ByKey, RaggedRangeFields):
    """`raggedRange`'s `{rtNestedSplits, rtDenseValues}` (also by key)."""

    __slots__ = ()


def _ranges(starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """The concatenation of range(s, e) for each pair."""
    if not len(starts):
        return np.zeros(0, np.int64)
    return np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)] or [[]]).astype(np.int64)


def _splits_of(lengths: np.ndarray) -> jax.Array:
    return jnp.asarray(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))


@op("raggedGather", params_dense_values=NUMERIC)
def ragged_gather(
    params_nested_splits: Sequence[ArrayLike],
    params_dense_values: ArrayLike,
    indices: ArrayLike,
    output_ragged_rank: int,
) -> RaggedGather:
    """The rows of a ragged tensor picked by indices, like `tf.raggedGather`.

    Args:
      params_nested_splits: the row splits of each ragged dimension (int32, outermost first).
      params_dense_values: the flat values.
      indices: int32 indices into the outermost dimension (any rank).
      output_ragged_rank: `indices.rank - 1 + len(params_nested_splits)`.

    Returns:
      `{outputNestedSplits: [int32 ...], outputDenseValues}`.

    >>> import tfjs_grad as tf
    >>> r = tf.ragged_gather([[0, 2, 3]], [1.0, 2.0, 3.0], [1, 0], 1)
    >>> [s.tolist() for s in r.outputNestedSplits], r.outputDenseValues.tolist()
    ([[0, 1, 3]], [3.0, 1.0, 2.0])
    """
    name = "raggedGather"
    splits = [host(name, f"tensors{i}", s) for i, s in enumerate(params_nested_splits)]
    idx = host(name, "indices", indices).astype(np.int64)
    if output_ragged_rank != idx.ndim - 1 + len(splits):
        raise ValueError(
            f"outputRaggedRank must be {idx.ndim - 1 + len(splits)}, but got {output_ragged_rank}"
        )
    rows = len(splits[0]) - 1
    flat = idx.reshape(-1)
    if len(flat) and (flat.min() < 0 or flat.max() >= rows):
        bad = int(flat[(flat < 0) | (flat >= rows)][0])
        raise ValueError(f"indices[0] = {bad} is not in [0, {rows})")
    out: list[jax.Array] = []
    for d in range(idx.ndim - 1):  # the index dimensions are uniform
        outer, width = int(np.prod(idx.shape[: d + 1])), idx.shape[d + 1]
        out.append(jnp.asarray(np.arange(outer + 1, dtype=np.int32) * width))
    starts, ends = splits[0][flat].astype(np.int64), splits[0][flat + 1].astype(np.int64)
    for level in range(len(splits)):
        out.append(_splits_of(ends - starts))
        if level + 1 < len(splits):
            children = _ranges(starts, ends)
            starts = splits[level + 1][children].astype(np.int64)
            ends = splits[level + 1][children + 1].astype(np.int64)
    positions = jnp.asarray(_ranges(starts, ends).astype(np.int32))
    return from_arrays(RaggedGather, out, jnp.take(params_dense_values, positions, axis=0))


@op("raggedRange")
def ragged_range(starts: ArrayLike, limits: ArrayLike, deltas: ArrayLike) -> RaggedRange:
    """One range per row, `range(starts[i], limits[i], deltas[i])`, as a ragged tensor, like
    `tf.raggedRange`. Scalars broadcast; limits and deltas are parsed as starts' dtype.

    Returns:
      `{rtNestedSplits (int32), rtDenseValues (starts' dtype)}`.

    >>> import tfjs_grad as tf
    >>> r = tf.ragged_range(tf.tensor1d([0, 5], "int32"), [3, 3], [1, -1])
    >>> r.rtNestedSplits.tolist(), r.rtDenseValues.tolist()
    ([0, 3, 5], [0, 1, 2, 5, 4])
    """
    name = "raggedRange"
    first = host(name, "starts", starts, None)
    dtype = "int32" if first.dtype.kind in "iu" else "float32"
    arrays = [first, host(name, "limits", limits, dtype), host(name, "deltas", deltas, dtype)]
    for n, a in zip(("starts", "limits", "deltas"), arrays):
        if a.ndim > 1:
            raise ValueError(f"{n} must be a scalar or vector")
    sizes = {a.size for a in arrays if a.ndim == 1}
    if len(sizes) > 1:
        raise ValueError("starts, limits, and deltas must have the same shape")
    n = sizes.pop() if sizes else 1
    s, lim, d = (np.broadcast_to(a.astype(np.float64), (n,)) for a in arrays)
    if np.any(d == 0):
        raise ValueError("Requires delta != 0")
    counts = np.where(
        d > 0,
        np.where(s < lim, np.ceil((lim - s) / np.where(d > 0, d, 1)), 0),
        np.where(s > lim, np.ceil((s - lim) / np.where(d < 0, -d, 1)), 0),
    ).astype(np.int64)
    row = np.repeat(np.arange(n), counts)
    k = np.arange(int(counts.sum())) - np.repeat(
        np.concatenate([[0], np.cumsum(counts)[:-1]]), counts
    )
    values = s[row] + k * d[row]
    out = values.astype(np.int32) if dtype == "int32" else values.astype(np.float32)
    return from_arrays(RaggedRange, _splits_of(counts), jnp.asarray(out))


def _row_splits(types: list[str], partitions: list[np.ndarray]) -> tuple[int, list[np.ndarray]]:
    """(number of top rows, row splits per ragged dimension) from tfjs's row partitions."""
    if types and types[0] == "FIRST_DIM_SIZE":
        rows = int(partitions[0])
        splits, count = [], rows
        for kind, part in zip(types[1:], partitions[1:]):
            if kind != "VALUE_ROWIDS":
                raise ValueError(f"Unsupported partition type after FIRST_DIM_SIZE: {kind}")
            ids = part.astype(np.int64)
            splits.append(np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=count))]))
            count = len(ids)
        return rows, splits
    if not all(kind == "ROW_SPLITS" for kind in types):
        raise ValueError(f"Invalid rowPartitionTypes: {types}")
    splits = [p.astype(np.int64) for p in partitions]
    return len(splits[0]) - 1, splits


@op("raggedTensorToTensor", values=NUMERIC)
def ragged_tensor_to_tensor(
    shape: Any,
    values: ArrayLike,
    default_value: ArrayLike,
    row_partition_tensors: Sequence[ArrayLike],
    row_partition_types: Sequence[str],
) -> jax.Array:
    """A ragged tensor as a dense one of `shape`, padded with default_value, like
    `tf.raggedTensorToTensor`. Rows longer than shape are cut; a -1 dim fits the longest.

    Args:
      shape: the dense shape (a list or an int32 tensor; -1 for "as needed").
      values: the flat values.
      default_value: the padding (a scalar, or the shape of values' inner dims).
      row_partition_tensors: int32 partitions, outermost first.
      row_partition_types: 'ROW_SPLITS' for each, or 'FIRST_DIM_SIZE' (a scalar row count)
        followed by 'VALUE_ROWIDS' (each value's row).

    >>> import tfjs_grad as tf
    >>> tf.ragged_tensor_to_tensor([2, 3], [1, 2, 3], 0, [[0, 2, 3]], ["ROW_SPLITS"]).tolist()
    [[1.0, 2.0, 0.0], [3.0, 0.0, 0.0]]
    """
    name = "raggedTensorToTensor"
    default = convert(default_value, argument="defaultValue", fn=name, dtype=None)
    default = default.astype(values.dtype)
    partitions = [host(name, f"tensors{i}", t) for i, t in enumerate(row_partition_tensors)]
    rows, splits = _row_splits(list(row_partition_types), partitions)
    coords = [np.arange(rows, dtype=np.int64)[:, None]]  # per level: the dense index of each row
    for level_splits in splits:
        child = np.arange(int(level_splits[-1]))
        parent = np.searchsorted(level_splits, child, "right") - 1
        column = child - level_splits[parent]
        coords.append(np.concatenate([coords[-1][parent], column[:, None]], axis=1))
    index = coords[-1]  # [values, ragged rank + 1]
    requested = [int(d) for d in host(name, "shape", shape).reshape(-1)]
    inner = tuple(values.shape[1:])
    outer = [
        (int(index[:, i].max()) + 1 if len(index) else 0) if d == -1 else d
        for i, d in enumerate(requested[: index.shape[1]])
    ]
    if index.shape[1] and outer and requested[0] == -1:
        outer[0] = rows
    out_shape = tuple(outer) + inner
    keep = np.all(index < np.asarray(outer), axis=1) if len(index) else np.zeros(0, bool)
    result = jnp.broadcast_to(default, out_shape)
    if not np.any(keep):
        return jnp.array(result)
    where = tuple(jnp.asarray(c.astype(np.int32)) for c in index[keep].T)
    kept = jnp.take(values, jnp.asarray(np.nonzero(keep)[0].astype(np.int32)), axis=0)
    return result.at[where].set(kept)


raggedGather = ragged_gather
raggedRange = ragged_range
raggedTensorToTensor = ragged_tensor_to_tensor
