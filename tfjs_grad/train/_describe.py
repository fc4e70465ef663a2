"""`describe(tx)`: what an optax transformation is, for `from_optax` optimizers' repr.

An optax transformation is a pair of closures; their qualified names say which factory
made them (`scale_by_adam.<locals>.update_fn`) and their closures hold the inner
transformations (`chain`'s, `masked`'s) and the numbers they were given.
"""

from __future__ import annotations

import numbers
from typing import Any

import optax

_TRANSPARENT = {"with_extra_args_support"}  # optax's wrapper that only adds an argument
_MAX_DEPTH = 6


def _factory(fn: Any) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__).split(".<locals>")[0]


def _cells(fn: Any) -> list[Any]:
    out = []
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            out.append(cell.cell_contents)
        except ValueError:  # an empty cell
            continue
    return out


def _numbers(fn: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for value in _cells(fn):
        if isinstance(value, dict):
            for key, v in value.items():
                if isinstance(key, str) and isinstance(v, (numbers.Number, str)):
                    found.setdefault(key, v)
    return found


def _describe(update: Any, init: Any, depth: int) -> str:
    name = _factory(update)
    inner: list[str] = []
    if depth < _MAX_DEPTH:
        for value in _cells(update):
            if isinstance(value, optax.GradientTransformation):
                inner.append(_describe(value.update, value.init, depth + 1))
            elif isinstance(value, (tuple, list)) and value and all(map(callable, value)):
                inner += [_describe(f, None, depth + 1) for f in value]
            elif callable(value) and hasattr(value, "__code__") and _factory(value) != name:
                inner.append(_describe(value, None, depth + 1))
    if name in _TRANSPARENT and len(inner) == 1:
        return inner[0]
    settings = {**_numbers(update), **(_numbers(init) if init is not None else {})}
    parts = inner + [f"{key}={value!r}" for key, value in settings.items()]
    return f"{name}({', '.join(parts)})" if parts else name


def describe(transformation: optax.GradientTransformation) -> str:
    """The factories that made `transformation`, nested as they were composed.

    >>> import optax
    >>> from tfjs_grad.train._describe import describe
    >>> describe(optax.chain(optax.clip(1.0), optax.adam(1e-3)))
    'chain(clip, chain(scale_by_adam, scale))'
    >>> describe(optax.inject_hyperparams(optax.sgd)(learning_rate=0.1))
    'inject_hyperparams(sgd, nesterov=False, learning_rate=0.1)'
    """
    return _describe(transformation.update, transformation.init, 0)
