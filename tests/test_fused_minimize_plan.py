"""The fused eager `minimize` keeps its plan between steps as positions among the loss's and
the optimizer's Variables, not as the Variables themselves: a step that reads Variables it
does not update (tracked ones without a gradient, trainable ones outside var_list) finds
them again on every call, a plan made for a Variable that is gone never runs, and the
cache keeps no Variable alive. Numbers are checked against the update written out."""

from __future__ import annotations

import gc
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tfjs_grad as tf
from tfjs_grad import _trace


@pytest.fixture(autouse=True)
def _clean():
    yield
    tf.dispose_variables()


LR = 0.25


def test_read_only_variables_are_found_again_on_every_step():
    a = tf.variable(tf.tensor1d([1.0, 2.0]), name="plan_a")
    b = tf.variable(tf.tensor1d([3.0, -1.0]), name="plan_b")
    c = tf.variable(tf.tensor1d([0.5, 0.5]), name="plan_c")
    opt = tf.train.sgd(LR)
    # tracks a and c; then steps that update a alone, reading b (not in var_list) and
    # carrying c (tracked, no gradient) as it is
    opt.minimize(lambda: a.mul(b).sum().add(c.square().sum()), False, [a, c])
    expected_a = np.array([1.0, 2.0]) - LR * np.array([3.0, -1.0])
    expected_c = np.array([0.5, 0.5]) - LR * 2 * np.array([0.5, 0.5])
    compiles = _trace.stats["compiles"]
    for step in range(3):
        b.assign(tf.tensor1d([step + 1.0, -2.0 * step]))
        cost = opt.minimize(lambda: a.mul(b).mul(2).sum(), True, [a])
        np.testing.assert_allclose(float(cost), 2 * (expected_a * b.value).sum(), rtol=1e-6)
        expected_a = expected_a - LR * 2 * np.asarray(b.value)
        np.testing.assert_allclose(a.value, expected_a, rtol=1e-6)
        np.testing.assert_allclose(c.value, expected_c, rtol=1e-6)
        np.testing.assert_allclose(b.value, [step + 1.0, -2.0 * step])
    assert _trace.stats["compiles"] - compiles <= 1  # one program for the three steps
    assert opt.iterations == 4
    opt.dispose()


def _step(opt: tf.train.Optimizer, a: tf.Variable, b: tf.Variable) -> None:
    opt.minimize(lambda: a.mul(b).sum())


def test_a_new_variable_in_a_gone_ones_place_gets_its_own_plan():
    a = tf.variable(tf.tensor1d([1.0, 1.0]), name="plan_new_a")
    opt = tf.train.sgd(LR)
    expected = np.array([1.0, 1.0])
    for value in (2.0, -3.0):  # the same program each time, over a new Variable b
        b = tf.variable(tf.tensor1d([value, value]), name=f"plan_new_b{value}")
        _step(opt, a, b)
        np.testing.assert_allclose(b.value, value - LR * expected, rtol=1e-6)
        expected = expected - LR * value
        np.testing.assert_allclose(a.value, expected, rtol=1e-6)
        gone = weakref.ref(b)
        b.dispose()
        del b
        gc.collect()
        assert gone() is None  # the cached plan does not keep it alive
    opt.dispose()


def test_jax_user_steps_match_jax_grad():
    w = tf.variable(jnp.array([[1.0, -1.0], [0.5, 2.0]]), name="plan_jax_w")
    scale = tf.variable(jnp.array([2.0, 3.0]), name="plan_jax_scale")
    x = jnp.array([[1.0, 2.0], [3.0, 4.0]])
    opt = tf.train.sgd(LR)

    def raw_loss(w_value, scale_value):
        return jnp.mean(jax.nn.relu(x @ w_value) * scale_value)

    expected = np.asarray(w.value)
    for _ in range(3):
        opt.minimize(lambda: jnp.mean(jax.nn.relu(x @ w.value) * scale.value), False, [w])
        expected = expected - LR * np.asarray(jax.grad(raw_loss)(expected, scale.value))
        np.testing.assert_allclose(w.value, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(scale.value, [2.0, 3.0])
    opt.dispose()


def _params_total() -> optax.GradientTransformation:
    """SGD whose shared state is the sum of every tracked parameter it was given: what
    makes the values of the Variables a step only reads observable."""

    def init(params):
        return {"total": jnp.zeros(())}

    def update(updates, state, params=None):
        total = sum(jnp.sum(p) for p in jax.tree.leaves(params))
        return jax.tree.map(lambda g: -LR * g, updates), {"total": total}

    return optax.GradientTransformation(init, update)


def test_the_update_reads_each_tracked_variable_without_a_gradient_at_its_value():
    a = tf.variable(jnp.array([1.0, 2.0]), name="plan_total_a")
    c = tf.variable(jnp.array([0.5, 0.5]), name="plan_total_c")
    d = tf.variable(jnp.array([4.0]), name="plan_total_d")
    opt = tf.train.from_optax(_params_total())
    opt.minimize(lambda: jnp.sum(c.value**2) + jnp.sum(d.value), False, [c, d])
    a_value, c_value, d_value = np.array([1.0, 2.0]), np.array([0.25, 0.25]), np.array([3.75])
    for _ in range(3):  # a updated; c and d tracked, only read
        opt.minimize(lambda: jnp.sum(a.value * 2.0), False, [a])
        total = dict(opt.get_weights())["total"]
        np.testing.assert_allclose(total, a_value.sum() + c_value.sum() + d_value.sum())
        a_value = a_value - LR * 2.0
        np.testing.assert_allclose(a.value, a_value, rtol=1e-6)
        np.testing.assert_allclose(c.value, c_value, rtol=1e-6)
        np.testing.assert_allclose(d.value, d_value, rtol=1e-6)
    opt.dispose()
