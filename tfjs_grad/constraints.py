"""`tf.constraints`: projections applied to weights after each training step (tfjs's).

>>> import jax.numpy as jnp
>>> import tfjs_grad as tf
>>> tf.constraints.nonNeg().apply(jnp.array([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from ._config import camel, merge
from ._scope import track
from ._tensor import Tensor
from ._tensors import TensorLike

_EPSILON = 1e-7  # tfjs's backend epsilon


def _norms(w: Any, axis: Any) -> Any:
    return jnp.sqrt(jnp.sum(jnp.square(w), axis=axis, keepdims=True))


class Constraint:
    """Base class: `apply(w)` is the projected value: a Tensor for a Tensor (as tfjs), an
    array for an array.

    >>> import tfjs_grad as tf
    >>> tf.constraints.nonNeg().apply(tf.tensor1d([-1, 2])).relu().arraySync()
    [0.0, 2.0]
    """

    className: ClassVar[str] = "Constraint"
    _KEYS: ClassVar[dict[str, Any]] = {}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        self.config = merge(config, kwargs, self._KEYS, self.className)

    def apply(self, w: TensorLike) -> jax.Array | Tensor:
        raise NotImplementedError

    __call__ = apply

    def getClassName(self) -> str:
        return self.className

    def getConfig(self) -> dict[str, Any]:
        return dict(self.config)

    get_class_name = getClassName
    get_config = getConfig


class MaxNorm(Constraint):
    className = "MaxNorm"
    _KEYS = {"maxValue": 2.0, "axis": 0}

    def apply(self, w: TensorLike) -> jax.Array | Tensor:
        norms = _norms(w, self.config["axis"])
        desired = jnp.clip(norms, 0, self.config["maxValue"])
        return w * (desired / (_EPSILON + norms))

    def getConfig(self) -> dict[str, Any]:
        return {"max_value": self.config["maxValue"], "axis": self.config["axis"]}


class UnitNorm(Constraint):
    className = "UnitNorm"
    _KEYS = {"axis": 0}

    def apply(self, w: TensorLike) -> jax.Array | Tensor:
        return w / (_EPSILON + _norms(w, self.config["axis"]))


class NonNeg(Constraint):
    className = "NonNeg"

    def apply(self, w: TensorLike) -> jax.Array | Tensor:
        projected = jnp.maximum(w, 0)
        return track(projected) if isinstance(w, Tensor) else projected


class MinMaxNorm(Constraint):
    className = "MinMaxNorm"
    _KEYS = {"minValue": 0.0, "maxValue": 1.0, "rate": 1.0, "axis": 0}

    def apply(self, w: TensorLike) -> jax.Array | Tensor:
        c = self.config
        norms = _norms(w, c["axis"])
        desired = (
            c["rate"] * jnp.clip(norms, c["minValue"], c["maxValue"]) + (1 - c["rate"]) * norms
        )
        return w * (desired / (_EPSILON + norms))

    def getConfig(self) -> dict[str, Any]:
        c = self.config
        return {
            "min_value": c["minValue"],
            "max_value": c["maxValue"],
            "rate": c["rate"],
            "axis": c["axis"],
        }


_CLASSES: dict[str, type[Constraint]] = {
    c.className: c for c in (MaxNorm, UnitNorm, NonNeg, MinMaxNorm)
}


def maxNorm(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> MaxNorm:
    """tfjs's `tf.constraints.maxNorm({maxValue: 2, axis: 0})`."""
    return MaxNorm(config, **kwargs)


def unitNorm(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> UnitNorm:
    """tfjs's `tf.constraints.unitNorm({axis: 0})`."""
    return UnitNorm(config, **kwargs)


def nonNeg() -> NonNeg:
    """tfjs's `tf.constraints.nonNeg()`."""
    return NonNeg()


def minMaxNorm(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> MinMaxNorm:
    """tfjs's `tf.constraints.minMaxNorm({minValue: 0, maxValue: 1, rate: 1, axis: 0})`."""
    return MinMaxNorm(config, **kwargs)


max_norm, unit_norm, non_neg, min_max_norm = maxNorm, unitNorm, nonNeg, minMaxNorm


def get(identifier: Any) -> Constraint | None:
    """A constraint from None, a Constraint, a name ('maxNorm', 'max_norm', 'nonNeg', ...)
    or `{"class_name", "config"}`."""
    if identifier is None or isinstance(identifier, Constraint):
        return identifier
    if isinstance(identifier, Mapping) and identifier.get("class_name") in _CLASSES:
        cls = _CLASSES[identifier["class_name"]]
        return cls({camel(k): v for k, v in (identifier.get("config") or {}).items()})
    if isinstance(identifier, str):
        name = camel(identifier)
        cls = _CLASSES.get(name[:1].upper() + name[1:])
        if cls is not None:
            return cls()
    raise ValueError(f"Unknown constraint: {identifier}")


def serialize(c: Constraint | None) -> dict[str, Any] | None:
    return None if c is None else {"class_name": c.getClassName(), "config": c.getConfig()}


__all__ = [
    "Constraint",
    "MaxNorm",
    "MinMaxNorm",
    "NonNeg",
    "UnitNorm",
    "get",
    "maxNorm",
    "max_norm",
    "minMaxNorm",
    "min_max_norm",
    "nonNeg",
    "non_neg",
    "serialize",
    "unitNorm",
    "unit_norm",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
