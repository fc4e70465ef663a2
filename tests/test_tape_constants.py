"""Ops on constants only inside the f of an eager gradient call are recorded on the tape:
the step's one program computes them (no dispatch of their own per call), and, as tfjs's
gradient functions tidy f, their results are disposed when the call returns. Numbers are
checked against jax.grad of the same program written in jax.numpy."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf

XS = np.linspace(-1.0, 1.0, 7, dtype=np.float32)
YS = (0.3 * XS**3 - 0.5 * XS + 0.25).astype(np.float32)
INIT = {"a": 0.1, "b": -0.4, "c": 0.7, "d": 0.2}


def _cubic_loss(coefficients, xs, ys):
    a, b, c, d = coefficients
    return jnp.mean(jnp.square(a * xs**3 + b * jnp.square(xs) + c * xs + d - ys))


def _jax_sgd(steps: int, learning_rate: float = 0.5) -> list[float]:
    coefficients = jnp.asarray([INIT[k] for k in "abcd"], jnp.float32)
    for _ in range(steps):
        grads = jax.grad(_cubic_loss)(coefficients, jnp.asarray(XS), jnp.asarray(YS))
        coefficients = coefficients - learning_rate * grads
    return [float(v) for v in coefficients]


class _Counted:
    """A jax.numpy function that counts its calls (an op body running eagerly calls it)."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.fn(*args, **kwargs)


def test_polynomial_step_computes_its_constant_ops_in_the_program(monkeypatch):
    xs, ys = tf.tensor1d(XS.tolist()), tf.tensor1d(YS.tolist())
    a, b, c, d = (tf.variable(tf.scalar(INIT[k])) for k in "abcd")
    optimizer = tf.train.sgd(0.5)

    def loss():
        # x.pow(3) and x.square() read only constants: before, each ran as a dispatch of
        # its own on every step
        cubic = tf.tidy(
            lambda: (
                a.mul(xs.pow(tf.scalar(3, "int32"))).add(b.mul(xs.square())).add(c.mul(xs)).add(d)
            )
        )
        return cubic.sub(ys).square().mean()

    optimizer.minimize(loss)  # records and compiles
    power, square, transfer = _Counted(jnp.power), _Counted(jnp.square), _Counted(jnp.asarray)
    monkeypatch.setattr(jnp, "power", power)
    monkeypatch.setattr(jnp, "square", square)
    monkeypatch.setattr(jnp, "asarray", transfer)
    for _ in range(2):
        optimizer.minimize(loss)
    assert (power.calls, square.calls) == (0, 0)  # no op body ran: the program computed them
    assert transfer.calls == 0  # tf.scalar(3, "int32") is the same device constant each call
    got = [float(v.dataSync()[0]) for v in (a, b, c, d)]
    np.testing.assert_allclose(got, _jax_sgd(3), rtol=1e-5, atol=1e-6)
    tf.dispose([a, b, c, d])


def test_scalars_made_inside_f_have_their_values_and_dtypes():
    v = tf.variable(tf.scalar(1.5))
    seen = []

    def f():
        three, half, zero = tf.scalar(3, "int32"), tf.scalar(0.5), tf.scalar(-0.0)
        seen.append([(t.dtype, t.dataSync().tolist()) for t in (three, half, zero)])
        seen.append(np.signbit(zero.dataSync()).tolist())
        return v.pow(three).mul(half).add(zero)

    for _ in range(2):
        value, grads = tf.variableGrads(f, [v])
    assert seen[:2] == [[("int32", [3]), ("float32", [0.5]), ("float32", [-0.0])], [True]]
    assert seen[2:] == seen[:2]
    assert float(value) == pytest.approx(0.5 * 1.5**3)
    assert float(grads[v.name]) == pytest.approx(1.5 * 1.5**2)
    v.dispose()


def test_constant_only_results_made_inside_f_are_disposed_when_the_call_returns():
    # tfjs 4.22: every tensor f makes is disposed by the gradient call's tidy, those
    # computed from constants only too (checked in Node: sq.isDisposed is true)
    xs = tf.tensor1d([1.0, 2.0, 3.0])
    v = tf.variable(tf.scalar(2.0))
    made = {}

    def f():
        made["squared"] = tf.square(xs)
        made["kept"] = tf.keep(tf.add(xs, 1.0))
        made["scaled"] = tf.mul(v, xs)
        return tf.sum(tf.mul(made["scaled"], made["squared"]))

    grads = tf.variableGrads(f, [v])
    assert made["squared"].isDisposed and made["scaled"].isDisposed
    assert made["kept"].dataSync().tolist() == [2.0, 3.0, 4.0]
    assert float(grads.value) == pytest.approx(2.0 * (1 + 8 + 27))
    assert float(grads.grads[v.name]) == pytest.approx(1 + 8 + 27)
    v.dispose()


def test_a_constant_only_result_read_inside_f_has_its_value():
    xs = tf.tensor1d([1.0, -2.0, 3.0])
    w = tf.variable(tf.tensor1d([0.5, 0.25, -1.0]))
    seen = []

    def f():
        squared = xs.square()
        seen.append(squared.dataSync().tolist())  # read as data in the middle of f
        return w.mul(squared).sum()

    for _ in range(2):
        grads = tf.variableGrads(f, [w])
    assert seen == [[1.0, 4.0, 9.0]] * 2
    np.testing.assert_allclose(grads.grads[w.name].dataSync(), [1.0, 4.0, 9.0])
    w.dispose()


def test_jax_user_hands_a_constant_only_result_to_jnp_inside_f():
    # the recorded constant-only op is replayed into the JAX trace f goes on in
    xs = np.asarray([0.5, -1.5, 2.0], np.float32)
    xs_tensor = tf.tensor1d(xs.tolist())

    def f(x):
        return jnp.sum(jnp.sin(tf.square(xs_tensor)) * x * x)

    expected = jax.grad(lambda x: jnp.sum(jnp.sin(jnp.square(xs)) * x * x))
    x0 = np.asarray([1.0, 2.0, -3.0], np.float32)
    for _ in range(2):
        got = tf.grad(f)(tf.tensor1d(x0.tolist()))
        np.testing.assert_allclose(np.asarray(got), expected(jnp.asarray(x0)), rtol=1e-5)
