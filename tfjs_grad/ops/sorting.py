"""Sorting, searching, counting and sets: topk, unique, searchSorted, lowerBound, upperBound,
bincount, denseBincount.

`topk` and `unique` return tfjs's `{values, indices}` object as a NamedTuple (`r.values`,
`r['indices']`). `unique` reads its input's values to size its result, so it runs eagerly
only. The searches return int32 of shape `[rows, n]`, as tfjs (a 1-D search gives `[1, n]`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from .._tensor import Tensor
from .._tensors import NUMERIC, ArrayLike, op
from . import _checks, _js
from ._results import ByKey, from_arrays

__all__ = [
    "TopK",
    "Unique",
    "bincount",
    "dense_bincount",
    "denseBincount",
    "lower_bound",
    "lowerBound",
    "search_sorted",
    "searchSorted",
    "topk",
    "unique",
    "upper_bound",
    "upperBound",
]


class ValuesAndIndices(NamedTuple):
    values: Tensor
    indices: Tensor


class TopK(ByKey, ValuesAndIndices):
    """`topk`'s `{values, indices}` (also `r['values']`)."""

    __slots__ = ()


class Unique(ByKey, ValuesAndIndices):
    """`unique`'s `{values, indices}` (also `r['values']`)."""

    __slots__ = ()


@op("topk", x=NUMERIC)
def topk(x: ArrayLike, k: int = 1, sorted: bool = True) -> TopK:
    """The k largest entries of x's last axis and their int32 indices, largest first (ties:
    the lower index first), like `tf.topk`.

    >>> import tfjs_grad as tf
    >>> r = tf.topk([1, 5, 3], 2)
    >>> r.values.tolist(), r.indices.tolist()
    ([5.0, 3.0], [1, 2])
    """
    if x.ndim == 0:
        raise ValueError("topk() expects the input to be of rank 1 or higher")
    last = x.shape[-1]
    if k < 0:
        raise ValueError(f"'k' passed to topk() must be >= 0 but got {k}")
    if k > last:
        raise ValueError(f"'k' passed to topk() must be <= the last dimension ({last}) but got {k}")
    values, indices = jax.lax.top_k(x, int(k))
    return from_arrays(TopK, values, indices.astype(jnp.int32))


@op("unique", eager_only=True, x=NUMERIC)
def unique(x: ArrayLike, axis: int = 0) -> Unique:
    """The distinct slices of x along axis, in order of first occurrence, and for each slice
    of x the int32 index of its value, like `tf.unique` (eager only: the number of distinct
    values sizes the result).

    >>> import tfjs_grad as tf
    >>> r = tf.unique([3, 1, 3, 2])
    >>> r.values.tolist(), r.indices.tolist()
    ([3.0, 1.0, 2.0], [0, 1, 0, 2])
    """
    if x.ndim == 0:
        raise ValueError("The input tensor must be at least 1D")
    (axis,) = _checks.axes(axis, x.ndim)
    host = np.moveaxis(np.asarray(x), axis, 0).reshape(x.shape[axis], -1)
    _, first, inverse = np.unique(host, axis=0, return_index=True, return_inverse=True)
    order = np.argsort(first)  # distinct rows by first occurrence
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    indices = rank[inverse.reshape(-1)]
    values = jnp.take(x, jnp.asarray(np.sort(first), jnp.int32), axis=axis)
    return from_arrays(Unique, values, jnp.asarray(indices, jnp.int32))


def _search(sorted_sequence: jax.Array, values: jax.Array, side: str) -> jax.Array:
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', but got '{side}'")
    if sorted_sequence.ndim == 0 or values.ndim == 0:
        raise ValueError("Sorted input argument must be at least 2-dimensional")
    sequence = jnp.reshape(sorted_sequence, (-1, sorted_sequence.shape[-1]))
    rows = jnp.reshape(values, (-1, values.shape[-1]))
    if sequence.shape[0] != rows.shape[0]:
        raise ValueError("Leading dimension of 'sortedSequence' and 'values' must match.")
    found = jax.vmap(lambda s, v: jnp.searchsorted(s, v, side=side))(sequence, rows)
    return found.astype(jnp.int32)


@op("searchSorted", sorted_sequence=NUMERIC, values=NUMERIC)
def search_sorted(sorted_sequence: ArrayLike, values: ArrayLike, side: str = "left") -> jax.Array:
    """For each value, the int32 index where it would be inserted into its row of the sorted
    sequence ('left': before equal entries, 'right': after), like `tf.searchSorted`.

    The leading axes of both are flattened into rows; the result is `[rows, n]`.

    >>> import tfjs_grad as tf
    >>> tf.search_sorted([1, 2, 2, 4], [2, 5]).tolist()
    [[1, 4]]
    """
    return _search(sorted_sequence, values, side)


