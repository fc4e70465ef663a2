"""Every public name the documentation mentions exists and returns what it announces.

The names come from README.md's tables (backticked `tf.<name>` and `tf.<ns>.<name>`),
tests/reference/OPS2.md's op tables, the 88 OPS.md ops that tests/reference/ops.json
records, and the public names (`__all__`) of the NAMESPACES below. Each function must
announce a return type; each is called on a sample (ops on their first tfjs fixture case,
traced by jax.make_jaxpr rather than compiled, layer factories on their
tests/reference/layers.json config, the rest as `_other_samples` calls them) and its result
checked against `typing.get_type_hints`' return type (classes, unions, None, `list[...]`,
`dict[...]`, what an awaitable gives). NOT_SAMPLED names the few left out, with the reason.
"""

from __future__ import annotations

import collections.abc
import re
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np
from op_fixtures import call, load, resolve

import tfjs_grad as tf
from tfjs_grad.ops.asynchronous import Resolved

ROOT = Path(__file__).resolve().parents[1]
NAMESPACES = (
    "layers",
    "train",
    "losses",
    "data",
    "callbacks",
    "io",
    "util",
    "node",
    "browser",
    "models",
    "serialization",
)
OP_FIXTURES = ("ops.json", "ops2_math.json", "ops2_nn.json", "ops2_shapes.json")

# Names the README mentions in its tfjs column that tfjs_grad spells differently there.
TFJS_ONLY = {"io.decodeWeights": "README's tfjs column; the port is tf.io.load_weights"}


def _readme_names() -> set[str]:
    names: set[str] = set()
    for line in (ROOT / "README.md").read_text().splitlines():
        if line.startswith("|"):
            for code in re.findall(r"`([^`]*)`", line):
                found = re.findall(r"\btf\.([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)", code)
                names.update(found)
    return names


def _ops2_names() -> set[str]:
    tables = (ROOT / "tests" / "reference" / "OPS2.md").read_text().split("## Op tables", 1)[1]
    names: set[str] = set()
    for line in tables.splitlines():
        row = re.match(r"\| `([\w.]+)`(?: \(`([\w.]+)`\))? \|", line)
        if row:
            names.update(n for n in row.groups() if n)
    return names


def _namespace_names() -> set[str]:
    return {f"{ns}.{n}" for ns in NAMESPACES for n in getattr(tf, ns).__all__}


def mentioned_names() -> set[str]:
    ops = {o["name"] for f in OP_FIXTURES for o in load(f)["ops"]}
    return _readme_names() | _ops2_names() | ops | _namespace_names()


def test_every_mentioned_name_exists():
    names = mentioned_names()
    assert len(names) > 500
    missing = []
    for name in sorted(names - set(TFJS_ONLY)):
        try:
            resolve(name)
        except AttributeError:
            missing.append(name)
    assert not missing, f"documented but absent: {missing}"


def _traced(make: Callable[[], Any]) -> Any:
    """make()'s result, from tracing it with jax.make_jaxpr (compiling some 300 ops one
    by one takes half a minute); eager-only ops run eagerly."""
    made: list[Any] = []
    try:
        jax.make_jaxpr(lambda: made.append(make()))()
    except Exception:  # an eager-only op, or one that reads values
        return make()
    return made[0]


def _op_samples() -> dict[int, Callable[[], Any]]:
    """id(public op) -> a call of it on its first recorded tfjs case."""
    samples: dict[int, Callable[[], Any]] = {}
    for fixture in OP_FIXTURES:
        data = load(fixture)
        for section in ("cases", "random", "async"):
            for case in data.get(section, []):
                make = lambda case=case: _traced(lambda: call(case))  # noqa: E731
                samples.setdefault(id(resolve(case["op"])), make)
    return samples


def _layer(spec: dict[str, Any]) -> Any:
    """A layers.json layer; a wrapper's inner layer (a nested spec) is built first."""
    config = {
        key: _layer(value) if isinstance(value, dict) and "factory" in value else value
        for key, value in spec["config"].items()
    }
    return resolve("layers." + spec["factory"])(config)


def _layer_samples() -> dict[int, Callable[[], Any]]:
    samples: dict[int, Callable[[], Any]] = {}
    for spec in load("layers.json")["layers"].values():
        samples.setdefault(id(resolve("layers." + spec["factory"])), lambda s=spec: _layer(s))
    return samples


def _x() -> tf.Tensor:
    return tf.tensor1d([1.0, 2.0])


def _variable_grads() -> Any:
    v = tf.variable(_x())
    return tf.variableGrads(lambda: v.square().sum(), [v])


def _calls(name: str, *args: Any, **kwargs: Any) -> Callable[[], Any]:
    return lambda: resolve(name)(*args, **kwargs)


def _saved_model(folder: Path) -> tf.LayersModel:
    model = tf.sequential({"layers": [tf.layers.dense({"units": 1, "inputShape": [2]})]})
    model.save(f"file://{folder}")
    return model


