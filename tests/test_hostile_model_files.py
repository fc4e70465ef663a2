"""Hostile model folders (model.json + weights.bin) refused by `tf.loadLayersModel` with a
ValueError naming the layer and the field, before the weights they ask for exist."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tfjs_grad as tf


def _dense(name: str, units: Any, **extra: Any) -> dict[str, Any]:
    config = {"name": name, "units": units, "activation": "linear", "use_bias": False, **extra}
    return {"class_name": "Dense", "config": config}


def _sequential(*layers: dict[str, Any]) -> dict[str, Any]:
    return {"class_name": "Sequential", "config": {"name": "seq", "layers": list(layers)}}


def _write(
    folder: Path, topology: Any, weights: list[tuple[str, list[int], str]] = (), data: bytes = b""
) -> Path:
    """A folder as a hostile file would be: model.json and (if it has weights) weights.bin."""
    folder.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {"modelTopology": topology, "format": "layers-model"}
    if weights:
        specs = [{"name": n, "shape": s, "dtype": d} for n, s, d in weights]
        document["weightsManifest"] = [{"paths": ["weights.bin"], "weights": specs}]
        (folder / "weights.bin").write_bytes(data)
    (folder / "model.json").write_text(json.dumps(document))
    return folder


def _load(folder: Path) -> Any:
    return tf.loadLayersModel(f"file://{folder}/model.json")


def test_a_well_formed_folder_loads(tmp_path: Path) -> None:
    kernel = np.arange(6, dtype="<f4")
    folder = _write(
        tmp_path,
        _sequential(_dense("dense_1", 3, batch_input_shape=[None, 2])),
        [("dense_1/kernel", [2, 3], "float32")],
        kernel.tobytes(),
    )
    model = _load(folder)
    np.testing.assert_array_equal(np.asarray(model.weights[0].read()).ravel(), kernel)


def _functional(outputs: list[Any], node: list[Any] | None = None) -> dict[str, Any]:
    """input_1 -> dense_1, the dense layer's inbound node and the model's outputs as given."""
    layers = [
        {
            "class_name": "InputLayer",
            "name": "input_1",
            "config": {"name": "input_1", "batch_input_shape": [None, 2], "dtype": "float32"},
            "inbound_nodes": [],
        },
        {
            **_dense("dense_1", 3),
            "name": "dense_1",
            "inbound_nodes": [[node or ["input_1", 0, 0, {}]]],
        },
    ]
    config = {
        "name": "model",
        "layers": layers,
        "input_layers": [["input_1", 0, 0]],
        "output_layers": outputs,
    }
    return {"class_name": "Model", "config": config}


@pytest.mark.parametrize(
    ("units", "got"),
    [(3.7, "3.7"), ("3", '"3"'), (None, "null"), (-2, "-2"), (0, "0"), (True, "true")],
)
def test_a_units_that_is_not_a_positive_integer_is_refused(
    tmp_path: Path, units: Any, got: str
) -> None:
    folder = _write(tmp_path, _sequential(_dense("dense_1", units, batch_input_shape=[None, 2])))
    message = f"Layer 'dense_1': Expected units to be a positive integer, but got {got}."
    with pytest.raises(ValueError, match=re.escape(message)):
        _load(folder)


def test_a_negative_embedding_input_dim_is_refused(tmp_path: Path) -> None:
    layer = {
        "class_name": "Embedding",
        "config": {
            "name": "embedding_1",
            "input_dim": -5,
            "output_dim": 2,
            "batch_input_shape": [None, 3],
        },
    }
    folder = _write(tmp_path, _sequential(layer))
    with pytest.raises(ValueError, match="Layer 'embedding_1': Expected inputDim to be a positive"):
        _load(folder)


def test_a_null_topology_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="A model topology must be a dict, got None"):
        _load(_write(tmp_path, None))


def test_an_output_index_out_of_range_is_refused(tmp_path: Path) -> None:
    folder = _write(tmp_path, _functional([["dense_1", 0, 5]]))
    with pytest.raises(
        ValueError, match="output_layers: tensor_index 5 of layer 'dense_1' is out of range"
    ):
        _load(folder)
    folder = _write(tmp_path / "b", _functional([["dense_1", 3, 0]]))
    with pytest.raises(
        ValueError, match="output_layers: node_index 3 of layer 'dense_1' is out of range"
    ):
        _load(folder)


@pytest.mark.parametrize(
    ("index", "got"), [(-1, "-1"), ("0", "'0'"), (True, "True"), (None, "None")]
)
def test_a_node_index_that_is_not_a_non_negative_integer_is_refused(
    tmp_path: Path, index: Any, got: str
) -> None:
    folder = _write(tmp_path, _functional([["dense_1", 0, 0]], ["input_1", index, 0, {}]))
    message = (
        f"Layer 'dense_1': inbound_nodes: 'node_index' must be a non-negative integer, got {got}"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        _load(folder)


def test_a_tensor_index_out_of_range_in_an_inbound_node_is_refused(tmp_path: Path) -> None:
    folder = _write(tmp_path, _functional([["dense_1", 0, 0]], ["input_1", 0, 2, {}]))
    with pytest.raises(
        ValueError, match="Layer 'dense_1': inbound_nodes: tensor_index 2 of layer 'input_1'"
    ):
        _load(folder)


_FIELD = "Layer 'dense_1': kernel_initializer: "


@pytest.mark.parametrize(
    ("init", "message"),
    [
        (
            {"class_name": "RandomNormal", "config": {"stddev": "x"}},
            _FIELD + "RandomNormal: stddev must be a finite number, got 'x'",
        ),
        (
            {"class_name": "RandomUniform", "config": {"maxval": None}},
            _FIELD + "RandomUniform: maxval must be a finite number, got None",
        ),
        (
            {"class_name": "TruncatedNormal", "config": {"mean": [1]}},
            _FIELD + "TruncatedNormal: mean must be a finite number, got [1]",
        ),
        (
            {"class_name": "Constant", "config": {"value": "NaN"}},
            _FIELD + "Constant: value must be a finite number, got 'NaN'",
        ),
        (
            {"class_name": "Orthogonal", "config": {"gain": True}},
            _FIELD + "Orthogonal: gain must be a finite number, got True",
        ),
        (
            {"class_name": "RandomNormal", "config": {"seed": "x"}},
            _FIELD + "RandomNormal: seed must be an integer or null, got 'x'",
        ),
        (
            {"class_name": "VarianceScaling", "config": {"distribution": 3}},
            _FIELD + "VarianceScaling: distribution must be a string, got 3",
        ),
        ({"class_name": "VarianceScaling", "config": {"scale": -1}}, _FIELD + "scale must"),
        ({"class_name": "Constant", "config": {}}, _FIELD + "Constant requires the config key"),
        ({"class_name": "GlorotUniform", "config": "x"}, _FIELD + "The config of a GlorotUniform"),
        ({"class_name": "Bogus", "config": {}}, _FIELD + "Unknown initializer: Bogus"),
        (7, _FIELD + "Unknown initializer: 7"),
    ],
)
def test_a_bad_initializer_argument_is_refused(tmp_path: Path, init: Any, message: str) -> None:
    layer = _dense("dense_1", 3, batch_input_shape=[None, 2], kernel_initializer=init)
    with pytest.raises(ValueError, match="^" + re.escape(message)):
        _load(_write(tmp_path, _sequential(layer)))


def test_an_initializer_argument_of_the_wrong_kind_is_refused_in_user_code() -> None:
    """The same checks on tf.initializers as a tfjs user calls them."""
    with pytest.raises(ValueError, match="RandomNormal: stddev must be a finite number"):
        tf.initializers.randomNormal({"stddev": "0.1"})
    with pytest.raises(ValueError, match="Orthogonal: seed must be an integer or null"):
        tf.initializers.orthogonal({"seed": 1.5})
    init = tf.initializers.randomUniform({"minval": np.float32(-1), "maxval": 1, "seed": 3})
    values = np.asarray(init.apply([100]))
    assert values.min() >= -1 and values.max() <= 1


def test_a_kernel_the_manifest_calls_int32_is_refused_with_tfjs_message(tmp_path: Path) -> None:
    folder = _write(
        tmp_path,
        _sequential(_dense("dense_1", 3, batch_input_shape=[None, 2])),
        [("dense_1/kernel", [2, 3], "int32")],
        np.arange(6, dtype="<i4").tobytes(),
    )
    message = (
        "Layer 'dense_1': dtype of the new value (int32) and previous value (float32) must match"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        _load(folder)


def test_a_kernel_of_another_shape_than_the_manifest_is_refused(tmp_path: Path) -> None:
    folder = _write(
        tmp_path,
        _sequential(_dense("dense_1", 3, batch_input_shape=[None, 2])),
        [("dense_1/kernel", [2, 2], "float32")],
        np.zeros(4, dtype="<f4").tobytes(),
    )
    with pytest.raises(
        ValueError, match=re.escape("Layer 'dense_1': Shape mismatch: [2, 3] vs. [2, 2]")
    ):
        _load(folder)


_CHILD = textwrap.dedent(
    """
    import resource, sys
    import tfjs_grad as tf
    tf.zeros([2]).dataSync()  # JAX's own start-up is not the loader's
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        tf.loadLayersModel(sys.argv[1])
        print("LOADED")
    except ValueError as error:
        print("ValueError:", error)
    print("GROWTH_KB", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)
    """
)


def _load_in_child(folder: Path) -> tuple[str, int]:
    """Load `folder` in a fresh interpreter: its message and its peak memory growth (bytes)."""
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, f"file://{folder}/model.json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    return lines[-2], int(lines[-1].split()[1]) * 1024


def _folder_bytes(folder: Path) -> int:
    return sum(f.stat().st_size for f in folder.iterdir())


_NOISE = 50 * 2**20


def test_an_embedding_of_2_31_by_2_31_is_refused_without_allocating(tmp_path: Path) -> None:
    layer = {
        "class_name": "Embedding",
        "config": {
            "name": "embedding_1",
            "input_dim": 2**31 - 1,
            "output_dim": 2**31 - 1,
            "batch_input_shape": [None, 1],
        },
    }
    folder = _write(tmp_path, _sequential(layer))
    message, growth = _load_in_child(folder)
    assert message.startswith("ValueError: Layer 'embedding_1': "), message
    assert "elements" in message and "at most 2147483647" in message, message
    assert growth <= 2 * _folder_bytes(folder) + _NOISE


@pytest.mark.parametrize("units", [2**26, 2**40])
def test_huge_units_are_checked_against_the_manifest_before_allocating(
    tmp_path: Path, units: int
) -> None:
    folder = _write(
        tmp_path,
        _sequential(_dense("dense_1", units, batch_input_shape=[None, 16])),
        [("dense_1/kernel", [16, 1], "float32")],
        np.zeros(16, dtype="<f4").tobytes(),
    )
    message, growth = _load_in_child(folder)
    assert message.startswith("ValueError: Layer 'dense_1': "), message
    assert "dense_1/kernel" in message or "kernel" in message, message
    assert growth <= 2 * _folder_bytes(folder) + _NOISE
