"""What an optimizer checks before it writes anything: gradients, updates, new state,
`setWeights` entries (each error names the argument and says nothing was changed)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from .._tensors import convert, dtype_name
from ..gradients import VariableGrads
from ..variables import Variable


class NamedTensor(NamedTuple):
    """A `{name, tensor}` pair, as tfjs's `NamedTensor`."""

    name: str
    tensor: Any


def shape_and_dtype(x: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(jnp.shape(x)), jnp.result_type(x)


def aval_text(shape: tuple[int, ...], dtype: Any) -> str:
    return f"{dtype_name(dtype)}{list(shape)}"


def check_updates(updates: Any, params: dict[str, Any], chosen: list[str]) -> None:
    if not isinstance(updates, Mapping) or any(n not in updates for n in chosen):
        raise ValueError(
            "apply_gradients: the optax transformation returned updates that are not a "
            "dict keyed by the variables' names (nothing was changed)"
        )
    for n in chosen:
        u, p = updates[n], params[n]
        if not hasattr(u, "shape") and not isinstance(u, (int, float)):
            raise ValueError(
                f"apply_gradients: the optax transformation's update for Variable '{n}' is a "
                f"'{type(u).__name__}', not an array (nothing was changed)"
            )
        shape, dtype = shape_and_dtype(u)
        if shape != tuple(p.shape):
            raise ValueError(
                f"apply_gradients: the optax transformation's update for Variable '{n}' has "
                f"shape {shape}, but the Variable has shape {tuple(p.shape)} "
                "(nothing was changed)"
            )
        if not jnp.can_cast(dtype, p.dtype, casting="same_kind"):
            raise ValueError(
                f"apply_gradients: the optax transformation's update for Variable '{n}' has "
                f"dtype {dtype_name(dtype)}, which does not cast to the Variable's "
                f"{dtype_name(p.dtype)} (nothing was changed)"
            )


def checked_state(new_state: Any, treedef: Any, old: list[Any], labels: Sequence[str]) -> list[Any]:
    leaves, new_def = jax.tree.flatten(new_state)
    if new_def != treedef:
        raise ValueError(
            "apply_gradients: the optax transformation changed the structure of its state "
            f"(from {treedef} to {new_def}); nothing was changed"
        )
    for label, new, before in zip(labels, leaves, old):
        if shape_and_dtype(new) != shape_and_dtype(before):
            raise ValueError(
                f"apply_gradients: the optax transformation turned its state entry '{label}' "
                f"from {aval_text(*shape_and_dtype(before))} into "
                f"{aval_text(*shape_and_dtype(new))}; state keeps its shapes and dtypes "
                "(nothing was changed)"
            )
    return leaves


def checked_gradient(name: str, g: Any, var: Variable) -> Any:
    if not (isinstance(g, (jax.Array, Tracer)) and g.dtype == var.dtype):
        g = convert(g, argument=f"gradients['{name}']", fn="applyGradients")
    if tuple(g.shape) != var.shape:
        raise ValueError(
            f"apply_gradients: the gradient for '{name}' has shape {tuple(g.shape)}, "
            f"but the variable has shape {var.shape}"
        )
    if not is_inexact(var.dtype):
        raise ValueError(
            f"apply_gradients: Variable '{name}' has dtype {dtype_name(var.dtype)}; "
            "only float variables can be updated"
        )
    return g if g.dtype == var.dtype else g.astype(var.dtype)


@functools.cache
def is_inexact(dtype: Any) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.inexact))


def iteration_count(value: Any) -> int:
    array = np.asarray(convert(value, argument="weights[0]", fn="setWeights"))
    if array.ndim != 0 or not np.isfinite(array) or array != np.floor(array) or array < 0:
        raise ValueError(
            f"set_weights: 'iter' must be a non-negative whole number, but got {array.tolist()}"
        )
    if array >= 2**31:
        raise ValueError(f"set_weights: 'iter' is {int(array)}, more than an int32 holds")
    return int(array)


def entries(items: Any, argument: str, fn: str) -> list[tuple[str, Any]]:
    """Normalise `{name: x}` or `[{name, tensor}]` / `[NamedTensor]` to (name, x) pairs;
    a name given twice is an error."""
    if isinstance(items, VariableGrads):
        items = items.grads
    if isinstance(items, Mapping):
        out = [(k, v) for k, v in items.items()]
    elif isinstance(items, (list, tuple)):
        out = []
        for i, item in enumerate(items):
            if isinstance(item, NamedTensor) or (isinstance(item, tuple) and len(item) == 2):
                out.append((item[0], item[1]))
            elif isinstance(item, Mapping) and "name" in item:
                out.append((item["name"], item.get("tensor")))
            else:
                raise TypeError(
                    f"Argument '{argument}[{i}]' passed to '{fn}' must be a NamedTensor or "
                    "{'name': ..., 'tensor': ...}"
                )
    else:
        raise TypeError(
            f"Argument '{argument}' passed to '{fn}' must be a dict name -> tensor or a list "
            f"of NamedTensor, but got '{type(items).__name__}'"
        )
    seen: set[str] = set()
    for name, _ in out:
        if not isinstance(name, str):
            raise TypeError(
                f"Argument '{argument}' passed to '{fn}' must name each entry with a string, "
                f"but got '{type(name).__name__}'"
            )
        if name in seen:
            raise ValueError(f"{fn}: '{name}' appears twice in '{argument}'")
        seen.add(name)
    return out
