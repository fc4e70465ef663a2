"""tfjs's async ops: whereAsync, setdiff1dAsync, booleanMaskAsync, inTopKAsync.

tfjs returns a Promise; here each returns an awaitable (`await tf.whereAsync(c)`, or
`asyncio.run(...)` around a coroutine that awaits it). The result is computed when the op
is called, so argument errors raise there, and `tf.tidy` sees its arrays. The results of the
first three have shapes that depend on the input's values, and tfjs reads the input's values
in every one of them, so all four run eagerly only: while JAX traces they raise
`EagerOnlyError` naming the op.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any, Generic, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from .._scope import track
from .._tensor import Tensor
from .._tensors import BOOL, INT, NUMERIC, ArrayLike, op
from . import _js

__all__ = [
    "boolean_mask_async",
    "booleanMaskAsync",
    "in_top_k_async",
    "inTopKAsync",
    "setdiff1d_async",
    "setdiff1dAsync",
    "where_async",
    "whereAsync",
]

T = TypeVar("T")


@jax.tree_util.register_pytree_node_class
class Resolved(Generic[T]):
    """An awaitable whose `await` gives a value that is already computed (a resolved
    Promise). A JAX pytree of its value, so `tf.tidy` tracks the arrays inside."""

    __slots__ = ("value",)

    def __init__(self, value: T) -> None:
        self.value = value

    def __await__(self) -> Generator[None, None, T]:
        return self.value
        yield  # a generator: `await` returns the value without suspending

    def tree_flatten(self) -> tuple[tuple[T], None]:
        return (self.value,), None

    @classmethod
    def tree_unflatten(cls, _aux: None, children: Sequence[Any]) -> Resolved[Any]:
        return cls(children[0])

    def __repr__(self) -> str:
        return f"Resolved({self.value!r})"


def resolved(value: Any) -> Resolved[Any]:
    """`value` as a resolved awaitable, its arrays as `tf.Tensor`s recorded for `tf.tidy`
    (the op decorator does not look inside a Resolved)."""
    return Resolved(track(value))


@op("whereAsync", eager_only=True, condition=BOOL)
def where_async(condition: ArrayLike) -> Resolved[Tensor]:
    """An awaitable of the int32 coordinates `[n, rank]` of the true entries of a bool
    tensor, in row-major order, like `tf.whereAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     return (await tf.where_async([[True, False], [False, True]])).tolist()
    >>> asyncio.run(main())
    [[0, 0], [1, 1]]
    """
    coords = np.argwhere(np.asarray(condition)).astype(np.int32)
    return resolved(jnp.asarray(coords.reshape(-1, condition.ndim)))


@op("setdiff1dAsync", eager_only=True, x=NUMERIC, y=NUMERIC)
def setdiff1d_async(x: ArrayLike, y: ArrayLike) -> Resolved[list[Tensor]]:
    """An awaitable of `[values, indices]`: the entries of vector x that are not in vector y,
    in x's order with duplicates kept, and their int32 positions in x, like
    `tf.setdiff1dAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     return await tf.setdiff1d_async([4, 1, 4, 3], [3])
    >>> values, indices = asyncio.run(main())
    >>> values.tolist(), indices.tolist()
    ([4.0, 1.0, 4.0], [0, 1, 2])
    """
    if x.dtype != y.dtype:
        raise ValueError(
            f"x and y should have the same dtype, but got x ({x.dtype}) and y ({y.dtype})."
        )
    if x.ndim != 1:
        raise ValueError(f"x should be 1D tensor, but got x ({_js.array(x.shape)}).")
    if y.ndim != 1:
        raise ValueError(f"y should be 1D tensor, but got y ({_js.array(y.shape)}).")
    keep = np.flatnonzero(~np.isin(np.asarray(x), np.asarray(y)))
    return resolved([jnp.asarray(np.asarray(x)[keep]), jnp.asarray(keep, jnp.int32)])


@op("booleanMaskAsync", eager_only=True, tensor=NUMERIC, mask=BOOL)
def boolean_mask_async(
    tensor: ArrayLike, mask: ArrayLike, axis: int | None = None
) -> Resolved[Tensor]:
    """An awaitable of the slices of `tensor` where the bool `mask` is true; the mask covers
    the axes from `axis` (default 0) on, like `tf.booleanMaskAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     return (await tf.boolean_mask_async([[1, 2], [3, 4], [5, 6]], [True, False, True]))
    >>> asyncio.run(main()).tolist()
    [[1.0, 2.0], [5.0, 6.0]]
    """
    start = 0 if axis is None else int(axis)
    if mask.ndim == 0:
        raise ValueError("mask cannot be scalar")
    covered = tuple(tensor.shape[start : start + mask.ndim])
    if covered != tuple(mask.shape):
        raise ValueError(
            "mask's shape must match the first K dimensions of tensor's shape, Shapes "
            f"{_js.array(covered)} and {_js.array(mask.shape)} must match"
        )
    flat = jnp.reshape(tensor, (*tensor.shape[:start], -1, *tensor.shape[start + mask.ndim :]))
    positions = np.flatnonzero(np.asarray(mask).reshape(-1)).astype(np.int32)
    return resolved(jnp.take(flat, jnp.asarray(positions), axis=start))


@op("inTopKAsync", eager_only=True, predictions=NUMERIC, targets=INT)
def in_top_k_async(predictions: ArrayLike, targets: ArrayLike, k: int = 1) -> Resolved[Tensor]:
    """An awaitable of bools, one per row of `predictions`: whether the int32 target's
    entry is among the row's k largest (ties: the lower index ranks first), like
    `tf.inTopKAsync`.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     return await tf.in_top_k_async([[0.1, 0.9], [0.8, 0.2]], [1, 1])
    >>> asyncio.run(main()).tolist()
    [True, False]
    """
    if predictions.ndim <= 1:
        raise ValueError(
            "inTopK() expects the predictions to be of rank 2 or higher, but got "
            f"{predictions.ndim}"
        )
    if predictions.ndim - 1 != targets.ndim:
        raise ValueError(
            "predictions rank should be 1 larger than targets rank, but got predictions rank "
            f"{predictions.ndim} and targets rank {targets.ndim}"
        )
    if tuple(predictions.shape[:-1]) != tuple(targets.shape):
        raise ValueError(
            "predictions's shape should be align with the targets' shape, except the last "
            f"dimension. Shapes {_js.array(predictions.shape[:-1])} and "
            f"{_js.array(targets.shape)} must match"
        )
    last = predictions.shape[-1]
    if not 0 < k <= last:
        raise ValueError(
            "'k' passed to inTopK() must be > 0 && <= the predictions last dimension "
            f"({last}), but got {k}"
        )
    target = jnp.take_along_axis(predictions, targets[..., None].astype(jnp.int32), axis=-1)
    position = jnp.arange(last)
    ahead = (predictions > target) | ((predictions == target) & (position < targets[..., None]))
    return resolved(jnp.sum(ahead, axis=-1) < k)


whereAsync = where_async
setdiff1dAsync = setdiff1d_async
booleanMaskAsync = boolean_mask_async
inTopKAsync = in_top_k_async
