"""Issue #36: an eager loop whose batch length changes compiles one program per new length,
and says so, once per function, when one function has been compiled for many shapes.

Each test uses its own feature width, so no other test's programs are in the cache.
"""

from __future__ import annotations

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


def _policy(width: int):
    """A policy's Variables, its optimizer and `episode(n)`: n rows of host data."""
    rng = np.random.default_rng(width)
    w = tf.variable(tf.tensor(rng.standard_normal((width, 1)).astype(np.float32)))
    b = tf.variable(tf.zeros([1]))

    def episode(n: int):
        states = rng.standard_normal((n, width)).astype(np.float32)
        actions = (rng.random((n, 1)) < 0.5).astype(np.float32)
        return states, actions, rng.standard_normal((n, 1)).astype(np.float32)

    return w, b, tf.train.adam(0.01), episode


def _warnings_of(run) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [str(w.message) for w in caught if "different shapes" in str(w.message)]


def test_an_eager_loop_compiles_one_program_per_new_batch_length(compiles):
    # As benchmarks/_recompile.py's "shapes" loop: the episode's tensors made from host
    # arrays inside a tidy, `minimize(loss, true)`, the loss read back. Before: 3.0
    # compiles per new length (the step, and a `jnp.asarray` program per new shape of the
    # tensors made from host arrays); after: 1.0 (the step alone).
    w, b, optimizer, episode = _policy(5)

    def update(n: int) -> float:
        states, actions, advantages = episode(n)

        def step():
            s, a, adv = tf.tensor(states), tf.tensor(actions), tf.tensor(advantages)
            return optimizer.minimize(
                lambda: tf.losses.sigmoidCrossEntropy(a, s.matMul(w).add(b), adv), True
            )

        return tf.tidy(step).dataSync()[0]

    update(3)
    del compiles[:]
    lengths = range(10, 16)
    for n in lengths:
        update(n)
        update(n)
    assert len(compiles) / len(lengths) <= 1.0, compiles


def test_variable_grads_compiles_one_program_per_new_batch_length(compiles):
    w = tf.variable(tf.ones([6, 1]))
    host = np.random.default_rng(0).standard_normal((20, 6)).astype(np.float32)

    def grads(n: int):
        return tf.tidy(
            lambda: tf.variableGrads(lambda: tf.tensor(host[:n]).matMul(w).square().mean()).grads
        )

    grads(2)
    del compiles[:]
    for n in range(10, 15):
        g = grads(n)
        np.testing.assert_allclose(
            g[w.name].dataSync(), 2 * host[:n].T @ (host[:n] @ np.ones(6)) / n, rtol=1e-5
        )
    assert len(compiles) <= 5, compiles


def test_nine_batch_lengths_warn_once_naming_padding():
    w, b, optimizer, episode = _policy(7)

    def update(n: int) -> None:
        x, y, weights = map(tf.tensor, episode(n))
        optimizer.minimize(lambda: tf.losses.sigmoidCrossEntropy(y, x.matMul(w).add(b), weights))

    messages = _warnings_of(lambda: [update(n) for n in range(1, 10) for _ in range(2)])
    assert len(messages) == 1, messages
    assert "more than 8 different shapes" in messages[0]
    assert "tf.pad" in messages[0] and "mask" in messages[0]
    assert _warnings_of(lambda: [update(n) for n in range(10, 13)]) == []  # once


def test_eight_batch_lengths_do_not_warn():
    w, b, optimizer, episode = _policy(8)

    def update(n: int) -> None:
        x, y, weights = map(tf.tensor, episode(n))
        optimizer.minimize(lambda: tf.losses.logLoss(y, x.matMul(w).add(b).sigmoid(), weights))

    assert _warnings_of(lambda: [update(n) for n in range(1, 9) for _ in range(3)]) == []


def test_a_fixed_batch_length_never_warns():
    w, b, optimizer, episode = _policy(9)

    def update(n: int) -> None:
        x, y, weights = map(tf.tensor, episode(n))
        optimizer.minimize(lambda: x.matMul(w).add(b).sub(y).square().mul(weights).mean())

    assert _warnings_of(lambda: [update(16) for _ in range(30)]) == []


def test_the_warning_points_at_the_users_call():
    w = tf.variable(tf.ones([11, 1]))
    optimizer = tf.train.sgd(0.1)

    def train(n: int) -> None:
        optimizer.minimize(lambda: tf.ones([n, 11]).matMul(w).mean())

    with pytest.warns(UserWarning, match="different shapes") as caught:
        for n in range(1, 11):
            train(n)
    assert [w.filename for w in caught if "different shapes" in str(w.message)] == [__file__]


def test_a_jax_loss_warns_too_and_compiles_once_per_length(compiles):
    # a JAX user's loss: jnp on the Variable's value, inside minimize
    w = tf.variable(tf.ones([12, 1]))
    optimizer = tf.train.sgd(0.01)
    host = np.ones((20, 12), np.float32)

    def train(x: jnp.ndarray) -> None:
        optimizer.minimize(lambda: jnp.mean((x @ w.value) ** 2))

    def run():
        for n in range(2, 12):
            train(jnp.asarray(host[:n]))  # made outside the loss, as a JAX user does

    del compiles[:]
    messages = _warnings_of(run)
    assert len(messages) == 1
    ours = [name for name in compiles if name != "jit(stage)"]  # not the user's own jnp.asarray
    assert len(ours) <= 10, compiles
    # every row of x is ones: each step scales sum(w) by 1 - 0.01 * 2 * 12
    np.testing.assert_allclose(np.asarray(w.value), np.full((12, 1), 0.76**10), rtol=1e-5)


def test_constant_tensors_of_new_shapes_compile_nothing(compiles):
    # tf.zeros/ones/fill made eagerly for each new batch length (an RNN's initial state, a
    # mask) are host-made and placed; jnp.full compiled one program per shape.
    tf.zeros([1])
    del compiles[:]
    for n in range(40, 46):
        assert tf.zeros([n, 3]).sum().dataSync()[0] == 0
        np.testing.assert_array_equal(tf.ones([n], "int32").dataSync(), np.ones(n))
        np.testing.assert_array_equal(tf.fill([n, 2], 2.5).dataSync(), np.full(2 * n, 2.5))
        np.testing.assert_array_equal(tf.fill([n], True).dataSync(), np.ones(n, bool))
    made = [name for name in compiles if name in ("full", "broadcast_in_dim", "_convert")]
    assert made == [], compiles


def test_constant_tensors_keep_jnp_full_casts_and_trace_under_jit():
    # The host path is taken only where numpy casts as jnp.full does; the odd values keep
    # tfjs's (Int32Array) answers through jnp.full.
    assert tf.fill([2], float("nan"), "int32").dataSync().tolist() == [0, 0]
    assert tf.fill([2], 2**31, "int32").dataSync().tolist() == [-(2**31)] * 2
    assert tf.fill([2], -2.7, "int32").dataSync().tolist() == [-2, -2]
    assert tf.fill([2], 1e40).dataSync().tolist() == [np.inf, np.inf]

    import jax

    traced = jax.jit(lambda x: tf.zeros([3]).add(x).mul(tf.fill([3], 2.0)))(jnp.arange(3.0))
    np.testing.assert_array_equal(traced, [0.0, 2.0, 4.0])
