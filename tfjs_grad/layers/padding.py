"""Spatial reshaping layers: zeroPadding2d, cropping2D, upSampling2d.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> np.asarray(tf.layers.zeroPadding2d(padding=1).apply(np.ones((1, 2, 2, 1), np.float32))).shape
(1, 4, 4, 1)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from .base import Layer
from .convolutional import tuple_of
from .core import _data_format, _pythonic_format


def _pairs(value: Any, what: str) -> list[list[int]]:
    """tfjs's padding/cropping forms: n, [h, w] or [[top, bottom], [left, right]]."""
    if isinstance(value, (int, float)):
        return [[int(value)] * 2, [int(value)] * 2]
    items = list(value)
    if len(items) != 2:
        raise ValueError(f"{what} should have two elements. Found: {value}")
    return [[int(v)] * 2 if isinstance(v, (int, float)) else [int(x) for x in v] for v in items]


class _Spatial2D(Layer):
    def _to_last(self, x: Any) -> Any:
        return jnp.moveaxis(x, 1, -1) if self.dataFormat == "channelsFirst" else x

    def _from_last(self, x: Any) -> Any:
        return jnp.moveaxis(x, -1, 1) if self.dataFormat == "channelsFirst" else x

    dataFormat: str = "channelsLast"


class ZeroPadding2D(_Spatial2D):
    """Zeros around height and width."""

    className = "ZeroPadding2D"
    _KEYS: ClassVar[dict[str, Any]] = {"padding": 1, "dataFormat": "channelsLast"}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.padding = _pairs(self._args["padding"], "padding")
        self.dataFormat = _data_format(self._args["dataFormat"])
        self.inputSpec = [{"ndim": 4}]

    def call(self, inputs: Any, training: bool = False) -> Any:
        (t, b), (left, r) = self.padding
        x = self._to_last(inputs)
        return self._from_last(jnp.pad(x, ((0, 0), (t, b), (left, r), (0, 0))))

    def get_config(self) -> dict[str, Any]:
        return {
            "padding": self.padding,
            "data_format": _pythonic_format(self.dataFormat),
            **super().get_config(),
        }


class Cropping2D(_Spatial2D):
    """Remove rows and columns at the edges."""

    className = "Cropping2D"
    _KEYS: ClassVar[dict[str, Any]] = {"cropping": 0, "dataFormat": "channelsLast"}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.cropping = _pairs(self._args["cropping"], "cropping")
        self.dataFormat = _data_format(self._args["dataFormat"])
        self.inputSpec = [{"ndim": 4}]

    def call(self, inputs: Any, training: bool = False) -> Any:
        (t, b), (left, r) = self.cropping
        x = self._to_last(inputs)
        h, w = x.shape[1], x.shape[2]
        return self._from_last(x[:, t : h - b, left : w - r, :])

    def get_config(self) -> dict[str, Any]:
        return {
            "cropping": self.cropping,
            "data_format": _pythonic_format(self.dataFormat),
            **super().get_config(),
        }


class UpSampling2D(_Spatial2D):
    """Repeat rows and columns `size` times ('nearest'), or interpolate ('bilinear', as
    tfjs's resizeBilinear without aligned corners or half-pixel centers)."""

    className = "UpSampling2D"
    _KEYS: ClassVar[dict[str, Any]] = {
        "size": 2,
        "dataFormat": "channelsLast",
        "interpolation": "nearest",
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.size = tuple_of(self._args["size"], 2, "size")
        self.dataFormat = _data_format(self._args["dataFormat"])
        self.interpolation = self._args["interpolation"]
        if self.interpolation not in ("nearest", "bilinear"):
            raise ValueError(
                f"Invalid interpolation parameter: {self.interpolation} is not implemented"
            )
        self.inputSpec = [{"ndim": 4}]

    def call(self, inputs: Any, training: bool = False) -> Any:
        x = self._to_last(inputs)
        sh, sw = self.size
        if self.interpolation == "nearest":
            y = jnp.repeat(jnp.repeat(x, sh, axis=1), sw, axis=2)
        else:
            y = _bilinear(_bilinear(x, 1, sh), 2, sw)
        return self._from_last(y)

    def get_config(self) -> dict[str, Any]:
        return {
            "size": list(self.size),
            "data_format": _pythonic_format(self.dataFormat),
            "interpolation": self.interpolation,
            **super().get_config(),
        }


def _bilinear(x: Any, axis: int, scale: int) -> Any:
    n = x.shape[axis]
    src = jnp.arange(n * scale, dtype=jnp.float32) / scale
    lo = jnp.floor(src).astype(jnp.int32)
    hi = jnp.minimum(lo + 1, n - 1)
    frac = (src - lo).reshape([-1 if i == axis else 1 for i in range(x.ndim)])
    a, b = jnp.take(x, lo, axis=axis), jnp.take(x, hi, axis=axis)
    return a + (b - a) * frac
