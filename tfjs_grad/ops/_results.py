"""tfjs's object results (`{values, indices}`, `{selectedIndices, validOutputs}`, ...).

An op that returns a JS object returns a NamedTuple with tfjs's camelCase field names, which
also answers `r['values']` (as the JS object would) and the snake_case attribute
(`r.selected_indices`). Being a NamedTuple, it is a JAX pytree: it passes through `jax.jit`,
`jax.vmap` and the gradient functions.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class _ByKey:
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
    return type(typename, (_ByKey, base), {"__slots__": ()})
