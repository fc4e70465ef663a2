"""Which arrays a `tf.tidy` may free: the ones tfjs_grad's own functions made inside it.

Every public function that returns new arrays (ops, tensor constructors, gradients,
losses) passes its result through `track`, which records it in the innermost open
tidy scope of the current thread/context. (Stub: the recording lands with the
ownership work; until then `track` returns its argument unchanged.)
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def track(result: T) -> T:
    """Record the arrays in `result` as made by the current tidy scope; return it."""
    return result
