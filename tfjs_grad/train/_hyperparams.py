"""Optimizer hyperparameters: checking them, and keeping the learning rate in optax state.

The learning rate of every tfjs optimizer lives in its optax state, as
`optax.inject_hyperparams` keeps it, so a new rate reaches the next step as data (eagerly,
and inside `tf.jit` without a retrace). The other hyperparameters stay Python numbers
baked into the update: tfjs computes constants such as `1 - beta1` in float64 before
rounding them to float32, and so must we.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.core import Tracer

from .._tensor import unwrap

LearningRate = float | Callable[[Any], Any]  # a number, or an optax schedule of the step count


class RateInState(NamedTuple):
    """A tfjs optimizer's state around a constant learning rate: the rate as a float32
    scalar under `hyperparams` (as `optax.inject_hyperparams` keeps it, so state labels
    and lookups are the same) and the update's own state, without inject_hyperparams'
    step count, which only a schedule reads (one buffer less for every compiled step)."""

    hyperparams: dict[str, Any]
    inner_state: Any


_INJECTED = (optax.InjectHyperparamsState, optax.InjectStatefulHyperparamsState, RateInState)


def _concrete_number(value: Any) -> int | float | None:
    """`value` as a Python number when it is a real, non-bool number (or 0-d array)."""
    value = unwrap(value)
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if (
        isinstance(value, (np.generic, np.ndarray, jax.Array))
        and not isinstance(value, Tracer)
        and np.ndim(value) == 0
        and (jnp.issubdtype(value.dtype, jnp.floating) or jnp.issubdtype(value.dtype, jnp.integer))
    ):
        return value.item()
    return None


def _type_name(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def number(value: Any, argument: str, fn: str, default: Any) -> Any:
    """A numeric constructor argument; None means `default`.

    >>> number(None, "beta1", "adam", 0.9), number(0.5, "beta1", "adam", 0.9)
    (0.9, 0.5)
    """
    if value is None:
        return default
    found = _concrete_number(value)
    if found is None:
        raise TypeError(
            f"Argument '{argument}' passed to '{fn}' must be a number, "
            f"but got '{_type_name(value)}'"
        )
    return found


def learning_rate(
    value: Any, fn: str, default: Any = None, *, required_by: str = ""
) -> LearningRate:
    """A constructor's learning rate: a number or an optax schedule; None means `default`,
    or an error in tfjs's words for the optimizers that need one (`required_by`).

    >>> learning_rate(None, "adam", 0.001), learning_rate(0.5, "sgd", required_by="SGDOptimizer")
    (0.001, 0.5)
    """
    if value is None:
        if required_by:
            raise ValueError(f"learningRate for {required_by} must be defined.")
        return default
    if callable(value):
        return value
    found = _concrete_number(value)
    if found is None:
        raise TypeError(
            f"Argument 'learningRate' passed to '{fn}' must be a number or an optax "
            f"schedule, but got '{_type_name(value)}'"
        )
    return found


def new_learning_rate(value: Any, fn: str) -> Any:
    """A rate for `set_learning_rate`: a number, or a float scalar array (traced too)."""
    value = unwrap(value)
    if isinstance(value, (jax.Array, Tracer)) and not isinstance(value, bool):
        if value.ndim == 0 and jnp.issubdtype(value.dtype, jnp.floating):
            return value
    found = _concrete_number(value)
    if found is None:
        shape = getattr(value, "shape", None)
        got = f"an array of shape {tuple(shape)}" if shape is not None else _type_name(value)
        raise TypeError(
            f"Argument 'learningRate' passed to '{fn}' must be a number, but got '{got}'"
        )
    return found


def flag(value: Any, default: bool) -> bool:
    """A boolean constructor argument (tfjs tests truthiness); None means `default`."""
    return default if value is None else bool(value)


def with_learning_rate_in_state(
    factory: Callable[..., optax.GradientTransformation],
    learning_rate: LearningRate,
    **constants: Any,
) -> optax.GradientTransformation:
    """`factory(learning_rate, **constants)`, with the rate kept in the state as a float32
    scalar (`state.hyperparams['learning_rate']`), or evaluated there at every step when
    it is a schedule (`optax.inject_hyperparams`, whose step count the schedule reads).

    >>> import jax.numpy as jnp, optax
    >>> tx = with_learning_rate_in_state(lambda learning_rate: optax.sgd(learning_rate), 0.5)
    >>> state = tx.init({"w": jnp.ones(2)})
    >>> state.hyperparams["learning_rate"].dtype, tx.update({"w": jnp.ones(2)}, state)[0]
    (dtype('float32'), {'w': Array([-0.5, -0.5], dtype=float32)})
    """
    if callable(learning_rate):
        inject = optax.inject_hyperparams(
            factory, static_args=tuple(constants), hyperparam_dtype=jnp.float32
        )
        return inject(learning_rate=learning_rate, **constants)

    def init_fn(params: Any) -> RateInState:
        rate = jnp.asarray(learning_rate, jnp.float32)
        return RateInState({"learning_rate": rate}, factory(rate, **constants).init(params))

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        inner = factory(state.hyperparams["learning_rate"], **constants)
        updates, inner_state = inner.update(updates, state.inner_state, params)
        return updates, RateInState(state.hyperparams, inner_state)

    return optax.GradientTransformation(init_fn, update_fn)


def learning_rate_nodes(state: Any, is_leaf: Callable[[Any], bool]) -> list[Any]:
    """The `inject_hyperparams` states in `state` that hold a learning rate."""
    nodes = jax.tree.leaves(state, is_leaf=lambda x: isinstance(x, _INJECTED) or is_leaf(x))
    return [n for n in nodes if isinstance(n, _INJECTED) and "learning_rate" in n.hyperparams]


def is_scheduled(node: Any) -> bool:
    """Whether the learning rate in this injected state comes from a schedule."""
    return "learning_rate" in getattr(node, "hyperparams_states", {})


def none_is_default(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Let None in any argument mean that parameter's default, as JS's `undefined` does."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        bound = signature.bind(*args, **kwargs)
        for name, value in list(bound.arguments.items()):
            default = signature.parameters[name].default
            if value is None and default is not inspect.Parameter.empty:
                bound.arguments[name] = default
        return fn(*bound.args, **bound.kwargs)

    return wrapper
