"""tf.sequential / tf.model: building, running, weights, names, summary, saving.

Numbers come from numpy references of the same weights; tfjs's own recordings are in
tests/reference/layers.json (tests/test_layers.py and the fixture tests below).
"""

from __future__ import annotations

import numpy as np
import pytest

import tfjs_grad as tf


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


def test_sequential_add_and_names():
    model = tf.sequential()
    model.add(tf.layers.dense(units=2, inputShape=[3], name="first"))
    model.add(tf.layers.dense(units=1, name="second"))
    assert [la.name for la in model.layers] == ["first", "second"]
    assert model.inputs[0].sourceLayer.name == "first_input"
    assert [w.name for w in model.weights] == [
        "first/kernel",
        "first/bias",
        "second/kernel",
        "second/bias",
    ]
    assert model.getLayer("second") is model.layers[1]
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
    from tfjs_grad.layers.base import original_name

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
