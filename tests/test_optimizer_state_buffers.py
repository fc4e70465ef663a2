"""What a compiled step threads for a tfjs optimizer's state: no inject_hyperparams step
count beside a constant learning rate (on one device, read and not written back), and
Adam's two running beta products as one float32 pair. The numbers stay tfjs's: checked
against Adam written out in numpy with float32 running products, as tfjs 4.22 does."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tfjs_grad as tf
from tfjs_grad.train._optimizer import owned_variables


@pytest.fixture(autouse=True)
def _clean():
    yield
    tf.dispose_variables()


def _numpy_adam(w, grads_of, steps, lr=0.01, b1=0.9, b2=0.999, eps=1e-7):
    """tfjs's Adam in float32 numpy: m, v, and P1/P2 as running products."""
    f32 = np.float32
    w = w.astype(f32)
    m, v = np.zeros_like(w), np.zeros_like(w)
    p1, p2 = f32(b1), f32(b2)
    for _ in range(steps):
        g = grads_of(w).astype(f32)
        m = m * f32(b1) + g * f32(1 - b1)
        v = v * f32(b2) + np.square(g) * f32(1 - b2)
        w = (m / (f32(1) - p1)) / (np.sqrt(v / (f32(1) - p2)) + f32(eps)) * f32(-lr) + w
        p1, p2 = p1 * f32(b1), p2 * f32(b2)
    return w, (p1, p2)


def test_adam_state_holds_one_pair_of_beta_products_and_no_step_count():
    w = tf.variable(tf.tensor1d([1.0, -2.0, 3.0]), name="w")
    optimizer = tf.train.adam(0.01)
    for _ in range(5):
        optimizer.minimize(lambda: w.square().sum())
    state = owned_variables(optimizer)
    assert sorted(state) == ["acc_betas", "iter", "learning_rate", "w/m", "w/v"]
    expected_w, (p1, p2) = _numpy_adam(np.array([1.0, -2.0, 3.0]), lambda w: 2 * w, 5)
    np.testing.assert_array_equal(np.asarray(state["acc_betas"].value), [p1, p2])
    np.testing.assert_allclose(np.asarray(w.value), expected_w, rtol=1e-6)
    # tfjs's weights are unchanged: iter, then the slots
    assert [name for name, _ in optimizer.getWeights()] == ["iter", "w/m", "w/v"]


def test_set_weights_restores_the_beta_products_as_running_products():
    w = tf.variable(tf.tensor1d([0.5, 1.5]), name="w")
    trained = tf.train.adam(0.01)
    for _ in range(7):
        trained.minimize(lambda: w.square().sum())
    fresh = tf.train.adam(0.01)
    fresh.setWeights(trained.getWeights())
    products = np.asarray(owned_variables(fresh)["acc_betas"].value)
    _, (p1, p2) = _numpy_adam(np.zeros(1), lambda w: w, 7)
    np.testing.assert_array_equal(products, [p1, p2])
    np.testing.assert_array_equal(products, np.asarray(owned_variables(trained)["acc_betas"].value))


def test_compiled_adam_step_threads_weights_slots_and_three_shared_entries():
    w = tf.variable(tf.tensor1d([1.0, -2.0, 3.0]), name="w")
    optimizer = tf.train.adam(0.01)

    @tf.jit
    def step(x):
        return optimizer.minimize(lambda: w.mul(x).square().sum(), True)

    x = tf.tensor1d([1.0, 1.0, 1.0])
    for _ in range(4):
        step(x)
    state = owned_variables(optimizer)
    threaded = [v.name for v in (*step._written, *step._read)]  # pyright: ignore[reportAttributeAccessIssue]
    assert sorted(threaded) == sorted([w.name, *(v.name for v in state.values())])
    assert len(threaded) == 6  # w, its m and v, iter, the rate, the beta products
    expected, _ = _numpy_adam(np.array([1.0, -2.0, 3.0]), lambda w: 2 * w, 4)
    np.testing.assert_allclose(np.asarray(w.value), expected, rtol=1e-6)

    # a new rate reaches the next call as data: no retrace, and the step uses it
    traces = step.trace_count
    optimizer.learningRate = 0.5
    before = np.asarray(w.value)
    step(x)
    assert step.trace_count == traces
    assert float(optimizer.learning_rate) == 0.5
    moved = np.abs(np.asarray(w.value) - before)
    assert np.all(moved > 0.1), moved  # an Adam step moves each weight by about the rate


