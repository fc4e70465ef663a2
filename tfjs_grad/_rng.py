"""Where random ops get their keys: `next_key(seed)`.

A seed gives `jax.random.key(seed)`, so seeded draws are reproducible. Without one, the key
is split from a process-global key made once from OS entropy, so unseeded draws differ per
call and per process, as tfjs's do. Every unseeded key comes from `next_key`: this is the
one place that holds the generator state.

The state lives in a hidden Variable (outside the registry): inside a `tf.jit` step it is
threaded through the compiled program like any Variable the step uses, so every call of
the step draws new numbers without retracing.
"""

from __future__ import annotations

import os

import jax
import numpy as np

from . import _store
from .variables import Variable, hidden_variable, write

_state: list[Variable] = []  # [the generator's hidden Variable: raw key data], made on first use


_IMPL = "threefry2x32"


def _generator() -> Variable:
    if not _state:
        # jax.random.key(int) keeps only 32 bits of an int seed: use 64 bits of entropy.
        words = jax.numpy.asarray(np.frombuffer(os.urandom(8), dtype=np.uint32))
        _state.append(hidden_variable(words, "<random generator>"))
    return _state[0]


def _split(state: Variable) -> jax.Array:
    new, key = jax.random.split(jax.random.wrap_key_data(state.read(), impl=_IMPL))
    write(state, jax.random.key_data(new))
    return key


def next_key(seed: int | None) -> jax.Array:
    """The key for one random draw: from `seed`, or fresh from the process's generator.

    Unseeded keys are concrete even while JAX traces (they are split outside the trace), so
    no tracer ever reaches the generator state; under plain `jax.jit` the key is fixed when
    the function is traced.

    >>> from tfjs_grad._rng import next_key
    >>> import jax
    >>> bool((jax.random.key_data(next_key(3)) == jax.random.key_data(next_key(3))).all())
    True
    >>> bool((jax.random.key_data(next_key(None)) == jax.random.key_data(next_key(None))).all())
    False
    """
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"Argument 'seed' must be an int, but got '{type(seed).__name__}'")
        return jax.random.key(int(seed))
    with _store.LOCK:  # the store's lock: tf.jit holds it while it traces and commits
        if _store.tracking():  # inside tf.jit: the state is an input and output of the step
            return _split(_generator())
        with jax.ensure_compile_time_eval(), _store.detached():
            return _split(_generator())
