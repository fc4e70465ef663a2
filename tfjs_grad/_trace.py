"""Trace a stateful function once, then differentiate the traced program.

Every gradient entry point goes through here: the user's function runs exactly once
(under `jax.make_jaxpr`, inside a store frame that captures Variable writes), the
program decides which inputs are connected to the output, and its vector-Jacobian
product runs from the program. Called eagerly, the product is compiled once per
program structure and reused, so a Python training loop dispatches one executable
per step instead of one per operation.
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax.core import ShapedArray, Tracer, eval_jaxpr

from . import _store
from ._jax_internals import trace_to_jaxpr
from ._jaxpr import has_callbacks, has_user_rules, needed_inputs, structure_key


class NotATensorError(TypeError):
    """The traced function returned something that is not an array."""


class Program(NamedTuple):
    jaxpr: Any  # jax.extend.core.Jaxpr, constvars first
    consts: list[Any]
    y_aval: Any  # jax.ShapeDtypeStruct of the output
    write_uids: tuple[int, ...]
    created: dict[int, Any]  # uid -> Variable created while tracing
    connected: tuple[bool, ...]  # per input: does the output depend on it?
    needed: tuple[bool, ...]  # per input: does any output (writes included) depend on it?

    @property
    def eager(self) -> bool:
        return not any(isinstance(c, Tracer) for c in self.consts)


def trace(body: Callable[..., Any], primals: Sequence[Any], bind_uids: Sequence[int]) -> Program:
    """Run `body(*primals)` once under tracing, with `bind_uids[i]` reading `primals[i]`.

    `primals` may be arrays or abstract values (`jax.core.ShapedArray`): only their
    shapes and dtypes are used.
    """
    frames: list[_store.Frame] = []

    def flat(*xs: Any) -> Any:
        with _store.bind(dict(zip(bind_uids, xs))) as frame:
            frames.append(frame)
            y = body(*xs)
        y = _as_output(y)
        writes = frame.writes()
        return [y, *writes.values()], tuple(writes)

    try:
        closed, (avals, write_uids) = _make_jaxpr(flat, primals)
    except BaseException:
        for frame in frames:
            for var in frame.created.values():
                var.dispose()
        raise
    jaxpr = closed.jaxpr
    connected = needed_inputs(jaxpr, [True] + [False] * len(write_uids))
    needed = needed_inputs(jaxpr, [True] * (1 + len(write_uids)))
    return Program(
        jaxpr=jaxpr,
        consts=list(closed.consts),
        y_aval=avals,
        write_uids=write_uids,
        created=frames[0].created,
        connected=tuple(connected),
        needed=tuple(needed),
    )


def _make_jaxpr(flat: Callable[..., Any], primals: Sequence[Any]) -> Any:
    extra: list[Any] = []

    def only_arrays(*xs: Any) -> Any:
        outs, write_uids = flat(*xs)
        extra.append((jax.ShapeDtypeStruct(jnp.shape(outs[0]), outs[0].dtype), write_uids))
        return outs

    avals = [x if isinstance(x, ShapedArray) else jax.typeof(x) for x in primals]
    return trace_to_jaxpr(only_arrays, avals), extra[0]


def _as_output(y: Any) -> Any:
    from .variables import Variable

    if isinstance(y, Variable):
        return y.read()
    if isinstance(y, (jax.Array, Tracer)):
        return y
    raise NotATensorError("The result y returned by f() must be a tensor.")


def _vjp_of_program(
    jaxpr: Any,
    connected: tuple[bool, ...],
    with_dy: bool,
    consts: list[Any],
    xs: list[Any],
    dy: Any,
) -> tuple[Any, list[Any], list[Any]]:
    """y, grads of the connected inputs, and the values written to Variables.

    Inputs no output needs may be None: the program never reads them."""
    chosen = [x for x, c in zip(xs, connected) if c]

    def fun(*picked: Any) -> Any:
        it = iter(picked)
        full = [next(it) if c else x for x, c in zip(xs, connected)]
        outs = eval_jaxpr(jaxpr, consts, *full)
        return outs[0], outs[1:]

    y, pullback, writes = jax.vjp(fun, *chosen, has_aux=True)
    seed = dy if with_dy else jnp.ones_like(y)
    grads = list(pullback(seed)) if chosen else []
    return y, grads, writes


_compiled: collections.OrderedDict[Any, Callable[..., Any]] = collections.OrderedDict()
_CACHE_SIZE = 256
stats = {"compiles": 0, "hits": 0}


def vjp(program: Program, xs: list[Any], dy: Any) -> tuple[Any, list[Any], list[Any]]:
    """Evaluate the program's vjp at xs: compiled and cached when nothing is traced.

    A program that calls back into Python runs op by op (its callbacks are not part of
    any key). A program with user-written custom-derivative rules has its whole vjp
    traced again (the rules may read Python state) and is keyed by what that computes.
    """
    with_dy = dy is not None
    eager = program.eager and not any(isinstance(x, Tracer) for x in (*xs, dy))
    jaxpr, connected, consts = program.jaxpr, program.connected, program.consts
    if not eager or has_callbacks(jaxpr):
        return _vjp_of_program(jaxpr, connected, with_dy, consts, xs, dy)
    if has_user_rules(jaxpr):
        whole = jax.tree.flatten((consts, xs, dy))

        def flat_vjp(*leaves: Any) -> list[Any]:
            c, x, d = jax.tree.unflatten(whole[1], leaves)
            return jax.tree.leaves(_vjp_of_program(jaxpr, connected, with_dy, c, x, d))

        closed = trace_to_jaxpr(flat_vjp, [jax.typeof(leaf) for leaf in whole[0]])
        key = ("vjp", structure_key(closed.jaxpr))
        run = _cached(key, lambda: _evaluate(closed.jaxpr))
        outs = run(closed.consts, whole[0])
        n_grads = sum(connected)
        return outs[0], list(outs[1 : 1 + n_grads]), list(outs[1 + n_grads :])
    key = (structure_key(jaxpr), connected, with_dy)

    def compiled(consts: list[Any], xs: list[Any], dy: Any) -> Any:
        return _vjp_of_program(jaxpr, connected, with_dy, consts, xs, dy)

    return _cached(key, lambda: compiled)(consts, xs, dy)


def _evaluate(jaxpr: Any) -> Callable[..., Any]:
    return lambda consts, leaves: eval_jaxpr(jaxpr, consts, *leaves)


def _cached(key: Any, make: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    run = _compiled.get(key)
    if run is None:
        stats["compiles"] += 1
        run = _compiled[key] = jax.jit(make())
        if len(_compiled) > _CACHE_SIZE:
            _compiled.popitem(last=False)
    else:
        stats["hits"] += 1
        _compiled.move_to_end(key)
    return run


def write_back(program: Program, writes: list[Any]) -> None:
    """Apply the Variable writes the traced function made, in the caller's context."""
    if not program.write_uids:
        return
    from .variables import variable_by_uid

    for uid, value in zip(program.write_uids, writes):
        var = variable_by_uid(uid)  # program.created keeps the newborn ones alive
        if var is not None:
            var._write(value, owned=False)  # a compiled result may be a forwarded input
