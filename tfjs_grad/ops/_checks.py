"""Argument checks shared by the ops, raising tfjs's ValueError messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _js


def shape_arg(shape: Any) -> tuple[int, ...]:
    """A shape argument as a tuple of ints; tfjs's message for negative or fractional dims."""
    if isinstance(shape, (int, np.integer)):
        shape = [shape]
    dims = list(shape)
    if not all(
        isinstance(d, (int, float, np.integer, np.floating))
        and not isinstance(d, bool)
        and d >= 0
        and float(d).is_integer()
        for d in dims
    ):
        raise ValueError(
            "Tensor must have a shape comprised of positive integers but got shape "
            f"[{_js.array(dims)}]."
        )
    return tuple(int(d) for d in dims)


def axes(axis: int | Sequence[int] | None, rank: int) -> tuple[int, ...]:
    """tfjs's `parseAxisParam`: None is every axis; negative axes count from the end."""
    listed = list(range(rank)) if axis is None else list(np.atleast_1d(np.asarray(axis)))
    if not all(-rank <= a < rank for a in listed):
        raise ValueError(
            f"All values in axis param must be in range [-{rank}, {rank}) but got axis "
            f"{_js.array(listed)}"
        )
    if not all(float(a).is_integer() for a in listed):
        raise ValueError(
            f"All values in axis param must be integers but got axis {_js.array(listed)}"
        )
    return tuple(int(a) + rank if a < 0 else int(a) for a in listed)


def broadcast(*shapes: Sequence[int]) -> tuple[int, ...]:
    """The broadcast of `shapes`, folded pairwise left to right as tfjs's ops do."""
    result = tuple(shapes[0])
    for shape in shapes[1:]:
        shape = tuple(shape)
        rank = max(len(result), len(shape))
        a = (1,) * (rank - len(result)) + result
        b = (1,) * (rank - len(shape)) + shape
        if any(x != y and x != 1 and y != 1 for x, y in zip(a, b)):
            raise ValueError(
                "Operands could not be broadcast together with shapes "
                f"{_js.array(result)} and {_js.array(shape)}."
            )
        result = tuple(y if x == 1 else x for x, y in zip(a, b))
    return result


def elementwise(fn: Callable[[Any, Any], Any], a: Any, b: Any) -> Any:
    """`fn(a, b)` after checking that the shapes broadcast, with tfjs's message if not."""
    broadcast(a.shape, b.shape)
    return fn(a, b)


def pair(value: int | Sequence[int]) -> tuple[int, int]:
    """tfjs's `parseTupleParam` for 2-D ops: 2 -> (2, 2), [2, 3] -> (2, 3)."""
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    first, second = value
    return int(first), int(second)
