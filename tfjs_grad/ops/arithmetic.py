"""Arithmetic ops: elementwise binary and unary math with tfjs's dtype rules.

Binary ops promote their operands as tfjs does (bool < int32 < float32, and a Python number
is a float32 tensor), then broadcast numpy-style.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._tensors import FLOAT, NUMERIC, PROMOTED, ArrayLike, op
from . import _checks, _js

__all__ = [
    "abs_",
    "add",
    "clip_by_value",
    "clipByValue",
    "cos",
    "div",
    "exp",
    "log",
    "maximum",
    "minimum",
    "mul",
    "neg",
    "pow_",
    "sign",
    "sin",
    "sqrt",
    "square",
    "squared_difference",
    "squaredDifference",
    "sub",
]


@op("add", a=PROMOTED, b=PROMOTED)
def add(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a + b, broadcast, like `tf.add`. A Python number is float32, so int32 + 1 is float32.

    >>> import tfjs_grad as tf
    >>> tf.add(tf.tensor1d([1, 2], "int32"), 1)
    Tensor([2., 3.], shape=(2,), dtype=float32)
    """
    return _checks.elementwise(jnp.add, a, b)


@op("sub", a=PROMOTED, b=PROMOTED)
def sub(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a - b, broadcast, like `tf.sub`.

    >>> import tfjs_grad as tf
    >>> tf.sub(1, tf.tensor1d([0, 1], "int32"))
    Tensor([1., 0.], shape=(2,), dtype=float32)
    """
    return _checks.elementwise(jnp.subtract, a, b)


@op("mul", a=PROMOTED, b=PROMOTED)
def mul(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a * b, broadcast, like `tf.mul`.

    >>> import tfjs_grad as tf
    >>> tf.mul([[1, 2], [3, 4]], [10, 100])
    Tensor([[ 10., 200.],
            [ 30., 400.]], shape=(2, 2), dtype=float32)
    """
    return _checks.elementwise(jnp.multiply, a, b)


@op("div", a=PROMOTED, b=PROMOTED)
def div(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """a / b, like `tf.div`: **int32 / int32 floors**; anything else divides.

    >>> import tfjs_grad as tf
    >>> tf.div(tf.tensor1d([7, -7], "int32"), tf.tensor1d([2, 2], "int32"))
    Tensor([ 3, -4], shape=(2,), dtype=int32)
    """
    if jnp.issubdtype(a.dtype, jnp.integer):
        return _checks.elementwise(jnp.floor_divide, a, b)
    return _checks.elementwise(jnp.true_divide, a, b)


@op("maximum", a=PROMOTED, b=PROMOTED)
def maximum(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """The elementwise larger of a and b, like `tf.maximum`.

    >>> import tfjs_grad as tf
    >>> tf.maximum([1, 5], [3, 2])
    Tensor([3., 5.], shape=(2,), dtype=float32)
    """
    return _checks.elementwise(jnp.maximum, a, b)


@op("minimum", a=PROMOTED, b=PROMOTED)
def minimum(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """The elementwise smaller of a and b, like `tf.minimum`.

    >>> import tfjs_grad as tf
    >>> tf.minimum([1, 5], [3, 2])
    Tensor([1., 2.], shape=(2,), dtype=float32)
    """
    return _checks.elementwise(jnp.minimum, a, b)


@op("pow", base=PROMOTED, exp=PROMOTED)
def pow_(base: ArrayLike, exp: ArrayLike) -> jax.Array:
    """base ** exp, broadcast, like `tf.pow`; int32 ** int32 stays int32.

    >>> import tfjs_grad as tf
    >>> tf.pow(tf.tensor1d([2, 3]), tf.scalar(2, "int32"))
    Tensor([4., 9.], shape=(2,), dtype=float32)
    """
    return _checks.elementwise(jnp.power, base, exp)


@op("squaredDifference", a=PROMOTED, b=PROMOTED)
def squared_difference(a: ArrayLike, b: ArrayLike) -> jax.Array:
    """(a - b) ** 2, broadcast, like `tf.squaredDifference`.

    >>> import tfjs_grad as tf
    >>> tf.squared_difference([1, 4], 2)
    Tensor([1., 4.], shape=(2,), dtype=float32)
    """
    return _checks.elementwise(lambda x, y: jnp.square(x - y), a, b)


@op("square", x=NUMERIC)
def square(x: ArrayLike) -> jax.Array:
    """x ** 2, keeping x's dtype, like `tf.square`.

    >>> import tfjs_grad as tf
    >>> tf.square(tf.tensor1d([-2, 3], "int32"))
    Tensor([4, 9], shape=(2,), dtype=int32)
    """
    return jnp.square(x)


@op("neg", x=NUMERIC)
def neg(x: ArrayLike) -> jax.Array:
    """-x, like `tf.neg`.

    >>> import tfjs_grad as tf
    >>> tf.neg([1, -2])
    Tensor([-1.,  2.], shape=(2,), dtype=float32)
    """
    return jnp.negative(x)


@op("abs", x=NUMERIC)
def abs_(x: ArrayLike) -> jax.Array:
    """|x|, keeping x's dtype, like `tf.abs`.

    >>> import tfjs_grad as tf
    >>> tf.abs(tf.tensor1d([-2, 3], "int32"))
    Tensor([2, 3], shape=(2,), dtype=int32)
    """
    return jnp.abs(x)


@op("sign", x=NUMERIC)
def sign(x: ArrayLike) -> jax.Array:
    """-1, 0 or 1 by the sign of x, like `tf.sign`.

    >>> import tfjs_grad as tf
    >>> tf.sign([-3, 0, 2])
    Tensor([-1.,  0.,  1.], shape=(3,), dtype=float32)
    """
    return jnp.sign(x)


def _as_float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


@op("exp", x=NUMERIC)
def exp(x: ArrayLike) -> jax.Array:
    """e ** x, like `tf.exp`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.exp(tf.tensor1d([0, 1], "int32"))
    Tensor([1.       , 2.7182817], shape=(2,), dtype=float32)
    """
    return jnp.exp(_as_float(x))


@op("sqrt", x=FLOAT)
def sqrt(x: ArrayLike) -> jax.Array:
    """The square root, like `tf.sqrt`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.sqrt([4, 9])
    Tensor([2., 3.], shape=(2,), dtype=float32)
    """
    return jnp.sqrt(x)


@op("log", x=FLOAT)
def log(x: ArrayLike) -> jax.Array:
    """The natural logarithm, like `tf.log`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.log([1])
    Tensor([0.], shape=(1,), dtype=float32)
    """
    return jnp.log(x)


@op("sin", x=FLOAT)
def sin(x: ArrayLike) -> jax.Array:
    """The sine, like `tf.sin`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.sin([0])
    Tensor([0.], shape=(1,), dtype=float32)
    """
    return jnp.sin(x)


@op("cos", x=FLOAT)
def cos(x: ArrayLike) -> jax.Array:
    """The cosine, like `tf.cos`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.cos([0])
    Tensor([1.], shape=(1,), dtype=float32)
    """
    return jnp.cos(x)


@op("clipByValue", x=NUMERIC)
def clip_by_value(x: ArrayLike, clip_value_min: float, clip_value_max: float) -> jax.Array:
    """x limited to [clip_value_min, clip_value_max], keeping x's dtype, like `tf.clipByValue`.

    >>> import tfjs_grad as tf
    >>> tf.clip_by_value([-2, 0.5, 3], 0, 1)
    Tensor([0. , 0.5, 1. ], shape=(3,), dtype=float32)
    """
    if not clip_value_min <= clip_value_max:
        raise ValueError(
            f"Error in clip: min ({_js.number(clip_value_min)}) must be less than or equal to "
            f"max ({_js.number(clip_value_max)})."
        )
    return jnp.clip(x, clip_value_min, clip_value_max).astype(x.dtype)


clipByValue = clip_by_value
squaredDifference = squared_difference
