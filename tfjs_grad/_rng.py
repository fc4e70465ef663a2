"""Where random ops get their keys: `next_key(seed)`.

A seed gives `jax.random.key(seed)`, so seeded draws are reproducible. Without one, the key
is split from a process-global key made once from OS entropy, so unseeded draws differ per
call and per process, as tfjs's do. Every unseeded key comes from `next_key`: this is the
one place that holds the generator state.

The state lives in a hidden Variable (outside the registry): inside a `tf.jit` step it is
threaded through the compiled program like any Variable the step uses, so every call of
the step draws new numbers without retracing. `get_state()` holds it under the reserved
name `GENERATOR_STATE_NAME`, so a `functionalize`d function given that state threads it
too: its draws depend on the state passed, as any JAX function's do on its key.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import jax
import numpy as np

from . import _jax_internals, _store
from .variables import GENERATOR_STATE_NAME, Variable, hidden_variable, write


class UnseededDrawWarning(UserWarning):
    """An unseeded random op traced by a JAX transform that repeats its numbers."""


_state: list[Variable] = []  # [the generator's hidden Variable: raw key data], made on first use


_IMPL = "threefry2x32"


def generator() -> Variable:
    """The generator's hidden Variable (its raw key data), made on first use."""
    with _store.LOCK:
        if not _state:  # concrete even when first made while JAX traces
            # jax.random.key(int) keeps only 32 bits of an int seed: use 64 bits of entropy.
            with jax.ensure_compile_time_eval():
                words = jax.numpy.asarray(np.frombuffer(os.urandom(8), dtype=np.uint32))
            _state.append(hidden_variable(words, GENERATOR_STATE_NAME))
    return _state[0]


def _split(state: Variable) -> jax.Array:
    new, key = jax.random.split(jax.random.wrap_key_data(state.raw(), impl=_IMPL))
    write(state, jax.random.key_data(new))
    return key


# Frames skipped to find the user's line for a warning: this package's and JAX's.
_SKIPPED = tuple(os.path.dirname(os.path.abspath(f)) + os.sep for f in (__file__, jax.__file__))


def _user_stacklevel() -> int:
    """The stacklevel of the first frame outside tfjs_grad and JAX: the user's call."""
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_code.co_filename.startswith(_SKIPPED):
        frame, level = frame.f_back, level + 1
    return level


def _warn_if_repeated(fn: str, threaded: bool) -> None:
    """Warn when the trace running now would reuse an unseeded draw's key: under jax.vmap
    every row, under jax.jit (or scan, make_jaxpr, ...) every call unless the generator's
    state is `threaded` through the program (tf.jit, a functionalized fn given it)."""
    if not _jax_internals.tracing():
        return
    kinds = _jax_internals.trace_kinds()
    if kinds and "BatchTrace" in kinds:
        repeats = (
            "under jax.vmap one key serves the whole batch, so every row draws the same "
            "numbers. Draw the batch's numbers outside jax.vmap (in a tf.jit step, new ones "
            "on every call), or pass a different `seed=` per row"
        )
    elif threaded or (_store.current() is not None and not _fixed.get()):
        return  # the program takes and returns the generator; eager gradients retrace
    elif kinds is None or "DynamicJaxprTrace" in kinds:
        repeats = (
            "under jax.jit (or any JAX trace outside tf.jit) its key is fixed when the "
            "function is traced, so every call draws the same numbers. Wrap the step in "
            "tf.jit, which draws new numbers on every call, or pass `seed=` (a different "
            "one per call)"
        )
        if _fixed.get():
            repeats += (
                f", or give the functionalized fn a state with the {GENERATOR_STATE_NAME!r} "
                "entry of tf.get_state() and thread it"
            )
    else:
        return  # jax.grad alone runs the function anew on every call
    warnings.warn(
        f"{fn} without a seed: {repeats}.",
        UnseededDrawWarning,
        stacklevel=_user_stacklevel(),
    )


_fixed: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "tfjs_grad_fixed_generator", default=False
)


@contextlib.contextmanager
def unthreaded() -> Iterator[None]:
    """Within: a functionalized fn runs on a state without the generator's. If jax.jit (or
    scan, ...) traces it now, its unseeded draws are fixed at trace time, so they warn as
    under plain jax.jit."""
    kinds = _jax_internals.trace_kinds() if _jax_internals.tracing() else []
    token = _fixed.set(kinds is None or "DynamicJaxprTrace" in kinds)
    try:
        yield
    finally:
        _fixed.reset(token)


def next_key(seed: int | None, fn: str = "a random op") -> jax.Array:
    """The key for one random draw: from `seed`, or fresh from the process's generator.

    Where the generator is threaded (a `tf.jit` step, a functionalized fn given its state)
    the key is split from the state the program takes, and the advanced state is one of its
    results. Elsewhere unseeded keys are concrete even while JAX traces (they are split
    outside the trace), so no tracer ever reaches the generator state. Under plain `jax.jit`
    the key is fixed when the function is traced and under `jax.vmap` one key serves every
    row, so there an unseeded draw warns (`UnseededDrawWarning`, naming `fn`, `seed` and
    `tf.jit`).

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
    supply = _supply.get()
    if supply is not None:  # the eager tape: an op's shapes evaluated, or its call replayed
        if isinstance(supply, _Count):
            supply[0] += 1
            return jax.random.key(0)
        return supply.pop(0)  # the key the tape drew for this call
    with _store.LOCK:  # the store's lock: tf.jit holds it while it traces and commits
        state = generator()
        # inside tf.jit, or a functionalized fn given the state: it is an input and output
        threaded = _store.tracking() or _store.lookup(state.id)[0]
        _warn_if_repeated(fn, threaded)
        if threaded:
            return _split(state)
        with jax.ensure_compile_time_eval(), _store.detached():
            return _split(state)


_supply: contextvars.ContextVar[Any] = contextvars.ContextVar("tfjs_grad_keys", default=None)


class _Count(list):
    """[draws so far], in place of a key supply while an op's shapes are evaluated."""


@contextlib.contextmanager
def supplying(keys: list[Any]) -> Iterator[None]:
    """Unseeded draws inside take these keys in order (the eager tape's replay)."""
    token = _supply.set(list(keys))
    try:
        yield
    finally:
        _supply.reset(token)


@contextlib.contextmanager
def counting() -> Iterator[list[int]]:
    """Count the unseeded draws inside (each gets a dummy key); yields [count]."""
    count = _Count([0])
    token = _supply.set(count)
    try:
        yield count
    finally:
        _supply.reset(token)
