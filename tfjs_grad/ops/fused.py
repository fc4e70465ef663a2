"""`tf.fused`: matMul, conv2d and depthwiseConv2d followed by a bias and an activation, each
taking tfjs's one config object as a dict with tfjs's camelCase keys (snake_case keywords
are accepted too): `tf.fused.matMul({'a': a, 'b': b, 'bias': b0, 'activation': 'relu'})`.

The activations are tfjs's: 'linear' (the default), 'relu', 'relu6', 'elu', 'sigmoid',
'leakyrelu' (`leakyreluAlpha`, 0.2 by default) and 'prelu' (`preluActivationWeights`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp

from .._tensor import Tensor
from .._tensors import NUMERIC, ArrayLike, inside, op
from . import convolution, linalg

__all__ = ["conv2d", "depthwise_conv2d", "depthwiseConv2d", "mat_mul", "matMul"]


def _activate(
    y: jax.Array, activation: str, prelu_weights: jax.Array | None, alpha: float
) -> jax.Array:
    if activation == "linear":
        return y
    if activation == "relu":
        return jnp.where(y > 0, y, jnp.zeros_like(y))
    if activation == "relu6":
        return jnp.clip(y, 0, 6)
    if activation == "elu":
        return jax.nn.elu(y)
    if activation == "sigmoid":
        return jax.nn.sigmoid(y)
    if activation == "leakyrelu":
        return jnp.where(y < 0, alpha * y, y)
    if activation == "prelu":
        if prelu_weights is None:
            raise ValueError("Error in fused: prelu activation needs preluActivationWeights.")
        return jnp.where(y < 0, prelu_weights * y, y)
    raise ValueError(f"Unknown fused activation {activation}.")


def _with_bias(y: jax.Array, bias: jax.Array | None) -> jax.Array:
    return y if bias is None else y + bias.astype(y.dtype)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _options(fn: str, config: Mapping[str, Any] | None, keywords: dict[str, Any]) -> dict:
    """The config object as keyword arguments: camelCase keys to snake_case."""
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(f"tf.{fn} takes one config object (a dict), got {type(config).__name__}")
    merged = {_snake(k): v for k, v in dict(config or {}).items()}
    merged.update(keywords)
    return merged


@op(
    "fused.matMul",
    a=NUMERIC,
    b=NUMERIC,
    bias=NUMERIC,
    prelu_activation_weights=NUMERIC,
)
def _mat_mul(
    a: ArrayLike,
    b: ArrayLike,
    transpose_a: bool = False,
    transpose_b: bool = False,
    bias: ArrayLike | None = None,
    activation: str = "linear",
    prelu_activation_weights: ArrayLike | None = None,
    leakyrelu_alpha: float = 0.2,
) -> jax.Array:
    y = _with_bias(inside(linalg.mat_mul)(a, b, transpose_a, transpose_b), bias)
    return _activate(y, activation, prelu_activation_weights, leakyrelu_alpha)


def mat_mul(config: Mapping[str, Any] | None = None, **keywords: Any) -> Tensor:
    """`activation(matMul(a, b) + bias)`, like `tf.fused.matMul`.

    The config dict has tfjs's keys: `a`, `b`, `transposeA`, `transposeB`, `bias`,
    `activation`, `preluActivationWeights`, `leakyreluAlpha`.

    >>> import tfjs_grad as tf
    >>> tf.fused.matMul({"a": [[1.0, -2.0]], "b": [[1.0], [1.0]], "bias": [0.5],
    ...                  "activation": "relu"})
    Tensor([[0.]], shape=(1, 1), dtype=float32)
    """
    return _mat_mul(**_options("fused.matMul", config, keywords))


@op("fused.conv2d", x=NUMERIC, filter=NUMERIC, bias=NUMERIC, prelu_activation_weights=NUMERIC)
def _conv2d(
    x: ArrayLike,
    filter: ArrayLike,
    strides: Any = None,
    pad: Any = None,
    data_format: str = "NHWC",
    dilations: Any = (1, 1),
    dim_rounding_mode: str | None = None,
    bias: ArrayLike | None = None,
    activation: str = "linear",
    prelu_activation_weights: ArrayLike | None = None,
    leakyrelu_alpha: float = 0.2,
    depthwise: bool = False,
) -> jax.Array:
    conv = convolution.depthwise_conv2d if depthwise else convolution.conv2d
    y = inside(conv)(x, filter, strides, pad, data_format, dilations, dim_rounding_mode)
    if bias is not None and data_format == "NCHW" and bias.ndim == 1:
        bias = bias.reshape(-1, 1, 1)
    return _activate(_with_bias(y, bias), activation, prelu_activation_weights, leakyrelu_alpha)


def conv2d(config: Mapping[str, Any] | None = None, **keywords: Any) -> Tensor:
    """`activation(conv2d(x, filter, ...) + bias)`, like `tf.fused.conv2d`.

    The config dict has tfjs's keys: `x`, `filter`, `strides`, `pad`, `dataFormat`,
    `dilations`, `dimRoundingMode`, `bias`, `activation`, `preluActivationWeights`,
    `leakyreluAlpha`.

    >>> import tfjs_grad as tf
    >>> tf.fused.conv2d({"x": tf.ones([1, 2, 2, 1]), "filter": tf.ones([2, 2, 1, 1]),
    ...                  "strides": 1, "pad": "valid", "bias": [-5.0], "activation": "relu"})
    Tensor([[[[0.]]]], shape=(1, 1, 1, 1), dtype=float32)
    """
    return _conv2d(**_options("fused.conv2d", config, keywords))


def depthwise_conv2d(config: Mapping[str, Any] | None = None, **keywords: Any) -> Tensor:
    """`activation(depthwiseConv2d(x, filter, ...) + bias)`, like `tf.fused.depthwiseConv2d`
    (the config keys as `fused.conv2d`'s).

    >>> import tfjs_grad as tf
    >>> tf.fused.depthwise_conv2d({"x": tf.ones([1, 2, 2, 1]), "filter": tf.ones([2, 2, 1, 2]),
    ...                            "strides": 1, "pad": "valid", "activation": "sigmoid"})
    Tensor([[[[0.98201376, 0.98201376]]]], shape=(1, 1, 1, 2), dtype=float32)
    """
    return _conv2d(**_options("fused.depthwiseConv2d", config, keywords), depthwise=True)


matMul = mat_mul
depthwiseConv2d = depthwise_conv2d


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
