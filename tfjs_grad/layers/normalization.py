"""batchNormalization and layerNormalization.

BatchNormalization in training mode (`apply(x, training=True)`, and in `fit`) normalizes
with the batch mean and the biased batch variance and moves its statistics:
`moving = moving * momentum + batch * (1 - momentum)`, the variance biased too (tfjs's rule,
not Keras's n/(n-1)). In inference it uses the moving statistics.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> bn = tf.layers.batchNormalization(momentum=0.5)
>>> x = np.array([[0.0], [2.0]], np.float32)
>>> np.asarray(bn.apply(x, training=True)).round(3).tolist()
[[-1.0], [1.0]]
>>> [np.asarray(w).tolist() for w in bn.getWeights()[2:]]
[[0.5], [1.0]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp
from jax import lax

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .base import Layer


class _Normalization(Layer):
    _SUPPORTS_MASKING = True

    def _common(self) -> None:
        a = self._args
        self.epsilon = float(a["epsilon"])
        self.center = bool(a["center"])
        self.scale = bool(a["scale"])
        self.betaInitializer = _initializers.get(a["betaInitializer"])
        self.gammaInitializer = _initializers.get(a["gammaInitializer"])
        self.betaRegularizer = _regularizers.get(a["betaRegularizer"])
        self.gammaRegularizer = _regularizers.get(a["gammaRegularizer"])
        self.gamma: Any = None
        self.beta: Any = None

    def _make_gamma_beta(self, shape: list[int], constraints: tuple[Any, Any]) -> None:
        if self.scale:
            self.gamma = self.add_weight(
                "gamma",
                shape,
                initializer=self.gammaInitializer,
                regularizer=self.gammaRegularizer,
                constraint=constraints[0],
            )
        if self.center:
            self.beta = self.add_weight(
                "beta",
                shape,
                initializer=self.betaInitializer,
                regularizer=self.betaRegularizer,
                constraint=constraints[1],
            )

    def _affine(self, normalized: Any, shape: tuple[int, ...]) -> Any:
        if self.gamma is not None:
            normalized = normalized * self.gamma.raw().reshape(shape)
        if self.beta is not None:
            normalized = normalized + self.beta.raw().reshape(shape)
        return normalized


class BatchNormalization(_Normalization):
    """Normalize over the batch (and every axis but `axis`), then scale and shift."""

    className = "BatchNormalization"
    _KEYS: ClassVar[dict[str, Any]] = {
        "axis": -1,
        "momentum": 0.99,
        "epsilon": 1e-3,
        "center": True,
        "scale": True,
        "betaInitializer": "zeros",
        "gammaInitializer": "ones",
        "movingMeanInitializer": "zeros",
        "movingVarianceInitializer": "ones",
        "betaConstraint": None,
        "gammaConstraint": None,
        "betaRegularizer": None,
        "gammaRegularizer": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        self._common()
        self.axis = int(a["axis"])
        self.momentum = float(a["momentum"])
        self.movingMeanInitializer = _initializers.get(a["movingMeanInitializer"])
        self.movingVarianceInitializer = _initializers.get(a["movingVarianceInitializer"])
        self.betaConstraint = _constraints.get(a["betaConstraint"])
        self.gammaConstraint = _constraints.get(a["gammaConstraint"])

    def build(self, input_shape: Any) -> None:
        axis = self.axis % len(input_shape)
        dim = input_shape[axis]
        if dim is None:
            raise ValueError(
                f"Axis {self.axis} of input tensor should have a defined dimension but the "
                f"layer received an input with shape {list(input_shape)}."
            )
        self.inputSpec = [{"ndim": len(input_shape), "axes": {axis: dim}}]
        self._make_gamma_beta([dim], (self.gammaConstraint, self.betaConstraint))
        self.moving_mean = self.add_weight(
            "moving_mean", [dim], initializer=self.movingMeanInitializer, trainable=False
        )
        self.moving_variance = self.add_weight(
            "moving_variance", [dim], initializer=self.movingVarianceInitializer, trainable=False
        )
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Any:
        axis = self.axis % inputs.ndim
        reduce = tuple(i for i in range(inputs.ndim) if i != axis)
        shape = tuple(inputs.shape[i] if i == axis else 1 for i in range(inputs.ndim))
        if training:
            mean = jnp.mean(inputs, axis=reduce)
            variance = jnp.mean(jnp.square(inputs - mean.reshape(shape)), axis=reduce)
            decay = 1 - self.momentum
            for var, batch in ((self.moving_mean, mean), (self.moving_variance, variance)):
                moving = var.raw()
                var.assign(moving - (moving - lax.stop_gradient(batch)) * decay)
        else:
            mean, variance = self.moving_mean.raw(), self.moving_variance.raw()
        normalized = (inputs - mean.reshape(shape)) * lax.rsqrt(
            variance.reshape(shape) + self.epsilon
        )
        return self._affine(normalized, shape)

    def get_config(self) -> dict[str, Any]:
        return {
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": _initializers.serialize(self.betaInitializer),
            "gamma_initializer": _initializers.serialize(self.gammaInitializer),
            "moving_mean_initializer": _initializers.serialize(self.movingMeanInitializer),
            "moving_variance_initializer": _initializers.serialize(self.movingVarianceInitializer),
            "beta_regularizer": _regularizers.serialize(self.betaRegularizer),
            "gamma_regularizer": _regularizers.serialize(self.gammaRegularizer),
            "beta_constraint": _constraints.serialize(self.betaConstraint),
            "gamma_constraint": _constraints.serialize(self.gammaConstraint),
            **super().get_config(),
        }


class LayerNormalization(_Normalization):
    """Normalize each sample over `axis` (default the last), then scale and shift."""

    className = "LayerNormalization"
    _KEYS: ClassVar[dict[str, Any]] = {
        "axis": -1,
        "epsilon": 1e-3,
        "center": True,
        "scale": True,
        "betaInitializer": "zeros",
        "gammaInitializer": "ones",
        "betaRegularizer": None,
        "gammaRegularizer": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self._common()
        axis = self._args["axis"]
        self.axis: list[int] = (
            [int(a) for a in axis] if isinstance(axis, (list, tuple)) else [int(axis)]
        )

    def build(self, input_shape: Any) -> None:
        rank = len(input_shape)
        self.axis = sorted({a % rank for a in self.axis})
        shape = [int(input_shape[a]) for a in self.axis]
        self._make_gamma_beta(shape, (None, None))
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Any:
        axes = tuple(a % inputs.ndim for a in self.axis)
        mean = jnp.mean(inputs, axis=axes, keepdims=True)
        variance = jnp.mean(jnp.square(inputs - mean), axis=axes, keepdims=True)
        normalized = (inputs - mean) * lax.rsqrt(variance + self.epsilon)
        shape = tuple(inputs.shape[i] if i in axes else 1 for i in range(inputs.ndim))
        return self._affine(normalized, shape)

    def get_config(self) -> dict[str, Any]:
        return {
            "axis": list(self.axis),
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": _initializers.serialize(self.betaInitializer),
            "gamma_initializer": _initializers.serialize(self.gammaInitializer),
            "beta_regularizer": _regularizers.serialize(self.betaRegularizer),
            "gamma_regularizer": _regularizers.serialize(self.gammaRegularizer),
            **super().get_config(),
        }
