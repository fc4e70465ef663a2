"""tf.layers against TensorFlow.js 4.22: tests/reference/layers.json (gen_layers.js).

Every case builds the layer inside a functional model as the generator did, sets tfjs's
weights, and compares: weight names and shapes, the layer's saved config, its output shape,
the inference output, gradients of sum(output * cotangent) with respect to the inputs and
the weights, training-mode outputs and weights (batch norm's moving statistics), and the
summary table.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad.layers.base import original_name

FIXTURE = json.loads((Path(__file__).parent / "reference" / "layers.json").read_text())
CASES = FIXTURE["layers"]
RTOL, ATOL = 2e-5, 2e-5
# Where tfjs 4.22's gradient is not the gradient of its own (matching) forward pass, the case
# is checked against finite differences instead: avgPool with 'same' padding divides every
# window by the full pool size in its gradient but edge windows by the values they hold in
# its output; resizeNearestNeighbor's gradient (upSampling2d) is wrong past the first sample
# of a batch.
TFJS_WRONG_GRADIENT = {"average_pooling1d_same", "average_pooling2d_same", "up_sampling2d"}


def _arr(entry):
    return np.asarray(entry["values"], np.float32).reshape(entry["shape"])


def _config(config):
    out = {}
    for key, value in config.items():
        if isinstance(value, dict) and "factory" in value:
            value = getattr(tf.layers, value["factory"])(_config(value["config"]))
        out[key] = value
    return out


def _build(name):
    case = CASES[name]
    layer = getattr(tf.layers, case["factory"])(_config(case["config"]), name=name)
    xs = [tf.input(shape=s, name=f"{name}_in{i}") for i, s in enumerate(case["input_shapes"])]
    if case["initial_state"]:
        y = layer.apply(xs[0], {"initialState": xs[1:]})
    else:
        y = layer.apply(xs[0] if len(xs) == 1 else xs)
    model = tf.model(inputs=xs, outputs=y, name=f"{name}_model")
    model.setWeights([_arr(w) for w in case["weights"]])
    inputs = [_arr(x) for x in case["inputs"]]
    return case, layer, model, inputs


def _outputs(result):
    return [np.asarray(r) for r in (result if isinstance(result, list) else [result])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_matches_tfjs(name):
    case, layer, model, inputs = _build(name)
    assert [original_name(w) for w in model.weights] == [w["name"] for w in case["weights"]]
    assert [list(w.shape) for w in model.weights] == [w["shape"] for w in case["weights"]]
    entry = next(e for e in model.toJSON(None, False)["config"]["layers"] if e["name"] == name)
    assert {"class_name": entry["class_name"], "config": entry["config"]} == case["json"]
    assert layer.outputShape == case["output_shape"]

    got = _outputs(model.predict(inputs[0] if len(inputs) == 1 else inputs))
    for g, want in zip(got, case["outputs"], strict=True):
        np.testing.assert_allclose(g, _arr(want), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize(
    "name", sorted(n for n, c in CASES.items() if c["grad_inputs"] or c["grad_weights"])
)
def test_layer_gradients_match_tfjs(name):
    case, layer, model, inputs = _build(name)
    cots = [_arr(c) for c in case["cotangents"]]

    def loss(*xs):
        outs = model.apply(list(xs) if len(xs) > 1 else xs[0])
        outs = outs if isinstance(outs, list) else [outs]
        return sum(tf.sum(o * c) for o, c in zip(outs, cots))

    def loss_array(*xs):
        # jax.grad needs a plain scalar array out; loss returns a tf.Tensor
        return jnp.asarray(loss(*xs))

    if name in TFJS_WRONG_GRADIENT:
        (grad,) = jax.grad(loss_array, argnums=(0,))(inputs[0])
        x, eps = inputs[0].astype(np.float64), 1e-2
        numeric = np.zeros_like(x)
        for index in np.ndindex(x.shape):
            step = np.zeros_like(x)
            step[index] = eps
            plus = float(loss((x + step).astype(np.float32)))
            minus = float(loss((x - step).astype(np.float32)))
            numeric[index] = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(np.asarray(grad), numeric, rtol=1e-3, atol=1e-4)
        assert not np.allclose(np.asarray(grad), _arr(case["grad_inputs"][0]), atol=1e-4)
        return
    if case["grad_inputs"] is not None:
        grads = jax.grad(loss_array, argnums=tuple(range(len(inputs))))(*inputs)
        for g, want in zip(grads, case["grad_inputs"], strict=True):
            np.testing.assert_allclose(np.asarray(g), _arr(want), rtol=1e-4, atol=1e-5)
    if case["grad_weights"]:
        weights = model.trainableWeights
        _, grads = tf.variableGrads(lambda: loss(*inputs), weights)
        assert sorted(original_name(w) for w in weights) == sorted(case["grad_weights"])
        for w in weights:
            want = np.asarray(case["grad_weights"][original_name(w)], np.float32)
            np.testing.assert_allclose(
                np.asarray(grads[w.name]).ravel(), want, rtol=1e-4, atol=1e-5
            )


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c["training"]))
def test_layer_training_mode_matches_tfjs(name):
    case, layer, model, inputs = _build(name)
    got = _outputs(model.apply(inputs[0] if len(inputs) == 1 else inputs, training=True))
    for g, want in zip(got, case["training"]["outputs"], strict=True):
        np.testing.assert_allclose(g, _arr(want), rtol=RTOL, atol=ATOL)
    for w, want in zip(model.weights, case["training"]["weights"], strict=True):
        assert original_name(w) == want["name"]
        np.testing.assert_allclose(
            np.asarray(w.read()).ravel(),
            np.asarray(want["values"], np.float32),
            rtol=RTOL,
            atol=ATOL,
        )


def _normalized(lines):
    return [" ".join(line.split()) for line in lines]


@pytest.mark.parametrize("name", sorted(CASES))
def test_layer_summary_matches_tfjs(name):
    case, _, model, _ = _build(name)
    lines: list[str] = []
    model.summary(printFn=lines.append)
    assert _normalized(lines) == _normalized(case["summary"])


def test_dropout_training_law():
    layer = tf.layers.dropout(rate=0.25)
    x = np.ones((200, 50), np.float32)
    y = np.asarray(layer.apply(x, training=True))
    zeros = float(np.mean(y == 0))
    assert abs(zeros - 0.25) < 0.02  # 10000 draws: sd 0.0043
    np.testing.assert_allclose(y[y != 0], 1 / 0.75, rtol=1e-6)
    np.testing.assert_array_equal(np.asarray(layer.apply(x)), x)
    again = np.asarray(layer.apply(x, training=True))
    assert not np.array_equal(y, again)  # unseeded: a fresh mask per call


def test_dropout_seed_is_reproducible():
    a = tf.layers.dropout(rate=0.5, seed=7)
    x = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(
        np.asarray(a.apply(x, training=True)), np.asarray(a.apply(x, training=True))
    )


def test_unknown_activation_message():
    with pytest.raises(ValueError) as info:
        tf.layers.dense(units=2, activation="nope")
    assert " ".join(str(info.value).split()) == " ".join(
        FIXTURE["errors"]["unknown_activation"].split()
    )


def test_layer_input_spec_message():
    layer = tf.layers.dense(units=2, inputShape=[4], name="err_d")
    tf.sequential(layers=[layer])
    with pytest.raises(ValueError) as info:
        layer.apply(np.zeros((2, 3), np.float32))
    assert str(info.value) == FIXTURE["errors"]["dense_input"]


def test_snake_case_config_and_dict():
    a = tf.layers.conv2d({"filters": 2, "kernel_size": 3}, use_bias=False)
    assert a.kernelSize == [3, 3] and a.useBias is False
    with pytest.raises(ValueError, match="Unknown config key 'kernal_size'"):
        tf.layers.conv2d(filters=2, kernal_size=3)
    with pytest.raises(ValueError, match="requires the config key 'units'"):
        tf.layers.dense()


def test_initializer_laws():
    glorot = np.asarray(tf.initializers.glorotNormal(seed=1).apply([400, 300]))
    sigma = np.sqrt(2 / 700)
    assert np.abs(glorot).max() <= 2 * sigma + 1e-7  # truncated at 2 sigma
    assert abs(glorot.std() / sigma - 0.88) < 0.01  # not rescaled, as tfjs
    uniform = np.asarray(tf.initializers.glorotUniform(seed=2).apply([400, 300]))
    assert np.abs(uniform).max() <= np.sqrt(6 / 700)
    ortho = np.asarray(tf.initializers.orthogonal(seed=3).apply([5, 5]))
    np.testing.assert_allclose(ortho @ ortho.T, np.eye(5), atol=1e-5)
    layer = tf.layers.dense(units=300, kernelInitializer="heNormal")
    layer.apply(np.zeros((1, 400), np.float32))
    assert abs(np.asarray(layer.kernel.read()).std() / np.sqrt(2 / 400) - 0.88) < 0.02


def test_regularizer_and_constraint():
    layer = tf.layers.dense(
        units=2,
        kernelRegularizer=tf.regularizers.l2({"l2": 0.1}),
        kernelConstraint="nonNeg",
        biasRegularizer="l1",
    )
    layer.apply(np.zeros((1, 3), np.float32))
    k = np.array([[1.0, -2.0], [0.5, 0.0], [-1.0, 3.0]], np.float32)
    layer.setWeights([k, np.array([1.0, -1.0], np.float32)])
    reg = [float(r) for r in layer.regularization_losses()]
    assert reg == pytest.approx([0.1 * float((k**2).sum()), 0.01 * 2.0])
    layer.apply_constraints()
    np.testing.assert_array_equal(np.asarray(layer.kernel.read()), np.maximum(k, 0))


@pytest.mark.parametrize(
    "constraint",
    [tf.constraints.nonNeg(), tf.constraints.maxNorm(), tf.constraints.unitNorm(),
     tf.constraints.minMaxNorm()],
)  # fmt: skip
def test_every_constraint_gives_a_tensor_for_a_tensor_and_an_array_for_an_array(constraint):
    w = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    on_tensor = constraint.apply(tf.tensor2d(w))
    on_array = constraint.apply(jnp.asarray(w))
    assert isinstance(on_tensor, tf.Tensor) and not isinstance(on_array, tf.Tensor)
    np.testing.assert_allclose(on_tensor.arraySync(), np.asarray(on_array), rtol=1e-6)


def test_noise_layers_training_laws():
    x = np.full((400, 100), 2.0, np.float32)
    noisy = np.asarray(tf.layers.gaussianNoise(stddev=0.3).apply(x, training=True)) - 2.0
    assert abs(noisy.mean()) < 0.01 and abs(noisy.std() - 0.3) < 0.01
    mult = np.asarray(tf.layers.gaussianDropout(rate=0.2).apply(x, training=True)) / 2.0
    assert abs(mult.mean() - 1) < 0.01 and abs(mult.std() - np.sqrt(0.2 / 0.8)) < 0.01
    # alphaDropout keeps a SELU-normalized input's mean 0 and variance 1
    z = np.random.default_rng(0).normal(size=(400, 100)).astype(np.float32)
    out = np.asarray(tf.layers.alphaDropout(rate=0.3).apply(z, training=True))
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02
    for layer in (tf.layers.gaussianNoise(stddev=0.3), tf.layers.alphaDropout(rate=0.3)):
        np.testing.assert_array_equal(np.asarray(layer.apply(z)), z)


_MERGE = json.loads((Path(__file__).parent / "reference" / "merge.json").read_text())


@pytest.mark.parametrize(
    "case", _MERGE["cases"], ids=[f"{c['factory']}-{c['input_shapes']}" for c in _MERGE["cases"]]
)
def test_merge_of_different_ranks_expands_after_the_batch_axis_as_tfjs(case):
    # tfjs: const ins = shapes.map((s) => tf.input({shape: s}));
    #       const out = tf.layers.multiply().apply(ins);   // [null,4] x [null,1,4] -> [null,1,4]
    #       tf.model({inputs: ins, outputs: out}).predict(xs)
    ins = [tf.input({"shape": s}) for s in case["input_shapes"]]
    out = getattr(tf.layers, case["factory"])().apply(ins)
    assert out.shape == case["output_shape"]
    model = tf.model({"inputs": ins, "outputs": out})
    xs = [np.asarray(x["values"], np.float32).reshape(x["shape"]) for x in case["inputs"]]
    got = np.asarray(model.predict(xs))
    want = np.asarray(case["output"]["values"], np.float32).reshape(case["output"]["shape"])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # concrete tensors through the layer itself agree
    direct = getattr(tf.layers, case["factory"])().apply([tf.tensor(x) for x in xs])
    np.testing.assert_allclose(np.asarray(direct), want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", _MERGE["errors"], ids=lambda c: c["message"][:30])
def test_merge_errors_use_tfjs_messages(case):
    if "batch_shapes" in case:
        ins = [tf.input({"batchShape": s}) for s in case["batch_shapes"]]
    else:
        ins = [tf.input({"shape": s}) for s in case["input_shapes"]]
    with pytest.raises(ValueError, match=re.escape(case["message"])):
        getattr(tf.layers, case["factory"])().apply(ins)
