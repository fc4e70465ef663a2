"""tf.sequential / tf.model: building, running, weights, names, summary, saving.

Numbers come from numpy references of the same weights; tfjs's own recordings are in
tests/reference/layers.json (tests/test_layers.py and the fixture tests below).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad.layers.base import original_name


def _dense_ref(x, k, b, act=lambda v: v):
    return act(x @ k + b)


def test_sequential_predict_matches_numpy():
    model = tf.sequential(
        layers=[
            tf.layers.dense(units=3, inputShape=[4], activation="relu"),
            tf.layers.dense(units=2),
        ]
    )
    rng = np.random.default_rng(0)
    ws = [rng.normal(size=w.shape).astype(np.float32) for w in model.weights]
    model.setWeights(ws)
    x = rng.normal(size=(5, 4)).astype(np.float32)
    want = _dense_ref(_dense_ref(x, ws[0], ws[1], lambda v: np.maximum(v, 0)), ws[2], ws[3])
    np.testing.assert_allclose(np.asarray(model.predict(x)), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(model.predict(x, batchSize=2)), want, rtol=1e-5, atol=1e-6
    )
    np.testing.assert_allclose(
        np.asarray(model.apply(x, {"training": True})), want, rtol=1e-5, atol=1e-6
    )
    for got, w in zip(model.getWeights(), ws):
        np.testing.assert_array_equal(np.asarray(got), w)


def test_results_are_tensors():
    # API.md: layer.apply, model.apply/predict/predictOnBatch/execute and getWeights give
    # tf.Tensors (holding the same numbers as the numpy reference), not bare arrays.
    dense = tf.layers.dense(units=2, inputShape=[3])
    model = tf.sequential(layers=[dense])
    rng = np.random.default_rng(1)
    k, b = rng.normal(size=(3, 2)).astype(np.float32), np.float32([0.5, -1.0])
    model.setWeights([k, b])
    x = rng.normal(size=(4, 3)).astype(np.float32)
    want = _dense_ref(x, k, b)
    results = [
        dense.apply(tf.tensor(x)),
        model.apply(x),
        model.predict(x),
        model.predictOnBatch(x),
        model.execute(x),
    ]
    for got in results:
        assert isinstance(got, tf.Tensor), type(got)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    weights = model.getWeights()
    assert all(isinstance(w, tf.Tensor) for w in weights)
    np.testing.assert_array_equal(np.asarray(weights[0]), k)


def test_sequential_add_and_names():
    # weight names are unique per process (as in tfjs): names no other test uses
    model = tf.sequential()
    model.add(tf.layers.dense(units=2, inputShape=[3], name="names_first"))
    model.add(tf.layers.dense(units=1, name="names_second"))
    assert [la.name for la in model.layers] == ["names_first", "names_second"]
    assert model.inputs[0].sourceLayer.name == "names_first_input"
    assert [w.name for w in model.weights] == [
        "names_first/kernel",
        "names_first/bias",
        "names_second/kernel",
        "names_second/bias",
    ]
    assert model.getLayer("names_second") is model.layers[1]
    assert model.getLayer(index=0) is model.layers[0]
    assert model.layers[1].outputShape == [None, 1]
    assert model.countParams() == 3 * 2 + 2 + 2 + 1
    with pytest.raises(ValueError, match="No such layer"):
        model.getLayer("nope")


def test_first_layer_needs_input_shape():
    with pytest.raises(ValueError, match="must get an `inputShape` or `batchInputShape`"):
        tf.sequential().add(tf.layers.dense(units=2))


def test_auto_names_count_per_class():
    a, b = tf.layers.dense(units=1), tf.layers.dense(units=1)
    na, nb = int(a.name.rsplit("Dense", 1)[1]), int(b.name.rsplit("Dense", 1)[1])
    assert a.name.startswith("dense_Dense") and nb == na + 1


def test_weight_names_are_unique_for_the_process():
    first = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[2], name="twin_models")])
    names = [w.name for w in first.weights]
    del first
    second = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[2], name="twin_models")])
    assert names == ["twin_models/kernel", "twin_models/bias"]
    assert [w.name for w in second.weights] == ["twin_models/kernel_1", "twin_models/bias_1"]
    assert [original_name(w) for w in second.weights] == names


def test_functional_model_and_shapes():
    x = tf.input(shape=[4], name="fx")
    h = tf.layers.dense(units=3, activation="tanh", name="fh").apply(x)
    assert h.shape == [None, 3]
    y = tf.layers.dense(units=2, name="fy").apply(h)
    m = tf.model(inputs=x, outputs=y)
    assert [la.name for la in m.layers] == ["fx", "fh", "fy"]
    rng = np.random.default_rng(1)
    ws = [rng.normal(size=w.shape).astype(np.float32) for w in m.weights]
    m.setWeights(ws)
    xs = rng.normal(size=(3, 4)).astype(np.float32)
    want = _dense_ref(_dense_ref(xs, ws[0], ws[1], np.tanh), ws[2], ws[3])
    np.testing.assert_allclose(np.asarray(m.predict(xs)), want, rtol=1e-5, atol=1e-6)


def test_graph_disconnected():
    a = tf.input(shape=[2])
    b = tf.input(shape=[2])
    y = tf.layers.dense(units=1).apply(b)
    with pytest.raises(ValueError, match="Graph disconnected"):
        tf.model(inputs=a, outputs=y)


def test_predict_checks_shapes():
    model = tf.sequential(layers=[tf.layers.dense(units=2, inputShape=[4], name="chk")])
    with pytest.raises(
        ValueError,
        match=r"expected chk_input to have shape \[null,4\] but got "
        r"array with shape \[2,3\]",
    ):
        model.predict(np.zeros((2, 3), np.float32))
    with pytest.raises(
        ValueError,
        match=r"to have 2 dimension\(s\), but got array with shape "
        r"\[2,3,4\]",
    ):
        model.predict(np.zeros((2, 3, 4), np.float32))


def test_set_weights_errors():
    model = tf.sequential(layers=[tf.layers.dense(units=6, inputShape=[4])])
    with pytest.raises(
        ValueError, match="with a weight list of length 1, but the layer was expecting 2 weights"
    ):
        model.setWeights([np.zeros((4, 6))])
    with pytest.raises(
        ValueError, match="Layer weight shape 4,6 not compatible with provided weight shape 3,6"
    ):
        model.setWeights([np.zeros((3, 6)), np.zeros(6)])


def test_weights_are_variables_for_variable_grads():
    model = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[3], name="vg")])
    k = np.array([[1.0], [2.0], [3.0]], np.float32)
    model.setWeights([k, np.zeros(1, np.float32)])
    x = np.array([[1.0, 1.0, 1.0], [2.0, 0.0, 1.0]], np.float32)
    value, grads = tf.variableGrads(lambda: tf.sum(model.apply(x)), model.trainableWeights)
    assert float(value) == pytest.approx(6.0 + 5.0)
    np.testing.assert_allclose(np.asarray(grads["vg/kernel"]), x.sum(0)[:, None])
    np.testing.assert_allclose(np.asarray(grads["vg/bias"]), [2.0])


def test_trainable_false_freezes_variables():
    model = tf.sequential(
        layers=[
            tf.layers.dense(units=2, inputShape=[2], name="fz1"),
            tf.layers.dense(units=1, name="fz2"),
        ]
    )
    model.layers[0].trainable = False
    assert [w.name for w in model.trainableWeights] == ["fz2/kernel", "fz2/bias"]
    assert [w.name for w in model.weights] == ["fz2/kernel", "fz2/bias", "fz1/kernel", "fz1/bias"]
    assert not model.layers[0].weights[0].trainable
    model.trainable = False
    assert model.trainableWeights == []
    assert all(not w.trainable for w in model.weights)


# -- against tfjs 4.22: tests/reference/layers.json "models" and layers_models/ -------------

_REFERENCE = Path(__file__).parent / "reference"
_FIXTURE = json.loads((_REFERENCE / "layers.json").read_text())
_MODELS = _FIXTURE["models"]
_HAS_TFJS = (
    shutil.which("node") is not None
    and (_REFERENCE / "node_modules" / "@tensorflow" / "tfjs" / "package.json").exists()
)
_needs_tfjs = pytest.mark.skipif(
    not _HAS_TFJS,
    reason="Node or tfjs missing: run `cd tests/reference && npm install --no-audit --no-fund`",
)


def _arr(entry):
    return np.asarray(entry["values"], np.float32).reshape(entry["shape"])


def _inputs(case):
    xs = [_arr(x) for x in case["inputs"]]
    return xs[0] if len(xs) == 1 else xs


def _norm(lines):
    return [" ".join(line.split()) for line in lines]


def _load(name):
    return tf.loadLayersModel(f"file://{_REFERENCE / _MODELS[name]['dir'] / 'model.json'}")


@pytest.mark.parametrize("name", sorted(_MODELS))
def test_tfjs_saved_model_loads_and_predicts(name):
    case = _MODELS[name]
    model = _load(name)
    assert [la.name for la in model.layers] == case["layer_names"]
    assert [original_name(w) for w in model.weights] == [w["name"] for w in case["weights"]]
    assert [original_name(w) for w in model.trainableWeights] == case["trainable_names"]
    for w, want in zip(model.weights, case["weights"], strict=True):
        np.testing.assert_array_equal(np.asarray(w.read()).ravel(), np.float32(want["values"]))
    got = model.predict(_inputs(case))
    got = got if isinstance(got, list) else [got]
    for g, want in zip(got, case["predictions"], strict=True):
        np.testing.assert_allclose(np.asarray(g), _arr(want), rtol=2e-5, atol=2e-5)


@pytest.mark.parametrize("name", sorted(_MODELS))
def test_topology_and_summary_match_tfjs(name):
    case = _MODELS[name]
    model = _load(name)
    assert model.toJSON(None, False) == case["json"]
    lines: list[str] = []
    model.summary(printFn=lines.append)
    assert _norm(lines) == _norm(case["summary"])


@pytest.mark.parametrize("name", sorted(_MODELS))
def test_save_and_reload_round_trip(name, tmp_path):
    case = _MODELS[name]
    model = _load(name)
    result = model.save(f"file://{tmp_path / 'saved'}")
    assert result.modelArtifactsInfo["modelTopologyType"] == "JSON"
    saved = json.loads((tmp_path / "saved" / "model.json").read_text())
    assert saved["format"] == "layers-model"
    assert saved["modelTopology"] == case["json"]
    names = [w["name"] for w in saved["weightsManifest"][0]["weights"]]
    assert names == [w["name"] for w in case["weights"]]  # original names, model order
    again = tf.loadLayersModel(f"file://{tmp_path / 'saved' / 'model.json'}")
    a, b = model.predict(_inputs(case)), again.predict(_inputs(case))
    for x, y in zip(a if isinstance(a, list) else [a], b if isinstance(b, list) else [b]):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


@_needs_tfjs
@pytest.mark.parametrize("name", ["cnn", "two_inputs", "rnn"])
def test_tfjs_loads_models_saved_here(name, tmp_path):
    case = _MODELS[name]
    model = _load(name)
    model.save(f"file://{tmp_path / 'm'}")
    (tmp_path / "inputs.json").write_text(json.dumps(case["inputs"]))
    out = subprocess.run(
        [
            "node",
            str(_REFERENCE / "check_layers_model.js"),
            str(tmp_path / "m"),
            str(tmp_path / "inputs.json"),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["layer_names"] == case["layer_names"]
    assert report["weight_names"] == [w["name"] for w in case["weights"]]
    ours = model.predict(_inputs(case))
    for g, want in zip(ours if isinstance(ours, list) else [ours], report["predictions"]):
        np.testing.assert_allclose(np.asarray(g), _arr(want), rtol=2e-5, atol=2e-5)


def test_tfjs_loads_a_model_built_here(tmp_path):
    """A model built (not loaded) here, with auto names, read back by tfjs when present."""
    x = tf.input(shape=[3])
    h = tf.layers.dense(units=4, activation="relu").apply(x)
    h = tf.layers.batchNormalization().apply(h)
    y = tf.layers.dense(units=2, activation="softmax").apply(h)
    model = tf.model(inputs=x, outputs=y)
    xs = np.random.default_rng(3).normal(size=(2, 3)).astype(np.float32)
    model.save(f"file://{tmp_path / 'm'}")
    again = tf.loadLayersModel(f"file://{tmp_path / 'm'}")
    np.testing.assert_array_equal(np.asarray(again.predict(xs)), np.asarray(model.predict(xs)))
    if not _HAS_TFJS:
        pytest.skip("Node or tfjs missing: the tfjs half of this check did not run")
    (tmp_path / "inputs.json").write_text(
        json.dumps([{"shape": [2, 3], "values": xs.ravel().tolist()}])
    )
    out = subprocess.run(
        [
            "node",
            str(_REFERENCE / "check_layers_model.js"),
            str(tmp_path / "m"),
            str(tmp_path / "inputs.json"),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(
        np.asarray(model.predict(xs)), _arr(report["predictions"][0]), rtol=2e-5, atol=2e-5
    )


def test_error_messages_are_tfjs_words():
    errors = _FIXTURE["errors"]
    model = tf.sequential(layers=[tf.layers.dense(units=2, inputShape=[4], name="err_d")])
    with pytest.raises(ValueError) as info:
        model.predict(np.zeros((2, 3), np.float32))
    assert str(info.value) == errors["predict_shape"]
    with pytest.raises(ValueError) as info:
        model.predict(np.zeros((2, 3, 4), np.float32))
    assert str(info.value) == errors["predict_rank"]
    with pytest.raises(ValueError) as info:
        model.setWeights([np.zeros((3, 2)), np.zeros(2)])
    assert str(info.value) == errors["set_weights_shape"]
    with pytest.raises(ValueError) as info:
        tf.sequential().add(tf.layers.dense(units=2))
    assert str(info.value) == errors["first_layer"]


def test_save_and_load_are_awaitable(tmp_path):
    import asyncio

    model = tf.sequential(layers=[tf.layers.dense(units=2, inputShape=[3])])

    async def roundtrip():
        await model.save(f"file://{tmp_path / 'a'}")
        return await tf.loadLayersModel(f"file://{tmp_path / 'a' / 'model.json'}")

    loaded = asyncio.run(roundtrip())
    for a, b in zip(loaded.getWeights(), model.getWeights()):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def test_frozen_layer_is_left_alone_by_default_var_list():
    model = tf.sequential(
        layers=[
            tf.layers.dense(units=2, inputShape=[2], name="dflt1", trainable=False),
            tf.layers.dense(units=1, name="dflt2"),
        ]
    )
    frozen = np.asarray(model.layers[0].kernel.read()).copy()
    x = np.ones((4, 2), np.float32)
    opt = tf.train.sgd(0.5)
    for _ in range(3):
        opt.minimize(lambda: tf.mean(tf.square(model.apply(x) - 1.0)))
    np.testing.assert_array_equal(np.asarray(model.layers[0].kernel.read()), frozen)
    assert not np.allclose(np.asarray(model.layers[1].bias.read()), 0)


def test_batch_norm_training_under_jit_updates_moving_stats():
    model = tf.sequential(
        layers=[
            tf.layers.dense(units=3, inputShape=[2], name="jbn_d"),
            tf.layers.batchNormalization(momentum=0.5, name="jbn"),
        ]
    )
    rng = np.random.default_rng(4)
    model.setWeights(
        [rng.normal(size=w.shape).astype(np.float32) for w in model.weights[:4]]
        + [np.zeros(3, np.float32), np.ones(3, np.float32)]
    )
    x = rng.normal(size=(6, 2)).astype(np.float32)
    kernel, bias = (np.asarray(w.read()) for w in model.weights[:2])
    step = tf.jit(lambda xs: model.apply(xs, training=True))
    step(x)
    step(x)
    h = x @ kernel + bias
    mean, var = h.mean(0), h.var(0)  # biased variance, as tfjs
    bn = model.getLayer("jbn")
    np.testing.assert_allclose(np.asarray(bn.moving_mean.read()), 0.75 * mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(bn.moving_variance.read()), 0.25 + 0.75 * var, rtol=1e-5, atol=1e-6
    )


def test_models_nest_as_layers_and_round_trip(tmp_path):
    base = tf.sequential(
        layers=[
            tf.layers.dense(units=3, inputShape=[4], activation="relu"),
            tf.layers.dense(units=2),
        ]
    )
    outer = tf.sequential(layers=[base, tf.layers.dense(units=1)])
    xi = tf.input(shape=[4])
    functional = tf.model(inputs=xi, outputs=tf.layers.dense(units=1).apply(base.apply(xi)))
    x = np.random.default_rng(5).normal(size=(5, 4)).astype(np.float32)
    k1, b1, k2, b2, k3, b3 = (np.asarray(w.read()) for w in outer.weights)
    want = (np.maximum(x @ k1 + b1, 0) @ k2 + b2) @ k3 + b3
    np.testing.assert_allclose(np.asarray(outer.predict(x)), want, rtol=1e-5, atol=1e-6)
    assert len(functional.weights) == 6 and functional.weights[0] is base.weights[0]
    for i, model in enumerate((outer, functional)):
        model.save(f"file://{tmp_path / str(i)}")
        again = tf.loadLayersModel(f"file://{tmp_path / str(i) / 'model.json'}")
        np.testing.assert_array_equal(np.asarray(again.predict(x)), np.asarray(model.predict(x)))


def test_predict_returns_tensors_for_several_batches_and_inside_a_gradient():
    """tfjs's predict returns a Tensor: also when it joins batches, and inside variableGrads'
    f, where the DQN's targets `target.predict(next).max(-1).mul(mask)` chain its methods."""
    model = tf.sequential(layers=[tf.layers.dense(units=2, inputShape=[3])])
    model.setWeights([np.float32([[1, 2], [3, 4], [5, 6]]), np.float32([0.5, -0.5])])
    x = np.arange(120, dtype=np.float32).reshape(40, 3) / 40
    want = x @ np.float32([[1, 2], [3, 4], [5, 6]]) + np.float32([0.5, -0.5])
    out = model.predict(x)  # two batches of the default 32
    assert isinstance(out, tf.Tensor)
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)
    w = tf.variable(tf.scalar(2.0), name="predict_in_grad_w")
    seen = []

    def f():
        best = model.predict(x).max(-1)
        seen.append(type(best))
        return best.mul(w).sum()

    value, grads = tf.variableGrads(f, [w])
    assert seen == [tf.Tensor]
    np.testing.assert_allclose(float(value), 2 * want.max(-1).sum(), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(grads["predict_in_grad_w"]), want.max(-1).sum(),
                               rtol=1e-5)  # fmt: skip
    w.dispose()


