"""Plain JAX inside fit, jit_loop and custom layers (issue #33): a custom loss and metric
written with jnp/optax, a layer whose `call` uses jax.nn, a `jit_loop` step reading
`v.value`; each checked against the same program written as hand-made JAX."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tfjs_grad as tf


@pytest.fixture(autouse=True)
def _fresh_variables():
    yield
    tf.dispose_variables()


def _data(n: int = 24) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x @ np.asarray([[0.5], [-1.0], [2.0]], np.float32) + 0.1).astype(np.float32)
    return x, y


def test_fit_with_a_jnp_optax_loss_and_metric_matches_hand_written_sgd():
    x, y = _data()
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 1, "inputShape": [3], "kernelInitializer": "ones"}))
    seen = []

    def loss(y_true, y_pred):  # a JAX user's loss: optax on whatever fit passes
        seen.append(type(y_pred).__name__)
        return jnp.mean(optax.l2_loss(y_pred, y_true)) * 2

    def max_error(y_true, y_pred):
        return jnp.max(jnp.abs(jnp.asarray(y_pred) - jnp.asarray(y_true)))

    model.compile({"optimizer": tf.train.sgd(0.05), "loss": loss, "metrics": [max_error]})
    history = model.fit(x, y, {"epochs": 3, "batchSize": 8, "shuffle": False, "verbose": 0})

    params = {"w": jnp.ones((3, 1)), "b": jnp.zeros((1,))}

    def raw_loss(p, xb, yb):
        return jnp.mean((xb @ p["w"] + p["b"] - yb) ** 2)

    epoch_losses = []
    for _ in range(3):
        losses = []
        for k in range(0, len(x), 8):
            xb, yb = jnp.asarray(x[k : k + 8]), jnp.asarray(y[k : k + 8])
            value, g = jax.value_and_grad(raw_loss)(params, xb, yb)
            params = jax.tree.map(lambda p, d: p - 0.05 * d, params, g)
            losses.append(float(value))
        epoch_losses.append(np.mean(losses))
    np.testing.assert_allclose(history.history["loss"], epoch_losses, rtol=1e-5)
    kernel, bias = model.getWeights()
    np.testing.assert_allclose(np.asarray(kernel), np.asarray(params["w"]), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(bias), np.asarray(params["b"]), rtol=1e-5, atol=1e-7)
    assert len(history.history["max_error"]) == 3
    assert seen  # the loss ran (traced)


class GatedDense(tf.layers.Layer):
    """A research layer: `gelu(x @ w) * sigmoid(x @ g)`, written with jnp and jax.nn."""

    def build(self, input_shape):
        self.w = self.add_weight("w", [input_shape[-1], 2], initializer="ones")
        self.g = self.add_weight("g", [input_shape[-1], 2], initializer="zeros")
        self.built = True

    def call(self, inputs, training=False):
        x = jnp.asarray(inputs)
        return jax.nn.gelu(x @ self.w.read()) * jax.nn.sigmoid(x @ self.g.read())

    def compute_output_shape(self, input_shape):
        return [*input_shape[:-1], 2]


def _gated(p, x):
    return jax.nn.gelu(x @ p["w"]) * jax.nn.sigmoid(x @ p["g"])


@pytest.mark.parametrize("compiled", [False, True])
def test_a_layer_computing_with_jax_nn_trains_with_minimize(compiled):
    x, _ = _data(8)
    layer = GatedDense({})
    layer.apply(tf.tensor(x))  # builds it
    opt = tf.train.sgd(0.1)
    runs = []

    def loss():
        runs.append(1)
        return jnp.mean(jnp.square(layer.apply(tf.tensor(x)))) + tf.scalar(0.0)

    def step():
        return opt.minimize(loss, True)

    step = tf.jit(step) if compiled else step
    params = {"w": jnp.ones((3, 2)), "g": jnp.zeros((3, 2))}

    def raw(p):
        return jnp.mean(jnp.square(_gated(p, jnp.asarray(x))))

    for i in range(3):
        cost = step()
        value, g = jax.value_and_grad(raw)(params)
        params = jax.tree.map(lambda p, d: p - 0.1 * d, params, g)
        np.testing.assert_allclose(float(cost), float(value), rtol=1e-5)
        if not compiled:
            assert len(runs) == i + 1  # f once per call
    np.testing.assert_allclose(np.asarray(layer.w.read()), params["w"], rtol=1e-5)
    np.testing.assert_allclose(np.asarray(layer.g.read()), params["g"], rtol=1e-5, atol=1e-7)


def test_jit_loop_step_with_jax_nn_and_v_value_matches_hand_written():
    w = tf.variable(tf.tensor1d([0.5, -1.0, 2.0]), name="loop_w")
    opt = tf.train.sgd(0.1)

    @tf.jit_loop
    def train(x):
        def loss():
            assert isinstance(w.value, (jax.Array, jax.core.Tracer))
            return jnp.sum(jax.nn.softplus(w.value * x)) + jnp.sum(jax.nn.relu(w * x))

        return opt.minimize(loss, return_cost=True)

    xs = np.random.default_rng(1).normal(size=(4, 3)).astype(np.float32)
    costs = train(tf.tensor(xs))

    def raw(wv, x):
        return jnp.sum(jax.nn.softplus(wv * x)) + jnp.sum(jax.nn.relu(wv * x))

    wv, want = jnp.asarray([0.5, -1.0, 2.0]), []
    for x in xs:
        value, g = jax.value_and_grad(raw)(wv, jnp.asarray(x))
        want.append(float(value))
        wv = wv - 0.1 * g
    np.testing.assert_allclose(np.asarray(costs), want, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(w.value), wv, rtol=1e-5)
