"""`tf.sequential`: a stack of layers, each feeding the next.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> model = tf.sequential()
>>> model.add(tf.layers.dense(units=2, inputShape=[3], kernelInitializer="ones"))
>>> model.add(tf.layers.dense(units=1, kernelInitializer="ones"))
>>> np.asarray(model.predict(np.ones((2, 3), np.float32))).tolist()
[[6.0], [6.0]]
>>> [w.shape for w in model.weights]
[(3, 2), (2,), (2, 1), (1,)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..layers.base import InputLayer, Layer, SymbolicTensor, input, unique_prefix_name
from .functional import LayersModel


class Sequential(LayersModel):
    """A linear stack of layers (tfjs's `tf.Sequential`). Its `layers` leave out the input
    layer it makes from the first layer's `inputShape`."""

    className = "Sequential"

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        /,
        *,
        layers: Sequence[Layer] | None = None,
        name: str | None = None,
    ):
        args: dict[str, Any] = {"layers": layers, "name": name}
        for key, value in (config or {}).items():
            if key not in args:
                raise ValueError(
                    f"Unknown config key '{key}' for tf.sequential; expected layers, name"
                )
            if value is not None:
                args[key] = value
        super().__init__(name=args["name"])
        self._stack: list[Layer] = []
        for layer in args["layers"] or []:
            self.add(layer)

    def _default_name(self) -> str:
        return unique_prefix_name("sequential_")

    def add(self, layer: Layer) -> None:
        """Append a layer; the first one must know its input shape."""
        if not isinstance(layer, Layer):
            raise TypeError(f"model.add() expects a layer, got {type(layer).__name__}")
        if isinstance(layer, InputLayer):
            if self._stack or self.inputs:
                raise ValueError("An InputLayer can only be the first layer of a Sequential")
            self._init_graph(
                [layer.inboundNodes[0].outputTensors[0]], [layer.inboundNodes[0].outputTensors[0]]
            )
            self._stack = []
            return
        if not self.outputs:
            if not layer.inboundNodes:
                shape = layer.batchInputShape
                if shape is None:
                    raise ValueError(
                        "The first layer in a Sequential model must get an `inputShape` or "
                        "`batchInputShape` argument."
                    )
                x = input(
                    batchShape=shape, dtype=layer.dtype or "float32", name=f"{layer.name}_input"
                )
                out = layer.apply(x)
            else:
                node = layer.inboundNodes[-1]
                if len(node.outputTensors) != 1:
                    raise ValueError(
                        "All layers in a Sequential model should have a single output tensor. "
                        "For multi-output layers, use the functional API."
                    )
                out = node.outputTensors[0]
                x = self._source_input(node)
            inputs = [x]
        else:
            out = layer.apply(self.outputs[0])
            inputs = list(self.inputs)
        if not isinstance(out, SymbolicTensor):
            raise ValueError(
                "All layers in a Sequential model should have a single output tensor. For "
                "multi-output layers, use the functional API."
            )
        self._init_graph(inputs, [out])
        self._stack.append(layer)

    @staticmethod
    def _source_input(node: Any) -> SymbolicTensor:
        while node.inputTensors:
            t = node.inputTensors[0]
            node = t.sourceLayer.inboundNodes[t.nodeIndex]
        return node.outputTensors[0]

    def pop(self) -> None:
        """Remove the last layer."""
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        self._stack.pop()
        if not self._stack:
            self.inputs, self.outputs, self.layers = [], [], []
            return
        last = self._stack[-1]
        self._init_graph(list(self.inputs), [last.inboundNodes[-1].outputTensors[0]])

    def _init_graph(self, inputs: list[Any], outputs: list[Any]) -> None:
        super()._init_graph(inputs, outputs)
        self.layers = [la for la in self.layers if not isinstance(la, InputLayer)]

    def get_config(self) -> dict[str, Any]:
        from .saving import sequential_config

        return sequential_config(self)


def sequential(
    config: Mapping[str, Any] | None = None,
    /,
    *,
    layers: Sequence[Layer] | None = None,
    name: str | None = None,
) -> Sequential:
    """`tf.sequential({layers, name})`."""
    return Sequential(config, layers=layers, name=name)
