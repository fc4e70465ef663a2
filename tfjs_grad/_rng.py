"""Where random ops get their keys: `next_key(seed)`.

A seed gives `jax.random.key(seed)`, so seeded draws are reproducible. Without one, the key
is split from a process-global key made once from OS entropy, so unseeded draws differ per
call and per process, as tfjs's do. Every unseeded key comes from `next_key`: this is the
one place that holds the generator state.
"""

from __future__ import annotations

import os
import threading

import jax
import numpy as np

_lock = threading.Lock()
_state: list[jax.Array] = []  # [the global key], made on first use


def _entropy_key() -> jax.Array:
    # jax.random.key(int) keeps only 32 bits of an int seed; wrap 64 bits of entropy instead.
    words = jax.numpy.asarray(np.frombuffer(os.urandom(8), dtype=np.uint32))
    return jax.random.wrap_key_data(words, impl="threefry2x32")


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
    with _lock, jax.ensure_compile_time_eval():
        if not _state:
            _state.append(_entropy_key())
        _state[0], key = jax.random.split(_state[0])
    return key
