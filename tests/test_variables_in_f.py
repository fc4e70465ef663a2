"""Issue 34, items 0, 8 and 9, as user code, on the eager tape and staged from the start.

0: a conv net with max pooling (mnist's network) trains: the pooling layer's gradient.
8: a Variable created inside f starts a new value: no gradient flows back through it.
9: `v.assign(...)` inside minimize's f: the update lands on the value after the assign.
Items 8 and 9 are checked against real tfjs 4.22 (tests/reference/variables_in_f.json,
written by gen_variables_in_f.js).
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


@pytest.fixture(autouse=True, params=["tape", "traced"])
def eager_path(request):
    """Every test runs twice: on the eager tape and forced onto the traced path."""
    from tfjs_grad import _tape

    saved = _tape.ENABLED[0], _tape._staged_from_start.copy()
    _tape.ENABLED[0] = request.param == "tape"
    _tape._staged_from_start.clear()
    yield request.param
    _tape.ENABLED[0] = saved[0]
    _tape._staged_from_start.clear()
    _tape._staged_from_start.update(saved[1])


# -- item 0: max pooling layers have gradients ------------------------------------------

# ties inside windows: [3, 3], [4, 4] and [5, 5, 5] (the first in row-major order wins)
_TIES = np.array([[1, 3, 3, 2], [0, 1, 4, 4], [5, 5, 1, 0], [2, 5, 0, 1]], np.float32)


def _jax_max_pool(x, size=2, padding="VALID"):
    window = (1, size, size, 1)
    return jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, window, window, padding)


@pytest.mark.parametrize("padding", ["valid", "same"])
def test_grad_through_the_max_pooling_layer_equals_jax(padding):
    x = tf.tensor(np.arange(25, dtype=np.float32).reshape(1, 5, 5, 1) % 7)
    pool = tf.layers.maxPooling2d({"poolSize": 2, "padding": padding})
    got = tf.grad(
        lambda x: (
            pool.apply(x)
            .mul(
                tf.range(1, 10).reshape([1, 3, 3, 1])
                if padding == "same"
                else tf.range(1, 5).reshape([1, 2, 2, 1])
            )
            .sum()
        )
    )(x)
    weights = np.arange(1, 10 if padding == "same" else 5, dtype=np.float32)
    expected = jax.grad(lambda x: (_jax_max_pool(x, 2, padding.upper()).ravel() * weights).sum())(
        jnp.asarray(np.asarray(x))
    )
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


def test_max_pooling_layer_ties_send_the_gradient_to_the_first_maximum():
    x = tf.tensor(_TIES.reshape(1, 4, 4, 1))
    got = tf.grad(lambda x: tf.layers.maxPooling2d({"poolSize": 2}).apply(x).sum())(x)
    first = np.zeros((4, 4), np.float32)
    first[0, 1] = first[1, 2] = first[2, 0] = first[2, 2] = 1.0  # row-major first maxima
    np.testing.assert_array_equal(np.asarray(got).reshape(4, 4), first)
    # the same as the maxPool op's gradient
    op = tf.grad(lambda x: tf.maxPool(x, 2, 2, "valid").sum())(x)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(op))


def test_average_and_1d_pooling_layers_have_gradients():
    x = tf.tensor(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
    for layer in (
        tf.layers.averagePooling2d({"poolSize": 2, "padding": "same", "strides": 3}),
        tf.layers.averagePooling2d({"poolSize": 2}),
    ):
        g = tf.grad(lambda x, layer=layer: layer.apply(x).sum())(x)
        assert np.isfinite(np.asarray(g)).all() and float(np.asarray(g).sum()) > 0
    seq = tf.tensor(np.arange(8, dtype=np.float32).reshape(1, 8, 1))
    g = tf.grad(lambda x: tf.layers.maxPooling1d({"poolSize": 2}).apply(x).sum())(seq)
    np.testing.assert_array_equal(np.asarray(g).ravel(), [0, 1] * 4)


def _mnist_like():
    model = tf.sequential()
    model.add(
        tf.layers.conv2d(
            {
                "inputShape": [8, 8, 1],
                "kernelSize": 3,
                "filters": 4,
                "activation": "relu",
                "kernelInitializer": "varianceScaling",
            }
        )
    )
    model.add(tf.layers.maxPooling2d({"poolSize": 2}))
    model.add(tf.layers.flatten())
    model.add(tf.layers.dense({"units": 3, "activation": "softmax"}))
    return model


def _batch():
    rng = np.random.default_rng(0)
    xs = tf.tensor(rng.normal(size=(6, 8, 8, 1)).astype(np.float32))
    ys = tf.oneHot(tf.tensor1d([0, 1, 2, 0, 1, 2], "int32"), 3)
    return xs, ys


@pytest.mark.parametrize("jitted", [False, True])
def test_a_conv_net_with_max_pooling_trains(jitted):
    model = _mnist_like()
    xs, ys = _batch()
    opt = tf.train.sgd(0.1)

    def loss(xs, ys):
        return tf.losses.softmaxCrossEntropy(ys, model.apply(xs))

    value, grads = tf.variableGrads(lambda: loss(xs, ys))
    assert set(grads) == {w.name for w in model.trainableWeights}
    assert all(np.isfinite(np.asarray(g)).all() for g in grads.values())

    def train(xs, ys):
        return opt.minimize(lambda: loss(xs, ys), True)

    step = tf.jit(train) if jitted else train
    first = float(step(xs, ys))
    for _ in range(5):
        last = float(step(xs, ys))
    assert last < first


def test_a_conv_net_with_max_pooling_fits():
    model = _mnist_like()
    model.compile({"optimizer": tf.train.sgd(0.1), "loss": "categoricalCrossentropy"})
    xs, ys = _batch()
    history = model.fit(xs, ys, {"epochs": 3, "batchSize": 6, "verbose": 0})
    losses = history.history["loss"]
    assert losses[-1] < losses[0]


# -- items 8 and 9: Variables created or assigned inside f, against real tfjs -----------

_REFERENCE = json.loads((Path(__file__).parent / "reference" / "variables_in_f.json").read_text())
_CASES = _REFERENCE["cases"]


def test_the_reference_is_tfjs_4_22():
    assert _REFERENCE["header"]["tfjs_version"] == "4.22.0"


def test_max_pooling_layer_ties_match_tfjs():
    case = _CASES["max_pooling2d_ties"]
    x = tf.tensor(np.array(case["x"], np.float32).reshape(1, 4, 4, 1))
    layer = tf.layers.maxPooling2d({"poolSize": 2})
    got = tf.grad(lambda t: layer.apply(t).sum())(x)
    np.testing.assert_array_equal(np.asarray(got).ravel(), case["value"])
    np.testing.assert_array_equal(case["op_value"], case["value"])


def test_grad_of_a_variable_created_inside_f_does_not_flow_back():
    case = _CASES["grad_new_variable"]
    g = tf.grad(lambda x: tf.variable(x.mul(2)).add(x).sum())(tf.ones([2]))
    np.testing.assert_allclose(g, case["value"])  # tfjs: [1, 1]
    case = _CASES["grad_new_variable_product"]
    g = tf.grad(lambda x: tf.variable(x.square()).mul(x).sum())(tf.tensor1d(case["x"]))
    np.testing.assert_allclose(g, case["value"])


def test_variable_grads_and_minimize_with_a_variable_created_inside_f():
    case = _CASES["variable_grads_new_variable"]
    w = tf.variable(tf.tensor1d(case["init"]["w"]))
    value, grads = tf.variableGrads(lambda: tf.variable(w.mul(2)).mul(w).sum(), [w])
    assert float(value) == case["loss"]
    np.testing.assert_allclose(grads[w.name], case["grads"]["w"])
    case = _CASES["minimize_new_variable"]
    w = tf.variable(tf.tensor1d(case["init"]["w"]))
    loss = tf.train.sgd(case["lr"]).minimize(lambda: tf.variable(w.mul(2)).mul(w).sum(), True, [w])
    assert float(loss) == case["loss"]
    np.testing.assert_allclose(w, case["after"]["w"], rtol=1e-6)


def test_a_variable_created_inside_a_jitted_minimize_step_starts_a_new_value():
    case = _CASES["minimize_new_variable"]
    w = tf.variable(tf.tensor1d(case["init"]["w"]))
    opt = tf.train.sgd(case["lr"])
    made = []

    def f():
        made.append(tf.variable(w.mul(2)))
        return made[-1].mul(w).sum()

    step = tf.jit(lambda: opt.minimize(f, True, [w]))
    loss = step()
    assert float(loss) == case["loss"]
    np.testing.assert_allclose(w, case["after"]["w"], rtol=1e-6)


def test_grad_of_a_variable_created_inside_f_under_jit():
    case = _CASES["grad_new_variable"]
    g = tf.jit(lambda x: tf.grad(lambda x: tf.variable(x.mul(2)).add(x).sum())(x))
    np.testing.assert_allclose(g(tf.ones([2])), case["value"])  # tfjs: [1, 1]


def _assign_half(v):
    def f():
        v.assign(v.mul(0.5))
        return v.square().sum()

    return f


def _assign_between(v):
    def f():
        before = v.mul(3)
        v.assign(v.mul(0.5))
        return before.add(v.square()).sum()

    return f


def _assign_between_squared(v):
    def f():
        before = v.square()
        v.assign(v.mul(0.5))
        return before.add(v).sum()

    return f


_ASSIGNS = {
    "assign_half": _assign_half,
    "assign_between": _assign_between,
    "assign_between_squared": _assign_between_squared,
}


@pytest.mark.parametrize("name", sorted(_ASSIGNS))
def test_variable_grads_with_an_assign_inside_f(name):
    case = _CASES[f"variable_grads_{name}"]
    v = tf.variable(tf.tensor1d(case["init"]["v"]))
    value, grads = tf.variableGrads(_ASSIGNS[name](v), [v])
    np.testing.assert_allclose(float(value), case["loss"], rtol=1e-6)
    np.testing.assert_allclose(grads[v.name], case["grads"]["v"], rtol=1e-6)
    np.testing.assert_allclose(v, case["after"]["v"], rtol=1e-6)


@pytest.mark.parametrize("jitted", [False, True])
@pytest.mark.parametrize("name", sorted(_ASSIGNS))
def test_minimize_with_an_assign_inside_f(name, jitted):
    case = _CASES[f"minimize_{name}"]
    v = tf.variable(tf.tensor1d(case["init"]["v"]))
    opt = tf.train.sgd(case["lr"])
    f = _ASSIGNS[name](v)
    step = (
        tf.jit(lambda: opt.minimize(f, True, [v]))
        if jitted
        else (lambda: opt.minimize(f, True, [v]))
    )
    loss = step()
    np.testing.assert_allclose(float(loss), case["loss"], rtol=1e-6)
    np.testing.assert_allclose(v, case["after"]["v"], rtol=1e-6)  # e.g. [0.4, 0.8]


def _assign_from_other(v, u):
    def f():
        v.assign(u.mul(2))
        return v.mul(u).add(v.square()).sum()

    return f


def test_an_assign_from_another_variable_cuts_the_gradient_path():
    case = _CASES["variable_grads_assign_from_other"]
    v, u = tf.variable(tf.tensor1d(case["init"]["v"])), tf.variable(tf.tensor1d(case["init"]["u"]))
    value, grads = tf.variableGrads(_assign_from_other(v, u), [v, u])
    assert float(value) == case["loss"]
    np.testing.assert_allclose(grads[v.name], case["grads"]["v"])
    np.testing.assert_allclose(grads[u.name], case["grads"]["u"])
    np.testing.assert_allclose(v, case["after"]["v"])
    case = _CASES["minimize_assign_from_other"]
    v, u = tf.variable(tf.tensor1d(case["init"]["v"])), tf.variable(tf.tensor1d(case["init"]["u"]))
    tf.train.sgd(case["lr"]).minimize(_assign_from_other(v, u), False, [v, u])
    np.testing.assert_allclose(v, case["after"]["v"], rtol=1e-6)
    np.testing.assert_allclose(u, case["after"]["u"], rtol=1e-6)


def test_an_assign_inside_f_keeps_infinite_values():
    # the stored value is exactly the assigned one (no arithmetic on it): -inf stays -inf
    v = tf.variable(tf.tensor1d([1.0, 2.0]))
    m = tf.variable(tf.tensor1d([-np.inf, 0.0]), trainable=False)

    def f():
        m.assign(tf.maximum(m, v))
        m.assign(m.mul(1.0))
        return v.square().sum()

    tf.train.sgd(0.1).minimize(f, False, [v])
    np.testing.assert_allclose(m, [1.0, 2.0])
    m.assign(tf.tensor1d([-np.inf, np.inf]))
    tf.variableGrads(lambda: (m.assign(m.mul(2.0)), v.sum())[1], [v])
    np.testing.assert_array_equal(m, [-np.inf, np.inf])
