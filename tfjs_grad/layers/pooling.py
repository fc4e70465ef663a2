"""Pooling layers: max/average pooling 1-D and 2-D, and their global forms.

'same' max pooling pads with -inf; 'same' average pooling divides by the number of
input values in each window (TensorFlow's rule, which tfjs follows).

>>> import numpy as np
>>> import tfjs_grad as tf
>>> pool = tf.layers.maxPooling2d(poolSize=2)
>>> np.asarray(pool.apply(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)))[0, :, :, 0]
array([[ 5.,  7.],
       [13., 15.]], dtype=float32)
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp
import numpy as np
from jax import lax

from ..ops.pooling import _lowest
from .base import Layer
from .convolutional import tuple_of
from .core import _data_format, _pythonic_format


class _Pooling(Layer):
    rank: ClassVar[int] = 2
    _KEYS: ClassVar[dict[str, Any]] = {
        "poolSize": None,
        "strides": None,
        "padding": "valid",
        "dataFormat": "channelsLast",
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        pool = a["poolSize"] if a["poolSize"] is not None else 2
        self.poolSize = tuple_of(pool, self.rank, "poolSize")
        strides = a["strides"] if a["strides"] is not None else self.poolSize
        self.strides = tuple_of(strides, self.rank, "strides")
        if a["padding"] not in ("valid", "same"):
            raise ValueError(f"Invalid PaddingMode: {a['padding']}; expected 'valid' or 'same'")
        self.padding = a["padding"]
        self.dataFormat = _data_format(a["dataFormat"])
        self.inputSpec = [{"ndim": self.rank + 2}]

    def _window(self, x: Any, init: Any, op: Any) -> Any:
        dims = (1, *self.poolSize, 1)
        strides = (1, *self.strides, 1)
        return lax.reduce_window(x, init, op, dims, strides, self.padding.upper())

    def call(self, inputs: Any, training: bool = False) -> Any:
        x = jnp.moveaxis(inputs, 1, -1) if self.dataFormat == "channelsFirst" else inputs
        y = self._pool(x)
        return jnp.moveaxis(y, -1, 1) if self.dataFormat == "channelsFirst" else y

    def _pool(self, x: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {
            "pool_size": list(self.poolSize),
            "padding": self.padding,
            "strides": list(self.strides),
        }
        if self.rank == 2:
            config["data_format"] = _pythonic_format(self.dataFormat)
        return {**config, **super().get_config()}


# The init values are host (numpy) scalars, never jnp arrays: inside a trace (the tape's
# staging, tf.grad, tf.jit) jnp.array(...) is a tracer, and reduce_window with a traced init
# is the generic reduce_window, which JAX cannot linearize. A concrete -inf or 0 keeps it
# reduce_window_max / reduce_window_sum, which have gradients.
class _Max:
    def _pool(self, x: Any) -> Any:
        return self._window(x, np.array(_lowest(x.dtype), x.dtype), lax.max)  # type: ignore[attr-defined]


class _Average:
    def _pool(self, x: Any) -> Any:
        zero = np.array(0, x.dtype)
        total = self._window(x, zero, lax.add)  # type: ignore[attr-defined]
        if self.padding == "valid":  # type: ignore[attr-defined]
            return total / float(math.prod(self.poolSize))  # type: ignore[attr-defined]
        count = self._window(jnp.ones(x.shape[:-1] + (1,), x.dtype), zero, lax.add)  # type: ignore[attr-defined]
        return total / count


class MaxPooling2D(_Max, _Pooling):
    """Max over `poolSize` windows of `[batch, height, width, channels]`."""

    className = "MaxPooling2D"


class AveragePooling2D(_Average, _Pooling):
    """Mean over `poolSize` windows of `[batch, height, width, channels]`."""

    className = "AveragePooling2D"


class MaxPooling1D(_Max, _Pooling):
    """Max over windows of `[batch, steps, channels]`."""

    className = "MaxPooling1D"
    rank = 1


class AveragePooling1D(_Average, _Pooling):
    """Mean over windows of `[batch, steps, channels]`."""

    className = "AveragePooling1D"
    rank = 1


class _Global(Layer):
    rank: ClassVar[int] = 2
    _KEYS: ClassVar[dict[str, Any]] = {"dataFormat": "channelsLast"}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.dataFormat = _data_format(self._args["dataFormat"])
        self.inputSpec = [{"ndim": self.rank + 2}]

    def _axes(self) -> tuple[int, ...]:
        first = 1 if self.dataFormat == "channelsLast" else 2
        return tuple(range(first, first + self.rank))

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        if self.rank == 2:
            config = {"data_format": _pythonic_format(self.dataFormat), **config}
        return config


class GlobalAveragePooling2D(_Global):
    """Mean over height and width."""

    className = "GlobalAveragePooling2D"

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.mean(inputs, axis=self._axes())


class GlobalMaxPooling2D(_Global):
    """Max over height and width."""

    className = "GlobalMaxPooling2D"

    def call(self, inputs: Any, training: bool = False) -> Any:
        return jnp.max(inputs, axis=self._axes())


class GlobalAveragePooling1D(GlobalAveragePooling2D):
    """Mean over the steps."""

    className = "GlobalAveragePooling1D"
    rank = 1


class GlobalMaxPooling1D(GlobalMaxPooling2D):
    """Max over the steps."""

    className = "GlobalMaxPooling1D"
    rank = 1
