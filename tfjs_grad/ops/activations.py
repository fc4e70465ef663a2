"""Activations: relu, sigmoid, tanh, elu, softplus, leakyRelu, softmax, logSoftmax.

tfjs's defaults, not JAX's: `leakyRelu`'s alpha is 0.2. `softmax`/`logSoftmax` take any
axis (tfjs supports only the last).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from .._tensors import FLOAT, NUMERIC, ArrayLike, op
from . import _checks

__all__ = [
    "elu",
    "leaky_relu",
    "leakyRelu",
    "log_softmax",
    "logSoftmax",
    "relu",
    "sigmoid",
    "softmax",
    "softplus",
    "tanh",
]


def _float(x: jax.Array) -> jax.Array:
    return x if jnp.issubdtype(x.dtype, jnp.inexact) else x.astype(jnp.float32)


@op("relu", x=NUMERIC)
def relu(x: ArrayLike) -> jax.Array:
    """max(x, 0), keeping x's dtype, like `tf.relu`.

    >>> import tfjs_grad as tf
    >>> tf.relu(tf.tensor1d([-2, 3], "int32"))
    Tensor([0, 3], shape=(2,), dtype=int32)
    """
    # A select, not jax.nn.relu: the same values and the same gradient (0 at 0, as tfjs),
    # without a custom_jvp, which costs ~10x more to trace on every eager step.
    zero = jax.lax.full_like(x, 0)
    return jax.lax.select(jax.lax.gt(x, zero), x, zero)


@op("sigmoid", x=FLOAT)
def sigmoid(x: ArrayLike) -> jax.Array:
    """1 / (1 + exp(-x)), like `tf.sigmoid`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.sigmoid([0])
    Tensor([0.5], shape=(1,), dtype=float32)
    """
    return jax.nn.sigmoid(x)


@op("tanh", x=FLOAT)
def tanh(x: ArrayLike) -> jax.Array:
    """The hyperbolic tangent, like `tf.tanh`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.tanh([0])
    Tensor([0.], shape=(1,), dtype=float32)
    """
    return jnp.tanh(x)


@op("elu", x=FLOAT)
def elu(x: ArrayLike) -> jax.Array:
    """x for x > 0, exp(x) - 1 otherwise, like `tf.elu`; float tensors only.

    >>> import tfjs_grad as tf
    >>> tf.elu([-1, 2])
    Tensor([-0.63212055,  2.        ], shape=(2,), dtype=float32)
    """
    return jax.nn.elu(x)


@op("softplus", x=NUMERIC)
def softplus(x: ArrayLike) -> jax.Array:
    """log(1 + exp(x)), computed stably, like `tf.softplus`; int32 gives float32.

    >>> import tfjs_grad as tf
    >>> tf.softplus([0])
    Tensor([0.6931472], shape=(1,), dtype=float32)
    """
    return jax.nn.softplus(_float(x))


@op("leakyRelu", x=NUMERIC)
def leaky_relu(x: ArrayLike, alpha: float = 0.2) -> jax.Array:
    """x for x >= 0, alpha * x otherwise, like `tf.leakyRelu`: **alpha defaults to 0.2**.

    >>> import tfjs_grad as tf
    >>> tf.leaky_relu([-1, 2])
    Tensor([-0.2,  2. ], shape=(2,), dtype=float32)
    """
    if isinstance(alpha, (bool, str)) or np.ndim(alpha) != 0:
        raise TypeError(
            "Argument 'alpha' passed to 'leakyRelu' must be a number, but got "
            f"'{type(alpha).__name__}'"
        )
    return jax.nn.leaky_relu(_float(x), alpha)


@op("softmax", logits=FLOAT)
def softmax(logits: ArrayLike, dim: int = -1) -> jax.Array:
    """exp(logits) normalised to sum to 1 along dim, like `tf.softmax`.

    >>> import tfjs_grad as tf
    >>> tf.softmax([0, 0])
    Tensor([0.5, 0.5], shape=(2,), dtype=float32)
    """
    (dim,) = _checks.axes(dim, logits.ndim)
    return jax.nn.softmax(logits, axis=dim)


@op("logSoftmax", logits=NUMERIC)
def log_softmax(logits: ArrayLike, axis: int = -1) -> jax.Array:
    """logits - logSumExp(logits) along axis, like `tf.logSoftmax`.

    >>> import tfjs_grad as tf
    >>> tf.log_softmax([0, 0])
    Tensor([-0.6931472, -0.6931472], shape=(2,), dtype=float32)
    """
    (axis,) = _checks.axes(axis, logits.ndim)
    return jax.nn.log_softmax(_float(logits), axis=axis)


leakyRelu = leaky_relu
logSoftmax = log_softmax
