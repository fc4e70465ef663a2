"""Unary math (OPS2.md): inverse and hyperbolic trigonometry, erf, rounding, tests for NaN/Inf.

int32 inputs of the transcendental ops (`acos`, `sinh`, `erf`, `log1p`, `reciprocal`, ...)
give **float32**: tfjs 4.22 computes them in floating point and truncates the result into
int32 (`acos([0, 1, 2])` is `[1, 0, 0]` there); the contract returns tfjs's result on the
float32 cast instead. `tan`, `ceil`, `floor`, `rsqrt` and `cosh` take float tensors only
(TypeError for int32, as in tfjs). `round`, `relu6` and `step` keep int32. The gradients
of `floor`, `ceil`, `round` and `step` are 0, as in tfjs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import jax.scipy.special

from .._tensors import FLOAT, NUMERIC, ArrayLike, op

__all__ = [
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "ceil",
    "cosh",
    "erf",
    "expm1",
    "floor",
    "is_finite",
    "is_inf",
    "is_nan",
    "isFinite",
    "isInf",
    "isNaN",
    "log1p",
    "log_sigmoid",
    "logSigmoid",
    "reciprocal",
    "relu6",
    "round_",
    "rsqrt",
    "selu",
    "sinh",
    "step",
    "tan",
]


def _float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


@op("acos", x=NUMERIC)
def acos(x: ArrayLike) -> jax.Array:
    """The arccosine, like `tf.acos`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.acos([1, 0.5]).tolist()]
    [0.0, 1.0472]
    """
    return jnp.arccos(_float(x))


@op("acosh", x=NUMERIC)
def acosh(x: ArrayLike) -> jax.Array:
    """The inverse hyperbolic cosine, like `tf.acosh`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.acosh([1]).tolist()
    [0.0]
    """
    return jnp.arccosh(_float(x))


@op("asin", x=NUMERIC)
def asin(x: ArrayLike) -> jax.Array:
    """The arcsine, like `tf.asin`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.asin([0, 1]).tolist()]
    [0.0, 1.5708]
    """
    return jnp.arcsin(_float(x))


@op("asinh", x=NUMERIC)
def asinh(x: ArrayLike) -> jax.Array:
    """The inverse hyperbolic sine, like `tf.asinh`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.asinh([0]).tolist()
    [0.0]
    """
    return jnp.arcsinh(_float(x))


@op("atan", x=NUMERIC)
def atan(x: ArrayLike) -> jax.Array:
    """The arctangent, like `tf.atan`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.atan([0, 1]).tolist()]
    [0.0, 0.7854]
    """
    return jnp.arctan(_float(x))


@op("atanh", x=NUMERIC)
def atanh(x: ArrayLike) -> jax.Array:
    """The inverse hyperbolic tangent, like `tf.atanh`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.atanh([0]).tolist()
    [0.0]
    """
    return jnp.arctanh(_float(x))


@op("cosh", x=FLOAT)
def cosh(x: ArrayLike) -> jax.Array:
    """The hyperbolic cosine, like `tf.cosh`; float tensors only (tfjs rejects int32).

    >>> import tfjs_grad as tf
    >>> tf.cosh([0]).tolist()
    [1.0]
    """
    return jnp.cosh(x)


@op("sinh", x=NUMERIC)
def sinh(x: ArrayLike) -> jax.Array:
    """The hyperbolic sine, like `tf.sinh`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.sinh([0]).tolist()
    [0.0]
    """
    return jnp.sinh(_float(x))


@op("tan", x=FLOAT)
def tan(x: ArrayLike) -> jax.Array:
    """The tangent, like `tf.tan`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.tan([0]).tolist()
    [0.0]
    """
    return jnp.tan(x)


@op("erf", x=NUMERIC)
def erf(x: ArrayLike) -> jax.Array:
    """The Gauss error function, like `tf.erf`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.erf([0]).tolist()
    [0.0]
    """
    return jax.scipy.special.erf(_float(x))


@op("expm1", x=NUMERIC)
def expm1(x: ArrayLike) -> jax.Array:
    """exp(x) - 1, accurate near 0, like `tf.expm1`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.expm1([0]).tolist()
    [0.0]
    """
    return jnp.expm1(_float(x))


@op("log1p", x=NUMERIC)
def log1p(x: ArrayLike) -> jax.Array:
    """log(1 + x), accurate near 0, like `tf.log1p`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.log1p([0]).tolist()
    [0.0]
    """
    return jnp.log1p(_float(x))


@op("logSigmoid", x=NUMERIC)
def log_sigmoid(x: ArrayLike) -> jax.Array:
    """log(sigmoid(x)), computed stably, like `tf.logSigmoid`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> [round(v, 4) for v in tf.log_sigmoid([0]).tolist()]
    [-0.6931]
    """
    return jax.nn.log_sigmoid(_float(x))


@op("reciprocal", x=NUMERIC)
def reciprocal(x: ArrayLike) -> jax.Array:
    """1 / x, like `tf.reciprocal`; int32 gives float32 (`[1, 2, 4]` -> `[1, 0.5, 0.25]`).

    >>> import tfjs_grad as tf
    >>> tf.reciprocal(tf.tensor1d([1, 2, 4], "int32")).tolist()
    [1.0, 0.5, 0.25]
    """
    return jnp.reciprocal(_float(x))


@op("rsqrt", x=FLOAT)
def rsqrt(x: ArrayLike) -> jax.Array:
    """1 / sqrt(x), like `tf.rsqrt`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.rsqrt([4]).tolist()
    [0.5]
    """
    return jax.lax.rsqrt(x)


@op("ceil", x=FLOAT)
def ceil(x: ArrayLike) -> jax.Array:
    """The smallest integer >= x, like `tf.ceil`; float tensors only; gradient 0.

    >>> import tfjs_grad as tf
    >>> tf.ceil([1.2, -1.2]).tolist()
    [2.0, -1.0]
    """
    return jnp.ceil(x)


@op("floor", x=FLOAT)
def floor(x: ArrayLike) -> jax.Array:
    """The largest integer <= x, like `tf.floor`; float tensors only; gradient 0.

    >>> import tfjs_grad as tf
    >>> tf.floor([1.7, -1.2]).tolist()
    [1.0, -2.0]
    """
    return jnp.floor(x)


@op("round", x=NUMERIC)
def round_(x: ArrayLike) -> jax.Array:
    """x rounded to the nearest integer, **halves to even**, like `tf.round`; gradient 0.

    int32 is returned unchanged.

    >>> import tfjs_grad as tf
    >>> tf.round([0.5, 1.5, 2.5, -1.5]).tolist()
    [0.0, 2.0, 2.0, -2.0]
    """
    return jnp.round(x) if jnp.issubdtype(x.dtype, jnp.inexact) else x


@op("relu6", x=NUMERIC)
def relu6(x: ArrayLike) -> jax.Array:
    """min(max(x, 0), 6), keeping x's dtype, like `tf.relu6`.

    >>> import tfjs_grad as tf
    >>> tf.relu6(tf.tensor1d([-3, 2, 9], "int32")).tolist()
    [0, 2, 6]
    """
    return jnp.minimum(jnp.maximum(x, jnp.zeros((), x.dtype)), jnp.asarray(6, x.dtype))


@op("selu", x=NUMERIC)
def selu(x: ArrayLike) -> jax.Array:
    """The scaled exponential linear unit, like `tf.selu`; int32 gives float32.

    scale * x for x > 0, scale * alpha * (exp(x) - 1) otherwise, with tfjs's (and JAX's)
    constants alpha = 1.6732632..., scale = 1.0507009...

    >>> import tfjs_grad as tf
    >>> round(tf.selu([1]).tolist()[0], 6)
    1.050701
    """
    return jax.nn.selu(_float(x))


@op("step", x=NUMERIC)
def step(x: ArrayLike, alpha: float = 0.0) -> jax.Array:
    """1 where x > 0, else alpha (also at 0; NaN stays NaN), keeping x's dtype, like
    `tf.step`; gradient 0.

    >>> import tfjs_grad as tf
    >>> tf.step([-1, 0, 2], 0.5).tolist()
    [0.5, 0.5, 1.0]
    """
    one = jnp.ones((), x.dtype)
    out = jnp.where(x > 0, one, jnp.asarray(alpha).astype(x.dtype))
    return jnp.where(jnp.isnan(x), x, out)  # NaN stays NaN, as in tfjs


@op("isNaN", x=NUMERIC)
def is_nan(x: ArrayLike) -> jax.Array:
    """Whether each value is NaN (bool), like `tf.isNaN`.

    >>> import tfjs_grad as tf
    >>> tf.is_nan([float("nan"), 1]).tolist()
    [True, False]
    """
    return jnp.isnan(x)


@op("isInf", x=NUMERIC)
def is_inf(x: ArrayLike) -> jax.Array:
    """Whether each value is +-Infinity (bool), like `tf.isInf`.

    >>> import tfjs_grad as tf
    >>> tf.is_inf([float("inf"), 1]).tolist()
    [True, False]
    """
    return jnp.isinf(x)


@op("isFinite", x=NUMERIC)
def is_finite(x: ArrayLike) -> jax.Array:
    """Whether each value is neither NaN nor infinite (bool), like `tf.isFinite`.

    >>> import tfjs_grad as tf
    >>> tf.is_finite([float("inf"), float("nan"), 1]).tolist()
    [False, False, True]
    """
    return jnp.isfinite(x)


isFinite = is_finite
isInf = is_inf
isNaN = is_nan
logSigmoid = log_sigmoid
