"""The eager gradient path reuses compiled programs only when they compute the same thing.

User code from issue #12: custom-derivative rules that read Python state, floats that
differ only in sign, and rules that close over Variables.
"""

from __future__ import annotations

import gc

import jax
import jax.numpy as jnp
import numpy as np

import tfjs_grad as tf


def test_a_custom_grad_rule_reading_python_state_sees_the_new_state():
    scale = [1.0]

    def forward(x, save):
        return {"value": x * 1.0, "grad_func": lambda dy, saved: dy * scale[0]}

    op = tf.custom_grad(forward)
    g = tf.grad(lambda x: op(x).sum())
    np.testing.assert_allclose(g(tf.tensor1d([1.0, 2.0])), [1.0, 1.0])
    scale[0] = 5.0
    np.testing.assert_allclose(g(tf.tensor1d([1.0, 2.0])), [5.0, 5.0])


def test_a_jax_custom_vjp_rule_reading_python_state_sees_the_new_state():
    scale = [1.0]

    @jax.custom_vjp
    def f(x):
        return x

    f.defvjp(lambda x: (x, None), lambda _, dy: (dy * scale[0],))
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    grads = [tf.variable_grads(lambda: f(w).sum()).grads["w"] for scale[0] in (1.0, 3.0)]
    np.testing.assert_allclose(grads[0], [1.0, 1.0])
    np.testing.assert_allclose(grads[1], [3.0, 3.0])


def test_a_custom_jvp_rule_reading_python_state_sees_the_new_state():
    scale = [2.0]

    @jax.custom_jvp
    def f(x):
        return x

    @f.defjvp
    def _(primals, tangents):
        return primals[0], tangents[0] * scale[0]

    g = tf.grad(lambda x: f(x).sum())
    np.testing.assert_allclose(g(jnp.ones(2)), [2.0, 2.0])
    scale[0] = -1.0
    np.testing.assert_allclose(g(jnp.ones(2)), [-1.0, -1.0])


def test_zero_and_negative_zero_constants_are_different_programs():
    def value_at_one(fill: float) -> np.ndarray:
        f = tf.value_and_grad(lambda x: jnp.where(x > 5.0, x, fill))
        return np.asarray(f(tf.tensor1d([1.0])).value)

    assert not np.signbit(value_at_one(0.0))[0]
    assert np.signbit(value_at_one(-0.0))[0]


def test_the_compile_cache_keeps_no_variable_alive():
    def make_and_train():
        v = tf.variable(tf.tensor1d([1.0, 2.0]), name="closed_over")

        def forward(x, save):
            return {"value": x * v, "grad_func": lambda dy, saved: dy * v}

        op = tf.custom_grad(forward)
        tf.grad(lambda x: op(x).sum())(tf.tensor1d([1.0, 1.0]))

    make_and_train()
    gc.collect()
    assert "closed_over" not in tf.registered_variables()
    tf.variable(tf.zeros([2]), name="closed_over")  # the name is free again


def test_an_eager_loop_through_jax_and_tfjs_grad_custom_rules_compiles_once(compiles):
    w = tf.variable(tf.tensor1d([0.5, -1.0]), name="w")
    opt = tf.train.adam(0.1)
    labels = tf.tensor1d([1.0, 0.0])

    def loss():
        return tf.losses.sigmoid_cross_entropy(labels, jax.nn.relu(w) - w)

    opt.minimize(loss)
    before = len(compiles)
    for _ in range(5):
        opt.minimize(loss)
    assert compiles[before:] == []


def test_a_python_float_that_changes_every_step_reuses_one_program(compiles):
    w = tf.variable(tf.tensor1d([1.0, -2.0]), name="w")
    expected = np.array([1.0, -2.0])
    for step in range(6):
        scale = 1.0 + 0.25 * step
        value, grads = tf.variable_grads(lambda scale=scale: (w**2).sum() * scale)
        np.testing.assert_allclose(grads["w"], 2 * scale * expected, rtol=1e-6)
        np.testing.assert_allclose(value, scale * (expected**2).sum(), rtol=1e-6)
        if step == 0:
            first = len(compiles)
    assert compiles[first:] == []


def test_the_eager_cache_is_bounded_by_the_memory_of_its_executables(monkeypatch):
    from tfjs_grad import _trace

    monkeypatch.setattr(_trace, "CACHE_BYTES", 3 * _trace._MIN_ENTRY_BYTES)
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    for n in range(1, 9):  # a new batch length, so a new program, every step
        x = jnp.arange(2 * n, dtype=jnp.float32).reshape(n, 2)
        grads = tf.variable_grads(lambda x=x: ((x * w) ** 2).sum()).grads["w"]
        np.testing.assert_allclose(grads, 2 * np.asarray(w.value) * (np.asarray(x) ** 2).sum(0))
        assert (
            sum(e.bytes for e in _trace._compiled.values()) <= _trace.CACHE_BYTES
            or len(_trace._compiled) == 1
        )
    assert _trace.stats["evictions"] > 0
