"""Which arrays a `tf.tidy` may free: the ones tfjs_grad's own functions made inside it.

Every public function that returns new arrays (ops, tensor constructors, operators on
Variables, gradients, losses) passes its result through `track`, which records it in
the innermost open scope of the current thread or async context. A scope holds weak
references only, so it never keeps an array alive that Python would free. Arrays made
by plain `jax.numpy` calls are not recorded: Python frees them when they are dropped.
"""

from __future__ import annotations

import contextlib
import contextvars
import weakref
from collections.abc import Iterator
from typing import Any, TypeVar

import jax
from jax.core import Tracer

T = TypeVar("T")

_innermost: contextvars.ContextVar[list[weakref.ref[Any]] | None] = contextvars.ContextVar(
    "tfjs_grad_tidy_scope", default=None
)


def track(result: T, inputs: tuple[Any, ...] = ()) -> T:
    """Record the arrays in `result` as made in the current tidy scope; return `result`.

    `inputs` are the caller's arguments: a result that *is* one of them (JAX returns an
    array unchanged where nothing needs doing) was not made here and is not recorded.
    """
    made = _innermost.get()
    if made is None:
        return result
    leaves = [result] if isinstance(result, jax.Array) else jax.tree.leaves(result)
    for leaf in leaves:
        if (
            isinstance(leaf, jax.Array)
            and not isinstance(leaf, Tracer)
            and not any(leaf is x for x in inputs)
        ):
            made.append(weakref.ref(leaf))
    return result


@contextlib.contextmanager
def scope() -> Iterator[list[weakref.ref[Any]]]:
    """Open a scope; yields the list its arrays are recorded in."""
    made: list[weakref.ref[Any]] = []
    token = _innermost.set(made)
    try:
        yield made
    finally:
        _innermost.reset(token)
