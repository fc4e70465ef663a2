"""Layers models in tfjs's files: `model.save('file://dir')`, `tf.loadLayersModel`,
`model.toJSON()` and `tf.models.modelFromJSON`.

The topology is Keras's JSON as tfjs writes it (`Sequential`: the layers' configs, the
first with `batch_input_shape`; `Model`: layers with `inbound_nodes`, `input_layers`,
`output_layers`). Weights go through `tf.io` (its crash-safe save and its checks on
untrusted files), under the weights' unsuffixed names, in `model.weights` order.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .. import io as _io
from ..layers.base import InputLayer, Layer, original_name, registered_class
from . import _untrusted
from .functional import LayersModel, _Awaitable
from .sequential import Sequential

KERAS_VERSION = "tfjs-layers 4.22.0"
BACKEND = "tensor_flow.js"
_MAX_JSON_BYTES = 256 * 1024 * 1024


def sequential_config(model: Sequential) -> dict[str, Any]:
    return {
        "name": model.name,
        "layers": [
            {"class_name": la.getClassName(), "config": la.get_config()} for la in model.layers
        ],
    }


def functional_config(model: LayersModel) -> dict[str, Any]:
    relevant = {n.id for nodes in model.nodesByDepth.values() for n in nodes}

    def kept(layer: Layer, node_index: int) -> int:
        """A node's index among the layer's nodes that belong to this model (a layer used
        in other models too has more nodes: tfjs renumbers, and so does this)."""
        node = layer.inboundNodes[node_index]
        ids = [n.id for n in layer.inboundNodes if n.id in relevant]
        return ids.index(node.id) if node.id in ids else node_index

    layers = []
    for layer in model.layers:
        inbound = []
        for node in layer.inboundNodes:
            if node.id not in relevant or not node.inboundLayers:
                continue
            inbound.append(
                [
                    [la.name, kept(la, ni), ti, dict(node.callArgs)]
                    for la, ni, ti in zip(node.inboundLayers, node.nodeIndices, node.tensorIndices)
                ]
            )
        layers.append(
            {
                "name": layer.name,
                "class_name": layer.getClassName(),
                "config": layer.get_config(),
                "inbound_nodes": inbound,
            }
        )
    return {
        "name": model.name,
        "layers": layers,
        "input_layers": [
            [t.sourceLayer.name, kept(t.sourceLayer, t.nodeIndex), t.tensorIndex]
            for t in model.inputs
        ],
        "output_layers": [
            [t.sourceLayer.name, kept(t.sourceLayer, t.nodeIndex), t.tensorIndex]
            for t in model.outputs
        ],
    }


def topology(model: LayersModel) -> dict[str, Any]:
    """The `modelTopology` of model.json."""
    return {
        "class_name": model.getClassName(),
        "config": model.get_config(),
        "keras_version": KERAS_VERSION,
        "backend": BACKEND,
    }


# -- from JSON ---------------------------------------------------------------------------


def deserialize_layer(entry: Mapping[str, Any]) -> Layer:
    """A layer (or nested model) from `{"class_name", "config"}`."""
    if not isinstance(entry, Mapping) or "class_name" not in entry:
        raise ValueError(f"A layer entry must be a dict with 'class_name', got {entry!r:.80}")
    class_name = entry["class_name"]
    config = entry.get("config") or {}
    if not isinstance(config, Mapping):
        raise ValueError(f"The config of a {class_name} layer must be a dict, got {config!r:.80}")
    if class_name in ("Sequential", "Model", "Functional"):
        return model_from_config({"class_name": class_name, "config": config})
    cls = registered_class(class_name)
    if cls is None:
        raise ValueError(
            f"Unknown layer: {class_name}. This may be due to one of the following reasons:\n"
            "1. The layer is defined in Python, in which case it needs to be ported to "
            "TensorFlow.js or your JavaScript code.\n"
            "2. The custom layer is defined in JavaScript, but is not registered properly with "
            "tf.serialization.registerClass()."
        )
    with _untrusted.layer_errors(config.get("name", class_name)):
        _untrusted.check_initializers(config)
        return cls.from_config(config)


def model_from_config(document: Mapping[str, Any]) -> LayersModel:
    """A model from a topology dict (`{"class_name", "config"}`)."""
    if not isinstance(document, Mapping):
        raise ValueError(f"A model topology must be a dict, got {document!r:.80}")
    class_name = document.get("class_name")
    config = document.get("config")
    if class_name == "Sequential":
        if isinstance(config, list):  # older Keras: the config is the layer list itself
            config = {"layers": config}
        if not isinstance(config, Mapping):
            raise ValueError("A Sequential topology's config must be a dict")
        layers = [deserialize_layer(e) for e in config.get("layers") or []]
        name = config.get("name")
        model = Sequential(name=str(name) if name else None)
        for layer in layers:
            with _untrusted.layer_errors(layer.name):
                model.add(layer)
        return model
    if class_name in ("Model", "Functional"):
        if not isinstance(config, Mapping):
            raise ValueError("A Model topology's config must be a dict")
        return _functional_from_config(config)
    raise ValueError(f"Unknown model class: {class_name!r} (expected Sequential or Model)")


def _functional_from_config(config: Mapping[str, Any]) -> LayersModel:
    entries = config.get("layers") or []
    if not isinstance(entries, list):
        raise ValueError(f"A Model topology's layers must be a list, got {entries!r:.80}")
    by_name: dict[str, Layer] = {}
    pending: list[tuple[Layer, list[_untrusted.NodeRef]]] = []
    for entry in entries:
        layer = deserialize_layer(entry)
        by_name[entry.get("name", layer.name)] = layer
        nodes = entry.get("inbound_nodes") or []
        if not isinstance(nodes, list):
            raise ValueError(f"Layer '{layer.name}': inbound_nodes must be a list")
        for node in nodes:
            if not isinstance(node, list):
                raise ValueError(f"Layer '{layer.name}': an inbound node must be a list")
            where = f"Layer '{layer.name}': inbound_nodes"
            pending.append((layer, [_untrusted.node_ref(ref, where) for ref in node]))

    def ready(node: list[_untrusted.NodeRef]) -> bool:
        return all(
            ref.layer in by_name and len(by_name[ref.layer].inboundNodes) > ref.node for ref in node
        )

    while pending:
        progressed = False
        for item in list(pending):
            layer, node = item
            if ready(node):
                where = f"Layer '{layer.name}': inbound_nodes"
                inputs = [_untrusted.output_of(by_name, ref, where) for ref in node]
                kwargs = node[0].kwargs if node else {}
                with _untrusted.layer_errors(layer.name):
                    layer.apply(inputs if len(inputs) > 1 else inputs[0], dict(kwargs))
                pending.remove(item)
                progressed = True
                break  # keep each layer's nodes in their saved order
        if not progressed:
            raise ValueError("The model's inbound_nodes do not form a graph from its inputs")

    def tensors(key: str) -> list[Any]:
        refs = config.get(key) or []
        if not isinstance(refs, list):
            raise ValueError(f"{key} must be a list, got {refs!r:.80}")
        return [_untrusted.output_of(by_name, _untrusted.node_ref(ref, key), key) for ref in refs]

    return LayersModel(
        inputs=tensors("input_layers"), outputs=tensors("output_layers"), name=config.get("name")
    )


def model_from_json(model_and_weights: Any, customObjects: Any = None) -> LayersModel:
    """`tf.models.modelFromJSON`: a model from a topology (dict or JSON string), or from
    `{"modelTopology": ...}`; weights are freshly initialized.

    >>> import tfjs_grad as tf
    >>> m = tf.sequential(layers=[tf.layers.dense(units=2, inputShape=[3])])
    >>> twin = tf.models.modelFromJSON(m.toJSON())
    >>> [list(w.shape) for w in twin.weights]
    [[3, 2], [2]]
    """
    document = (
        json.loads(model_and_weights) if isinstance(model_and_weights, str) else model_and_weights
    )
    if not isinstance(document, Mapping):
        raise ValueError("modelFromJSON expects a model topology (dict or JSON string)")
    if "modelTopology" in document:
        document = document["modelTopology"]
    if isinstance(document, Mapping) and "model_config" in document:
        document = document["model_config"]
    return model_from_config(document)


# -- files -------------------------------------------------------------------------------


def _local_path(url: Any, fn: str) -> Path:
    if isinstance(url, os.PathLike):
        return Path(url)
    if not isinstance(url, str):
        raise ValueError(f"{fn} expects a 'file://' URL, got {type(url).__name__}")
    if url.startswith("file://"):
        return Path(url[len("file://") :])
    if "://" in url:
        raise ValueError(
            f"Cannot find any save handlers for URL '{url}': tfjs_grad saves to and loads "
            "from 'file://' paths only"
        )
    return Path(url)


class SaveResult(dict, _Awaitable):  # type: ignore[type-arg]
    """What `model.save` returns: tfjs's `{modelArtifactsInfo}` (also awaitable)."""

    @property
    def modelArtifactsInfo(self) -> dict[str, Any]:
        return self["modelArtifactsInfo"]


