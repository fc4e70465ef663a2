"""tfjs's object results (`{values, indices}`, `{selectedIndices, validOutputs}`, ...).

An op that returns a JS object returns a NamedTuple with tfjs's camelCase field names, which
also answers `r['values']` (as the JS object would) and the snake_case attribute
(`r.selected_indices`). Being a NamedTuple, it is a JAX pytree: it passes through `jax.jit`,
`jax.vmap` and the gradient functions.

A result a type checker should see field by field is a class: a NamedTuple of its fields
(typed as the caller gets them, Tensors), with `ByKey` mixed in; an op's body builds it
from its arrays with `from_arrays` (the op returns them as Tensors).
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple, TypeVar

R = TypeVar("R", bound=tuple[Any, ...])


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class ByKey:
    """Mixin: `result['field']` and `result.snake_field` beside the NamedTuple's fields."""

    _fields: tuple[str, ...]

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            if key not in self._fields:
                raise KeyError(key)
            return getattr(self, key)
        return tuple.__getitem__(self, key)  # type: ignore[arg-type]

    def __getattr__(self, name: str) -> Any:
        for field in self._fields:
            if _snake(field) == name:
                return getattr(self, field)
        raise AttributeError(f"'{type(self).__name__}' has no field '{name}'")

    def keys(self) -> tuple[str, ...]:
        return self._fields


def result_type(typename: str, *fields: str) -> type:
    """A NamedTuple class with tfjs's `fields`, readable by key and by snake_case name.

    >>> TopK = result_type("TopK", "values", "indices")
    >>> r = TopK(1, 2)
    >>> r["indices"], r.values, r.indices
    (2, 1, 2)
    >>> Padded = result_type("Padded", "selectedIndices", "validOutputs")
    >>> Padded(3, 4).valid_outputs
    4
    """
    base = NamedTuple(typename, [(f, Any) for f in fields])  # type: ignore[misc]
    return type(typename, (ByKey, base), {"__slots__": ()})


def from_arrays(result: type[R], *arrays: Any) -> R:
    """An op body's `result` of its arrays (or lists of arrays), which the op returns as
    Tensors: the fields are typed as the op's caller sees them.

    >>> class Pair(ByKey, NamedTuple("PairFields", [("first", Any), ("second", Any)])):
    ...     __slots__ = ()
    >>> from_arrays(Pair, 1, 2)["second"]
    2
    """
    return result(*arrays)