@op("lowerBound", sorted_sequence=NUMERIC, values=NUMERIC)
def lower_bound(sorted_sequence: ArrayLike, values: ArrayLike) -> jax.Array:
    """`searchSorted(sortedSequence, values, 'left')`, like `tf.lowerBound`.

    >>> import tfjs_grad as tf
    >>> tf.lower_bound([1, 2, 2, 4], [2]).tolist()
    [[1]]
    """
    return _search(sorted_sequence, values, "left")


@op("upperBound", sorted_sequence=NUMERIC, values=NUMERIC)
def upper_bound(sorted_sequence: ArrayLike, values: ArrayLike) -> jax.Array:
    """`searchSorted(sortedSequence, values, 'right')`, like `tf.upperBound`.

    >>> import tfjs_grad as tf
    >>> tf.upper_bound([1, 2, 2, 4], [2]).tolist()
    [[3]]
    """
    return _search(sorted_sequence, values, "right")


@functools.partial(jax.jit, static_argnums=(2, 3))
def _count(x: jax.Array, weights: jax.Array, size: int, binary: bool) -> jax.Array:
    """Counts (or summed weights) of the values 0..size-1 in rank-1 x; others are ignored."""
    w = jnp.ones(x.shape, weights.dtype) if weights.size == 0 else jnp.reshape(weights, x.shape)
    slot = jnp.where((x >= 0) & (x < size), x, size)  # slot `size` collects the ignored
    if binary:
        hits = jnp.zeros(size + 1, jnp.bool_).at[slot].set(True)[:size]
        return hits.astype(weights.dtype)
    return jnp.zeros(size + 1, weights.dtype).at[slot].add(w)[:size]


def _bincount_checks(fn: str, x: jax.Array, weights: jax.Array, size: int) -> None:
    if x.dtype != jnp.int32:
        raise ValueError(f"Error in {fn}: input dtype must be int32, but got {x.dtype}")
    if size < 0:
        raise ValueError(f"size must be non-negative, but got {size}.")
    rows = x.shape[0] if x.ndim == 2 else 1
    _checks.check_size(rows * (size + 1), fn, "size", weights.dtype)
    if weights.size not in (x.size, 0):
        shapes = f"{_js.array(x.shape)}, weights shape: {_js.array(weights.shape)}."
        if fn == "bincount":  # tfjs's two messages differ in wording and spacing
            raise ValueError(
                "Error in bincount: weights must have the same size as input or0-length, but "
                f"got input shape: {shapes}"
            )
        raise ValueError(
            "Error in denseBincount: weights must have the same shape as x or 0-length, but "
            f"got x shape: {shapes}"
        )


@op("bincount", x=NUMERIC, weights=NUMERIC)
def bincount(x: ArrayLike, weights: ArrayLike, size: int) -> jax.Array:
    """How often each of 0..size-1 occurs in the int32 vector x, or the sum of the weights at
    its positions, in the weights' dtype, like `tf.bincount`. An empty `weights` counts.

    >>> import tfjs_grad as tf
    >>> tf.bincount(tf.tensor1d([1, 3, 1], "int32"), [], 4).tolist()
    [0.0, 2.0, 0.0, 1.0]
    """
    _bincount_checks("bincount", x, weights, size)
    return _count(jnp.reshape(x, -1), weights, int(size), False)


@op("denseBincount", x=NUMERIC, weights=NUMERIC)
def dense_bincount(
    x: ArrayLike, weights: ArrayLike, size: int, binary_output: bool = False
) -> jax.Array:
    """bincount of a rank-1 x, or of each row of a rank-2 x; `binary_output` gives 1 where
    a value occurs, like `tf.denseBincount`.

    >>> import tfjs_grad as tf
    >>> tf.dense_bincount(tf.tensor2d([[0, 1, 1], [2, 2, 0]], [2, 3], "int32"), [], 3).tolist()
    [[1.0, 2.0, 0.0], [1.0, 0.0, 2.0]]
    """
    _bincount_checks("denseBincount", x, weights, size)
    if x.ndim > 2:
        raise ValueError(
            f"Error in denseBincount: input must be at most rank 2, but got rank {x.ndim}."
        )
    size, binary = int(size), bool(binary_output)
    if x.ndim < 2:
        return _count(jnp.reshape(x, -1), weights, size, binary)
    if weights.size == 0:
        return jax.vmap(lambda row: _count(row, weights, size, binary))(x)
    return jax.vmap(lambda row, w: _count(row, w, size, binary))(x, weights)


lowerBound = lower_bound
upperBound = upper_bound
searchSorted = search_sorted
denseBincount = dense_bincount