def _other_samples(tmp: Path) -> dict[str, Callable[[], Any]]:
    """Names no fixture covers, called as a user calls them; files go under tmp."""
    x = [1.0, 2.0]
    labels, predictions = [0.0, 1.0], [0.25, 0.5]
    v = tf.variable(_x())
    (tmp / "rows.csv").write_text("a,b\n1,2\n")
    cell = {"units": 2}
    losses = {
        f"losses.{n}": _calls(f"losses.{n}", labels, predictions)
        for n in ("absoluteDifference", "hingeLoss", "huberLoss", "logLoss")
        + ("meanSquaredError", "sigmoidCrossEntropy", "softmaxCrossEntropy")
    }
    optimizers = {
        f"train.{n}": _calls(f"train.{n}", 0.1)
        for n in ("sgd", "adagrad", "adadelta", "adam", "adamax", "rmsprop")
        + ("tfjsSgd", "tfjsAdagrad", "tfjsAdadelta", "tfjsAdam", "tfjsAdamax", "tfjsRmsprop")
    }
    return {
        **losses,
        **optimizers,
        "losses.cosineDistance": _calls("losses.cosineDistance", labels, predictions, 0),
        "train.momentum": _calls("train.momentum", 0.1, 0.9),
        "train.tfjsMomentum": _calls("train.tfjsMomentum", 0.1, 0.9),
        "train.saveCheckpoint": _calls("train.saveCheckpoint", tmp / "ckpt", [v]),
        "train.restoreCheckpoint": lambda: (
            tf.train.saveCheckpoint(tmp / "ckpt2", [v]),
            tf.train.restoreCheckpoint(tmp / "ckpt2", [v]),
        )[1],
        "io.save_weights": _calls("io.save_weights", tmp / "w", [v]),
        "io.load_weights": lambda: (
            tf.io.save_weights(tmp / "w2", [v]),
            tf.io.load_weights(tmp / "w2" / "model.json", [v]),
        )[1],
        "loadLayersModel": lambda: (
            _saved_model(tmp / "m"),
            tf.loadLayersModel(f"file://{tmp / 'm'}/model.json"),
        )[1],
        "models.modelFromJSON": lambda: tf.models.modelFromJSON(_saved_model(tmp / "j").toJSON()),
        "model": lambda: tf.model({"inputs": (i := tf.input({"shape": [2]})), "outputs": i}),
        "set_state": lambda: tf.set_state(tf.get_state([v])),
        "buffer": _calls("buffer", [2]),
        "print": _calls("print", x),
        "nextFrame": _calls("nextFrame"),
        "dispose": _calls("dispose", _x()),
        "util.createShuffledIndices": _calls("util.createShuffledIndices", 3),
        "util.shuffle": _calls("util.shuffle", [1, 2, 3]),
        "browser.fromPixels": _calls("browser.fromPixels", np.zeros((2, 2, 4), np.uint8)),
        "serialization.registerClass": _calls("serialization.registerClass", tf.layers.Dense),
        "models.save_model": lambda: tf.models.save_model(
            _saved_model(tmp / "s"), f"file://{tmp / 's2'}"
        ),
        "node.summaryFileWriter": _calls("node.summaryFileWriter", str(tmp / "sw")),
        "util.assert_": _calls("util.assert_", True, "holds"),
        "node.tensorBoard": _calls("node.tensorBoard", str(tmp / "tb")),
        "callbacks.csvLogger": _calls("callbacks.csvLogger", str(tmp / "log.csv")),
        "callbacks.modelCheckpoint": _calls("callbacks.modelCheckpoint", str(tmp / "best")),
        "data.csv": _calls("data.csv", f"file://{tmp / 'rows.csv'}"),
        "data.datasetFromIteratorFn": _calls("data.datasetFromIteratorFn", lambda: iter(x)),
        "layers.inputLayer": _calls("layers.inputLayer", {"inputShape": [2]}),
        "layers.spatialDropout1d": _calls("layers.spatialDropout1d", {"rate": 0.5}),
        "layers.simpleRNNCell": _calls("layers.simpleRNNCell", cell),
        "layers.lstmCell": _calls("layers.lstmCell", cell),
        "layers.gruCell": _calls("layers.gruCell", cell),
        "layers.stackedRNNCells": lambda: tf.layers.stackedRNNCells(
            {"cells": [tf.layers.simpleRNNCell(cell)]}
        ),
        "layers.rnn": lambda: tf.layers.rnn({"cell": tf.layers.simpleRNNCell(cell)}),
        "grad": _calls("grad", lambda a: a.square()),
        "grads": _calls("grads", lambda a: a.square()),
        "valueAndGrad": _calls("valueAndGrad", lambda a: a.square()),
        "valueAndGrads": _calls("valueAndGrads", lambda a: a.square()),
        "customGrad": _calls("customGrad", lambda a: {"value": a, "gradFunc": lambda dy: [dy]}),
        "variableGrads": _variable_grads,
        "variable": _calls("variable", x),
        "stopGradient": _calls("stopGradient", x),
        "memory": _calls("memory"),
        "ready": _calls("ready"),
        "getBackend": _calls("getBackend"),
        "engine": _calls("engine"),
        "env": _calls("env"),
        "time": _calls("time", lambda: _x().square()),
        "profile": _calls("profile", lambda: _x().square()),
        "util.sizeFromShape": _calls("util.sizeFromShape", [2, 3]),
        "util.flatten": _calls("util.flatten", [[1, 2], [3]]),
        "util.arraysEqual": _calls("util.arraysEqual", [1, 2], [1, 2]),
        "util.now": _calls("util.now"),
        "util.encodeString": _calls("util.encodeString", "ab"),
        "util.decodeString": lambda: tf.util.decodeString(tf.util.encodeString("ab")),
        "tidy": _calls("tidy", lambda: _x().square()),
        "keep": lambda: tf.keep(_x()),
        "sequential": _calls("sequential"),
        "input": _calls("input", {"shape": [2]}),
        "layers.input": _calls("layers.input", {"shape": [2]}),
        "registered_variables": _calls("registered_variables"),
        "jit": _calls("jit", lambda a: a),
        "jit_loop": _calls("jit_loop", lambda a: a),
        "functionalize": _calls("functionalize", lambda a: a, []),
        "get_state": _calls("get_state", []),
        "train.fromOptax": lambda: tf.train.fromOptax(tf.train.tfjs_sgd(0.1)),
        "losses.computeWeightedLoss": _calls("losses.computeWeightedLoss", x),
        "data.array": _calls("data.array", x),
        "data.generator": _calls("data.generator", lambda: iter(x)),
        "data.zip": lambda: tf.data.zip([tf.data.array(x), tf.data.array(x)]),
        "callbacks.earlyStopping": _calls("callbacks.earlyStopping"),
        "callbacks.reduceLROnPlateau": _calls("callbacks.reduceLROnPlateau"),
    }