@pytest.mark.skipif(jax.device_count() > 1, reason="with several devices the rate is rewritten")
def test_on_one_device_a_compiled_step_reads_the_constant_rate_and_writes_the_rest():
    """The update leaves a constant rate as it was: the program takes it as a read-only
    input (not donated, not returned). Setting a new rate between calls still reaches
    the next call. Checked against SGD written out: w -= rate * 2w."""
    w = tf.variable(tf.tensor1d([1.0, -2.0]), name="w")
    optimizer = tf.train.sgd(0.1)

    @tf.jit
    def step():
        return optimizer.minimize(lambda: w.square().sum(), True)

    expected = np.array([1.0, -2.0], np.float32)
    for rate in (0.1, 0.1, 0.25, 0.25, 0.05):
        if rate != float(optimizer.learning_rate):
            optimizer.set_learning_rate(rate)
        step()
        expected = expected - np.float32(rate) * 2 * expected
    np.testing.assert_allclose(np.asarray(w.value), expected, rtol=1e-6)
    assert step.trace_count == 1
    rate = owned_variables(optimizer)["learning_rate"]
    assert rate in step._read and rate not in step._written  # pyright: ignore[reportAttributeAccessIssue]
    assert w in step._written  # pyright: ignore[reportAttributeAccessIssue]


@pytest.mark.skipif(jax.device_count() > 1, reason="with several devices the rate is rewritten")
def test_a_jax_user_optax_schedule_rate_changes_so_the_step_writes_it():
    """`tf.train.from_optax(optax.inject_hyperparams(...))` with a schedule: the rate
    changes every step, so the step writes it; the loop's numbers equal plain optax."""
    w = tf.variable(tf.tensor1d([0.5, 1.5]), name="w")
    schedule = optax.linear_schedule(0.2, 0.05, 4)
    tx = optax.inject_hyperparams(optax.sgd)(learning_rate=schedule)
    optimizer = tf.train.from_optax(tx)

    @tf.jit
    def step():
        return optimizer.minimize(lambda: jnp.sum(jnp.square(w.value)), True)

    params = jnp.array([0.5, 1.5])
    state = tx.init(params)
    for _ in range(5):
        step()
        updates, state = tx.update(jax.grad(lambda p: jnp.sum(p**2))(params), state, params)
        params = optax.apply_updates(params, updates)
    np.testing.assert_allclose(np.asarray(w.value), np.asarray(params), rtol=1e-6)
    written = {v.name for v in step._written}  # pyright: ignore[reportAttributeAccessIssue]
    rates = [v.name for k, v in owned_variables(optimizer).items() if "learning_rate" in k]
    assert rates and set(rates) <= written


def test_a_scheduled_rate_still_follows_its_schedule_under_jit():
    w = tf.variable(tf.tensor1d([1.0]), name="w")
    optimizer = tf.train.sgd(lambda count: 0.1 * (count + 1))

    @tf.jit
    def step():
        optimizer.minimize(lambda: w.sum())  # gradient 1: w moves by the rate

    values = [float(w.value[0])]
    for _ in range(3):
        step()
        values.append(float(w.value[0]))
    np.testing.assert_allclose(np.diff(values), [-0.1, -0.2, -0.3], rtol=1e-6)


def test_jax_user_step_matches_jax_grad_and_numpy_adam():
    """A JAX user's loss (jnp, jax.nn, `v.value`) trained by tf.train.adam under tf.jit:
    equal to the numpy tfjs Adam fed the gradients of jax.grad of the raw loss."""
    w = tf.variable(tf.tensor1d([0.3, -0.7]), name="w")
    optimizer = tf.train.adam(0.05)

    def raw_loss(value):
        return jnp.sum(jax.nn.softplus(value) * value)

    @tf.jit
    def step():
        return optimizer.minimize(lambda: raw_loss(w.value), True)

    for _ in range(6):
        step()
    grad = jax.jit(jax.grad(raw_loss))
    expected, _ = _numpy_adam(
        np.array([0.3, -0.7]), lambda v: np.asarray(grad(jnp.asarray(v))), 6, lr=0.05
    )
    np.testing.assert_allclose(np.asarray(w.value), expected, rtol=1e-5, atol=1e-7)


def test_from_optax_state_is_left_as_optax_builds_it():
    w = tf.variable(tf.tensor1d([1.0]), name="w")
    optimizer = tf.train.from_optax(optax.inject_hyperparams(optax.adam)(learning_rate=0.1))
    optimizer.minimize(lambda: w.square().sum())
    assert "count" in owned_variables(optimizer)  # inject_hyperparams' own counter
