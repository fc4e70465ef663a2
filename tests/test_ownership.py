"""Donation is never observable: every array a user can hold survives later tf.jit steps.

Each test is user code from issue #12: an alias of a Variable's value taken in a public
way, then compiled steps that donate the Variable's old buffers.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


def _doubling_step(w: tf.Variable):
    @tf.jit
    def step():
        w.assign(w * 2)

    return step


ALIASES = {
    "value": lambda w: w.value,
    "read": lambda w: w.read(),
    "tensor": lambda w: tf.tensor(w),
    "full_slice": lambda w: w[:],
    "ellipsis": lambda w: w[...],
    "jnp.asarray": lambda w: jnp.asarray(w),
    "np.asarray": lambda w: np.asarray(w),
    "get_state": lambda w: tf.get_state([w])[w.name],
    "iteration": lambda w: list(w)[0],
}


@pytest.mark.parametrize("how", sorted(ALIASES))
def test_an_alias_taken_before_a_step_keeps_its_value(how):
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    step = _doubling_step(w)
    step()  # w now holds a buffer the store made (and may donate)
    alias = ALIASES[how](w)
    step()
    step()
    np.testing.assert_array_equal(np.asarray(alias).reshape(-1)[:1], [2.0])
    np.testing.assert_array_equal(w.value, [8.0, 16.0])


def test_assign_from_another_variable_keeps_both_readable():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    b = tf.variable(tf.zeros([2]), name="b")
    step = _doubling_step(w)
    step()
    b.assign(w)
    step()
    np.testing.assert_array_equal(b.value, [2.0, 4.0])
    np.testing.assert_array_equal(w.value, [4.0, 8.0])


def test_a_variable_created_from_another_keeps_both_readable():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    step = _doubling_step(w)
    step()
    copy = tf.variable(w, name="copy")
    step()
    np.testing.assert_array_equal(copy.value, [2.0, 4.0])
    # and the copy is itself stepped without touching w's history
    _doubling_step(copy)()
    np.testing.assert_array_equal(copy.value, [4.0, 8.0])
    np.testing.assert_array_equal(w.value, [4.0, 8.0])


def test_the_array_given_to_variable_stays_the_users():
    given = jnp.array([1.0, 2.0])
    w = tf.variable(given, name="w")
    step = _doubling_step(w)
    step()
    step()
    np.testing.assert_array_equal(given, [1.0, 2.0])


def test_an_argument_assigned_to_a_variable_stays_the_users():
    w = tf.variable(tf.zeros([2]), name="w")

    @tf.jit
    def load(x):
        w.assign(x)

    x = jnp.array([3.0, 4.0])
    load(x)
    _doubling_step(w)()
    np.testing.assert_array_equal(x, [3.0, 4.0])
    np.testing.assert_array_equal(w.value, [6.0, 8.0])


def test_an_output_that_is_also_the_new_value_survives_the_next_step():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")

    @tf.jit
    def step():
        w.assign(w * 2)
        return w

    first = step()
    step()
    np.testing.assert_array_equal(first, [2.0, 4.0])


def test_optimizer_weights_taken_before_steps_keep_their_values():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.adam(0.1)
    step = tf.jit(lambda: opt.minimize(lambda: (w**2).sum()))
    step()
    weights = opt.get_weights()
    saved = [np.asarray(t).copy() for _, t in weights]
    step()
    step()
    for (_, t), before in zip(weights, saved):
        np.testing.assert_array_equal(t, before)


def test_disposing_a_variables_value_does_not_break_the_variable():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    step = _doubling_step(w)
    step()
    tf.dispose(w.value)
    assert not w.is_disposed
    step()
    np.testing.assert_array_equal(w.value, [4.0, 8.0])


def test_a_disposed_variable_says_so():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    w.dispose()
    with pytest.raises(ValueError, match="disposed"):
        _ = w.value
    with pytest.raises(ValueError, match="disposed"):
        w + 1
