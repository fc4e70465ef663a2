"""Outside tf.jit, f runs on real numbers as in tfjs: value-dependent Python works.

User code from issue #14: branches on a loss, `int(argmax)`, `.item()` inside the f of
the gradient functions and `minimize`; checked against closed forms.
"""

from __future__ import annotations

import warnings

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
    _tape._staged_from_start.clear()  # each test's functions start unseen on both paths
    yield request.param
    _tape.ENABLED[0] = saved[0]
    _tape._staged_from_start.clear()
    _tape._staged_from_start.update(saved[1])


def _concrete_path_warning(eager_path, match=None):
    """Neither path warns: f runs once on real values, recorded or staged from the start
    (the tape disabled), and reads values where it needs them."""
    quiet = warnings.catch_warnings()
    quiet.__enter__()
    warnings.simplefilter("error", UserWarning)
    return _Exit(quiet)


class _Exit:
    def __init__(self, inner):
        self.inner = inner

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.inner.__exit__(*exc)
        return False


def test_a_branch_on_the_loss_inside_variable_grads_runs_on_real_numbers(eager_path):
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    calls = []

    def loss():
        calls.append(1)
        value = (w**2).sum()
        if value > 1:  # a Python branch on a computed value
            return value * 2
        return value

    with _concrete_path_warning(eager_path, "loss.*first call ran twice"):
        value, grads = tf.variable_grads(loss)
    assert float(value) == 10.0
    np.testing.assert_allclose(grads["w"], [4.0, 8.0])
    calls.clear()
    w.assign(tf.tensor1d([0.1, 0.2]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per function, then silent
        value, grads = tf.variable_grads(loss)
    assert len(calls) == 1  # f runs once per call from now on
    np.testing.assert_allclose(float(value), 0.05, rtol=1e-6)
    np.testing.assert_allclose(grads["w"], [0.2, 0.4], rtol=1e-6)


def test_a_new_closure_of_the_same_code_is_the_same_function(eager_path):
    w = tf.variable(tf.tensor1d([3.0]), name="w")
    opt = tf.train.sgd(0.1)

    def make_loss(target):
        def loss():
            error = (w - target).sum()
            return error**2 if error.item() > 0 else -error

        return loss

    with _concrete_path_warning(eager_path, "first call ran twice"):
        opt.minimize(make_loss(1.0))
    np.testing.assert_allclose(w.value, [3.0 - 0.1 * 4.0], rtol=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.minimize(make_loss(5.0))  # error < 0: the other branch, gradient -1
    np.testing.assert_allclose(w.value, [2.6 + 0.1], rtol=1e-6)


def test_int_of_argmax_and_item_inside_grad(eager_path):
    def f(x):
        best = int(jnp.argmax(x))
        scale = x[best].item()
        return x[best] * scale

    with _concrete_path_warning(eager_path, "first call ran twice"):
        g = tf.grad(f)(tf.tensor1d([1.0, 5.0, 2.0]))
    np.testing.assert_allclose(g, [0.0, 5.0, 0.0])


def test_connection_rules_hold_on_the_concrete_path(eager_path):
    a = tf.variable(tf.tensor1d([1.0]), name="a")
    b = tf.variable(tf.tensor1d([2.0]), name="b")
    unused = tf.variable(tf.tensor1d([3.0]), name="unused")
    frozen = tf.variable(tf.tensor1d([4.0]), name="frozen")

    def loss():
        if a.sum() > 0:
            return (a * 0).sum() + tf.stop_gradient(b).sum() + frozen.sum()
        return a.sum()

    with _concrete_path_warning(eager_path):
        value, grads = tf.variable_grads(loss, [a, b, unused, frozen])
    frozen.trainable = False
    value, grads = tf.variable_grads(loss, [a, b, unused, frozen])
    assert float(value) == 6.0
    assert list(grads) == ["a", "b", "frozen"]  # 'unused' is not connected
    np.testing.assert_array_equal(grads["a"], [0.0])  # a zero gradient, still connected
    np.testing.assert_array_equal(grads["b"], [0.0])  # behind stop_gradient: zeros
    assert grads["frozen"] is None
    with pytest.raises(ValueError, match="Cannot compute gradient"):
        with _concrete_path_warning(eager_path):
            tf.grads(lambda x, y: x * 2 if x.sum() > 0 else y)([jnp.ones(1), jnp.ones(1)])


def test_writes_inside_a_value_dependent_f_are_applied(eager_path):
    w = tf.variable(tf.tensor1d([1.0]), name="w")
    seen = tf.variable(tf.scalar(0.0), trainable=False, name="seen")

    def loss():
        value = (w**2).sum()
        if value > 0:
            seen.assign(value)
        return value

    with _concrete_path_warning(eager_path):
        tf.variable_grads(loss)
    assert float(seen.value) == 1.0


def test_value_dependent_code_inside_tf_jit_is_an_error():
    w = tf.variable(tf.tensor1d([1.0]), name="w")

    @tf.jit
    def step():
        return tf.variable_grads(lambda: w.sum() * 2 if w.sum() > 0 else w.sum()).value

    with pytest.raises(jax.errors.ConcretizationTypeError):
        step()


def test_errors_inside_f_name_the_users_function():
    def my_loss(x):
        return x.reshape((7, 7))

    with pytest.raises(ValueError, match="Size") as caught:  # tf.reshape's message
        tf.grad(my_loss)(tf.tensor1d([1.0, 2.0]))
    assert caught.traceback[-1].name != "only_arrays"
    assert "my_loss" in "".join(str(entry) for entry in caught.traceback) or "my_loss" in str(
        caught.value
    )
