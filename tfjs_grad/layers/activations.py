"""Activation functions by tfjs name (`'relu'`, `'hardSigmoid'`, ...), as layers take them.

>>> import jax.numpy as jnp
>>> from tfjs_grad.layers.activations import get
>>> get("hardSigmoid")(jnp.array([-3.0, 0.0, 1.0])).tolist()
[0.0, 0.5, 0.699999988079071]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

Activation = Callable[[Any], Any]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _hard_sigmoid(x: Any) -> Any:
    return jnp.clip(0.2 * x + 0.5, 0.0, 1.0)


def _selu(x: Any) -> Any:
    return _SELU_SCALE * jnp.where(x > 0, x, _SELU_ALPHA * jnp.expm1(jnp.minimum(x, 0)))


def _gelu_new(x: Any) -> Any:
    return 0.5 * x * (1 + jnp.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


_BY_NAME: dict[str, Activation] = {
    "linear": lambda x: x,
    "relu": jax.nn.relu,
    "relu6": lambda x: jnp.clip(x, 0.0, 6.0),
    "elu": lambda x: jnp.where(x > 0, x, jnp.expm1(jnp.minimum(x, 0))),
    "selu": _selu,
    "sigmoid": jax.nn.sigmoid,
    "hardSigmoid": _hard_sigmoid,
    "tanh": jnp.tanh,
    "softmax": lambda x: jax.nn.softmax(x, axis=-1),
    "logSoftmax": lambda x: jax.nn.log_softmax(x, axis=-1),
    "softplus": jax.nn.softplus,
    "softsign": lambda x: x / (1 + jnp.abs(x)),
    "swish": lambda x: x * jax.nn.sigmoid(x),
    "mish": lambda x: x * jnp.tanh(jax.nn.softplus(x)),
    "gelu": lambda x: jax.nn.gelu(x, approximate=False),
    "gelu_new": _gelu_new,
}
_ALIASES = {"hard_sigmoid": "hardSigmoid", "log_softmax": "logSoftmax"}
_PYTHONIC = {"hardSigmoid": "hard_sigmoid", "logSoftmax": "log_softmax"}


def canonical(name: str | None) -> str:
    """The tfjs name of an activation given by tfjs's or Keras's name (None: 'linear')."""
    if name is None:
        return "linear"
    if not isinstance(name, str):
        raise ValueError(f"Unknown activation: {name!r}. The activation must be a string")
    key = _ALIASES.get(name, name)
    if key not in _BY_NAME:
        raise ValueError(
            f"Unknown activation: {name}. This may be due to one of the following reasons:\n"
            "1. The activation is defined in Python, in which case it needs to be ported to "
            "TensorFlow.js or your JavaScript code.\n"
            "2. The custom activation is defined in JavaScript, but is not registered properly "
            "with tf.serialization.registerClass()."
        )
    return key


def get(name: str | None) -> Activation:
    """The function of an activation name."""
    return _BY_NAME[canonical(name)]


def pythonic(name: str) -> str:
    """The name model.json stores (`hardSigmoid` -> `hard_sigmoid`)."""
    return _PYTHONIC.get(name, name)
