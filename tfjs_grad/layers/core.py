"""Core layers: dense, activation, dropout, flatten, reshape, permute, repeatVector.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> layer = tf.layers.dense(units=2, kernelInitializer="ones", activation="relu")
>>> np.asarray(layer.apply(np.array([[1.0, -3.0]], np.float32))).tolist()
[[0.0, 0.0]]
>>> [w.shape for w in layer.weights]
[(2, 2), (2,)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from .. import _rng
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._config import REQUIRED
from . import activations
from .base import Layer, exactly_one, positive_integer


class Dense(Layer):
    """`act(x @ kernel + bias)` over the last axis (tfjs's `tf.layers.dense`)."""

    className = "Dense"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {
        "units": REQUIRED,
        "activation": None,
        "useBias": True,
        "kernelInitializer": "glorotNormal",
        "biasInitializer": "zeros",
        "kernelRegularizer": None,
        "biasRegularizer": None,
        "activityRegularizer": None,
        "kernelConstraint": None,
        "biasConstraint": None,
        "inputDim": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        if self.batchInputShape is None and a["inputDim"] is not None:
            self.batchInputShape = [a["batchSize"], a["inputDim"]]
            self.dtype = self.dtype or "float32"
        self.units = positive_integer(a["units"], "units")
        self.activation = activations.canonical(a["activation"])
        self.useBias = bool(a["useBias"])
        self.kernelInitializer = _initializers.get(a["kernelInitializer"])
        self.biasInitializer = _initializers.get(a["biasInitializer"])
        self.kernelRegularizer = _regularizers.get(a["kernelRegularizer"])
        self.biasRegularizer = _regularizers.get(a["biasRegularizer"])
        self.activityRegularizer = _regularizers.get(a["activityRegularizer"])
        self.kernelConstraint = _constraints.get(a["kernelConstraint"])
        self.biasConstraint = _constraints.get(a["biasConstraint"])
        self.inputSpec = [{"minNDim": 2}]

    def build(self, input_shape: Any) -> None:
        last = input_shape[-1]
        self.kernel = self.add_weight(
            "kernel",
            [last, self.units],
            initializer=self.kernelInitializer,
            regularizer=self.kernelRegularizer,
            constraint=self.kernelConstraint,
        )
        self.bias = None
        if self.useBias:
            self.bias = self.add_weight(
                "bias",
                [self.units],
                initializer=self.biasInitializer,
                regularizer=self.biasRegularizer,
                constraint=self.biasConstraint,
            )
        self.inputSpec = [{"minNDim": 2, "axes": {-1: last}}]
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Any:
        y = jnp.matmul(inputs, self.kernel.raw())
        if self.bias is not None:
            y = y + self.bias.raw()
        return activations.get(self.activation)(y)

    def get_config(self) -> dict[str, Any]:
        return {
            "units": self.units,
            "activation": activations.pythonic(self.activation),
            "use_bias": self.useBias,
            "kernel_initializer": _initializers.serialize(self.kernelInitializer),
            "bias_initializer": _initializers.serialize(self.biasInitializer),
            "kernel_regularizer": _regularizers.serialize(self.kernelRegularizer),
            "bias_regularizer": _regularizers.serialize(self.biasRegularizer),
            "activity_regularizer": _regularizers.serialize(self.activityRegularizer),
            "kernel_constraint": _constraints.serialize(self.kernelConstraint),
            "bias_constraint": _constraints.serialize(self.biasConstraint),
            **super().get_config(),
        }


class Activation(Layer):
    """An activation function as a layer."""

    className = "Activation"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"activation": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.activation = activations.canonical(self._args["activation"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        return activations.get(self.activation)(inputs)

    def get_config(self) -> dict[str, Any]:
        return {"activation": activations.pythonic(self.activation), **super().get_config()}


class Dropout(Layer):
    """Training: zero each value with probability `rate`, scale the rest by 1/(1-rate)."""

    className = "Dropout"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"rate": REQUIRED, "noiseShape": None, "seed": None}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.rate = float(self._args["rate"])
        if not 0 <= self.rate < 1:
            raise ValueError(
                f"Invalid value received for argument `rate`. Expected a float "
                f"value between 0 and 1. Got: {self.rate}"
            )
        self.noiseShape = self._args["noiseShape"]
        self.seed = self._args["seed"]
        self.supportsMasking = True

    def call(self, inputs: Any, training: bool = False) -> Any:
        if not training or self.rate == 0:
            return inputs
        shape = inputs.shape
        if self.noiseShape is not None:
            shape = tuple(s if n is None else n for s, n in zip(inputs.shape, self.noiseShape))
        keep = jax.random.bernoulli(_rng.next_key(self.seed), 1 - self.rate, shape)
        return jnp.where(keep, inputs / (1 - self.rate), jnp.zeros((), inputs.dtype))

    def get_config(self) -> dict[str, Any]:
        return {
            "rate": self.rate,
            "noise_shape": self.noiseShape,
            "seed": self.seed,
            **super().get_config(),
        }


class SpatialDropout1D(Dropout):
    """Dropout of whole channels of `[batch, steps, channels]` inputs."""

    className = "SpatialDropout1D"

    def call(self, inputs: Any, training: bool = False) -> Any:
        self.noiseShape = [inputs.shape[0], 1, inputs.shape[2]]
        return super().call(inputs, training)


class Flatten(Layer):
    """Row-major flattening of every non-batch axis."""

    className = "Flatten"
    _KEYS: ClassVar[dict[str, Any]] = {"dataFormat": "channelsLast"}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.dataFormat = _data_format(self._args["dataFormat"])
        self.inputSpec = [{"minNDim": 3}]

    def call(self, inputs: Any, training: bool = False) -> Any:
        if self.dataFormat == "channelsFirst" and inputs.ndim > 2:
            inputs = jnp.moveaxis(inputs, 1, -1)
        return inputs.reshape(inputs.shape[0], -1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        if self.dataFormat != "channelsLast":
            config["data_format"] = _pythonic_format(self.dataFormat)
        return config


class Reshape(Layer):
    """Reshape the non-batch axes to `targetShape` (one entry may be -1)."""

    className = "Reshape"
    _KEYS: ClassVar[dict[str, Any]] = {"targetShape": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.targetShape = [int(d) if d is not None else -1 for d in self._args["targetShape"]]

    def call(self, inputs: Any, training: bool = False) -> Any:
        size = int(np.prod(inputs.shape[1:]))
        known = int(np.prod([d for d in self.targetShape if d != -1]))
        if (-1 in self.targetShape and size % known) or (
            -1 not in self.targetShape and size != known
        ):
            raise ValueError("Total size of new array must be unchanged.")
        return inputs.reshape(inputs.shape[0], *self.targetShape)

    def get_config(self) -> dict[str, Any]:
        return {"target_shape": list(self.targetShape), **super().get_config()}


class Permute(Layer):
    """Permute the non-batch axes; `dims` counts from 1."""

    className = "Permute"
    _KEYS: ClassVar[dict[str, Any]] = {"dims": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.dims = [int(d) for d in self._args["dims"]]
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(
                f"Invalid permutation `dims`: {self.dims}. `dims` must contain "
                "consecutive integers starting from 1."
            )

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.transpose(inputs, [0, *self.dims])

    def get_config(self) -> dict[str, Any]:
        return {"dims": list(self.dims), **super().get_config()}


class RepeatVector(Layer):
    """`[batch, features]` -> `[batch, n, features]`."""

    className = "RepeatVector"
    _KEYS: ClassVar[dict[str, Any]] = {"n": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.n = positive_integer(self._args["n"], "n")
        self.inputSpec = [{"ndim": 2}]

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.repeat(inputs[:, None, :], self.n, axis=1)

    def get_config(self) -> dict[str, Any]:
        return {"n": self.n, **super().get_config()}


_FORMATS = {
    "channelsLast": "channelsLast",
    "channels_last": "channelsLast",
    "channelsFirst": "channelsFirst",
    "channels_first": "channelsFirst",
}


def _data_format(value: Any) -> str:
    if value is None:
        return "channelsLast"
    if value not in _FORMATS:
        raise ValueError(f"Invalid DataFormat: {value}; expected channelsFirst or channelsLast")
    return _FORMATS[value]


def _pythonic_format(value: str) -> str:
    return "channels_last" if value == "channelsLast" else "channels_first"


class Masking(Layer):
    """Zero the steps whose every feature equals `maskValue`; the output's mask is false
    at those steps (for the recurrent layers after it)."""

    className = "Masking"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"maskValue": 0.0}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.maskValue = float(self._args["maskValue"])

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        return jnp.any(jnp.asarray(exactly_one(inputs)) != self.maskValue, axis=-1)

    def call(self, inputs: Any, training: bool = False) -> Any:
        keep = jnp.any(inputs != self.maskValue, axis=-1, keepdims=True)
        return inputs * keep.astype(inputs.dtype)

    def get_config(self) -> dict[str, Any]:
        return {"mask_value": self.maskValue, **super().get_config()}


class Rescaling(Layer):
    """`x * scale + offset`."""

    className = "Rescaling"
    _KEYS: ClassVar[dict[str, Any]] = {"scale": REQUIRED, "offset": 0.0}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.scale = float(self._args["scale"])
        self.offset = float(self._args["offset"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.asarray(inputs, jnp.float32) * self.scale + self.offset

    def get_config(self) -> dict[str, Any]:
        return {"scale": self.scale, "offset": self.offset, **super().get_config()}
