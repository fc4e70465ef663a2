"""`LayersModel` (`tf.model`): a graph of layer calls from symbolic inputs to outputs.

The graph is ordered as tfjs orders it: each node gets a depth (the outputs' nodes 0, a
node feeding one of depth d at least d + 1); layers are listed by decreasing depth, and
within one depth in the order the walk from the outputs first met them. That order is
`model.layers`, and so the order of `model.weights` (all trainable weights first, then
the non-trainable ones) and of `getWeights`/`setWeights`.

Running the graph follows tfjs's executor, masks included: a layer that supports masking
gives its outputs the mask its `computeMask` returns (an embedding with `maskZero`, a
masking layer, or the input's mask passed on); a layer whose input has a mask gets it in its
call's kwargs, and, as in tfjs, that kwargs entry stays for the layers after it until another
mask replaces it (so an RNN after a layer without masking support still uses the last mask).

Training (`compile`, `fit`, ...) comes from a mixin in `models/_training.py`, when present.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _store
from .._tensor import Tensor, unwrap
from .._tensors import convert
from ..layers.base import (
    InputLayer,
    Layer,
    Node,
    SymbolicTensor,
    as_tensors,
    js_shape,
    output_mask,
    set_weight_values,
    unique_prefix_name,
)
from ..variables import Variable


def _training_mixin() -> Any:
    """helper "training"'s mixin (compile, fit, evaluate, ...) from `_training.py`, if any."""
    try:
        return importlib.import_module("._training", __package__).Trainable
    except ModuleNotFoundError:

        class Trainable:
            """Stands in for the training mixin before `models/_training.py` exists."""

        return Trainable


Trainable: Any = _training_mixin()


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


async def _resolved(value: Any) -> Any:
    return value


class _Awaitable:
    """`await model` (or `await tf.loadLayersModel(...)`) gives the object itself, as
    awaiting tfjs's Promise does."""

    def __await__(self) -> Any:
        return _resolved(self).__await__()


