"""Comparison and logic: equal, notEqual, greater(Equal), less(Equal), where, logical ops.

Comparisons promote their operands first (`int32 [1, 2] == [1, 2.5]` compares as float32)
and return bool; logical ops take bool tensors (lists are parsed as bool).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._tensors import BOOL, PROMOTED, ArrayLike, op
from . import _checks

__all__ = [
    "equal",
    "greater",
    "greater_equal",
    "greaterEqual",
    "less",
    "less_equal",
    "lessEqual",
    "logical_and",
    "logical_not",
    "logical_or",
    "logicalAnd",
    "logicalNot",
    "logicalOr",
    "not_equal",
    "notEqual",
    "where",
]


@op("equal", a=PROMOTED, b=PROMOTED)
def equal(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a == b elementwise, broadcast, like `tf.equal`.

    >>> import tfjs_grad as tf
    >>> tf.equal(tf.tensor1d([1, 2], "int32"), [1, 2.5])
    Tensor([ True, False], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.equal, a, b)


@op("notEqual", a=PROMOTED, b=PROMOTED)
def not_equal(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a != b elementwise, like `tf.notEqual`.

    >>> import tfjs_grad as tf
    >>> tf.not_equal([1, 2], 2)
    Tensor([ True, False], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.not_equal, a, b)


@op("greater", a=PROMOTED, b=PROMOTED)
def greater(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a > b elementwise, like `tf.greater`.

    >>> import tfjs_grad as tf
    >>> tf.greater([1, 2], 1)
    Tensor([False,  True], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.greater, a, b)


@op("greaterEqual", a=PROMOTED, b=PROMOTED)
def greater_equal(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a >= b elementwise, like `tf.greaterEqual`.

    >>> import tfjs_grad as tf
    >>> tf.greater_equal([1, 2], 2)
    Tensor([False,  True], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.greater_equal, a, b)


@op("less", a=PROMOTED, b=PROMOTED)
def less(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a < b elementwise, like `tf.less`.

    >>> import tfjs_grad as tf
    >>> tf.less([1, 2], 2)
    Tensor([ True, False], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.less, a, b)


@op("lessEqual", a=PROMOTED, b=PROMOTED)
def less_equal(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a <= b elementwise, like `tf.lessEqual`.

    >>> import tfjs_grad as tf
    >>> tf.less_equal([1, 2], 1)
    Tensor([ True, False], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.less_equal, a, b)


@op("where", a=PROMOTED, b=PROMOTED, condition=BOOL)
def where(condition: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a where condition is true, else b; all three broadcast. Like `tf.where`.

    >>> import tfjs_grad as tf
    >>> tf.where([True, False], [1, 2], [10, 20])
    Tensor([ 1., 20.], shape=(2,), dtype=float32)
    """
    _checks.broadcast(condition.shape, a.shape, b.shape)
    return jnp.where(condition, a, b)


@op("logicalAnd", a=BOOL, b=BOOL)
def logical_and(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a AND b for bool tensors, like `tf.logicalAnd`.

    >>> import tfjs_grad as tf
    >>> tf.logical_and([1, 0], [True, True])
    Tensor([ True, False], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.logical_and, a, b)


@op("logicalOr", a=BOOL, b=BOOL)
def logical_or(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a OR b for bool tensors, like `tf.logicalOr`.

    >>> import tfjs_grad as tf
    >>> tf.logical_or([1, 0], [False, False])
    Tensor([ True, False], shape=(2,), dtype=bool)
    """
    return _checks.elementwise(jnp.logical_or, a, b)


@op("logicalNot", x=BOOL)
def logical_not(x: ArrayLike) -> jax.Array:
    """NOT x for a bool tensor, like `tf.logicalNot`.

    >>> import tfjs_grad as tf
    >>> tf.logical_not([True, False])
    Tensor([False,  True], shape=(2,), dtype=bool)
    """
    return jnp.logical_not(x)


greaterEqual = greater_equal
lessEqual = less_equal
logicalAnd = logical_and
logicalNot = logical_not
logicalOr = logical_or
notEqual = not_equal