@pytest.mark.parametrize("predict_first", [False, True])
def test_conv2d_model_gradients_after_predict(predict_first):
    """variableGrads through a conv2d model (predicted with first, or not): the eager tape
    hands layers recorded weights, which lax's convolution rejected with a ValueError; the
    layer now sends the call to the traced path. Checked against jax.grad of the same
    convolution (tests/test_snake_dqn.py checks the DQN against tfjs)."""
    import jax
    import jax.numpy as jnp

    model = tf.sequential(layers=[
        tf.layers.conv2d(filters=3, kernelSize=2, inputShape=[4, 4, 2], activation="relu"),
        tf.layers.flatten(),
        tf.layers.dense(units=1),
    ])  # fmt: skip
    rng = np.random.default_rng(1)
    ws = [rng.normal(size=w.shape).astype(np.float32) for w in model.weights]
    model.setWeights(ws)
    x = rng.normal(size=(2, 4, 4, 2)).astype(np.float32)
    if predict_first:
        model.predict(x)

    def reference(ws):
        k, b, dk, db = ws
        y = jax.lax.conv_general_dilated(x, k, (1, 1), "VALID",
                                         dimension_numbers=("NHWC", "HWIO", "NHWC"))  # fmt: skip
        y = jnp.maximum(y + b, 0).reshape(2, -1)
        return jnp.sum(y @ dk + db)

    value, grads = tf.variableGrads(lambda: model.apply(x, {"training": True}).sum())
    np.testing.assert_allclose(float(value), reference(ws), rtol=1e-5)
    for w, want in zip(model.weights, jax.grad(reference)(ws)):
        np.testing.assert_allclose(np.asarray(grads[w.name]), want, rtol=1e-4, atol=1e-5)


