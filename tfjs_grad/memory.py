"""tfjs's memory API over JAX's live arrays: `tidy`, `keep`, `dispose`, `memory`.

JAX frees an array when Python drops its last reference, so ported code is leak-free
without these; they exist so tfjs code runs unchanged and can free device memory
early. All are no-ops while JAX is tracing (inside `jit`, `vmap`, `grad`, `tf.jit`).

`tidy` frees the arrays that tfjs_grad's functions (ops, constructors, operators on
Variables, gradients, losses) made inside it, in its own thread or async context only;
a Variable's current value is never freed by `tidy` or `dispose` (dispose the Variable).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar, overload

import jax

from . import _scope, _tape
from ._jax_internals import tracing
from ._tensor import Tensor
from .variables import variable_buffer_ids

T = TypeVar("T")

_kept: dict[int, weakref.ref[Any]] = {}


class Memory(NamedTuple):
    """What `memory()` reports: live arrays (each Variable's buffer counts once) and bytes."""

    num_tensors: int
    num_bytes: int

    @property
    def numTensors(self) -> int:  # noqa: N802 (tfjs's field name)
        return self.num_tensors

    @property
    def numBytes(self) -> int:  # noqa: N802 (tfjs's field name)
        return self.num_bytes


def memory() -> Memory:
    """Live device arrays and their bytes.

    >>> import tfjs_grad as tf
    >>> before = tf.memory().num_tensors
    >>> x = tf.ones([10])
    >>> tf.memory().num_tensors - before, tf.memory().num_bytes >= 40
    (1, True)
    """
    arrays = [a for a in jax.live_arrays() if not a.is_deleted()]
    return Memory(len(arrays), sum(a.nbytes for a in arrays))


def keep(x: T) -> T:
    """Mark an array so no enclosing `tidy` frees it; returns it unchanged.

    >>> import tfjs_grad as tf
    >>> kept = []
    >>> tf.tidy(lambda: kept.append(tf.keep(tf.ones([2]))))
    >>> kept[0].tolist()
    [1.0, 1.0]
    """
    if not isinstance(x, (Tensor, jax.Array)):
        raise TypeError(f"keep() expects a Tensor, but got '{type(x).__name__}'")
    _tape.keep(x)  # a value f computed, kept inside f's tidy: it outlives the call
    key = id(x)
    # (the bound pop outlives the module's globals, which interpreter shutdown clears)
    _kept[key] = weakref.ref(x, lambda _ref, key=key, pop=_kept.pop: pop(key, None))
    return x


def _walk(obj: Any, found: dict[int, Any], seen: set[int]) -> None:
    """Collect arrays and Variables reachable through containers and object attributes."""
    if id(obj) in seen or obj is None or isinstance(obj, (str, bytes, int, float, bool)):
        return
    seen.add(id(obj))
    if isinstance(obj, (Tensor, jax.Array)):
        found[id(obj)] = obj
    elif isinstance(obj, dict):
        for value in obj.values():
            _walk(value, found, seen)
    elif isinstance(obj, (list, tuple, set, frozenset)):
        for value in obj:
            _walk(value, found, seen)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type) and not callable(obj):
        for value in vars(obj).values():
            _walk(value, found, seen)


def dispose(x: Any) -> None:
    """Free every array and Variable in `x` (any nesting of lists, tuples, dicts).

    >>> import tfjs_grad as tf
    >>> a, b = tf.ones([2]), tf.zeros([3])
    >>> tf.dispose({"a": a, "rest": [b]})
    >>> a.isDisposed, b.isDisposed
    (True, True)
    """
    if tracing():
        return
    found: dict[int, Any] = {}
    _walk(x, found, set())
    owned_by_variables = variable_buffer_ids()
    for obj in found.values():
        if isinstance(obj, Tensor):  # a Variable disposes itself; a Tensor detaches
            obj.dispose()
        elif id(obj) not in owned_by_variables and not obj.is_deleted():
            obj.delete()


@overload
def tidy(name_or_fn: Callable[[], T]) -> T: ...
@overload
def tidy(name_or_fn: str, fn: Callable[[], T]) -> T: ...
def tidy(name_or_fn: Any, fn: Any = None) -> Any:
    """Run `fn`; then dispose the Tensors tfjs_grad's functions made in it, except those it
    returns or `keep`s (a disposed Tensor lets go of its buffer, which is freed once no
    one else holds it).

    Only this thread's (or async task's) arrays are freed, never a Variable's value.
    Arrays made by plain `jax.numpy` calls are left to Python's reference counting.

    >>> import tfjs_grad as tf
    >>> made = []
    >>> y = tf.tidy(lambda: (made.append(tf.ones([3])) or made[0] * 2).sum())
    >>> float(y), made[0].isDisposed
    (6.0, True)
    """
    if fn is None:
        if not callable(name_or_fn):
            raise TypeError("Please provide a function to tidy()")
        fn = name_or_fn
    else:
        if not isinstance(name_or_fn, str):
            raise TypeError(
                "When calling with two arguments, the first argument to tidy() must be a string"
            )
        if not callable(fn):
            raise TypeError(
                "When calling with two arguments, the 2nd argument to tidy() must be a function"
            )
    if tracing():
        return fn()
    passed_up: list[Any] = []
    with _scope.scope() as made:
        result = None
        try:
            result = fn()
        finally:
            returned: dict[int, Any] = {}
            if type(result) is Tensor:  # (the usual result: no walk)
                returned[id(result)] = result
            else:
                _walk(result, returned, set())
            for tensor in [t for ref in made if (t := ref()) is not None]:
                if id(tensor) in returned:
                    passed_up.append(tensor)
                elif id(tensor) not in _kept:
                    tensor.dispose()
    # What this scope made and returns belongs to the enclosing one (and only that: a
    # tensor made outside and returned through nested tidies stays its maker's).
    _scope.record(passed_up)
    return _scope.track(result)
