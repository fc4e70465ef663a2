"""reverse, and tfjs's rank-named forms of concat, pad, reverse and slice (`concat2d`,
`pad3d`, `reverse1d`, `slice4d`, ...): the general op after tfjs's rank or length check.
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

from .._tensors import LIST, NUMERIC, ArrayLike, inside, op
from . import _checks
from .shapes import concat, pad, slice_

__all__ = [
    "concat1d",
    "concat2d",
    "concat3d",
    "concat4d",
    "pad1d",
    "pad2d",
    "pad3d",
    "pad4d",
    "reverse",
    "reverse1d",
    "reverse2d",
    "reverse3d",
    "reverse4d",
    "slice1d",
    "slice2d",
    "slice3d",
    "slice4d",
]


@op("reverse", x=NUMERIC)
def reverse(x: ArrayLike, axis: int | Sequence[int] | None = None) -> jax.Array:
    """x with the order of its entries reversed along `axis` (None: every axis), like
    `tf.reverse`.

    >>> import tfjs_grad as tf
    >>> tf.reverse([[1, 2], [3, 4]], 1).tolist()
    [[2.0, 1.0], [4.0, 3.0]]
    """
    if x.ndim == 0:
        return jnp.array(x)
    return jnp.flip(x, _checks.axes(axis, x.ndim))


def _rank(x: jax.Array, rank: int) -> None:
    if x.ndim != rank:
        raise ValueError(f"Error in reverse{rank}D: x must be rank {rank} but got rank {x.ndim}.")


@op("reverse1d", x=NUMERIC)
def reverse1d(x: ArrayLike) -> jax.Array:
    """A rank-1 x reversed, like `tf.reverse1d`.

    >>> import tfjs_grad as tf
    >>> tf.reverse1d([1, 2, 3]).tolist()
    [3.0, 2.0, 1.0]
    """
    _rank(x, 1)
    return inside(reverse)(x, 0)


@op("reverse2d", x=NUMERIC)
def reverse2d(x: ArrayLike, axis: int | Sequence[int] | None = None) -> jax.Array:
    """A rank-2 x reversed along axis, like `tf.reverse2d`.

    >>> import tfjs_grad as tf
    >>> tf.reverse2d([[1, 2], [3, 4]], 0).tolist()
    [[3.0, 4.0], [1.0, 2.0]]
    """
    _rank(x, 2)
    return inside(reverse)(x, axis)


@op("reverse3d", x=NUMERIC)
def reverse3d(x: ArrayLike, axis: int | Sequence[int] | None = None) -> jax.Array:
    """A rank-3 x reversed along axis, like `tf.reverse3d`.

    >>> import tfjs_grad as tf
    >>> tf.reverse3d([[[1, 2]]], -1).tolist()
    [[[2.0, 1.0]]]
    """
    _rank(x, 3)
    return inside(reverse)(x, axis)


@op("reverse4d", x=NUMERIC)
def reverse4d(x: ArrayLike, axis: int | Sequence[int] | None = None) -> jax.Array:
    """A rank-4 x reversed along axis, like `tf.reverse4d`.

    >>> import tfjs_grad as tf
    >>> tf.reverse4d([[[[1, 2]]]], 3).tolist()
    [[[[2.0, 1.0]]]]
    """
    _rank(x, 4)
    return inside(reverse)(x, axis)


@op("concat1d", tensors=LIST)
def concat1d(tensors: Sequence[ArrayLike]) -> jax.Array:
    """Rank-1 tensors joined, like `tf.concat1d`.

    >>> import tfjs_grad as tf
    >>> tf.concat1d([[1], [2, 3]]).tolist()
    [1.0, 2.0, 3.0]
    """
    return inside(concat)(tensors, 0)


@op("concat2d", tensors=LIST)
def concat2d(tensors: Sequence[ArrayLike], axis: int) -> jax.Array:
    """Rank-2 tensors joined along axis, like `tf.concat2d`.

    >>> import tfjs_grad as tf
    >>> tf.concat2d([[[1]], [[2]]], 1).tolist()
    [[1.0, 2.0]]
    """
    return inside(concat)(tensors, axis)


@op("concat3d", tensors=LIST)
def concat3d(tensors: Sequence[ArrayLike], axis: int) -> jax.Array:
    """Rank-3 tensors joined along axis, like `tf.concat3d`.

    >>> import tfjs_grad as tf
    >>> tf.concat3d([tf.zeros([1, 2, 2]), tf.ones([1, 2, 2])], 0).shape
    (2, 2, 2)
    """
    return inside(concat)(tensors, axis)


@op("concat4d", tensors=LIST)
def concat4d(tensors: Sequence[ArrayLike], axis: int) -> jax.Array:
    """Rank-4 tensors joined along axis, like `tf.concat4d`.

    >>> import tfjs_grad as tf
    >>> tf.concat4d([tf.zeros([1, 1, 1, 2]), tf.ones([1, 1, 1, 1])], 3).shape
    (1, 1, 1, 3)
    """
    return inside(concat)(tensors, axis)


_PAIRS = "Invalid number of paddings. Must be length of 2 each."


def _check_pairs(paddings: Sequence[Sequence[int]], rank: int) -> None:
    if len(paddings) != rank or any(len(p) != 2 for p in paddings):
        raise ValueError(_PAIRS)


@op("pad1d")
def pad1d(x: ArrayLike, paddings: Sequence[int], constant_value: float = 0) -> jax.Array:
    """A rank-1 x padded by `paddings = [before, after]`, like `tf.pad1d`.

    >>> import tfjs_grad as tf
    >>> tf.pad1d([1, 2], [1, 0], 9).tolist()
    [9.0, 1.0, 2.0]
    """
    if len(paddings) != 2:
        raise ValueError("Invalid number of paddings. Must be length of 2.")
    return inside(pad)(x, [paddings], constant_value)


@op("pad2d")
def pad2d(x: ArrayLike, paddings: Sequence[Sequence[int]], constant_value: float = 0) -> jax.Array:
    """x padded by two [before, after] pairs, like `tf.pad2d`.

    >>> import tfjs_grad as tf
    >>> tf.pad2d([[1]], [[1, 0], [0, 1]]).tolist()
    [[0.0, 0.0], [1.0, 0.0]]
    """
    _check_pairs(paddings, 2)
    return inside(pad)(x, paddings, constant_value)


@op("pad3d")
def pad3d(x: ArrayLike, paddings: Sequence[Sequence[int]], constant_value: float = 0) -> jax.Array:
    """x padded by three [before, after] pairs, like `tf.pad3d`.

    >>> import tfjs_grad as tf
    >>> tf.pad3d(tf.ones([1, 1, 1]), [[0, 1], [0, 0], [1, 0]]).shape
    (2, 1, 2)
    """
    _check_pairs(paddings, 3)
    return inside(pad)(x, paddings, constant_value)


@op("pad4d")
def pad4d(x: ArrayLike, paddings: Sequence[Sequence[int]], constant_value: float = 0) -> jax.Array:
    """x padded by four [before, after] pairs, like `tf.pad4d`.

    >>> import tfjs_grad as tf
    >>> tf.pad4d(tf.ones([1, 1, 1, 1]), [[0, 0], [1, 1], [0, 0], [0, 2]]).shape
    (1, 3, 1, 3)
    """
    _check_pairs(paddings, 4)
    return inside(pad)(x, paddings, constant_value)


def _slice_rank(x: jax.Array, rank: int) -> None:
    if x.ndim != rank:
        raise ValueError(
            f"slice{rank}d expects a rank-{rank} tensor, but got a rank-{x.ndim} tensor"
        )


@op("slice1d", x=NUMERIC)
def slice1d(x: ArrayLike, begin: int, size: int) -> jax.Array:
    """`size` entries of a rank-1 x from `begin`, like `tf.slice1d`.

    >>> import tfjs_grad as tf
    >>> tf.slice1d([1, 2, 3, 4], 1, 2).tolist()
    [2.0, 3.0]
    """
    _slice_rank(x, 1)
    return inside(slice_)(x, [begin], [size])


@op("slice2d", x=NUMERIC)
def slice2d(x: ArrayLike, begin: Sequence[int], size: Sequence[int]) -> jax.Array:
    """A block of a rank-2 x, like `tf.slice2d`.

    >>> import tfjs_grad as tf
    >>> tf.slice2d([[1, 2], [3, 4]], [1, 0], [1, 2]).tolist()
    [[3.0, 4.0]]
    """
    _slice_rank(x, 2)
    return inside(slice_)(x, begin, size)


@op("slice3d", x=NUMERIC)
def slice3d(x: ArrayLike, begin: Sequence[int], size: Sequence[int]) -> jax.Array:
    """A block of a rank-3 x, like `tf.slice3d`.

    >>> import tfjs_grad as tf
    >>> tf.slice3d(tf.ones([2, 3, 4]), [0, 1, 0], [-1, 2, 1]).shape
    (2, 2, 1)
    """
    _slice_rank(x, 3)
    return inside(slice_)(x, begin, size)


@op("slice4d", x=NUMERIC)
def slice4d(x: ArrayLike, begin: Sequence[int], size: Sequence[int]) -> jax.Array:
    """A block of a rank-4 x, like `tf.slice4d`.

    >>> import tfjs_grad as tf
    >>> tf.slice4d(tf.ones([1, 2, 3, 2]), [0, 1, 1, 0], [1, 1, 2, 2]).shape
    (1, 1, 2, 2)
    """
    _slice_rank(x, 4)
    return inside(slice_)(x, begin, size)