def save_model(model: LayersModel, url: Any, config: Mapping[str, Any] | None = None) -> SaveResult:
    """Write `dir/model.json` and its shards for `model`."""
    folder = _local_path(url, "model.save")
    if folder.name == "model.json":
        folder = folder.parent
    document = topology(model)
    weights = model.weights
    path = _io.save_weights(
        folder, weights, model_topology=document, names=[original_name(w) for w in weights]
    )
    topology_bytes = len(json.dumps(document).encode())
    data_bytes = sum(int(w.size) * 4 for w in weights)
    import datetime

    return SaveResult(
        modelArtifactsInfo={
            "dateSaved": datetime.datetime.now(datetime.UTC).isoformat(),
            "modelTopologyType": "JSON",
            "modelTopologyBytes": topology_bytes,
            "weightSpecsBytes": len(json.dumps(json.loads(path.read_text())["weightsManifest"])),
            "weightDataBytes": data_bytes,
        }
    )


def load_layers_model(
    pathOrIOHandler: Any, options: Mapping[str, Any] | None = None
) -> LayersModel:
    """`tf.loadLayersModel('file://dir/model.json')`: the model tfjs (or `model.save`) wrote,
    with its weights; the files are checked as `tf.io.loadWeights` checks them.
    """
    path = _local_path(pathOrIOHandler, "loadLayersModel")
    if path.is_dir():
        path = path / "model.json"
    if not path.is_file():
        raise ValueError(f"loadLayersModel: no model.json at {path}")
    if path.stat().st_size > _MAX_JSON_BYTES:
        raise ValueError(f"{path} is larger than {_MAX_JSON_BYTES} bytes")
    try:
        document = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as error:
        raise ValueError(f"{path} is not a JSON file: {error}") from error
    if not isinstance(document, Mapping) or "modelTopology" not in document:
        raise ValueError(f"{path} has no modelTopology: it is not a Layers model")
    topo = document["modelTopology"]
    if isinstance(topo, Mapping) and "model_config" in topo:
        topo = topo["model_config"]
    if "weightsManifest" not in document:
        return model_from_config(topo)
    # The file's weights are read (and checked against its shards) first, so that each of
    # the model's weights is checked against the file's before it is allocated.
    arrays = _io.load_weights(path)
    strict = True if options is None else bool(options.get("strict", True))
    with _untrusted.from_manifest(arrays, strict):
        model = model_from_config(topo)
    targets = model.weights
    names = [original_name(w) for w in targets]
    missing = [n for n in names if n not in arrays]
    extra = [n for n in arrays if n not in set(names)]
    if strict and (missing or extra):
        problems = []
        if missing:
            problems.append(
                f"{len(missing)} of the model's weights are missing from the file: {missing}"
            )
        if extra:
            problems.append(f"the file has {len(extra)} weights the model does not: {extra}")
        raise ValueError(f"loadLayersModel({path}): " + "; ".join(problems))
    for name, var in zip(names, targets):
        if name in arrays:
            var.assign(arrays[name].astype(var.dtype))
    return model


__all__ = ["InputLayer", "load_layers_model", "model_from_json", "save_model", "topology"]