_SUMMARY = json.loads((_REFERENCE / "summary.json").read_text())["cases"]


def _summary_model(kind):
    # as gen_summary.js builds them
    if kind == "sequential":
        return tf.sequential({"layers": [
            tf.layers.dense({"units": 16, "activation": "relu", "inputShape": [8],
                             "name": "hidden_layer"}),
            tf.layers.dense({"units": 3, "activation": "softmax", "name": "probabilities"}),
        ]})  # fmt: skip
    a = tf.input({"shape": [3], "name": "in_a"})
    b = tf.input({"shape": [2], "name": "in_b"})
    ha = tf.layers.dense({"units": 4, "name": "dense_a"}).apply(a)
    hb = tf.layers.dense({"units": 4, "name": "dense_b"}).apply(b)
    added = tf.layers.add({"name": "added"}).apply([ha, hb])
    out = tf.layers.dense({"units": 2, "name": "out"}).apply(added)
    return tf.model({"inputs": [a, b], "outputs": out})


@pytest.mark.parametrize("case", _SUMMARY, ids=[c["id"] for c in _SUMMARY])
def test_summary_line_length_positions_print_fn_match_tfjs_exactly(case):
    # tfjs: const lines = []; model.summary(80, [0.45, 0.8, 1], (line) => lines.push(line));
    model = _summary_model(case["model"])
    lines: list[str] = []
    model.summary(case["lineLength"], case["positions"], lambda line: lines.append(line))
    assert lines == case["lines"]  # character for character, trailing spaces included


def test_summary_prints_to_stdout_without_print_fn(capsys):
    model = _summary_model("sequential")
    model.summary(80, [0.45, 0.8, 1])
    assert capsys.readouterr().out.splitlines() == _SUMMARY[0]["lines"]
