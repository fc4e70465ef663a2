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
from typing import Any, TypeVar

R = TypeVar("R", bound=tuple[Any, ...])


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


class ByKey:
    """Mixin: `result['field']` and `result.snake_field` beside the NamedTuple's fields.

    >>> from typing import NamedTuple
    >>> class PaddedFields(NamedTuple):
    ...     selectedIndices: int
    ...     validOutputs: int
    >>> class Padded(ByKey, PaddedFields):
    ...     __slots__ = ()
    >>> r = Padded(3, 4)
    >>> r["selectedIndices"], r.valid_outputs, r[1], r.keys()
    (3, 4, 4, ('selectedIndices', 'validOutputs'))
    """

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


def from_arrays(result: type[R], *arrays: Any) -> R:
    """An op body's `result` of its arrays (or lists of arrays), which the op returns as
    Tensors: the fields are typed as the op's caller sees them.

    >>> import jax.numpy as jnp
    >>> from tfjs_grad.ops.sorting import TopK
    >>> from_arrays(TopK, jnp.ones(2), jnp.arange(2))["indices"].tolist()
    [0, 1]
    """
    return result(*arrays)
