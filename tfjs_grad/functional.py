"""The pure view of stateful code: `functionalize`, `get_state`, `set_state`.

`functionalize(fn)` returns `pure(state, *args) -> (out, new_state)`, which composes
with every JAX transform (`jax.jit`, `jax.vmap`, `lax.scan`, `shard_map`, ...).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import jax
from jax.core import Tracer

from . import _rng, _store
from .variables import (
    GENERATOR_STATE_NAME,
    TracedAssignError,
    Variable,
    as_var_list,
    registered_variables,
    variable_by_uid,
    write,
)


def _resolve(var_list: Sequence[Variable] | None, fn: str) -> list[Variable]:
    if var_list is None:
        return list(registered_variables().values())
    return as_var_list(var_list, fn)


def get_state(var_list: Sequence[Variable] | None = None) -> dict[str, jax.Array]:
    """Current values by name: every live Variable (non-trainable ones too) by default.

    Without `var_list` it also holds the random generator's key data under the reserved
    name "<random generator>" (no Variable may take it): a `functionalize`d fn given this
    state threads the generator, so its unseeded draws follow the state passed in.

    >>> import tfjs_grad as tf
    >>> v = tf.variable(tf.scalar(2.0), name="doc_state_v")
    >>> float(tf.get_state([v])["doc_state_v"])
    2.0
    >>> sorted(tf.get_state())
    ['<random generator>', 'doc_state_v']
    >>> v.dispose()
    """
    state = {v.name: v.value for v in _resolve(var_list, "get_state")}
    if var_list is None:  # a copy (8 bytes): a caller's jax.jit may donate it
        state[GENERATOR_STATE_NAME] = jax.numpy.copy(_rng.generator().value)
    return state


def _by_name(names: Iterable[str], pool: Mapping[str, Variable]) -> dict[str, Variable]:
    """The Variables `pool` holds, plus the generator's if `names` include its name."""
    if GENERATOR_STATE_NAME in names:
        return {**pool, GENERATOR_STATE_NAME: _rng.generator()}
    return dict(pool)


def set_state(state: Mapping[str, Any]) -> None:
    """Write values back by name; a partial dict updates only the names it holds.

    Every name and shape is checked before anything is written.

    >>> import tfjs_grad as tf
    >>> v = tf.variable(tf.scalar(2.0), name="doc_set_state_v")
    >>> tf.set_state({"doc_set_state_v": tf.scalar(5.0)})
    >>> float(v.value)
    5.0
    >>> v.dispose()
    """
    if not isinstance(state, Mapping):
        raise TypeError("Argument 'state' passed to 'set_state' must be a dict name -> array")
    live = _by_name(state, registered_variables())
    unknown = [name for name in state if name not in live]
    if unknown:
        raise ValueError(f"set_state: no live Variable named {', '.join(map(repr, unknown))}")
    from ._tensors import convert

    checked = []
    for name, value in state.items():
        var = live[name]
        array = convert(value, argument=f"state[{name!r}]", fn="set_state")
        if array.shape != var.shape or array.dtype != var.dtype:
            raise ValueError(
                f"set_state: state[{name!r}] has shape {array.shape} and dtype {array.dtype}, "
                f"but Variable '{name}' has shape {var.shape} and dtype {var.dtype}"
            )
        checked.append((var, array))
    traced = [var.name for var, array in checked if isinstance(array, Tracer)]
    if traced and _store.current() is None:
        raise TracedAssignError(
            f"set_state: state[{traced[0]!r}] is a traced value, which cannot be written to a "
            "Variable under a plain JAX transform (jax.jit, jax.vmap, ...). Use "
            "tf.functionalize to get a pure function of the state, or tf.jit. Nothing was "
            "written."
        )
    for var, array in checked:
        write(var, array, owned=False)


def _generator_state(value: Any) -> Any:
    """`value` as the generator's key data, checked (a functionalized fn's state entry)."""
    from ._tensors import convert

    array = convert(value, argument=f"state[{GENERATOR_STATE_NAME!r}]", fn="functionalize")
    state = _rng.generator()
    if array.shape != state.shape or array.dtype != state.dtype:
        raise ValueError(
            f"functionalize: state[{GENERATOR_STATE_NAME!r}] must be the random generator's "
            f"key data (shape {state.shape}, dtype {state.dtype}, as get_state() gives it), "
            f"but has shape {array.shape} and dtype {array.dtype}"
        )
    return array


def functionalize(
    fn: Callable[..., Any], var_list: Sequence[Variable] | None = None
) -> Callable[..., tuple[Any, dict[str, Any]]]:
    """Turn stateful `fn` into `pure(state, *args) -> (out, new_state)`.

    `state` maps Variable names to values (`get_state(var_list)` reads it). Inside
    `pure`, those Variables read the given values; their assignments, and Variables
    created by `fn`, come back in `new_state` instead of being written. Names not in
    `state` read their current value as a constant.

    Unseeded random draws in `fn` take their keys from `state`'s "<random generator>"
    entry (which `get_state()` includes) and return it advanced: threading the state gives
    new numbers on every call, passing the same state twice the same numbers. Without that
    entry, under `jax.jit` (or `lax.scan`, ...) the draws are fixed when `pure` is traced,
    and warn (`UnseededDrawWarning`) as under plain `jax.jit`.

    >>> import jax, tfjs_grad as tf
    >>> w = tf.variable(tf.scalar(3.0), name="doc_fn_w")
    >>> def step(x):
    ...     w.assign(w * x)
    ...     return w + 1
    >>> pure = tf.functionalize(step, [w])
    >>> out, new_state = jax.jit(pure)(tf.get_state([w]), 2.0)
    >>> float(out), float(new_state["doc_fn_w"]), float(w.value)
    (7.0, 6.0, 3.0)
    >>> w.dispose()
    """
    if not callable(fn):
        raise TypeError("The fn passed in functionalize(fn) must be a function")
    if var_list is not None:
        _resolve(var_list, "functionalize")

    def pure(state: Mapping[str, Any], *args: Any, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        if not isinstance(state, Mapping):
            raise TypeError("The state passed to a functionalized fn must be a dict name -> array")
        pool = (
            {v.name: v for v in _resolve(var_list, "functionalize")}
            if var_list is not None
            else None
        )
        live = _by_name(state, registered_variables() if pool is None else pool)
        missing = [name for name in state if name not in live]
        if missing:
            raise ValueError(f"functionalize: no Variable named {', '.join(map(repr, missing))}")
        uids = {live[name].id: name for name in state}
        bound = {uid: state[name] for uid, name in uids.items()}
        threads = GENERATOR_STATE_NAME in state
        if threads:
            bound[live[GENERATOR_STATE_NAME].id] = _generator_state(state[GENERATOR_STATE_NAME])
        with contextlib.nullcontext() if threads else _rng.unthreaded():
            effects = _store.run(lambda: fn(*args, **kwargs), bound)
        new_state = {name: effects.writes.get(uid, bound[uid]) for uid, name in uids.items()}
        for uid, value in effects.writes.items():
            if uid not in uids and (var := variable_by_uid(uid)) is not None:
                new_state[var.name] = value
        return effects.output, new_state

    return pure


getState = get_state
setState = set_state
