"""`tf.regularizers`: penalties on weights that `fit` adds to the loss (tfjs's L1L2).

>>> import jax.numpy as jnp
>>> import tfjs_grad as tf
>>> float(tf.regularizers.l1l2(l1=0.5, l2=0.25).apply(jnp.array([1.0, -2.0])))
2.75
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax.numpy as jnp

from ._config import camel, merge


class Regularizer:
    """Base class: `apply(x)` is the scalar penalty of a weight's value."""

    className = "Regularizer"

    def apply(self, x: Any) -> Any:
        raise NotImplementedError

    __call__ = apply

    def getClassName(self) -> str:
        return self.className

    def getConfig(self) -> dict[str, Any]:
        return {}

    get_class_name = getClassName
    get_config = getConfig


class L1L2(Regularizer):
    """`l1 * sum(|x|) + l2 * sum(x**2)`."""

    className = "L1L2"

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        c = merge(config, kwargs, {"l1": 0.0, "l2": 0.0}, "L1L2")
        self.l1, self.l2 = float(c["l1"]), float(c["l2"])

    def apply(self, x: Any) -> Any:
        x = jnp.asarray(x)
        total = jnp.zeros((), x.dtype)
        if self.l1:
            total = total + self.l1 * jnp.sum(jnp.abs(x))
        if self.l2:
            total = total + self.l2 * jnp.sum(jnp.square(x))
        return total

    __call__ = apply

    def getConfig(self) -> dict[str, Any]:
        return {"l1": self.l1, "l2": self.l2}

    get_config = getConfig


def l1(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> L1L2:
    """tfjs's `tf.regularizers.l1({l1: 0.01})`."""
    c = merge(config, kwargs, {"l1": 0.01}, "l1")
    return L1L2(l1=c["l1"])


def l2(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> L1L2:
    """tfjs's `tf.regularizers.l2({l2: 0.01})`."""
    c = merge(config, kwargs, {"l2": 0.01}, "l2")
    return L1L2(l2=c["l2"])


def l1l2(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> L1L2:
    """tfjs's `tf.regularizers.l1l2({l1: 0.01, l2: 0.01})`."""
    c = merge(config, kwargs, {"l1": 0.01, "l2": 0.01}, "l1l2")
    return L1L2(c)


l1_l2 = l1l2


def get(identifier: Any) -> Regularizer | None:
    """A regularizer from None, a Regularizer, a name ('l1', 'l2', 'l1l2') or
    `{"class_name": "L1L2", "config": {...}}`."""
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, Mapping) and identifier.get("class_name") == "L1L2":
        return L1L2(identifier.get("config") or {})
    if isinstance(identifier, str):
        made = {"l1": l1, "l2": l2, "l1l2": l1l2, "L1L2": l1l2}.get(camel(identifier))
        if made is not None:
            return made()
    raise ValueError(f"Unknown regularizer: {identifier}")


def serialize(reg: Regularizer | None) -> dict[str, Any] | None:
    return None if reg is None else {"class_name": reg.getClassName(), "config": reg.getConfig()}


__all__ = [
    "L1L2",
    "Regularizer",
    "get",
    "l1",
    "l1_l2",
    "l1l2",
    "l2",
    "serialize",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
