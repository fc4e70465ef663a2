"""How the eager tape keys f's inputs (the Variables it differentiates) and the plain
arguments of the ops f calls: by value, so a program is reused exactly when the
structure is the same, and never confused with another one. Numbers are checked against
closed forms and jax.grad of the same program written in jax.numpy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray

import tfjs_grad as tf
from tfjs_grad import _tape


def test_input_abstract_values_are_keyed_by_value_and_remembered_by_object():
    a = ShapedArray((2, 3), np.float32)
    same = ShapedArray((2, 3), np.float32)
    weak = ShapedArray((2, 3), np.float32, weak_type=True)
    assert _tape._interned(a) is _tape._interned(a)
    assert _tape._interned(same).id == _tape._interned(a).id
    assert _tape._interned(weak).id != _tape._interned(a).id
    assert _tape._interned(ShapedArray((3, 2), np.float32)).id != _tape._interned(a).id


def test_tfjs_user_takes_gradients_of_variables_of_many_shapes_one_after_another():
    # Variables are made and disposed in turn: each call's program is its own shape's.
    for n in range(1, 9):
        start = np.arange(n, dtype=np.float32) - 2.5
        v = tf.variable(tf.tensor1d(start))
        value, grads = tf.variableGrads(lambda v=v: v.square().mul(3).sum(), [v])
        np.testing.assert_allclose(float(value), 3 * np.sum(start**2), rtol=1e-6)
        np.testing.assert_allclose(grads[v.name].dataSync(), 6 * start, rtol=1e-6)
        v.dispose()


def test_tfjs_user_static_arguments_of_equal_value_but_other_types_are_other_programs():
    # 1 and True (and 0.0 and -0.0) are equal in Python but different op arguments.
    v = tf.variable(tf.tensor2d([[1.0, -2.0], [3.0, 0.5]]))
    for keep in (True, 1, False, 0):
        value = tf.tidy(
            lambda keep=keep: tf.variableGrads(lambda: v.sum(0, keep).square().sum())[0]
        )
        expected = np.sum(np.sum(np.asarray([[1.0, -2.0], [3.0, 0.5]]), axis=0) ** 2)
        np.testing.assert_allclose(float(value), expected, rtol=1e-6)
    signs = [float(tf.variableGrads(lambda z=z: v.add(z).div(z).sum())[0]) for z in (0.0, -0.0)]
    assert signs[0] != signs[1]  # x / +0 and x / -0: infinities of opposite signs
    v.dispose()


def test_jax_user_mixes_jnp_on_a_variable_inside_f_then_steps_again_on_the_tape():
    w0 = np.asarray([0.5, -1.5, 2.0], np.float32)
    w = tf.variable(tf.tensor1d(w0))
    opt = tf.train.sgd(0.1)

    def reference(x):
        return jnp.sum(jnp.tanh(x) ** 2)

    expected = jnp.asarray(w0)
    for step in range(4):
        if step % 2:  # a jnp call on the Variable's value: the tape stages this call
            opt.minimize(lambda: tf.sum(jnp.tanh(w.value) ** 2))
        else:
            opt.minimize(lambda: w.tanh().square().sum())
        expected = expected - 0.1 * jax.grad(reference)(expected)
        np.testing.assert_allclose(w.dataSync(), np.asarray(expected), rtol=1e-5, atol=1e-6)
    w.dispose()
    opt.dispose()
