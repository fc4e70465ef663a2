"""Binary elementwise ops (OPS2.md): atan2, divNoNan, floorDiv, mod, logicalXor, bitwiseAnd,
prelu.

Operands are promoted as `add`'s are (bool < int32 < float32, a Python number is float32)
and broadcast numpy-style, except `bitwiseAnd`, whose shapes must be equal (as in tfjs).
`floorDiv` is int32 even for float32 inputs, as tfjs returns it; `atan2` of int32 is float32.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._tensors import BOOL, NUMERIC, PROMOTED, ArrayLike, op
from . import _checks, _js

__all__ = [
    "atan2",
    "bitwise_and",
    "bitwiseAnd",
    "div_no_nan",
    "divNoNan",
    "floor_div",
    "floorDiv",
    "logical_xor",
    "logicalXor",
    "mod",
    "prelu",
]


def _float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


@op("atan2", a=PROMOTED, b=PROMOTED)
def atan2(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """The angle of the point (b, a), elementwise and broadcast, like `tf.atan2`.

    int32 inputs give float32.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.atan2([1, -1], [1, 1]).tolist()]
    [0.7854, -0.7854]
    """
    return _checks.elementwise(jnp.arctan2, _float(a), _float(b))


@op("divNoNan", a=PROMOTED, b=PROMOTED)
def div_no_nan(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a / b, and 0 where b is 0, like `tf.divNoNan`; int32 / int32 floors and stays int32.

    The gradient is the derivative of a / b where b != 0 and 0 elsewhere (tfjs's differs).

    >>> import tfjs_grad as tf
    >>> tf.div_no_nan([3, 1], [2, 0]).tolist()
    [1.5, 0.0]
    """

    def divide(x: jax.Array, y: jax.Array) -> jax.Array:
        zero = y == 0
        safe = jnp.where(zero, jnp.ones((), y.dtype), y)
        if jnp.issubdtype(x.dtype, jnp.integer):
            quotient = jnp.floor_divide(x, safe)
        else:
            quotient = x / safe
        return jnp.where(zero, jnp.zeros((), quotient.dtype), quotient)

    return _checks.elementwise(divide, a, b)


@op("floorDiv", a=PROMOTED, b=PROMOTED)
def floor_div(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """floor(a / b), broadcast, like `tf.floorDiv`: **int32**, also for float32 inputs
    (a float quotient that is not finite, as x / 0, gives 0: tfjs's Int32Array stores it so).

    >>> import tfjs_grad as tf
    >>> tf.floor_div([7.5, -7], [2, 2]).tolist()
    [3, -4]
    """

    def divide(x: jax.Array, y: jax.Array) -> jax.Array:
        if jnp.issubdtype(x.dtype, jnp.integer):
            return jnp.floor_divide(x, y).astype(jnp.int32)
        quotient = jnp.floor(x / y)
        # stored in an Int32Array, as tfjs does: NaN and +-Infinity (a / 0) become 0
        return jnp.where(jnp.isfinite(quotient), quotient, 0).astype(jnp.int32)

    return _checks.elementwise(divide, a, b)


@op("mod", a=PROMOTED, b=PROMOTED)
def mod(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """The floor modulo, like `tf.mod`: the result has the divisor's sign.

    >>> import tfjs_grad as tf
    >>> tf.mod(tf.tensor1d([-7, 7], "int32"), tf.tensor1d([3, -3], "int32")).tolist()
    [2, -2]
    """
    return _checks.elementwise(jnp.mod, a, b)


@op("logicalXor", a=BOOL, b=BOOL)
def logical_xor(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a XOR b for bool tensors, broadcast, like `tf.logicalXor` (lists are parsed as bool).

    >>> import tfjs_grad as tf
    >>> tf.logical_xor([True, True, False], [True, False, False]).tolist()
    [False, True, False]
    """
    return _checks.elementwise(jnp.logical_xor, a, b)


@op("bitwiseAnd", x=NUMERIC, y=NUMERIC)
def bitwise_and(x: ArrayLike, y: ArrayLike) -> jax.Array:
    """The bitwise AND of two int32 tensors of the same shape (no broadcasting), like
    `tf.bitwiseAnd`.

    >>> import tfjs_grad as tf
    >>> x = tf.tensor1d([12, 7], "int32")
    >>> tf.bitwise_and(x, tf.tensor1d([10, 3], "int32")).tolist()
    [8, 3]
    """
    if tuple(x.shape) != tuple(y.shape):
        raise ValueError(
            "BitwiseAnd: Tensors must have the same shape. "
            f"x: {_js.array(x.shape)}, y: {_js.array(y.shape)}"
        )
    if x.dtype != jnp.int32 or y.dtype != jnp.int32:
        raise TypeError(
            "BitwiseAnd: Only supports 'int32' values in tensor, found type of x: "
            f"{x.dtype} and type of y: {y.dtype}"
        )
    return jnp.bitwise_and(x, y)


@op("prelu", x=PROMOTED, alpha=PROMOTED)
def prelu(x: ArrayLike, alpha: ArrayLike) -> jax.Array:
    """x where x > 0, alpha * x elsewhere, with alpha broadcast, like `tf.prelu`.

    >>> import tfjs_grad as tf
    >>> tf.prelu([-2, 3], [0.5, 0.5]).tolist()
    [-1.0, 3.0]
    """
    return _checks.elementwise(lambda v, a: jnp.where(v > 0, v, a * v), x, alpha)


bitwiseAnd = bitwise_and
divNoNan = div_no_nan
floorDiv = floor_div
logicalXor = logical_xor
