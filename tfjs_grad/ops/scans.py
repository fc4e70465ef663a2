"""Reductions and scans (OPS2.md): all, any, euclideanNorm, norm, cumsum, cumprod.

`all`/`any` take bool tensors. `cumsum`/`cumprod` run along **axis 0** by default (not the
last axis) and keep int32. Their gradients are JAX's true derivatives: tfjs's `cumsum`
gradient has the wrong shape along axis 0 of a rank-2 input, and `cumprod` has none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._tensors import BOOL, NUMERIC, ArrayLike, inside, op
from . import _checks, _js

__all__ = [
    "all_",
    "any_",
    "cumprod",
    "cumsum",
    "euclidean_norm",
    "euclideanNorm",
    "norm",
]

Axis = int | Sequence[int] | None


@op("all", x=BOOL)
def all_(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """Logical AND over axis, like `tf.all`; bool tensors only (lists are parsed as bool).

    >>> import tfjs_grad as tf
    >>> tf.all([[True, False], [True, True]], 1).tolist()
    [False, True]
    """
    return jnp.all(x, axis=_checks.axes(axis, x.ndim), keepdims=keep_dims)


@op("any", x=BOOL)
def any_(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """Logical OR over axis, like `tf.any`; bool tensors only.

    >>> import tfjs_grad as tf
    >>> tf.any([[True, False], [False, False]], 1).tolist()
    [True, False]
    """
    return jnp.any(x, axis=_checks.axes(axis, x.ndim), keepdims=keep_dims)


def _sqrt_of(x: jax.Array) -> None:
    # tfjs computes the euclidean norm with tf.sqrt, which rejects int32 naming itself
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise TypeError(
            f"Argument 'x' passed to 'sqrt' must be float32 tensor, but got {x.dtype} tensor"
        )


def _norm(x: jax.Array, ord: Any, axis: Any) -> jax.Array:
    if x.ndim == 0:
        return jnp.abs(x)
    if x.ndim != 1 and axis is None:
        return _norm(x.reshape(-1), ord, None)
    if isinstance(axis, np.integer):
        axis = int(axis)
    if x.ndim == 1 or isinstance(axis, int) or (isinstance(axis, Sequence) and len(axis) == 1):
        axes = _checks.axes(axis, x.ndim)
        if ord == 1:
            return jnp.sum(jnp.abs(x), axis=axes)
        if ord == math.inf:
            return jnp.max(jnp.abs(x), axis=axes)
        if ord == -math.inf:
            return jnp.min(jnp.abs(x), axis=axes)
        if ord in ("euclidean", 2):
            _sqrt_of(x)
            return jnp.sqrt(jnp.sum(jnp.square(x), axis=axes))
        raise ValueError(f"Error in norm: invalid ord value: {_js.array([ord])}")
    if isinstance(axis, Sequence) and len(axis) == 2:
        first, second = _checks.axes(axis, x.ndim)
        if ord in ("fro", "euclidean"):
            _sqrt_of(x)
            return jnp.sqrt(jnp.sum(jnp.square(x), axis=(first, second)))
        if ord == 1:  # the largest column sum
            return jnp.max(jnp.sum(jnp.abs(x), axis=first), axis=second - (second > first))
        if ord in (math.inf, -math.inf):  # the largest (smallest) row sum
            rows = jnp.sum(jnp.abs(x), axis=second)
            reduce = jnp.max if ord == math.inf else jnp.min
            return reduce(rows, axis=first - (first > second))
        raise ValueError(f"Error in norm: invalid ord value: {_js.array([ord])}")
    raise ValueError(f"Error in norm: invalid axis: {_js.array(list(axis))}")


@op("norm", x=NUMERIC)
def norm(
    x: ArrayLike, ord: Any = "euclidean", axis: Axis = None, keep_dims: bool = False
) -> jax.Array:
    """A vector or matrix norm, like `tf.norm`.

    Args:
      x: the tensor.
      ord: 'euclidean' (default), 'fro', 1, 2, `math.inf` or `-math.inf`. With one axis (or
        none, which flattens x) a vector norm: 1 sums |x|, inf/-inf take the max/min of |x|,
        2 and 'euclidean' are sqrt(sum(x^2)). With two axes a matrix norm: 1 is the largest
        column sum of |x|, inf the largest row sum, 'fro'/'euclidean' the Frobenius norm.
      axis: None, an int, or a pair of ints.
      keep_dims: keep the reduced axes as size 1.

    Raises:
      ValueError: "Error in norm: invalid ord value: nuc" for any other ord.

    >>> import tfjs_grad as tf
    >>> tf.norm([3, -4]).tolist(), tf.norm([3, -4], 1).tolist()
    (5.0, 7.0)
    """
    result = _norm(x, ord, axis)
    if keep_dims:
        kept = set(_checks.axes(axis, x.ndim))
        result = result.reshape([1 if i in kept else d for i, d in enumerate(x.shape)])
    return result


@op("euclideanNorm", x=NUMERIC)
def euclidean_norm(x: ArrayLike, axis: Axis = None, keep_dims: bool = False) -> jax.Array:
    """sqrt(sum(x^2)) over axis, like `tf.euclideanNorm`; int32 raises tfjs's TypeError
    naming 'sqrt'.

    >>> import tfjs_grad as tf
    >>> tf.euclidean_norm([[3, 4], [0, 0]], 1).tolist()
    [5.0, 0.0]
    """
    return inside(norm)(x, "euclidean", axis, keep_dims)


def _scan(x: jax.Array, axis: int, exclusive: bool, reverse: bool, product: bool) -> jax.Array:
    if x.dtype == jnp.bool_:
        x = x.astype(jnp.int32)
    (axis,) = _checks.axes(axis, x.ndim)
    if exclusive and x.shape[axis] > 0:
        identity = jnp.full_like(jax.lax.slice_in_dim(x, 0, 1, axis=axis), 1 if product else 0)
        n = x.shape[axis]
        if reverse:
            parts = [jax.lax.slice_in_dim(x, 1, n, axis=axis), identity]
        else:
            parts = [identity, jax.lax.slice_in_dim(x, 0, n - 1, axis=axis)]
        x = jnp.concatenate(parts, axis=axis)
    scan = jax.lax.cumprod if product else jax.lax.cumsum
    return scan(x, axis=axis, reverse=reverse)


@op("cumsum", x=NUMERIC)
def cumsum(
    x: ArrayLike, axis: int = 0, exclusive: bool = False, reverse: bool = False
) -> jax.Array:
    """The running sum along axis (**0 by default**), like `tf.cumsum`; keeps int32.

    exclusive: each value leaves itself out (the first is 0); reverse: sums from the end.

    >>> import tfjs_grad as tf
    >>> tf.cumsum([1, 2, 3]).tolist(), tf.cumsum([1, 2, 3], 0, True, True).tolist()
    ([1.0, 3.0, 6.0], [5.0, 3.0, 0.0])
    """
    return _scan(x, axis, exclusive, reverse, product=False)


@op("cumprod", x=NUMERIC)
def cumprod(
    x: ArrayLike, axis: int = 0, exclusive: bool = False, reverse: bool = False
) -> jax.Array:
    """The running product along axis (**0 by default**), like `tf.cumprod`; keeps int32.

    exclusive: each value leaves itself out (the first is 1); reverse: from the end. The
    gradient is the true derivative (tfjs has none).

    >>> import tfjs_grad as tf
    >>> tf.cumprod([1, 2, 3]).tolist(), tf.cumprod([1, 2, 3], 0, True).tolist()
    ([1.0, 2.0, 6.0], [1.0, 1.0, 2.0])
    """
    return _scan(x, axis, exclusive, reverse, product=True)


euclideanNorm = euclidean_norm
