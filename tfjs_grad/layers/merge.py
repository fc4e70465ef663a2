"""Merge layers: add, multiply, average, maximum, minimum (elementwise) and concatenate.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> a, b = np.ones((1, 2), np.float32), np.full((1, 2), 3.0, np.float32)
>>> np.asarray(tf.layers.average().apply([a, b])).tolist()
[[2.0, 2.0]]
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from .._config import REQUIRED
from .base import Layer


class _Merge(Layer):
    def _check(self, inputs: Any) -> list[Any]:
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(
                "A merge layer should be called on an Array of at least 2 inputs. "
                f"Got {len(inputs) if isinstance(inputs, (list, tuple)) else 1} "
                "input(s)."
            )
        return list(inputs)

    def call(self, inputs: Any, training: bool = False) -> Any:
        return functools.reduce(self._op, self._check(inputs))

    def _op(self, a: Any, b: Any) -> Any:
        raise NotImplementedError


class Add(_Merge):
    """Elementwise sum of the inputs."""

    className = "Add"

    def _op(self, a: Any, b: Any) -> Any:
        return a + b


class Multiply(_Merge):
    """Elementwise product of the inputs."""

    className = "Multiply"

    def _op(self, a: Any, b: Any) -> Any:
        return a * b


class Maximum(_Merge):
    """Elementwise maximum of the inputs."""

    className = "Maximum"

    def _op(self, a: Any, b: Any) -> Any:
        return jnp.maximum(a, b)


class Minimum(_Merge):
    """Elementwise minimum of the inputs."""

    className = "Minimum"

    def _op(self, a: Any, b: Any) -> Any:
        return jnp.minimum(a, b)


class Average(_Merge):
    """Elementwise mean of the inputs."""

    className = "Average"

    def call(self, inputs: Any, training: bool = False) -> Any:
        xs = self._check(inputs)
        return functools.reduce(lambda a, b: a + b, xs) / len(xs)


class Concatenate(_Merge):
    """The inputs joined along `axis` (default the last)."""

    className = "Concatenate"
    _KEYS: ClassVar[dict[str, Any]] = {"axis": -1}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.axis = int(self._args["axis"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        xs = self._check(inputs)
        rank = xs[0].ndim
        axis = self.axis % rank
        for x in xs[1:]:
            if x.ndim != rank or any(
                a != b for i, (a, b) in enumerate(zip(x.shape, xs[0].shape)) if i != axis
            ):
                raise ValueError(
                    "A `Concatenate` layer requires inputs with matching shapes except for the "
                    f"concat axis. Got input shapes: {[list(t.shape) for t in xs]}"
                )
        return jnp.concatenate(xs, axis=axis)

    def get_config(self) -> dict[str, Any]:
        return {"axis": self.axis, **super().get_config()}


class Dot(_Merge):
    """Dot products of two inputs along `axes` (one int, or one per input), optionally of
    their L2-normalized forms (cosine similarity)."""

    className = "Dot"
    _KEYS: ClassVar[dict[str, Any]] = {"axes": REQUIRED, "normalize": False}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.axes = self._args["axes"]
        self.normalize = bool(self._args["normalize"])

    def call(self, inputs: Any, training: bool = False) -> Any:
        a, b = self._check(inputs)[:2]
        axes = self.axes if isinstance(self.axes, (list, tuple)) else [self.axes, self.axes]
        ax = [int(axes[0]) % a.ndim, int(axes[1]) % b.ndim]
        if self.normalize:
            a = a / jnp.maximum(jnp.linalg.norm(a, axis=ax[0], keepdims=True), 1e-12)
            b = b / jnp.maximum(jnp.linalg.norm(b, axis=ax[1], keepdims=True), 1e-12)
        return _batch_dot(a, b, ax)

    def get_config(self) -> dict[str, Any]:
        return {"axes": self.axes, "normalize": self.normalize, **super().get_config()}


def _batch_dot(a: Any, b: Any, axes: list[int]) -> Any:
    """Contract a's axis axes[0] with b's axes[1], sharing the batch axis (tfjs's batchDot:
    2-D inputs give [batch, 1])."""
    a2, b2 = jnp.moveaxis(a, axes[0], -1), jnp.moveaxis(b, axes[1], -1)
    ra, rb = a2.ndim - 2, b2.ndim - 2
    k = 1 + ra + rb
    out = jnp.einsum(
        a2,
        [0, *range(1, 1 + ra), k],
        b2,
        [0, *range(1 + ra, 1 + ra + rb), k],
        [0, *range(1, 1 + ra + rb)],
    )
    return out[:, None] if out.ndim == 1 else out
