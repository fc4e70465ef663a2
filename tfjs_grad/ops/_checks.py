"""Argument checks shared by the ops, raising tfjs's ValueError messages."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Sequence
from typing import Any

import jax
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


MAX_ELEMENTS = 2**31 - 1
"""The most elements one tensor may have: tfjs's sizes and indices are int32."""


@functools.cache
def _memory_budget() -> int | None:
    """Bytes the default device can hold at most (None when it does not say)."""
    try:
        stats = jax.devices()[0].memory_stats() or {}
    except Exception:  # a backend without memory statistics
        stats = {}
    if "bytes_limit" in stats:
        return int(stats["bytes_limit"])
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # not a POSIX system
        return None


def _count_text(n: float) -> str:
    return str(int(n)) if math.isfinite(n) else _js.number(n)


def check_size(count: float, fn: str, argument: str, dtype: Any = None, what: str = "") -> int:
    """`count` elements (of `dtype`), checked before anything is allocated: an int at most
    `MAX_ELEMENTS` whose bytes fit in the device's memory, else ValueError naming the op and
    the argument that asked for them. Every op whose result's size comes from an argument
    (a shape, a depth, reps, a count) calls it with that size.

    >>> from tfjs_grad.ops import _checks
    >>> _checks.check_size(6, "zeros", "shape")
    6
    >>> _checks.check_size(2**40, "zeros", "shape")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ValueError: Argument 'shape' passed to 'zeros' asks for a tensor of 1099511627776 elements...
    """
    detail = f" ({what})" if what else ""
    if not count <= MAX_ELEMENTS:  # also NaN
        raise ValueError(
            f"Argument '{argument}' passed to '{fn}' asks for a tensor of "
            f"{_count_text(count)} elements{detail}, but a tensor holds at most "
            f"{MAX_ELEMENTS} elements"
        )
    count = int(count)
    if dtype is not None:
        nbytes = count * np.dtype(dtype).itemsize
        budget = _memory_budget()
        if budget is not None and nbytes > budget:
            raise ValueError(
                f"Argument '{argument}' passed to '{fn}' asks for a tensor of {count} "
                f"elements{detail}, {nbytes} bytes of {np.dtype(dtype).name}, more than the "
                f"device's memory ({budget} bytes)"
            )
    return count


def product(values: Any) -> float:
    """The product of dims (Python ints stay exact; inf or NaN in any factor gives inf).

    >>> from tfjs_grad.ops import _checks
    >>> _checks.product([2**40, 2**40]), _checks.product([3, float("inf")])
    (1208925819614629174706176, inf)
    """
    result: float = 1
    for v in values:
        v = v if isinstance(v, (int, np.integer)) else float(v)
        if isinstance(v, float) and not math.isfinite(v):
            return math.inf
        result *= int(v) if isinstance(v, np.integer) else v
    return result


def sized_shape(shape: Any, fn: str, dtype: Any = None, argument: str = "shape") -> tuple[int, ...]:
    """`shape_arg(shape)`, with its size checked by `check_size` (named as `argument`).

    >>> from tfjs_grad.ops import _checks
    >>> _checks.sized_shape([2, 3], "ones")
    (2, 3)
    """
    dims = shape_arg(shape)
    check_size(math.prod(dims), fn, argument, dtype, f"shape [{_js.array(dims)}]")
    return dims


def integer_arg(value: Any, fn: str, argument: str) -> int:
    """A count argument (a depth, a number of samples) as an int, or TypeError naming it.

    >>> from tfjs_grad.ops import _checks
    >>> _checks.integer_arg(3.0, "oneHot", "depth")
    3
    >>> _checks.integer_arg(float("inf"), "oneHot", "depth")
    Traceback (most recent call last):
    TypeError: Argument 'depth' passed to 'oneHot' must be an integer, but got Infinity
    """
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or not float(value).is_integer()
    ):
        got = _js.number(float(value)) if isinstance(value, (float, np.floating)) else repr(value)
        raise TypeError(f"Argument '{argument}' passed to '{fn}' must be an integer, but got {got}")
    return int(value)


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