class LayersModel(Trainable, Layer, _Awaitable):
    """A model: layers connected from `inputs` to `outputs` (tfjs's `tf.LayersModel`).

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> x = tf.input(shape=[3])
    >>> y = tf.layers.dense(units=2, kernelInitializer="ones").apply(x)
    >>> model = tf.model(inputs=x, outputs=y)
    >>> np.asarray(model.predict(np.ones((1, 3), np.float32))).tolist()
    [[3.0, 3.0]]
    """

    className = "Model"

    def __init__(
        self,
        config: Mapping[str, Any] | None = None,
        /,
        *,
        inputs: Any = None,
        outputs: Any = None,
        name: str | None = None,
    ):
        args = {"inputs": inputs, "outputs": outputs, "name": name}
        for key, value in (config or {}).items():
            if key not in args:
                raise ValueError(
                    f"Unknown config key '{key}' for tf.model; expected inputs, outputs, name"
                )
            if value is not None:
                args[key] = value
        Layer.__init__(self, {"name": args["name"] or self._default_name()})
        self.layers: list[Layer] = []
        self.inputs: list[SymbolicTensor] = []
        self.outputs: list[SymbolicTensor] = []
        self.nodesByDepth: dict[int, list[Node]] = {}
        self._order: list[Node] = []
        self._inference: Any = None
        self._inference_in_batches: Any = None
        if args["inputs"] is not None or args["outputs"] is not None:
            self._init_graph(_as_list(args["inputs"]), _as_list(args["outputs"]))

    def _default_name(self) -> str:
        return unique_prefix_name(self.getClassName().lower())

    # -- the graph ---------------------------------------------------------------------
    def _init_graph(self, inputs: list[Any], outputs: list[Any]) -> None:
        for t in [*inputs, *outputs]:
            if not isinstance(t, SymbolicTensor):
                raise ValueError(
                    "The inputs and outputs of a model must be SymbolicTensors (from tf.input "
                    f"and layer.apply), got {type(t).__name__}"
                )
        for t in inputs:
            if not isinstance(t.sourceLayer, InputLayer):
                raise ValueError(
                    "Input layers to a LayersModel must be InputLayer objects. Received "
                    f"inputs: {[x.name for x in inputs]}. Input 0 (0-based) originates from "
                    f"layer type {t.sourceLayer.getClassName()}."
                )
        if len({t.id for t in inputs}) != len(inputs):
            raise ValueError(
                "The list of inputs passed to the model is redundant. All inputs "
                "should only appear once."
            )
        self.inputs, self.outputs = list(inputs), list(outputs)
        self._inference = None  # the graph changed: compile inference again
        self._inference_in_batches = None
        self.inputLayers = [t.sourceLayer for t in inputs]
        self.outputLayers = [t.sourceLayer for t in outputs]

        finished: set[int] = set()
        in_progress: set[int] = set()
        decreasing: list[Node] = []
        layer_index: dict[int, int] = {}
        layers_by_id: dict[int, Layer] = {}

        def visit(t: SymbolicTensor) -> None:
            layer = t.sourceLayer
            node = layer.inboundNodes[t.nodeIndex]
            if id(layer) not in layer_index:
                layer_index[id(layer)] = len(layer_index)
                layers_by_id[id(layer)] = layer
            if node.id in in_progress:
                raise ValueError(f'The tensor {t.name} at layer "{layer.name}" is part of a cycle.')
            if node.id in finished:
                return
            in_progress.add(node.id)
            for x in node.inputTensors:
                visit(x)
            finished.add(node.id)
            in_progress.discard(node.id)
            decreasing.append(node)

        for t in self.outputs:
            visit(t)

        node_depth: dict[int, int] = {}
        layer_depth: dict[int, int] = {}
        nodes = {n.id: n for n in decreasing}
        for node in reversed(decreasing):
            depth = max(
                node_depth.setdefault(node.id, 0), layer_depth.get(id(node.outboundLayer), 0)
            )
            layer_depth[id(node.outboundLayer)] = depth
            node_depth[node.id] = depth
            for x in node.inputTensors:
                previous = x.sourceLayer.inboundNodes[x.nodeIndex]
                node_depth[previous.id] = max(depth + 1, node_depth.get(previous.id, 0))

        self.nodesByDepth = {}
        for node_id, depth in node_depth.items():
            self.nodesByDepth.setdefault(depth, []).append(nodes[node_id])
        layers_at: dict[int, list[Layer]] = {}
        for lid, depth in layer_depth.items():
            layers_at.setdefault(depth, []).append(layers_by_id[lid])
        self.layers = []
        for depth in sorted(layers_at, reverse=True):
            self.layers.extend(sorted(layers_at[depth], key=lambda la: layer_index[id(la)]))
        self._order = [
            n for depth in sorted(self.nodesByDepth, reverse=True) for n in self.nodesByDepth[depth]
        ]

        computable = {t.id for t in self.inputs}
        done: list[str] = []
        for node in self._order:
            layer = node.outboundLayer
            for x in node.inputTensors:
                if x.id not in computable:
                    raise ValueError(
                        f"Graph disconnected: cannot obtain value for tensor {x.name} at layer "
                        f'"{layer.name}". The following previous layers were accessed without '
                        f"issue: {done}"
                    )
            if isinstance(layer, InputLayer) and node.outputTensors[0].id not in computable:
                raise ValueError(
                    "Graph disconnected: cannot obtain value for tensor "
                    f'{node.outputTensors[0].name} at layer "{layer.name}". The following previous '
                    f"layers were accessed without issue: {done}"
                )
            computable.update(t.id for t in node.outputTensors)
            done.append(layer.name)
        names = [la.name for la in self.layers]
        for name in names:
            if names.count(name) > 1:
                raise ValueError(
                    f'The name "{name}" is used {names.count(name)} times in the '
                    "model. All layer names should be unique."
                )
        self.built = True

    @property
    def inputNames(self) -> list[str]:
        return [t.sourceLayer.name for t in self.inputs]

    @property
    def outputNames(self) -> list[str]:
        return [t.sourceLayer.name for t in self.outputs]

    input_names, output_names = inputNames, outputNames

    def getLayer(self, name: str | None = None, index: int | None = None) -> Layer:
        """A layer by name, or by its index in `layers`."""
        if index is not None:
            if not 0 <= index < len(self.layers):
                raise ValueError(
                    f"Was asked to retrieve layer at index {index}, but model only "
                    f"has {len(self.layers)} layer(s)."
                )
            return self.layers[index]
        if name is None:
            raise ValueError("Provide either a layer name or layer index")
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name}")

    get_layer = getLayer

    # -- weights -----------------------------------------------------------------------
    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for layer in self.layers:
            for w in layer._trainable_weights:
                w.trainable = self._trainable and layer.trainable

    @property
    def trainableWeights(self) -> list[Variable]:
        if not self._trainable:
            return []
        return [w for layer in self.layers for w in layer.trainableWeights]

    @property
    def nonTrainableWeights(self) -> list[Variable]:
        rest = [w for layer in self.layers for w in layer.nonTrainableWeights]
        if not self._trainable:
            return [w for layer in self.layers for w in layer.trainableWeights] + rest
        return rest

    trainable_weights = trainableWeights
    non_trainable_weights = nonTrainableWeights

    def setWeights(self, weights: Sequence[Any]) -> None:
        set_weight_values(self.weights, weights, self.name)

    set_weights = setWeights

    def countParams(self) -> int:
        return sum(int(np.prod(w.shape)) for w in self.weights)

    count_params = countParams

    def regularization_losses(self) -> list[Any]:
        return [loss for layer in self.layers for loss in layer.regularization_losses()]

    def apply_constraints(self) -> None:
        for layer in self.layers:
            layer.apply_constraints()

    @property
    def stateful(self) -> bool:
        """Whether a layer of the model is stateful (a `stateful` RNN)."""
        return any(getattr(layer, "stateful", False) for layer in self.layers)

    def resetStates(self) -> None:  # noqa: N802 (tfjs's name)
        """Zero the states of the model's stateful layers (tfjs's `model.resetStates()`)."""
        for layer in self.layers:
            if getattr(layer, "stateful", False):
                layer.resetStates()  # type: ignore[attr-defined]

    reset_states = resetStates

    def build(self, input_shape: Any) -> None:
        self.built = True

    # -- running -----------------------------------------------------------------------
    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        """Run the graph on arrays: one per model input (a list when several). `mask` is
        the mask tfjs's kwargs would bring in (the layers read it until one replaces it)."""
        return self._execute(inputs, training, {"mask": mask})

    def _execute(self, inputs: Any, training: bool, kwargs: dict[str, Any]) -> Any:
        """tfjs's `execute`: `kwargs["mask"]` is shared with the caller and with nested
        models, and updated wherever a node's inputs carry a mask."""
        given = _as_list(inputs)
        if len(given) != len(self.inputs):
            raise ValueError(
                f"Model {self.name} expects {len(self.inputs)} input(s), got {len(given)}"
            )
        values: dict[int, Any] = {t.id: x for t, x in zip(self.inputs, given)}
        masks: dict[int, Any] = {}
        for node in self._order:
            layer = node.outboundLayer
            if isinstance(layer, InputLayer):
                continue
            xs = [values[t.id] for t in node.inputTensors]
            in_masks = [masks.get(t.id) for t in node.inputTensors]
            if any(m is not None for m in in_masks):
                kwargs["mask"] = in_masks[0]
            node_training = node.callArgs.get("training")
            mode = training if node_training is None else bool(node_training)
            arg = xs if len(xs) > 1 else xs[0]
            if isinstance(layer, LayersModel):
                out = layer._execute(arg, mode, kwargs)
            else:
                out = layer._apply_concrete(arg, mode, kwargs["mask"])
            out_mask = output_mask(layer, xs, in_masks) if layer.supportsMasking else None
            if isinstance(out_mask, (list, tuple)):
                out_mask = out_mask[0] if out_mask else None
            for t, y in zip(node.outputTensors, _as_list(out)):
                values[t.id] = y
                masks[t.id] = out_mask
        results = [values[t.id] for t in self.outputs]
        return results if len(results) > 1 else results[0]

    def _apply_concrete(self, inputs: Any, training: bool, mask: Any = None) -> Any:
        return self.call(self._convert_inputs(inputs), training=training, mask=mask)

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        """tfjs's model `computeMask`: the graph run again, every layer's `computeMask`
        called on its inputs' masks (so a layer without masking support given a mask
        raises); the output masks, one per output."""
        given = _as_list(inputs)
        in_masks = _as_list(mask) if mask is not None else [None] * len(given)
        values: dict[int, Any] = {t.id: x for t, x in zip(self.inputs, given)}
        masks: dict[int, Any] = {t.id: m for t, m in zip(self.inputs, in_masks)}
        for node in self._order:
            layer = node.outboundLayer
            if isinstance(layer, InputLayer):
                continue
            xs = [values[t.id] for t in node.inputTensors]
            ms = [masks.get(t.id) for t in node.inputTensors]
            node_training = node.callArgs.get("training")
            arg, marg = (xs, ms) if len(xs) > 1 else (xs[0], ms[0])
            out = layer._apply_concrete(arg, bool(node_training), marg)
            out_masks = _as_list(output_mask(layer, arg, marg))
            for i, (t, y) in enumerate(zip(node.outputTensors, _as_list(out))):
                values[t.id] = y
                masks[t.id] = out_masks[i] if i < len(out_masks) else None
        return [masks[t.id] for t in self.outputs]

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = [list(t.shape) for t in self.outputs]
        given = input_shape if isinstance(input_shape[0], (list, tuple)) else [input_shape]
        batch = given[0][0] if given and given[0] else None
        for s in shapes:
            if s:
                s[0] = batch
        self._probe_out_dtypes = [t.dtype for t in self.outputs]
        return shapes if len(shapes) > 1 else shapes[0]

    def check_inputs(self, xs: list[Any], what: str = "") -> list[jax.Array]:
        """tfjs's standardizeInputData: count, rank and shape of each input array."""
        if len(xs) != len(self.inputs):
            raise ValueError(
                f"Error when checking model {what}: the Array of Tensors that you are passing "
                f"to your model is not the size the model expected. Expected to see "
                f"{len(self.inputs)} Tensor(s), but instead got {len(xs)} Tensors(s)."
            )
        arrays = []
        for t, x in zip(self.inputs, xs):
            a = convert(x, argument="x", fn="predict")
            name = t.sourceLayer.name
            if a.ndim != len(t.shape):
                raise ValueError(
                    f"Error when checking {what}: expected {name} to have {len(t.shape)} "
                    f"dimension(s), but got array with shape {js_shape(a.shape)}"
                )
            for want, got in zip(t.shape[1:], a.shape[1:]):
                if want is not None and want != got:
                    raise ValueError(
                        f"Error when checking {what}: expected {name} to have shape "
                        f"{js_shape(t.shape)} but got array with shape {js_shape(a.shape)}."
                    )
            arrays.append(a)
        return arrays

    def predict(
        self,
        x: Any,
        config: Mapping[str, Any] | None = None,
        /,
        *,
        batchSize: int | None = None,
        batch_size: int | None = None,
        verbose: Any = None,
    ) -> Tensor | list[Tensor]:
        """Outputs for `x` (an array, or a list with one per input), in batches of
        `batchSize` (default 32), in inference mode."""
        options = dict(config or {})
        size = batchSize or batch_size or options.get("batchSize") or options.get("batch_size")
        size = 32 if size is None else int(size)
        if size <= 0:
            raise ValueError(f"batchSize is required to be a positive integer, but got {size}")
        arrays = self.check_inputs(_as_list(x))
        n = int(arrays[0].shape[0])
        if n > size and _store.current() is None and rows_independent(self):
            outs = self._inference_in_batches_program()(arrays, size)
        else:
            run = self._inference_program()
            chunks = [
                run([a[start : start + size] for a in arrays]) for start in range(0, n, size)
            ] or [run(arrays)]
            outs = [_joined(list(parts)) for parts in zip(*chunks)]
        return as_tensors(outs if len(outs) > 1 else outs[0])

    def _inference_in_batches_program(self) -> Any:
        """predict's program for more than one batch: the rows padded to whole batches,
        each batch run in turn (`lax.map`), the padding cut off. One dispatch, and one
        compile per sample count and batch size (running the batches one call at a time
        compiled the short last batch, its slices and the joining of the outputs anew for
        each new sample count)."""
        if self._inference_in_batches is None:
            from ..jit import jit

            def forward(xs: list[Any], size: int) -> list[Any]:
                arrays = [unwrap(x) for x in xs]
                n = arrays[0].shape[0]
                batches = -(-n // size)

                def in_batches(a: jax.Array) -> jax.Array:
                    padded = jnp.pad(a, [(0, batches * size - n)] + [(0, 0)] * (a.ndim - 1))
                    return padded.reshape(batches, size, *a.shape[1:])

                def one_batch(batch: list[jax.Array]) -> list[Any]:
                    outs = _as_list(self.call(batch if len(batch) > 1 else batch[0], False))
                    return [unwrap(o) for o in outs]

                outs = jax.lax.map(one_batch, [in_batches(a) for a in arrays])
                return [o.reshape(batches * size, *o.shape[2:])[:n] for o in outs]

            self._inference_in_batches = jit(forward, static_argnums=1)
        return self._inference_in_batches

    def _inference_program(self) -> Any:
        """The forward pass in inference mode: compiled once per batch shape (`tf.jit`), or
        run eagerly inside another transform (which compiles or differentiates it anyway)."""

        def forward(xs: list[Any]) -> list[Any]:
            return _as_list(self.call(xs if len(xs) > 1 else xs[0], False))

        if _store.current() is not None:
            return forward
        if self._inference is None:
            from ..jit import jit

            self._inference = jit(forward)
        return self._inference

    def predictOnBatch(self, x: Any) -> Tensor | list[Tensor]:
        """Outputs for one batch (no splitting)."""
        arrays = self.check_inputs(_as_list(x))
        return as_tensors(self.call(arrays if len(arrays) > 1 else arrays[0], False))

    predict_on_batch = predictOnBatch

    def execute(self, inputs: Any, outputs: Any = None) -> Any:
        """Run the graph in inference mode (tfjs's `execute`, outputs by name not supported)."""
        return as_tensors(self.call(self._convert_inputs(inputs), False))

    # -- text and files ----------------------------------------------------------------
    def summary(
        self,
        lineLength: int | None = None,
        positions: Sequence[float] | None = None,
        printFn: Any = None,
    ) -> None:
        """Print tfjs's summary table (to stdout, or through `printFn(line)`)."""
        from .summary import print_summary

        print_summary(self, lineLength, positions, printFn)

    def get_config(self) -> dict[str, Any]:
        from .saving import functional_config

        return functional_config(self)

    def toJSON(self, unused: Any = None, returnString: bool = True) -> Any:
        """The model's topology as tfjs's `toJSON` gives it (a JSON string by default)."""
        from json import dumps

        from .saving import topology

        document = topology(self)
        return dumps(document) if returnString else document

    to_json = toJSON

    def save(self, handlerOrURL: str, config: Mapping[str, Any] | None = None) -> Any:
        """Write model.json + weight shards to a `file://` folder (tfjs's layout)."""
        from .saving import save_model

        return save_model(self, handlerOrURL, config)


def rows_independent(layer: Any) -> bool:
    """Whether each row of a batch gets the same inference output whatever the other rows
    are: true of the library's layers in inference mode, except a stateful RNN (whose rows
    carry state to the next batch); unknown of user-defined layers, so false for them."""
    if not type(layer).__module__.startswith("tfjs_grad.") or getattr(layer, "stateful", False):
        return False
    inner = [*(getattr(layer, "layers", None) or []), getattr(layer, "layer", None)]
    inner += [getattr(layer, "forwardLayer", None), getattr(layer, "backwardLayer", None)]
    inner += [getattr(layer, "cell", None), *(getattr(layer, "cells", None) or [])]
    return all(rows_independent(sub) for sub in inner if sub is not None)


def _joined(parts: list[Any]) -> Any:
    return parts[0] if len(parts) == 1 else jnp.concatenate(parts, axis=0)


def model(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> LayersModel:
    """`tf.model({inputs, outputs, name})`: a functional model."""
    return LayersModel(config, **kwargs)
