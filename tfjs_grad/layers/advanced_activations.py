"""Activation layers with parameters: reLU, leakyReLU, prelu, elu, thresholdedReLU, softmax.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> np.asarray(tf.layers.leakyReLU(alpha=0.1).apply(np.array([-1.0, 2.0], np.float32))).tolist()
[-0.10000000149011612, 2.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import Layer


class ReLU(Layer):
    """`max(x, 0)`, capped at `maxValue` when given."""

    className = "ReLU"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"maxValue": None}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.maxValue = self._args["maxValue"]

    def call(self, inputs: Any, training: bool = False) -> Any:
        y = jnp.maximum(inputs, 0)
        return y if self.maxValue is None else jnp.minimum(y, self.maxValue)

    def get_config(self) -> dict[str, Any]:
        return {"max_value": self.maxValue, **super().get_config()}


class LeakyReLU(Layer):
    """`x` for positive inputs, `alpha * x` otherwise."""

    className = "LeakyReLU"
    _KEYS: ClassVar[dict[str, Any]] = {"alpha": 0.3}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.alpha = float(self._args["alpha"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.where(inputs > 0, inputs, self.alpha * inputs)

    def get_config(self) -> dict[str, Any]:
        return {"alpha": self.alpha, **super().get_config()}


class ELU(Layer):
    """`x` for positive inputs, `alpha * (exp(x) - 1)` otherwise."""

    className = "ELU"
    _KEYS: ClassVar[dict[str, Any]] = {"alpha": 1.0}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.alpha = float(self._args["alpha"])
        if self.alpha != 1.0:
            raise NotImplementedError(
                f"Non-default alpha value ({self.alpha}) is not supported by the ELU layer yet."
            )

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.where(inputs > 0, inputs, jnp.expm1(jnp.minimum(inputs, 0)))

    def get_config(self) -> dict[str, Any]:
        return {"alpha": self.alpha, **super().get_config()}


class ThresholdedReLU(Layer):
    """`x` where `x > theta`, else 0."""

    className = "ThresholdedReLU"
    _KEYS: ClassVar[dict[str, Any]] = {"theta": 1.0}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.theta = float(self._args["theta"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.where(inputs > self.theta, inputs, jnp.zeros((), inputs.dtype))

    def get_config(self) -> dict[str, Any]:
        return {"theta": self.theta, **super().get_config()}


class Softmax(Layer):
    """Softmax over `axis` (tfjs's default is axis 1)."""

    className = "Softmax"
    _USES_MASK = True
    _KEYS: ClassVar[dict[str, Any]] = {"axis": 1}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.axis = int(self._args["axis"])

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        if mask is not None:  # tfjs: masked positions get -1e9 before the softmax
            inputs = inputs + (1 - jnp.asarray(mask).astype(inputs.dtype)) * -1e9
        return jax.nn.softmax(inputs, axis=self.axis)

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis, **super().get_config()}


class PReLU(Layer):
    """Leaky ReLU with a learned slope per value (`alpha`, shared along `sharedAxes`)."""

    className = "PReLU"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {
        "alphaInitializer": "zeros",
        "alphaRegularizer": None,
        "alphaConstraint": None,
        "sharedAxes": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        self.alphaInitializer = _initializers.get(a["alphaInitializer"])
        self.alphaRegularizer = _regularizers.get(a["alphaRegularizer"])
        self.alphaConstraint = _constraints.get(a["alphaConstraint"])
        shared = a["sharedAxes"]
        self.sharedAxes = (
            None
            if shared is None
            else ([int(shared)] if isinstance(shared, int) else [int(s) for s in shared])
        )

    def build(self, input_shape: Any) -> None:
        shape = [int(d) for d in input_shape[1:]]
        for axis in self.sharedAxes or []:
            shape[axis - 1] = 1
        self.alpha = self.add_weight(
            "alpha",
            shape,
            initializer=self.alphaInitializer,
            regularizer=self.alphaRegularizer,
            constraint=self.alphaConstraint,
        )
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.where(inputs > 0, inputs, self.alpha.raw() * inputs)

    def get_config(self) -> dict[str, Any]:
        return {
            "alpha_initializer": _initializers.serialize(self.alphaInitializer),
            "alpha_regularizer": _regularizers.serialize(self.alphaRegularizer),
            "alpha_constraint": _constraints.serialize(self.alphaConstraint),
            "shared_axes": self.sharedAxes,
            **super().get_config(),
        }
