"""Read a traced program: which inputs an output depends on, and a structural cache key.

Both walk `jax.extend.core` jaxprs. Connection follows data flow (a `stop_gradient`
equation connects like any other), recursing into call-like sub-jaxprs so that an
output of a nested `jit` depends only on the inputs it really reads; loops and
conditionals are taken conservatively (every output depends on every input).
"""

from __future__ import annotations

import inspect
import itertools
import weakref
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax.extend import core as jcore

from ._jax_internals import RULE_PARAMS, custom_rule_functions

# Newer JAX merged ClosedJaxpr into Jaxpr: a Jaxpr carries its constants' values, and
# constvars given without them are read as leading invars.
_CONSTS_ATTACHED = "consts" in inspect.signature(jcore.Jaxpr.__init__).parameters

_CALL_PARAMS = ("jaxpr", "call_jaxpr", "fun_jaxpr")


def _inner_jaxpr(eqn: Any) -> Any | None:
    """The sub-jaxpr of a call-like equation whose invars/outvars line up with the eqn's."""
    for key in _CALL_PARAMS:
        inner = eqn.params.get(key)
        if isinstance(inner, jcore.ClosedJaxpr):
            inner = inner.jaxpr
        if (
            isinstance(inner, jcore.Jaxpr)
            and len(inner.invars) == len(eqn.invars)
            and len(inner.outvars) == len(eqn.outvars)
        ):
            return inner
    return None


def needed_inputs(jaxpr: Any, wanted_outputs: Sequence[bool], effects: bool = False) -> list[bool]:
    """For each invar of `jaxpr`, whether any wanted output depends on it (with
    `effects`, also whether an effect such as a print reads it: to run the program)."""
    needed: set[Any] = {
        v for v, want in zip(jaxpr.outvars, wanted_outputs) if want and isinstance(v, jcore.Var)
    }
    for eqn in reversed(jaxpr.eqns):
        hits = tuple(isinstance(v, jcore.Var) and v in needed for v in eqn.outvars)
        if effects and eqn.effects:
            mask: Sequence[bool] = [True] * len(eqn.invars)
        elif not any(hits):
            continue
        else:
            # a custom_jvp rule may read an input its primal does not (the store's
            # `_rebased`: its value is one input, its derivative the other's): all needed
            inner = None if eqn.primitive.name == "custom_jvp_call" else _inner_jaxpr(eqn)
            mask = (
                [True] * len(eqn.invars) if inner is None else _inner_needed(inner, hits, effects)
            )
        needed.update(v for v, m in zip(eqn.invars, mask) if m and isinstance(v, jcore.Var))
    return [v in needed for v in jaxpr.invars]


def without_dead_equations(jaxpr: Any) -> Any:
    """`jaxpr` without the top-level equations no output (nor effect) needs: a value f
    read only as data (`float(v.sum())`) leaves one, and it must not read an input that
    `needed_inputs` leaves out. The same object when there is none."""
    live: set[Any] = {v for v in jaxpr.outvars if isinstance(v, jcore.Var)}
    kept = []
    dropped = False
    for eqn in reversed(jaxpr.eqns):
        if eqn.effects or any(isinstance(v, jcore.Var) and v in live for v in eqn.outvars):
            kept.append(eqn)
            live.update(v for v in eqn.invars if isinstance(v, jcore.Var))
        else:
            dropped = True
    if not dropped:
        return jaxpr
    return jaxpr.replace(eqns=kept[::-1])


_needed_memo: weakref.WeakKeyDictionary[Any, dict[Any, list[bool]]] = weakref.WeakKeyDictionary()


def _inner_needed(jaxpr: Any, hits: tuple[bool, ...], effects: bool) -> list[bool]:
    # Sub-programs (a jnp function's jit) are the same objects trace after trace: memoize.
    try:
        memo = _needed_memo.setdefault(jaxpr, {})
    except TypeError:
        return needed_inputs(jaxpr, hits, effects)
    key = (hits, effects)
    if key not in memo:
        memo[key] = needed_inputs(jaxpr, hits, effects)
    return memo[key]


