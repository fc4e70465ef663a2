"""Issue 34: the one call the eager tape cannot continue (a value f recorded, first handed
to JAX inside a JAX transform f itself entered) runs again traced from the start. That is
remembered per function object and argument structure: a lambda made anew in a loop is
taped again, and a structure that does not need it stays on the tape. The warning says
what the library could not record."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import _tape
from tfjs_grad._tensor import TensorDisposedError


@pytest.fixture
def stagings(monkeypatch):
    """The reason of every staging of a tape, in order."""
    seen: list[str] = []
    original = _tape.Tape.stage

    def stage(self, why):
        if self.staging is None:
            seen.append(why)
        return original(self, why)

    monkeypatch.setattr(_tape.Tape, "stage", stage)
    saved = _tape.ENABLED[0]
    _tape.ENABLED[0] = True
    yield seen
    _tape.ENABLED[0] = saved


def _loss(x, inside_vmap, saved):
    """3 * sum(x^2): the square read inside the function's own jax.vmap, or by tf ops."""
    h = x.square()
    saved.append(h)
    if inside_vmap:  # h is a closure of the vmapped function: the tape cannot go on there
        return jax.vmap(lambda row: jnp.sum(row * h))(jnp.ones((3, x.shape[0]))).sum()
    return h.sum().mul(3)


def _grad(f, values):
    x = tf.tensor1d(values)
    np.testing.assert_allclose(tf.grad(f)(x).dataSync(), 6 * np.asarray(values), rtol=1e-6)


def test_a_lambda_made_in_a_loop_is_taped_again_for_a_new_closure(stagings):
    saved: list = []
    for inside_vmap in (True, False, True):
        f = lambda x, inside_vmap=inside_vmap: _loss(x, inside_vmap, saved)  # noqa: E731
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _grad(f, [1.0, -2.0])
        assert len(caught) == inside_vmap
        if inside_vmap:
            message = str(caught[0].message)
            assert "cannot record" in message and "inside a JAX transform" in message
            assert "traced with JAX from the start" in message
    # each vmap lambda (a new function object, same code): one try on the tape, then its
    # rerun; the other stayed on the tape
    assert [why.endswith("from the start") for why in stagings] == [False, True, False, True]
    assert "a JAX function was given a value f computed" in stagings[0]
    for t in saved:  # what f made, also in the abandoned first try, is disposed
        assert t.isDisposed
        with pytest.raises(TensorDisposedError, match="^Tensor is disposed.$"):
            t.dataSync()


def test_a_structure_that_needs_no_fallback_stays_on_the_tape(stagings):
    saved: list = []

    def f(x):  # a length-3 x goes through the vmap, any other length through tf ops
        return _loss(x, x.shape[0] == 3, saved)

    with pytest.warns(UserWarning, match="cannot record"):
        _grad(f, [1.0, 2.0, 3.0])
    assert len(stagings) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _grad(f, [1.0, 2.0])  # taped: no staging at all
        assert len(stagings) == 2
        _grad(f, [0.5, 1.0, -1.0])  # remembered: traced from the start, no new try
        assert stagings[2:] == ["staged from the start"]
        _grad(f, [4.0, 5.0])
        assert len(stagings) == 3


def test_a_jax_user_s_function_falls_back_per_function_too(stagings):
    """The same through tf.valueAndGrad with a JAX-style f (jnp on Tensors)."""

    def make():
        return lambda x: jax.vmap(lambda r: jnp.dot(r, jnp.tanh(x)))(jnp.eye(2)).sum()

    for _ in range(2):
        with pytest.warns(UserWarning, match="cannot record"):
            value, grad = tf.valueAndGrad(make())(tf.tensor1d([0.5, -0.25]))
        want = jax.grad(lambda a: jnp.sum(jnp.tanh(a)))(jnp.asarray([0.5, -0.25]))
        np.testing.assert_allclose(np.asarray(grad), want, rtol=1e-6)
        np.testing.assert_allclose(float(value), np.tanh(0.5) + np.tanh(-0.25), rtol=1e-6)
