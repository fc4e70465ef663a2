"""Checks on a model file that may be hostile, made before anything is allocated.

A model.json names layers whose configs size their weights, and the graph's links between
them; a weights manifest says what each weight holds. Every refusal is a ValueError that
names the layer (and the field) at fault, raised before the weight it concerns exists: a
layer's sizes are checked by its constructor, each weight's shape by `Layer.add_weight`
(at most `MAX_ELEMENTS`, within the device's memory) and, while a folder is loaded, by
`from_manifest` against the weight the file holds for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, NamedTuple

import numpy as np

from .. import initializers
from ..layers.base import Layer, weight_check

# What a malformed config makes a constructor or a build raise, deep inside.
_CONFIG_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError)


@contextlib.contextmanager
def layer_errors(name: Any) -> Iterator[None]:
    """Turn whatever a layer's config makes go wrong into a ValueError naming the layer."""
    try:
        yield
    except _CONFIG_ERRORS as error:
        message = str(error)
        if message.startswith("Layer '"):
            raise
        raise ValueError(f"Layer '{name}': {message}") from error


def check_initializers(config: Mapping[str, Any]) -> None:
    """Each initializer a layer's config names (`kernel_initializer`, ...) is one
    `tf.initializers` makes, or a ValueError naming the field (before the layer exists).

    >>> check_initializers({"kernel_initializer": {"class_name": "Ones", "config": {}}})
    >>> check_initializers({"bias_initializer": {"class_name": "RandomNormal",
    ...                                          "config": {"stddev": "x"}}})
    Traceback (most recent call last):
    ValueError: bias_initializer: RandomNormal: stddev must be a finite number, got 'x'
    """
    for key, value in config.items():
        if isinstance(key, str) and key.lower().endswith("initializer") and value is not None:
            try:
                initializers.get(value)
            except (TypeError, ValueError) as error:
                raise ValueError(f"{key}: {error}") from error


class NodeRef(NamedTuple):
    """`[layer_name, node_index, tensor_index, kwargs?]` of inbound_nodes and the model's
    input_layers / output_layers."""

    layer: str
    node: int
    tensor: int
    kwargs: Mapping[str, Any]


def node_ref(entry: Any, where: str) -> NodeRef:
    """One reference to a layer's output, its indices checked as non-negative ints."""
    if not isinstance(entry, (list, tuple)) or not 3 <= len(entry) <= 4:
        raise ValueError(
            f"{where}: expected [layer_name, node_index, tensor_index], got {entry!r:.80}"
        )
    name, node, tensor, *rest = entry
    if not isinstance(name, str):
        raise ValueError(f"{where}: the layer name must be a string, got {name!r:.80}")
    for field, value in (("node_index", node), ("tensor_index", tensor)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(
                f"{where}: '{field}' must be a non-negative integer, got {value!r:.80}"
            )
    kwargs = rest[0] if rest and rest[0] is not None else {}
    if not isinstance(kwargs, Mapping):
        raise ValueError(f"{where}: the call's kwargs must be a dict, got {kwargs!r:.80}")
    return NodeRef(name, node, tensor, kwargs)


def output_of(layers: Mapping[str, Layer], ref: NodeRef, where: str) -> Any:
    """The symbolic tensor `ref` names, or a ValueError saying which index is out of range."""
    if ref.layer not in layers:
        raise ValueError(f"{where} names an unknown layer: {ref.layer}")
    nodes = layers[ref.layer].inboundNodes
    if ref.node >= len(nodes):
        raise ValueError(
            f"{where}: node_index {ref.node} of layer '{ref.layer}' is out of range "
            f"(it has {len(nodes)} nodes)"
        )
    outputs = nodes[ref.node].outputTensors
    if ref.tensor >= len(outputs):
        raise ValueError(
            f"{where}: tensor_index {ref.tensor} of layer '{ref.layer}' is out of range "
            f"(its node has {len(outputs)} outputs)"
        )
    return outputs[ref.tensor]


@contextlib.contextmanager
def from_manifest(values: Mapping[str, Any], strict: bool) -> Iterator[None]:
    """While models are built, refuse a weight the file does not hold (when `strict`) or
    holds with another shape or dtype, before it is allocated."""

    def check(layer: Layer, name: str, shape: tuple[int, ...], dtype: str) -> None:
        if name not in values:
            if strict:
                raise ValueError(
                    f"Layer '{layer.name}': weight {name} is missing from the weights manifest"
                )
            return
        value = values[name]
        if tuple(value.shape) != shape:
            raise ValueError(
                f"Layer '{layer.name}': Shape mismatch: {list(shape)} vs. "
                f"{list(value.shape)} for weight {name}"
            )
        if np.dtype(value.dtype).name != dtype:
            raise ValueError(
                f"Layer '{layer.name}': dtype of the new value ({np.dtype(value.dtype).name}) "
                f"and previous value ({dtype}) must match (weight {name})"
            )

    token = weight_check.set(check)
    try:
        yield
    finally:
        weight_check.reset(token)
