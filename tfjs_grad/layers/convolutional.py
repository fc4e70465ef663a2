"""Convolution layers: conv1d, conv2d, conv2dTranspose, depthwiseConv2d, separableConv2d.

Kernels are channels-last, as tfjs stores them: conv `[k..., inChannels, filters]`,
transposed conv `[kh, kw, filters, inChannels]`, depthwise `[kh, kw, inChannels,
depthMultiplier]`. 'same' padding is TensorFlow's (the odd pad goes after).

>>> import numpy as np
>>> import tfjs_grad as tf
>>> conv = tf.layers.conv2d(filters=1, kernelSize=2, kernelInitializer="ones")
>>> np.asarray(conv.apply(np.ones((1, 3, 3, 1), np.float32)))[0, :, :, 0].tolist()
[[4.0, 4.0], [4.0, 4.0]]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import jax.numpy as jnp
from jax import lax

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._config import REQUIRED
from . import activations
from .base import Layer, positive_integer
from .core import _data_format, _pythonic_format


def tuple_of(value: Any, rank: int, what: str) -> list[int]:
    """An int or a list of `rank` ints, as a list (tfjs's normalizeArray)."""
    if not isinstance(value, (list, tuple)):
        return [positive_integer(value, what)] * rank
    if not value:
        raise ValueError(f"{what} is unexpectedly an empty array.")
    values = [positive_integer(v, f"element {i + 1} of {what}") for i, v in enumerate(value)]
    if len(values) == 1 and rank > 1:
        values = values * rank
    if len(values) != rank:
        raise ValueError(
            f"The {what} argument must be an integer or tuple of {rank} integers. Received: {value}"
        )
    return values


_PADDINGS = {"valid", "same", "causal"}


def _padding(value: Any) -> str:
    if value not in _PADDINGS:
        raise ValueError(f"Invalid PaddingMode: {value}; expected one of {sorted(_PADDINGS)}")
    return value


class _Conv(Layer):
    """Shared by the convolutions: config, channels-last plumbing, bias and activation."""

    rank: ClassVar[int] = 2
    _KEYS: ClassVar[dict[str, Any]] = {
        "filters": REQUIRED,
        "kernelSize": REQUIRED,
        "strides": 1,
        "padding": "valid",
        "dataFormat": "channelsLast",
        "dilationRate": 1,
        "activation": None,
        "useBias": True,
        "kernelInitializer": "glorotNormal",
        "biasInitializer": "zeros",
        "kernelConstraint": None,
        "biasConstraint": None,
        "kernelRegularizer": None,
        "biasRegularizer": None,
        "activityRegularizer": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        self.filters = (
            positive_integer(a["filters"], "filters") if a.get("filters") is not None else None
        )
        self.kernelSize = tuple_of(a["kernelSize"], self.rank, "kernelSize")
        self.strides = tuple_of(a["strides"], self.rank, "strides")
        self.padding = _padding(a["padding"])
        self.dataFormat = _data_format(a["dataFormat"])
        self.dilationRate = tuple_of(a["dilationRate"], self.rank, "dilationRate")
        self.activation = activations.canonical(a["activation"])
        self.useBias = bool(a["useBias"])
        self.kernelInitializer = _initializers.get(a.get("kernelInitializer", "glorotNormal"))
        self.biasInitializer = _initializers.get(a["biasInitializer"])
        self.kernelConstraint = _constraints.get(a.get("kernelConstraint"))
        self.biasConstraint = _constraints.get(a["biasConstraint"])
        self.kernelRegularizer = _regularizers.get(a.get("kernelRegularizer"))
        self.biasRegularizer = _regularizers.get(a["biasRegularizer"])
        self.activityRegularizer = _regularizers.get(a["activityRegularizer"])
        self.inputSpec = [{"ndim": self.rank + 2}]
        self.bias: Any = None

    def _channels(self, input_shape: Sequence[int | None]) -> int:
        axis = -1 if self.dataFormat == "channelsLast" else 1
        channels = input_shape[axis]
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        return int(channels)

    def _make_bias(self, size: int) -> None:
        if self.useBias:
            self.bias = self.add_weight(
                "bias",
                [size],
                initializer=self.biasInitializer,
                regularizer=self.biasRegularizer,
                constraint=self.biasConstraint,
            )

    def _dims(self) -> tuple[str, str, str]:
        spatial = {1: "W", 2: "HW", 3: "DHW"}[self.rank]
        return f"N{spatial}C", f"{spatial}IO", f"N{spatial}C"

    def _pad(self) -> Any:
        if self.padding == "causal":
            if self.rank != 1:
                raise ValueError("Causal padding is only supported for conv1d")
            left = self.dilationRate[0] * (self.kernelSize[0] - 1)
            return [(left, 0)]
        return self.padding.upper()

    def call(self, inputs: Any, training: bool = False) -> Any:
        x = inputs
        if self.dataFormat == "channelsFirst":
            x = jnp.moveaxis(x, 1, -1)
        y = self._convolve(x)
        if self.bias is not None:
            y = y + self.bias.raw()
        y = activations.get(self.activation)(y)
        if self.dataFormat == "channelsFirst":
            y = jnp.moveaxis(y, -1, 1)
        return y

    def _convolve(self, x: Any) -> Any:
        raise NotImplementedError

    def _bias_config(self) -> dict[str, Any]:
        return {
            "activation": activations.pythonic(self.activation),
            "use_bias": self.useBias,
            "bias_initializer": _initializers.serialize(self.biasInitializer),
            "bias_regularizer": _regularizers.serialize(self.biasRegularizer),
            "activity_regularizer": _regularizers.serialize(self.activityRegularizer),
            "bias_constraint": _constraints.serialize(self.biasConstraint),
        }

    def _kernel_config(self) -> dict[str, Any]:
        return {
            "filters": self.filters,
            "kernel_initializer": _initializers.serialize(self.kernelInitializer),
            "kernel_regularizer": _regularizers.serialize(self.kernelRegularizer),
            "kernel_constraint": _constraints.serialize(self.kernelConstraint),
        }

    def _shape_config(self, data_format: bool = True, dilation: bool = True) -> dict[str, Any]:
        config: dict[str, Any] = {
            "kernel_size": list(self.kernelSize),
            "strides": list(self.strides),
            "padding": self.padding,
        }
        if data_format:
            config["data_format"] = _pythonic_format(self.dataFormat)
        if dilation:
            config["dilation_rate"] = list(self.dilationRate)
        return config


class Conv2D(_Conv):
    """2-D cross-correlation over `[batch, height, width, channels]`."""

    className = "Conv2D"
    rank = 2

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.kernel = self.add_weight(
            "kernel",
            [*self.kernelSize, channels, self.filters],
            initializer=self.kernelInitializer,
            regularizer=self.kernelRegularizer,
            constraint=self.kernelConstraint,
        )
        self._make_bias(int(self.filters or 0))
        self.built = True

    def _convolve(self, x: Any) -> Any:
        return lax.conv_general_dilated(
            x,
            self.kernel.raw(),
            self.strides,
            self._pad(),
            rhs_dilation=self.dilationRate,
            dimension_numbers=self._dims(),
        )

    def get_config(self) -> dict[str, Any]:
        return {
            **self._kernel_config(),
            **self._shape_config(),
            **self._bias_config(),
            **super().get_config(),
        }


class Conv1D(Conv2D):
    """1-D cross-correlation over `[batch, steps, channels]` ('causal' padding too)."""

    className = "Conv1D"
    rank = 1

    def get_config(self) -> dict[str, Any]:
        return {
            **self._kernel_config(),
            **self._shape_config(data_format=False),
            **self._bias_config(),
            **Layer.get_config(self),
        }


class Conv3D(Conv2D):
    """3-D cross-correlation over `[batch, depth, height, width, channels]`."""

    className = "Conv3D"
    rank = 3


class Conv2DTranspose(_Conv):
    """The transpose (gradient) of conv2d; kernel `[kh, kw, filters, inChannels]`."""

    className = "Conv2DTranspose"
    rank = 2

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.kernel = self.add_weight(
            "kernel",
            [*self.kernelSize, self.filters, channels],
            initializer=self.kernelInitializer,
            regularizer=self.kernelRegularizer,
            constraint=self.kernelConstraint,
        )
        self._make_bias(int(self.filters or 0))
        self.built = True

    def _convolve(self, x: Any) -> Any:
        return lax.conv_transpose(
            x,
            self.kernel.raw(),
            self.strides,
            self.padding.upper(),
            dimension_numbers=("NHWC", "HWIO", "NHWC"),
            transpose_kernel=True,
        )

    def get_config(self) -> dict[str, Any]:
        return {
            **self._kernel_config(),
            **self._shape_config(dilation=False),
            **self._bias_config(),
            **super().get_config(),
        }


class DepthwiseConv2D(_Conv):
    """Each input channel convolved with its own `depthMultiplier` filters."""

    className = "DepthwiseConv2D"
    rank = 2
    _KEYS: ClassVar[dict[str, Any]] = {
        **{k: v for k, v in _Conv._KEYS.items() if not k.startswith("kernel") and k != "filters"},
        "kernelSize": REQUIRED,
        "depthMultiplier": 1,
        "depthwiseInitializer": "glorotNormal",
        "depthwiseRegularizer": None,
        "depthwiseConstraint": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        self.depthMultiplier = int(a["depthMultiplier"])
        self.depthwiseInitializer = _initializers.get(a["depthwiseInitializer"])
        self.depthwiseRegularizer = _regularizers.get(a["depthwiseRegularizer"])
        self.depthwiseConstraint = _constraints.get(a["depthwiseConstraint"])

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            [*self.kernelSize, channels, self.depthMultiplier],
            initializer=self.depthwiseInitializer,
            regularizer=self.depthwiseRegularizer,
            constraint=self.depthwiseConstraint,
        )
        self._make_bias(channels * self.depthMultiplier)
        self.built = True

    def _depthwise(self, x: Any, kernel: Any) -> Any:
        kh, kw, channels, mult = kernel.shape
        return lax.conv_general_dilated(
            x,
            kernel.reshape(kh, kw, 1, channels * mult),
            self.strides,
            self._pad(),
            rhs_dilation=self.dilationRate,
            dimension_numbers=self._dims(),
            feature_group_count=channels,
        )

    def _convolve(self, x: Any) -> Any:
        return self._depthwise(x, self.depthwise_kernel.raw())

    def get_config(self) -> dict[str, Any]:
        return {
            **self._shape_config(),
            **self._bias_config(),
            **Layer.get_config(self),
            "depth_multiplier": self.depthMultiplier,
            "depthwise_initializer": _initializers.serialize(self.depthwiseInitializer),
            "depthwise_regularizer": _regularizers.serialize(self.depthwiseRegularizer),
            "depthwise_constraint": _constraints.serialize(self.depthwiseConstraint),
        }


class SeparableConv2D(DepthwiseConv2D):
    """A depthwise convolution followed by a 1x1 convolution to `filters` channels."""

    className = "SeparableConv2D"
    _KEYS: ClassVar[dict[str, Any]] = {
        **DepthwiseConv2D._KEYS,
        "filters": REQUIRED,
        "depthwiseInitializer": "glorotUniform",
        "pointwiseInitializer": "glorotUniform",
        "pointwiseRegularizer": None,
        "pointwiseConstraint": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        self.pointwiseInitializer = _initializers.get(a["pointwiseInitializer"])
        self.pointwiseRegularizer = _regularizers.get(a["pointwiseRegularizer"])
        self.pointwiseConstraint = _constraints.get(a["pointwiseConstraint"])

    def build(self, input_shape: Any) -> None:
        channels = self._channels(input_shape)
        self.depthwise_kernel = self.add_weight(
            "depthwise_kernel",
            [*self.kernelSize, channels, self.depthMultiplier],
            initializer=self.depthwiseInitializer,
            regularizer=self.depthwiseRegularizer,
            constraint=self.depthwiseConstraint,
        )
        self.pointwise_kernel = self.add_weight(
            "pointwise_kernel",
            [1, 1, channels * self.depthMultiplier, self.filters],
            initializer=self.pointwiseInitializer,
            regularizer=self.pointwiseRegularizer,
            constraint=self.pointwiseConstraint,
        )
        self._make_bias(int(self.filters or 0))
        self.built = True

    def _convolve(self, x: Any) -> Any:
        y = self._depthwise(x, self.depthwise_kernel.raw())
        return lax.conv_general_dilated(
            y, self.pointwise_kernel.raw(), (1, 1), "VALID", dimension_numbers=self._dims()
        )

    def get_config(self) -> dict[str, Any]:
        return {
            "filters": self.filters,
            **self._shape_config(),
            **self._bias_config(),
            **Layer.get_config(self),
            "depthwise_initializer": _initializers.serialize(self.depthwiseInitializer),
            "pointwise_initializer": _initializers.serialize(self.pointwiseInitializer),
            "depthwise_regularizer": _regularizers.serialize(self.depthwiseRegularizer),
            "pointwise_regularizer": _regularizers.serialize(self.pointwiseRegularizer),
            "depthwise_constraint": _constraints.serialize(self.depthwiseConstraint),
            "pointwise_constraint": _constraints.serialize(self.pointwiseConstraint),
        }
