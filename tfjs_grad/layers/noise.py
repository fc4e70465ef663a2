"""Noise layers, active in training mode only: gaussianNoise, gaussianDropout, alphaDropout.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> x = np.ones((2, 3), np.float32)
>>> bool((np.asarray(tf.layers.gaussianNoise(stddev=0.5).apply(x)) == x).all())
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from .. import _rng
from .._config import REQUIRED
from .base import Layer


class GaussianNoise(Layer):
    """Training: `x + N(0, stddev)`."""

    className = "GaussianNoise"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"stddev": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.stddev = float(self._args["stddev"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        if not training:
            return inputs
        noise = jax.random.normal(_rng.next_key(None), inputs.shape, inputs.dtype)
        return inputs + self.stddev * noise

    def get_config(self) -> dict[str, Any]:
        return {"stddev": self.stddev, **super().get_config()}


class GaussianDropout(Layer):
    """Training: `x * N(1, rate / (1 - rate))` (multiplicative noise)."""

    className = "GaussianDropout"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"rate": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.rate = float(self._args["rate"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        if not training or not 0 < self.rate < 1:
            return inputs
        std = math.sqrt(self.rate / (1 - self.rate))
        noise = jax.random.normal(_rng.next_key(None), inputs.shape, inputs.dtype)
        return inputs * (1 + std * noise)

    def get_config(self) -> dict[str, Any]:
        return {"rate": self.rate, **super().get_config()}


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


class AlphaDropout(Layer):
    """Training: dropout that keeps SELU's mean and variance (dropped values -> alpha')."""

    className = "AlphaDropout"
    _SUPPORTS_MASKING = True
    _KEYS: ClassVar[dict[str, Any]] = {"rate": REQUIRED, "noiseShape": None}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.rate = float(self._args["rate"])
        self.noiseShape = self._args["noiseShape"]

    def call(self, inputs: Any, training: bool = False) -> Any:
        if not training or not 0 < self.rate < 1:
            return inputs
        alpha_p = -_SELU_ALPHA * _SELU_SCALE
        keep = jax.random.bernoulli(_rng.next_key(None), 1 - self.rate, inputs.shape)
        a = ((1 - self.rate) * (1 + self.rate * alpha_p**2)) ** -0.5
        b = -a * alpha_p * self.rate
        return a * jnp.where(keep, inputs, alpha_p) + b

    def get_config(self) -> dict[str, Any]:
        return {"rate": self.rate, **super().get_config()}
