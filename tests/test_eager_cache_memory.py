"""Issue #36: an eager loop that compiles a program per new batch length keeps its memory
bounded by the compile cache's budget.

JAX keeps, for each program it compiles, what it traced and lowered on the way (jaxprs,
lowered modules) in caches of its own, for as long as the jitted function lives: about as
much again as the executable. Evicting a program from the eager cache drops those too, so
they do not pile up as new lengths go by.
"""

from __future__ import annotations

import collections
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tfjs_grad as tf
from tfjs_grad import _jax_internals, _trace


def _staging_entries() -> int:
    """How many entries JAX's Python-side tracing and lowering caches hold now."""
    from jax._src.util import _caches  # what drop_staging_caches empties

    total = 0
    for cache in list(_caches):
        info = getattr(cache, "cache_info", None)
        total += (getattr(info(), "currsize", 0) or 0) if info is not None else 0
    return total


@pytest.fixture
def small_cache(monkeypatch):
    """An empty eager cache with room for about three programs: every new length evicts."""
    monkeypatch.setattr(_trace, "_compiled", collections.OrderedDict())
    monkeypatch.setattr(_trace, "CACHE_BYTES", 3 * _trace._MIN_ENTRY_BYTES)


def _entries_as_lengths_go_by(update, lengths: range) -> list[int]:
    sizes = []
    with warnings.catch_warnings():  # the many-shapes warning: tests/test_recompiles.py
        warnings.simplefilter("ignore")
        for n in lengths:
            update(n)
            sizes.append(_staging_entries())
    return sizes


def _assert_bounded(sizes: list[int]) -> None:
    # Without the drop, each new length adds its traced and lowered programs for good.
    half = len(sizes) // 2
    assert max(sizes[half:]) <= max(sizes[:half]), sizes


def test_a_tfjs_loop_over_new_lengths_keeps_jax_staging_caches_bounded(small_cache):
    rng = np.random.default_rng(36)
    w = tf.variable(tf.randomNormal([6, 8], 0, 0.5, "float32", 36))
    v = tf.variable(tf.randomNormal([8, 1], 0, 0.5, "float32", 37))
    optimizer = tf.train.adam(1e-2)

    def update(n: int) -> float:
        states = rng.standard_normal((n, 6)).astype(np.float32)
        actions = (states[:, :1] > 0).astype(np.float32)

        def step():
            s, a = tf.tensor(states), tf.tensor(actions)
            logits = lambda: s.matMul(w).relu().matMul(v)  # noqa: E731
            return optimizer.minimize(lambda: tf.losses.sigmoidCrossEntropy(a, logits()), True)

        return tf.tidy(step).dataSync()[0]

    evictions = _trace.stats["evictions"]
    sizes = _entries_as_lengths_go_by(update, range(40, 56))
    assert _trace.stats["evictions"] > evictions
    _assert_bounded(sizes)


def test_a_jax_loss_over_new_lengths_keeps_jax_staging_caches_bounded(small_cache):
    rng = np.random.default_rng(37)
    w = tf.variable(jnp.asarray(rng.standard_normal((5, 1)), jnp.float32))
    optimizer = tf.train.adam(1e-2)
    before = np.asarray(w.value).copy()

    def update(n: int) -> float:
        states = jnp.asarray(rng.standard_normal((n, 5)), jnp.float32)
        actions = (states[:, :1] > 0).astype(jnp.float32)

        def loss():
            logits = jax.nn.relu(states @ w.value) - 0.5
            return optax.sigmoid_binary_cross_entropy(logits, actions).mean()

        return float(optimizer.minimize(loss, True))

    sizes = _entries_as_lengths_go_by(update, range(70, 86))
    _assert_bounded(sizes)
    assert not np.allclose(np.asarray(w.value), before)  # it trained


def test_dropping_the_staging_caches_keeps_compiled_programs(compiles):
    f = jax.jit(lambda x: jnp.sin(x) * 2)
    x = jnp.arange(3.0)
    want, sines = np.asarray(f(x)), np.asarray(jnp.sin(x))  # jitted, and one op by itself
    del compiles[:]
    _jax_internals.drop_staging_caches()
    np.testing.assert_allclose(np.asarray(f(x)), want)
    np.testing.assert_allclose(np.asarray(jnp.sin(x)), sines)
    assert compiles == []


def test_the_private_staging_caches_are_found():
    assert _jax_internals._staging_caches is not None


def test_without_the_staging_caches_dropping_them_does_nothing(monkeypatch):
    monkeypatch.setattr(_jax_internals, "_staging_caches", None)
    _jax_internals.drop_staging_caches()
    w = tf.variable(tf.tensor1d([1.0, 2.0]))
    tf.train.sgd(0.5).minimize(lambda: w.square().sum())
    np.testing.assert_allclose(np.asarray(w.value), [0.0, 0.0])