# Annotated callables not called here, and why.
NOT_SAMPLED = {"disposeVariables": "it disposes every Variable of the test process"}


def _matches(value: Any, annotation: Any) -> bool:
    """isinstance against a return annotation: classes, unions, None, Any, list[...],
    dict[...], Callable[...], and generics by their origin."""
    if annotation is Any:
        return True
    if isinstance(annotation, typing.TypeVar):  # a generic function's own type
        return annotation.__bound__ is None or _matches(value, annotation.__bound__)
    if annotation is None or annotation is type(None):
        return value is None
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return any(_matches(value, a) for a in typing.get_args(annotation))
    if origin is list:
        (item,) = typing.get_args(annotation)
        return isinstance(value, list) and all(_matches(v, item) for v in value)
    if origin is dict:
        key, item = typing.get_args(annotation)
        return isinstance(value, dict) and all(
            _matches(k, key) and _matches(v, item) for k, v in value.items()
        )
    if origin is tuple:
        return isinstance(value, tuple)
    if origin is collections.abc.Callable:
        return callable(value)
    if origin is Resolved:  # an awaitable: what `await` gives
        return isinstance(value, Resolved) and _matches(value.value, typing.get_args(annotation)[0])
    if origin is not None:
        return isinstance(value, origin)
    return isinstance(value, annotation)


def _annotated() -> dict[str, tuple[Any, Any]]:
    """Dotted name -> (function, its return annotation) for every documented callable
    (not class) that announces a return type; one name per function object."""
    found: dict[str, tuple[Any, Any]] = {}
    seen: set[int] = set()
    for name in sorted(mentioned_names() - set(TFJS_ONLY)):
        fn = resolve(name)
        if isinstance(fn, type) or not callable(fn) or id(fn) in seen:
            continue
        seen.add(id(fn))
        hints = typing.get_type_hints(fn)
        if "return" in hints:
            found[name] = (fn, hints["return"])
    return found


def test_every_documented_function_announces_its_return_type():
    unannotated = []
    seen: set[int] = set()
    for name in sorted(mentioned_names() - set(TFJS_ONLY)):
        fn = resolve(name)
        if callable(fn) and not isinstance(fn, type) and id(fn) not in seen:
            seen.add(id(fn))
            if "return" not in typing.get_type_hints(fn):
                unannotated.append(name)
    assert not unannotated, f"no return annotation: {unannotated}"


def test_every_annotated_name_returns_its_annotated_type(tmp_path):
    samples = {**_op_samples(), **_layer_samples()}
    samples.update({id(resolve(n)): make for n, make in _other_samples(tmp_path).items()})
    wrong, unsampled = [], []
    for name, (fn, annotation) in _annotated().items():
        make = samples.get(id(fn))
        if make is None:
            if name not in NOT_SAMPLED:
                unsampled.append(name)
            continue
        value = make()
        if not _matches(value, annotation):
            wrong.append(f"{name}: announces {annotation}, returned {type(value).__name__}")
    assert not wrong, wrong
    assert not unsampled, f"no sample for {unsampled}"
