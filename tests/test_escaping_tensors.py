"""Issue 34, item 3: a Tensor f makes and the user keeps past an eager gradient call
follows tfjs 4.22, on the eager tape, once f went on staged (a JAX call inside f), and
on the traced path (TFJS_GRAD_TAPE=0): tfjs's gradient functions tidy f, so using such a
Tensor afterwards raises "Tensor is disposed."; one f passed to `tf.keep` keeps the value
it had during the call (never the Variables' later state); no tracer and no internal
exception reaches the user."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import _tape
from tfjs_grad._tensor import TensorDisposedError


@pytest.fixture(params=["tape", "staged in f", "traced"])
def path(request):
    """The tape, the tape staged by a jnp call at f's start, or the traced path."""
    saved = _tape.ENABLED[0]
    _tape.ENABLED[0] = request.param != "traced"
    yield request.param
    _tape.ENABLED[0] = saved


def _enter(path, v):
    """What f does first: a jnp call on a Variable stages the tape ("staged in f")."""
    if path == "staged in f":
        jnp.sin(v)


def _assert_disposed(t):
    assert t.isDisposed
    for use in (t.dataSync, lambda: t.add(1), lambda: jnp.asarray(t), lambda: float(t.sum())):
        with pytest.raises(TensorDisposedError, match="^Tensor is disposed.$"):
            use()


def test_a_tensor_made_in_minimize_and_kept_by_the_user_is_disposed(path):
    v = tf.variable(tf.tensor1d([1.0, 2.0]))
    saved, kept = [], []

    def f():
        _enter(path, v)
        saved.append(v.square())
        kept.append(tf.keep(v.mul(3)))
        return saved[-1].sum()

    opt = tf.train.sgd(0.1)
    opt.minimize(f)
    np.testing.assert_allclose(v.dataSync(), [0.8, 1.6], rtol=1e-6)  # v - 0.1 * 2v
    _assert_disposed(saved[0])
    np.testing.assert_allclose(kept[0].dataSync(), [3.0, 6.0])  # v at call time, times 3
    np.testing.assert_allclose(kept[0].add(1).dataSync(), [4.0, 7.0])
    v.dispose()
    np.testing.assert_allclose(kept[0].dataSync(), [3.0, 6.0])
    _assert_disposed(saved[0])
    opt.dispose()


def test_variable_grads_and_grad_dispose_what_f_made(path):
    w = tf.variable(tf.tensor1d([1.0, -1.0]))
    saved, kept, inputs = [], [], []

    def loss():
        _enter(path, w)
        saved.append(w.tanh())
        return saved[-1].sum()

    _, grads = tf.variableGrads(loss, [w])
    np.testing.assert_allclose(grads[w.name].dataSync(), 1 - np.tanh([1.0, -1.0]) ** 2, rtol=1e-5)
    _assert_disposed(saved[0])

    def f(x):
        _enter(path, x)
        inputs.append(x)
        saved.append(x.exp())
        kept.append(tf.keep(x.mul(x)))
        return saved[-1].sum()

    g = tf.grad(f)(tf.tensor1d([0.0, 1.0]))
    np.testing.assert_allclose(g.dataSync(), np.exp([0.0, 1.0]), rtol=1e-6)
    _assert_disposed(saved[1])
    np.testing.assert_allclose(kept[0].dataSync(), [0.0, 1.0])
    np.testing.assert_allclose(inputs[0].dataSync(), [0.0, 1.0])  # the caller's x
    w.dispose()


def test_a_jax_user_keeping_a_tensor_from_f_gets_the_disposed_error(path):
    """JAX-style f (jnp on Tensors, tf results kept in a dict) under tf.valueAndGrad. (A
    raw jnp result is JAX's own value: kept past the call it is JAX's escaped tracer.)"""
    seen = {}

    def f(x):
        h = tf.tanh(x)
        seen["h"] = h
        seen["kept"] = tf.keep(tf.onesLike(x).mul(jnp.sum(h)))
        return jnp.sum(jax.nn.relu(h)) * tf.scalar(1.0)

    value, grad = tf.valueAndGrad(f)(tf.tensor1d([0.5, 0.25]))
    total = np.tanh(0.5) + np.tanh(0.25)
    np.testing.assert_allclose(float(value), total, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(grad), 1 - np.tanh([0.5, 0.25]) ** 2, rtol=1e-5)
    _assert_disposed(seen["h"])
    np.testing.assert_allclose(np.asarray(seen["kept"]), [total, total], rtol=1e-6)


def test_an_error_in_a_staged_f_disposes_what_it_made(path):
    v = tf.variable(tf.tensor1d([1.0, 2.0]))
    saved = []

    def f():
        _enter(path, v)
        saved.append(v.square())
        raise RuntimeError("the user's error")

    with pytest.raises(RuntimeError, match="the user's error"):
        tf.variableGrads(f, [v])
    _assert_disposed(saved[0])
    v.dispose()
