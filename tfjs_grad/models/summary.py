"""`model.summary()`: tfjs's table of layers, shapes and parameter counts.

A chain of single-input layers prints 90 columns (`Layer (type) | Input Shape | Output
shape | Param #`); any other graph 115 columns with `Receives inputs`. Cells are cut to
their column, as tfjs cuts them. `positions` ends each column: fractions of `lineLength`
when the last is <= 1, else absolute; fewer positions than columns leave the later cells
uncut, as tfjs does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def _sequential_like(model: Any) -> bool:
    nodes: list[Any] = []
    for depth_nodes in model.nodesByDepth.values():
        if len(depth_nodes) > 1 or (
            len(depth_nodes) == 1 and len(depth_nodes[0].inboundLayers) > 1
        ):
            return False
        nodes.extend(depth_nodes)
    ids = {n.id for n in nodes}
    for layer in model.layers:
        if sum(1 for n in layer.inboundNodes if n.id in ids) > 1:
            return False
    return True


def _row(fields: Sequence[str], positions: Sequence[int], emit: Callable[[str], Any]) -> None:
    # A field past the last position is neither cut nor padded (tfjs reads `undefined`
    # there: slice(0, undefined) keeps all, repeat(NaN) adds nothing).
    line = ""
    for i, field in enumerate(fields):
        if i > 0:
            line = line[:-1] + " "
        line += field
        if i < len(positions):
            line = line[: positions[i]]
            line += " " * (positions[i] - len(line))
    emit(line)


def _shapes(layer: Any) -> tuple[str, str]:
    try:
        inputs = ",".join(_json(n.inputShapes) for n in layer.inboundNodes)
    except Exception:  # noqa: BLE001  (tfjs prints 'multiple' whatever went wrong)
        inputs = "multiple"
    try:
        output = _json(layer.outputShape)
    except Exception:  # noqa: BLE001
        output = "multiple"
    return inputs, output


def _json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def _count(weights: Sequence[Any]) -> int:
    return sum(int(np.prod(w.shape)) for w in weights)


def summary_lines(
    model: Any, line_length: int | None = None, positions: Sequence[float] | None = None
) -> list[str]:
    """The lines `summary()` prints."""
    lines: list[str] = []
    emit = lines.append
    sequential_like = _sequential_like(model)
    header = ["Layer (type)", "Input Shape", "Output shape", "Param #"]
    if sequential_like:
        length = int(line_length or 90)
        pos = list(positions if positions is not None else [0.32, 0.61, 0.89, 1])
    else:
        length = int(line_length or 115)
        pos = list(positions if positions is not None else [0.24, 0.48, 0.70, 0.80, 1])
        header.append("Receives inputs")
    if pos and pos[-1] <= 1:  # relative positions: fractions of the line length
        cols = [int(np.floor(length * p)) for p in pos]
    else:
        cols = [int(p) for p in pos]
    relevant = {n.id for nodes in model.nodesByDepth.values() for n in nodes}
    emit("_" * length)
    _row(header, cols, emit)
    emit("=" * length)
    for i, layer in enumerate(model.layers):
        inputs, output = _shapes(layer)
        fields = [
            f"{layer.name} ({layer.getClassName()})",
            inputs,
            output,
            str(_count(layer.weights)),
        ]
        if sequential_like:
            _row(fields, cols, emit)
        else:
            links = [
                f"{la.name}[{ni}][{ti}]"
                for n in layer.inboundNodes
                if not relevant or n.id in relevant
                for la, ni, ti in zip(n.inboundLayers, n.nodeIndices, n.tensorIndices)
            ]
            _row([*fields, links[0] if links else ""], cols, emit)
            for link in links[1:]:
                _row(["", "", "", "", link], cols, emit)
        emit(("=" if i == len(model.layers) - 1 else "_") * length)
    trainable = _count(model.trainableWeights)
    frozen = _count(model.nonTrainableWeights)
    emit(f"Total params: {trainable + frozen}")
    emit(f"Trainable params: {trainable}")
    emit(f"Non-trainable params: {frozen}")
    emit("_" * length)
    return lines


def print_summary(
    model: Any,
    line_length: int | None = None,
    positions: Sequence[float] | None = None,
    print_fn: Callable[[str], Any] | None = None,
) -> None:
    """Print `summary_lines` with `print_fn` (default `print`)."""
    emit = print_fn or print
    for line in summary_lines(model, line_length, positions):
        emit(line)
