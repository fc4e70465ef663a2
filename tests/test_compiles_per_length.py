"""Issue #36: an eager loop whose batch length changes compiles exactly one XLA program per
new length, and keeps what its cache budget holds once it has started evicting.

Counted with the `compiles` fixture (jax.monitoring's backend-compile events), after one
warm-up step that compiles what a loop compiles once (the optimizer's slots). Each test
uses its own feature width, so no other test's programs are in the cache.
"""

from __future__ import annotations

import collections
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import optax

import tfjs_grad as tf
from tfjs_grad import _trace


def _episodes(width: int):
    """`episode(n)`: n rows of host data (states, actions, advantages), seeded."""
    rng = np.random.default_rng(width)

    def episode(n: int):
        states = rng.standard_normal((n, width)).astype(np.float32)
        actions = (rng.random((n, 1)) < 0.5).astype(np.float32)
        return states, actions, rng.standard_normal((n, 1)).astype(np.float32)

    return episode


def _tfjs_policy_update(width: int):
    """`update(n)`: one tfjs-style policy step on a new episode of n rows, its loss."""
    w = tf.variable(tf.randomNormal([width, 16], 0, 0.5, "float32", width))
    b = tf.variable(tf.zeros([16]))
    v = tf.variable(tf.randomNormal([16, 1], 0, 0.3, "float32", width + 1))
    optimizer = tf.train.adam(1e-3)
    episode = _episodes(width)

    def update(n: int) -> float:
        states, actions, advantages = episode(n)

        def step():
            s, a, adv = tf.tensor(states), tf.tensor(actions), tf.tensor(advantages)
            logits = lambda: s.matMul(w).add(b).relu().matMul(v)  # noqa: E731
            return optimizer.minimize(lambda: tf.losses.sigmoidCrossEntropy(a, logits(), adv), True)

        return tf.tidy(step).dataSync()[0]

    return update


def _quietly(run) -> None:
    with warnings.catch_warnings():  # the many-shapes warning: tests/test_recompiles.py
        warnings.simplefilter("ignore")
        run()


def test_a_tfjs_policy_loop_compiles_exactly_one_program_per_new_length(compiles):
    update = _tfjs_policy_update(14)
    update(5)
    del compiles[:]
    lengths = [30, 31, 30, 47, 12, 31, 12, 60, 61, 47, 62, 63, 30, 64]
    _quietly(lambda: [update(n) for n in lengths])
    assert len(compiles) == len(set(lengths)), compiles


def test_a_jax_users_loss_compiles_exactly_one_program_per_new_length(compiles):
    rng = np.random.default_rng(15)
    w = tf.variable(jnp.asarray(rng.standard_normal((15, 1)), jnp.float32))
    optimizer = tf.train.adam(1e-2)

    def update(states: jax.Array, actions: jax.Array) -> float:
        def loss():
            logits = jax.nn.relu(states @ w.value) - 0.5
            return optax.sigmoid_binary_cross_entropy(logits, actions).mean()

        return float(optimizer.minimize(loss, True))

    def episode(n: int) -> tuple[jax.Array, jax.Array]:
        states = rng.standard_normal((n, 15)).astype(np.float32)
        return jax.device_put(states), jax.device_put((states[:, :1] > 0).astype(np.float32))

    update(*episode(3))
    del compiles[:]
    lengths = [20, 21, 20, 33, 21, 9, 40, 41, 42, 43, 9]
    before = np.asarray(w.value).copy()
    _quietly(lambda: [update(*episode(n)) for n in lengths])
    assert len(compiles) == len(set(lengths)), compiles
    assert not np.allclose(np.asarray(w.value), before)  # it trained


def test_a_loop_past_its_first_evictions_keeps_what_the_budget_holds(compiles, monkeypatch):
    # Each eviction gives freed memory back to the OS; the compile after it used to count
    # the scratch memory it then took anew as its own (several times its executable), so a
    # full cache shrank to a few entries and recompiled lengths it had just seen.
    monkeypatch.setattr(_trace, "_compiled", collections.OrderedDict())
    monkeypatch.setattr(_trace, "CACHE_BYTES", 40 * 2**20)
    update = _tfjs_policy_update(16)
    evictions = _trace.stats["evictions"]
    _quietly(lambda: [update(n) for n in range(100, 125)])  # past the budget
    assert _trace.stats["evictions"] > evictions
    del compiles[:]
    lengths = (10, 11, 12, 13)  # four programs: a fraction of the budget
    _quietly(lambda: [update(n) for _ in range(3) for n in lengths])
    assert len(compiles) == len(lengths), compiles
    assert sum(entry.bytes for entry in _trace._compiled.values()) <= _trace.CACHE_BYTES
