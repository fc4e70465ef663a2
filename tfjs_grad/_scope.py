"""Which Tensors a `tf.tidy` disposes: the ones tfjs_grad's own functions made inside it.

Every public function that returns new arrays (ops, tensor constructors, operators,
gradients, losses) passes its result through `track`, which wraps its arrays in
`tf.Tensor`s and records those in the innermost open scope of the current thread or
async context. A scope holds weak references only, so it never keeps a Tensor alive that
Python would free. Arrays made by plain `jax.numpy` calls are not recorded: Python frees
them when they are dropped.
"""

from __future__ import annotations

import contextvars
import weakref
from typing import Any, TypeVar, overload

import jax
from jax.core import Tracer

from . import _tape
from ._tensor import Tensor, map_leaves

T = TypeVar("T")

_innermost: contextvars.ContextVar[list[weakref.ref[Any]] | None] = contextvars.ContextVar(
    "tfjs_grad_tidy_scope", default=None
)


@overload
def track(result: jax.Array, inputs: tuple[Any, ...] = ()) -> Tensor: ...
@overload
def track(result: T, inputs: tuple[Any, ...] = ()) -> T: ...
def track(result: Any, inputs: tuple[Any, ...] = ()) -> Any:
    """`result` with its arrays as `tf.Tensor`s, each new one recorded in the current tidy
    scope (in lists, tuples, dicts and NamedTuples too); Tensors already in it stay as
    they are. `inputs` is accepted for older callers and ignored: a tidy detaches the
    Tensors it recorded, never the buffers they share with anyone else.
    """
    kind = type(result)
    if kind is Tensor:  # (a tidy's usual result: before the ABC checks below)
        return result
    if kind in _CONCRETE:  # the common case: one concrete array (a set lookup, no ABC check)
        tensor = Tensor(result)
        made = _innermost.get()
        if made is not None:
            made.append(weakref.ref(tensor))
        return tensor  # type: ignore[return-value]
    if kind in _TRACERS:
        tensor = Tensor(result)
        _tape.made_traced(tensor)  # (an eager gradient call's f disposes it at its end)
        return tensor  # type: ignore[return-value]
    if isinstance(result, _ARRAYS):
        (_TRACERS if isinstance(result, Tracer) else _CONCRETE).add(kind)
        return track(result)
    if result is None or isinstance(result, (Tensor, bool, int, float, str)):
        return result
    made = _innermost.get()

    def wrap(leaf: Any) -> Any:
        if isinstance(leaf, Tensor):
            return leaf
        tensor = Tensor(leaf)
        if isinstance(leaf, Tracer):
            _tape.made_traced(tensor)
        elif made is not None:
            made.append(weakref.ref(tensor))
        return tensor

    return map_leaves(wrap, result)


_ARRAYS = (jax.Array, Tracer)
_CONCRETE: set[type] = set()  # concrete array types seen (jax's ArrayImpl)
_TRACERS: set[type] = set()  # tracer types seen


def record(tensors: Any) -> None:
    """Record Tensors made elsewhere (a nested tidy's result) in the current scope."""
    made = _innermost.get()
    if made is None:
        return
    for tensor in tensors:
        made.append(weakref.ref(tensor))


def record_one(tensor: Tensor) -> None:
    """`record((tensor,))`, for the one Tensor most ops return."""
    made = _innermost.get()
    if made is not None:
        made.append(weakref.ref(tensor))


class scope:  # noqa: N801 (used as a function: `with scope() as made`)
    """Open a scope; `with scope() as made`: the list its arrays are recorded in.

    (A class rather than a generator context manager: every `tf.tidy` opens one.)

    >>> with scope() as made:
    ...     tensor = track(jax.numpy.ones(2))
    >>> [ref() is tensor for ref in made]
    [True]
    """

    __slots__ = ("made", "token")

    def __enter__(self) -> list[weakref.ref[Any]]:
        self.made: list[weakref.ref[Any]] = []
        self.token = _innermost.set(self.made)
        return self.made

    def __exit__(self, *exc: object) -> None:
        _innermost.reset(self.token)