def lift_float_literals(jaxpr: Any, consts: list[Any]) -> tuple[Any, list[Any]]:
    """Turn the top-level scalar float literals (Python floats in the user's code) into
    constants: the program then takes them as arguments, so `loss * (1 + 0.01 * step)`
    with a new `step` each call is the same program with a new argument."""
    lifted: list[Any] = []
    values: list[Any] = []
    eqns = []
    for eqn in jaxpr.eqns:
        invars, changed = list(eqn.invars), False
        for i, atom in enumerate(invars):
            aval: Any = getattr(atom, "aval", None)
            if (
                isinstance(atom, jcore.Literal)
                and aval.shape == ()
                and np.issubdtype(aval.dtype, np.floating)
            ):
                invars[i] = jcore.Var(aval)
                lifted.append(invars[i])
                values.append(np.asarray(atom.val, aval.dtype))
                changed = True
        eqns.append(eqn.replace(invars=invars) if changed else eqn)
    if not lifted:
        return jaxpr, consts
    new_consts = [*consts, *values]
    constvars = [*jaxpr.constvars, *lifted]
    if _CONSTS_ATTACHED:  # JAX >= 0.11: constvars without values become plain invars
        return jaxpr.replace(constvars=constvars, eqns=eqns, consts=new_consts), new_consts
    return jaxpr.replace(constvars=constvars, eqns=eqns), new_consts


def with_leading_constvars(jaxpr: Any, n: int, consts: list[Any]) -> Any:
    """The jaxpr with its first `n` inputs made constants, after its own (`consts`: the
    values of all of them; the eager tape passes its recorded constants that way)."""
    constvars = [*jaxpr.constvars, *jaxpr.invars[:n]]
    if _CONSTS_ATTACHED:
        return jaxpr.replace(constvars=constvars, invars=jaxpr.invars[n:], consts=consts)
    return jaxpr.replace(constvars=constvars, invars=jaxpr.invars[n:])


_CALLBACKS = frozenset({"debug_callback", "pure_callback", "io_callback"})


def _sub_jaxprs(value: Any) -> list[Any]:
    if isinstance(value, jcore.ClosedJaxpr):
        return [value.jaxpr]
    if isinstance(value, jcore.Jaxpr):
        return [value]
    if isinstance(value, (tuple, list)):
        return [j for v in value for j in _sub_jaxprs(v)]
    return []


def has_callbacks(jaxpr: Any) -> bool:
    """Whether the program (sub-programs included) calls back into Python on the host."""
    return _facts(jaxpr, top=True)[0]


_facts_memo: weakref.WeakKeyDictionary[Any, tuple[bool, bool]] = weakref.WeakKeyDictionary()


def _facts(jaxpr: Any, top: bool = False) -> tuple[bool, bool]:
    """(has host callbacks, has user-written derivative rules), sub-programs included;
    memoized per program object (JAX reuses sub-programs from trace to trace, and the eager
    tape reuses a whole program for every call of the same structure)."""
    try:
        found = _facts_memo.get(jaxpr)
    except TypeError:
        found = None
    if found is not None:
        return found
    callbacks = rules = False
    for eqn in jaxpr.eqns:
        name = eqn.primitive.name
        if name in _CALLBACKS:
            callbacks = True
        elif name in _CUSTOM and not rules:
            found_rules = custom_rule_functions(eqn.params)
            rules = found_rules is None or not all(_pure_rule(f) for f in found_rules)
        for value in eqn.params.values():
            for sub in _sub_jaxprs(value):
                c, r = _facts(sub)
                callbacks, rules = callbacks or c, rules or r
        if callbacks and rules:
            break
    try:
        _facts_memo[jaxpr] = (callbacks, rules)
    except TypeError:
        pass
    return callbacks, rules


_key_memo: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


class Unkeyable(Exception):
    """The program holds something whose meaning cannot be captured in a key."""


