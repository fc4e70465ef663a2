"""Each `tf.layers` factory's config keys, typed for type checkers (issue #37).

tfjs_grad/layers/configs.py is written by tests/scripts/gen_layer_configs.py from the
layers' `_KEYS` tables: a TypedDict of the keys (camelCase and snake_case) and a Protocol
for the factory's call, which tfjs_grad/layers/__init__.py casts each factory to.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import pathlib
import shutil
import subprocess
import sys
import typing

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad._config import camel
from tfjs_grad.layers import configs

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _generator():
    path = ROOT / "tests" / "scripts" / "gen_layer_configs.py"
    spec = importlib.util.spec_from_file_location("gen_layer_configs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_generated_configs_match_the_keys_tables():
    written = (ROOT / "tfjs_grad" / "layers" / "configs.py").read_text()
    assert written == _generator().render(), "rerun tests/scripts/gen_layer_configs.py"


def test_every_factory_is_cast_to_the_protocol_of_its_own_class():
    tree = ast.parse((ROOT / "tfjs_grad" / "layers" / "__init__.py").read_text())
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    made = {ast.unparse(c.args[0]) for c in calls if ast.unparse(c.func) == "layer_factory"}
    cast = {
        ast.unparse(c.args[1].args[0]): ast.literal_eval(c.args[0])
        for c in calls
        if ast.unparse(c.func) == "cast" and isinstance(c.args[1], ast.Call)
    }
    assert len(made) >= 55 and set(cast) == made
    for class_name, protocol in cast.items():
        assert protocol == f"configs.{class_name}Factory", class_name
        assert hasattr(configs, f"{class_name}Factory")


def test_the_typed_keys_are_the_keys_each_layer_takes():
    for cls in _generator().factory_classes():
        typed = typing.get_type_hints(getattr(configs, f"{cls.__name__}Config"))
        taken = {**cls._BASE_KEYS, **cls._KEYS}
        assert {camel(key) for key in typed} == set(taken), cls.__name__
        assert any(key != camel(key) for key in typed), cls.__name__  # snake_case too


def test_a_typed_config_builds_the_layer_a_tfjs_user_writes():
    config: configs.DenseConfig = {"units": 3, "activation": "relu", "inputShape": [4]}
    model = tf.sequential({"layers": [tf.layers.dense(config), tf.layers.dense(units=1)]})
    assert tuple(model.predict(tf.ones([2, 4])).shape) == (2, 1)
    assert tuple(model.layers[0].getWeights()[0].shape) == (4, 3)
    snake: configs.DenseConfig = {"units": 3, "use_bias": False, "input_shape": [4]}
    assert tf.layers.dense(snake).useBias is False


def test_a_typed_config_builds_a_layer_a_jax_user_reads_under_jit():
    config: configs.DenseConfig = {"units": 2, "activation": "relu", "biasInitializer": "ones"}
    layer = tf.layers.dense(config, kernel_initializer="ones")
    x = jnp.arange(6.0).reshape(3, 2) - 2.0
    eager = layer.apply(tf.Tensor(x))
    kernel, bias = (w.value for w in layer.weights)

    @jax.jit
    def forward(x, kernel, bias):
        return jax.nn.relu(x @ kernel + bias)

    expected = np.maximum(np.asarray(x) @ np.ones((2, 2)) + 1.0, 0.0)
    np.testing.assert_allclose(np.asarray(forward(x, kernel, bias)), expected, rtol=1e-6)
    np.testing.assert_allclose(eager.dataSync().reshape(3, 2), expected, rtol=1e-6)


def _pyright() -> str | None:
    beside = pathlib.Path(sys.executable).with_name("pyright")
    return str(beside) if beside.exists() else shutil.which("pyright")


@pytest.mark.skipif(_pyright() is None, reason="pyright is not installed")
def test_pyright_refuses_a_misspelled_config_key():
    path = ROOT / "tests" / "typing_errors" / "misspelled_config_key.py"
    marked = [
        i for i, line in enumerate(path.read_text().splitlines(), 1) if line.endswith("  # error")
    ]
    run = subprocess.run(
        [_pyright(), "--pythonpath", sys.executable, "--outputjson", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = json.loads(run.stdout)
    flagged = {
        d["range"]["start"]["line"] + 1
        for d in report["generalDiagnostics"]
        if d["severity"] == "error"
    }
    assert flagged == set(marked), run.stdout
