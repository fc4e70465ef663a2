"""Merge layers: add, multiply, average, maximum, minimum (elementwise) and concatenate.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> a, b = np.ones((1, 2), np.float32), np.full((1, 2), 3.0, np.float32)
>>> np.asarray(tf.layers.average().apply([a, b])).tolist()
[[2.0, 2.0]]
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from .._config import REQUIRED
from .base import Layer, output_dtype


class _Merge(Layer):
    _SUPPORTS_MASKING = True

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

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        """tfjs 4.22's merge mask, as it computes it: the first input's mask with a new
        leading axis, and-ed with the masks of the inputs between the first and the last."""
        masks = _mask_list(inputs, mask)
        if masks is None:
            return None
        out = None if masks[0] is None else jnp.expand_dims(masks[0], 0)
        for m in masks[1:-1]:
            if out is not None and m is not None:
                out = jnp.logical_and(out, jnp.expand_dims(m, 0))
            else:
                raise NotImplementedError(
                    f"Layer {self.name}: a merge of masked and unmasked inputs (tfjs 4.22 "
                    "gives no usable mask for it)"
                )
        return out

    def _op(self, a: Any, b: Any) -> Any:
        raise NotImplementedError


def _mask_list(inputs: Any, mask: Any) -> list[Any] | None:
    """The per-input masks of a merge layer, or None where no input has one."""
    if mask is None:
        return None
    if not isinstance(mask, (list, tuple)):
        raise ValueError("`mask` should be an Array")
    if not isinstance(inputs, (list, tuple)):
        raise ValueError("`inputs` should be an Array")
    if len(mask) != len(inputs):
        raise ValueError(
            "The Array 'inputs' and 'mask' are expected to have the same length, but have "
            f"different lengths ({len(inputs)} vs {len(mask)})"
        )
    if all(m is None for m in mask):
        return None
    return list(mask)


def _js(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _elementwise_shape(shape1: Any, shape2: Any) -> Any:
    """tfjs's output shape of an elementwise op on two (batchless) shapes: aligned on the
    right, a 1 takes the other size, an unknown size gives unknown."""
    if shape1 is None or shape2 is None:
        return None
    if len(shape1) < len(shape2):
        return _elementwise_shape(shape2, shape1)
    if not shape2:
        return list(shape1)
    out = list(shape1[: len(shape1) - len(shape2)])
    for i, j in zip(shape1[len(shape1) - len(shape2) :], shape2):
        if i is None or j is None or i < 0 or j < 0:
            out.append(None)
        elif i == 1:
            out.append(j)
        elif j == 1 or i == j:
            out.append(i)
        else:
            raise ValueError(
                "Operands could not be broadcast together with shapes "
                f"{_js(list(shape1))} {_js(list(shape2))}"
            )
    return out


def _shape_list(input_shape: Any) -> list[Any]:
    if isinstance(input_shape, (list, tuple)) and not any(
        isinstance(s, (list, tuple)) for s in input_shape
    ):
        return [list(input_shape)]  # one shape (tfjs wraps it, then finds < 2 inputs)
    return [None if s is None else list(s) for s in input_shape]


def _batch_sizes(shapes: list[Any]) -> list[Any]:
    sizes: list[Any] = []
    for shape in shapes:
        if shape is not None and shape[0] is not None and shape[0] not in sizes:
            sizes.append(shape[0])
    return sizes


def _batchless(shapes: list[Any]) -> Any:
    out = None if shapes[0] is None else shapes[0][1:]
    for shape in shapes[1:]:
        out = _elementwise_shape(out, None if shape is None else shape[1:])
    return out


class _Elementwise(_Merge):
    """add, multiply, maximum, minimum, average: tfjs's rules for inputs of other ranks.

    Inputs of lower rank get new axes at 1 (after the batch axis) until all ranks agree,
    so `[null, 4]` with `[null, 1, 4]` gives `[null, 1, 4]`; the sizes after the batch
    axis broadcast as in `_elementwise_shape`.
    """

    def build(self, input_shape: Any) -> None:
        shapes = _shape_list(input_shape)
        if len(shapes) < 2:
            raise ValueError(
                "A merge layer should be called on an Array of at least 2 inputs. "
                f"Got {len(shapes)} input(s)."
            )
        if len(_batch_sizes(shapes)) > 1:
            raise ValueError(
                "Can not merge tensors with different batch sizes. "
                f"Got tensors with shapes: {_js(shapes)}."
            )
        _batchless(shapes)  # raises where the shapes do not broadcast
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = _shape_list(input_shape)
        out = _batchless(shapes)
        sizes = _batch_sizes(shapes)
        dtypes = getattr(self, "_probe_dtypes", None) or ["float32"]
        self._probe_out_dtypes = [output_dtype(jnp.result_type(*dtypes))]
        return [sizes[0] if len(sizes) == 1 else None, *(out or [])]

    computeOutputShape = compute_output_shape

    def _check(self, inputs: Any) -> list[Any]:
        xs = super()._check(inputs)
        top = max(jnp.ndim(x) for x in xs)
        return [_expand_at_1(x, top - jnp.ndim(x)) for x in xs]


def _expand_at_1(x: Any, count: int) -> Any:
    for _ in range(count):
        x = jnp.expand_dims(x, 1)
    return x


class Add(_Elementwise):
    """Elementwise sum of the inputs."""

    className = "Add"

    def _op(self, a: Any, b: Any) -> Any:
        return a + b


class Multiply(_Elementwise):
    """Elementwise product of the inputs."""

    className = "Multiply"

    def _op(self, a: Any, b: Any) -> Any:
        return a * b


class Maximum(_Elementwise):
    """Elementwise maximum of the inputs."""

    className = "Maximum"

    def _op(self, a: Any, b: Any) -> Any:
        return jnp.maximum(a, b)


class Minimum(_Elementwise):
    """Elementwise minimum of the inputs."""

    className = "Minimum"

    def _op(self, a: Any, b: Any) -> Any:
        return jnp.minimum(a, b)


class Average(_Elementwise):
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

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        """Each input's mask (all true where it has none) widened to the input's rank and
        joined along `axis`, then all-reduced over the last axis (tfjs 4.22)."""
        masks = _mask_list(inputs, mask)
        if masks is None:
            return None
        parts = []
        for x, m in zip(inputs, masks):
            x = jnp.asarray(x)
            if m is None:
                parts.append(jnp.ones(x.shape, bool))
            else:
                m = jnp.asarray(m).astype(bool)
                parts.append(jnp.expand_dims(m, -1) if m.ndim < x.ndim else m)
        return jnp.all(jnp.concatenate(parts, axis=self.axis), axis=-1)

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

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        return None

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
