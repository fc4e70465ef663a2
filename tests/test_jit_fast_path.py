"""Which calls of a `tf.jit` step take the fast path (the buffers the last call committed
donated as they are, no gather): calls with NumPy scalars too, as with arrays and Python
numbers. Every value the fast calls return is checked against the same loop run eagerly."""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
import numpy as np
import pytest
from call_counting import calls_into

import tfjs_grad as tf
from tfjs_grad.jit import Jitted


@pytest.fixture(autouse=True)
def _clean():
    yield
    tf.dispose_variables()


def _full_calls(call: Any) -> int:
    """How many times `call()` enters a tf.jit step's full (gathering) path."""
    return calls_into(Jitted._call_full.__code__, call)


def _accumulate(step: Any, values: list[Any]) -> list[float]:
    return [float(np.asarray(step(v))) for v in values]


def test_numpy_scalar_arguments_take_the_fast_path_with_each_call_s_value():
    """A tfjs user's step fed `np.float32` rates: after the first call none gathers, and
    each call adds the value it was given (nothing is baked into the program)."""
    total = tf.variable(tf.scalar(0.0))

    @tf.jit
    def add(amount):
        total.assign(total.add(amount))
        return total.mul(2)

    values = [np.float32(v) for v in (0.5, 1.25, -3.0, 7.0, 0.125)]
    first = _accumulate(add, values[:1])
    fast = []
    assert _full_calls(lambda: fast.extend(_accumulate(add, values[1:]))) == 0
    expected = 2 * np.cumsum(np.asarray(values, np.float64))
    np.testing.assert_allclose([*first, *fast], expected, rtol=1e-6)
    assert add.trace_count == 1


def test_a_jax_user_mixing_numpy_scalars_arrays_and_jnp_values():
    """`np.int32`, `np.float32`, a NumPy array and a jnp array in one call; a new dtype
    retraces (through the fast path's hand-off to the full one) and stays correct."""
    w = tf.variable(tf.tensor1d([1.0, 2.0]))

    @tf.jit
    def step(scale, shift, x, y):
        w.assign(w.value * scale + shift + jnp.sum(x) - jnp.sum(y))
        return w.value.sum()

    eager = np.array([1.0, 2.0], np.float32)
    x, y = np.ones(3, np.float32), jnp.ones(2)
    for i in range(4):
        scale, shift = np.int32(i % 2 + 1), np.float32(0.25 * i)
        out = step(scale, shift, x, y)
        eager = eager * np.float32(scale) + shift + np.float32(1.0)
        np.testing.assert_allclose(float(out), eager.sum(), rtol=1e-6)
    assert step.trace_count == 1
    step(np.float64(2.0), np.float32(0.0), x, y)  # another argument type: a trace
    assert _full_calls(lambda: step(np.float64(2.0), np.float32(0.0), x, y)) == 0
    for _ in range(2):
        eager = eager * np.float32(2.0) + np.float32(1.0)
    np.testing.assert_allclose(np.asarray(w.value), eager, rtol=1e-6)
    # (reading w.value lends its buffer out: the next call gathers a copy to donate)
    assert _full_calls(lambda: step(np.int32(1), np.float32(0.0), x, y)) == 1
    np.testing.assert_allclose(np.asarray(w.value), eager + 1, rtol=1e-6)


def test_a_new_shape_on_the_fast_path_hands_over_to_a_trace_and_back():
    """A tfjs user's step called with a batch of another length after fast calls: the
    trace the fast call would start is handed to the full path; both shapes stay right."""
    total = tf.variable(tf.scalar(0.0))

    @tf.jit
    def add_sum(x):
        total.assign(total.add(x.sum()))
        return total.value

    expected = 0.0
    for length in (2, 2, 2, 3, 3, 2, 5, 2):
        x = np.arange(length, dtype=np.float32)
        expected += float(x.sum())
        assert float(np.asarray(add_sum(x))) == expected
    assert add_sum.trace_count == 3
    assert _full_calls(lambda: add_sum(np.ones(2, np.float32))) == 0
    assert _full_calls(lambda: add_sum(np.ones(7, np.float32))) == 1  # a new shape
    assert float(np.asarray(total.value)) == expected + 9.0