def structure_key(jaxpr: Any) -> Any:
    """A hashable key equal for programs that compute the same thing from the same inputs.

    Variables are numbered by position, literals keep their values, and parameters are
    compared by value (sub-jaxprs recursively; other unhashable objects by identity,
    kept alive by the key so that an identity is never reused).
    """
    memo = _key_memo.get(jaxpr)
    if memo is not None:
        return memo
    numbering: dict[Any, int] = {}

    def atom(a: Any) -> Any:
        if isinstance(a, jcore.Literal):
            return ("lit", _value_key(a.val), a.aval)
        if a not in numbering:
            numbering[a] = len(numbering)
        return numbering[a]

    ins = tuple((atom(v), v.aval) for v in (*jaxpr.constvars, *jaxpr.invars))
    eqns = tuple(
        (
            eqn.primitive.name,
            tuple(atom(v) for v in eqn.invars),
            tuple((atom(v), v.aval) for v in eqn.outvars),
            _params_key(eqn.params),
        )
        for eqn in jaxpr.eqns
    )
    key = (ins, eqns, tuple(atom(v) for v in jaxpr.outvars))
    try:
        _key_memo[jaxpr] = key
    except TypeError:
        pass
    return key


_id_memo: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()
_ids_by_key: dict[Any, int] = {}
_IDS_MAX = 4096
_next_id = itertools.count()


def structure_id(jaxpr: Any) -> int:
    """A small int standing for `structure_key(jaxpr)` (equal keys, equal ids), cheap to
    hash in the keys of compile caches looked up on every call. Never reused: once the
    table is full it starts afresh, and a program seen before gets a new id."""
    try:
        found = _id_memo.get(jaxpr)
    except TypeError:
        found = None
    if found is not None:
        return found
    key = structure_key(jaxpr)
    found = _ids_by_key.get(key)
    if found is None:
        if len(_ids_by_key) >= _IDS_MAX:
            _ids_by_key.clear()
        found = _ids_by_key[key] = next(_next_id)
    try:
        _id_memo[jaxpr] = found
    except TypeError:
        pass
    return found


_SIMPLE = (int, bool, str, bytes, type(None), np.dtype)


def _value_key(value: Any) -> Any:
    if isinstance(value, float):  # by bits: 0.0 and -0.0 are different constants
        return ("float", float.hex(value))
    if isinstance(value, _SIMPLE):
        return (type(value).__name__, value)
    if isinstance(value, tuple):
        return tuple(_value_key(v) for v in value)
    if isinstance(value, jcore.ClosedJaxpr):
        return ("closed", structure_key(value.jaxpr), tuple(_value_key(c) for c in value.consts))
    if isinstance(value, jcore.Jaxpr):
        return ("jaxpr", structure_key(value))
    if isinstance(value, list):
        return ("list", tuple(_value_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, _value_key(v)) for k, v in sorted(value.items())))
    if isinstance(value, (np.ndarray, np.generic, jax.Array)):
        array = np.asarray(value)
        if array.size > 64:
            return _Identity(value)
        return ("array", array.dtype.str, array.shape, array.tobytes())
    try:
        hash(value)
    except TypeError:
        return _Identity(value)
    return value


class _Identity:
    """Compares by identity and keeps the object alive, so its id is never reused."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any):
        self.obj = obj

    def __hash__(self) -> int:
        return id(self.obj)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Identity) and other.obj is self.obj


_CUSTOM = frozenset({"custom_jvp_call", "custom_vjp_call"})
_PURE_RULE_MODULES = ("jax.", "jaxlib.", "optax.", "tfjs_grad.")
_DERIVED = ("out_trees",)  # a function of the rules, keyed through them


def _pure_rule(fn: Any) -> bool:
    module = getattr(fn, "__module__", None) or ""
    return module.startswith(_PURE_RULE_MODULES)


def has_user_rules(jaxpr: Any) -> bool:
    """Whether the program has a custom_jvp/custom_vjp rule written outside JAX, optax and
    tfjs_grad. Such a rule may read Python state, so what it computes is known only by
    tracing it again; the rules of those libraries are pure."""
    return _facts(jaxpr, top=True)[1]


def _params_key(params: dict[str, Any]) -> Any:
    items = []
    rules = custom_rule_functions(params)
    for name, value in sorted(params.items()):
        if name in _DERIVED:
            continue
        if rules is not None and name in RULE_PARAMS:
            # Per-trace thunks around pure rules (user rules are never keyed): the rules'
            # code identifies them; parameters they close over show in the primal program.
            items.append((name, tuple(f.__code__ for f in rules)))
        else:
            items.append((name, _value_key(value)))
    return tuple(items)
