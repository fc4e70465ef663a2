"""Trace a stateful function once, then differentiate the traced program.

Every gradient entry point goes through here: the user's function runs exactly once
(under `jax.make_jaxpr`, inside a store frame that captures Variable writes), the
program decides which inputs are connected to the output, and its vector-Jacobian
product runs from the program. Called eagerly, the product is compiled once per
program structure and reused, so a Python training loop dispatches one executable
per step instead of one per operation. Python float constants in the program are
lifted out as arguments, so a loss whose constant changes every step reuses one
executable.

Called eagerly (no transform tracing, real inputs), f runs on the eager tape (`_tape`),
which records tf ops and, when f hands a value to JAX, goes on on a jaxpr trace from there:
either way f runs once, on real values where it reads them (`if loss > 1:`, `.item()`).
Under tf.jit or an outer JAX transform, f is traced here, as `jax.make_jaxpr` does.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import os
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax.core import ShapedArray, Tracer, eval_jaxpr

from . import _store, _tape
from ._jax_internals import drop_staging_caches, trace_to_jaxpr
from ._jaxpr import (
    has_callbacks,
    has_user_rules,
    lift_float_literals,
    needed_inputs,
    structure_id,
    structure_key,
    without_dead_equations,
)
from ._recompiles import note_compile
from ._tensor import Tensor


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
    source: Any = None  # the user's function traced, named in warnings

    @property
    def eager(self) -> bool:
        return not any(isinstance(c, Tracer) for c in self.consts)


def trace(
    body: Callable[..., Any],
    primals: Sequence[Any],
    bind_uids: Sequence[int],
    source: Any = None,
    fetch: Callable[[], list[Any]] | None = None,
    peek: Callable[[], list[Any]] | None = None,
) -> Program:
    """Run `body(*primals)` once, with `bind_uids[i]` reading `primals[i]`.

    `primals` may be arrays or abstract values (`jax.core.ShapedArray`); `fetch` then
    gives their values (an eager call reads them). `peek` gives them for a program only
    (the eager tape's value reads): they stay owned. `source` is the user's function,
    named in errors and warnings.
    """
    tape = _tape.active()
    if tape is not None:  # a gradient inside the f of an eager one: that f goes on traced
        tape.stage("a gradient function inside f")
    if _tape.usable(primals):
        return _tape.run(body, primals, bind_uids, source, fetch, peek)
    return _trace(body, primals, bind_uids, source)


def _trace(
    body: Callable[..., Any], primals: Sequence[Any], bind_uids: Sequence[int], source: Any
) -> Program:
    avals = [x if isinstance(x, ShapedArray) else jax.typeof(x) for x in primals]
    traced = _store.trace(
        lambda *xs: body(*map(Tensor, xs)), avals, bind_uids, source=source, result=_as_output
    )
    return program_of(traced.jaxpr, tuple(traced.effects.writes), traced.effects.created, source)


def program_of(
    closed: Any, write_uids: tuple[int, ...], created: dict[int, Any], source: Any = None
) -> Program:
    """The Program of a traced f: `closed` (a ClosedJaxpr) takes the primals and returns
    y, then the values written to the Variables of `write_uids`."""
    jaxpr, consts = lift_float_literals(without_dead_equations(closed.jaxpr), list(closed.consts))
    connected = needed_inputs(jaxpr, [True] + [False] * len(write_uids))
    needed = needed_inputs(jaxpr, [True] * (1 + len(write_uids)), effects=True)
    y = closed.out_avals[0]
    return Program(
        jaxpr=jaxpr,
        consts=consts,
        y_aval=jax.ShapeDtypeStruct(y.shape, y.dtype),
        write_uids=write_uids,
        created=created,
        connected=tuple(connected),
        needed=tuple(needed),
        source=source,
    )


def _as_output(y: Any) -> Any:
    if isinstance(y, Tensor):
        return y.__tfjs_value__()
    if isinstance(y, (jax.Array, Tracer)):
        return y
    raise NotATensorError("The result y returned by f() must be a tensor.")


def vjp_of_program(
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


class _Compiled:
    """A cached executable, and the resident memory its compile added (its cost)."""

    __slots__ = ("run", "bytes")

    def __init__(self, run: Callable[..., Any]):
        self.run, self.bytes = run, -1

    def __call__(self, *args: Any) -> Any:
        if self.bytes >= 0:
            return self.run(*args)
        before = _settled_resident_bytes()
        with _store.own_trace():  # the first call traces (and compiles)
            out = self.run(*args)
        self.bytes = max(_settled_resident_bytes() - before, _MIN_ENTRY_BYTES)
        _trim_to_budget()
        return out


_compiled: collections.OrderedDict[Any, _Compiled] = collections.OrderedDict()
# The eager caches are bounded by the memory their executables take (measured as the
# resident memory each compile adds), and by count; the least recently used go first.
CACHE_BYTES = 256 * 2**20
CACHE_SIZE = 256
_MIN_ENTRY_BYTES = 2**20
stats = {"compiles": 0, "hits": 0, "evictions": 0}


def _resident_bytes() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, AttributeError):  # not Linux: count entries only
        return 0


def _settled_resident_bytes() -> int:
    """The resident memory once the allocator has given back what it holds free.

    Read on both sides of a compile, so an entry's cost is what its compile keeps: read
    raw, the compile after an eviction (which gives freed memory back) also counted the
    scratch memory it took anew from the OS, several times its executable, and a full
    cache shrank to a tenth of what its budget holds, recompiling lengths it had seen.
    """
    _release_freed_memory()
    return _resident_bytes()


def _trim_to_budget() -> None:
    evicted = False
    while len(_compiled) > 1 and (
        len(_compiled) > CACHE_SIZE
        or sum(max(e.bytes, 0) for e in _compiled.values()) > CACHE_BYTES
    ):
        _compiled.popitem(last=False)
        stats["evictions"] += 1
        evicted = True
    if evicted:  # what JAX kept to trace and lower the evicted programs goes with them
        drop_staging_caches()
        _release_freed_memory()


def _release_freed_memory() -> None:
    """Give the memory the allocator holds free (what evicted executables freed) back to
    the OS: glibc keeps it otherwise, and a loop that compiles a program per step would
    grow without bound."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    try:
        return ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None


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
        return vjp_of_program(jaxpr, connected, with_dy, consts, xs, dy)
    if has_user_rules(jaxpr):
        whole = jax.tree.flatten((consts, xs, dy))

        def flat_vjp(*leaves: Any) -> list[Any]:
            c, x, d = jax.tree.unflatten(whole[1], leaves)
            return jax.tree.leaves(vjp_of_program(jaxpr, connected, with_dy, c, x, d))

        with _store.own_trace():
            closed = trace_to_jaxpr(flat_vjp, [jax.typeof(leaf) for leaf in whole[0]])
        key = ("vjp", structure_key(closed.jaxpr))
        run = cached(key, lambda: _evaluate(closed.jaxpr), source=program.source)
        outs = run(closed.consts, whole[0])
        n_grads = sum(connected)
        return outs[0], list(outs[1 : 1 + n_grads]), list(outs[1 + n_grads :])
    key = (structure_key(jaxpr), connected, with_dy)

    def compiled(consts: list[Any], xs: list[Any], dy: Any) -> Any:
        return vjp_of_program(jaxpr, connected, with_dy, consts, xs, dy)

    return cached(key, lambda: compiled, source=program.source)(consts, xs, dy)


def program_key(program: Program) -> Any | None:
    """A key naming what an eager program computes, for compiling more around it (the
    optimizer's fused step); None when it must go through `vjp` (value-dependent f,
    traced constants, host callbacks, user-written derivative rules)."""
    if not program.eager:
        return None
    if has_callbacks(program.jaxpr) or has_user_rules(program.jaxpr):
        return None
    return (structure_id(program.jaxpr), program.connected)


def _evaluate(jaxpr: Any) -> Callable[..., Any]:
    return lambda consts, leaves: eval_jaxpr(jaxpr, consts, *leaves)


def cached(
    key: Any,
    make: Callable[[], Callable[..., Any]],
    donate: tuple[int, ...] = (),
    source: Any = None,
) -> Callable[..., Any]:
    """The compiled `make()` for `key` (made on a miss; least recently used evicted);
    `source`, the user's function it runs, is warned about when compiled for many shapes."""
    run = _compiled.get(key)
    if run is None:
        stats["compiles"] += 1
        if source is not None:
            note_compile(source, key)
        run = _compiled[key] = _Compiled(jax.jit(make(), donate_argnums=donate))
    else:
        stats["hits"] += 1
        _compiled.move_to_end(key)
    return run


def write_back(program: Program, writes: list[Any]) -> None:
    """Apply the Variable writes the traced function made, in the caller's context."""
    if not program.write_uids:
        return
    from .variables import variable_by_uid, write

    frame = _store.current()
    for uid, value in zip(program.write_uids, writes):
        var = variable_by_uid(uid)  # program.created keeps the newborn ones alive
        if var is not None:  # a compiled result may be a forwarded input: not owned
            write(var, value, owned=False)
            if frame is not None and uid in program.created:
                # born inside a transform nested in another (a gradient call inside a
                # tf.jit step): the outer one commits it, as if created there
                frame.created[uid] = var
