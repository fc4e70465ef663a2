"""`tf.jit`: compile stateful tfjs-style code, threading its Variables through `jax.jit`.

A call passes the current buffers of the Variables `fn` uses into one compiled program,
binds them in the store while `fn` traces, and commits the results afterwards.

- **Layout.** The Variables the program takes: those `fn` writes (donated, and returned)
  and those it only reads (not donated), plus the `trainable` flags its result depends
  on. It is found by tracing, once: a Variable the trace reads without a binding is read
  through its concrete value, and a trace that needs more than its layout gives (such
  reads, writes outside it, flags, host callbacks with donation) is handed, as a
  `_Retrace`, to the program of the wider layout, which stages the same trace with those
  values as inputs. Creating or disposing Variables the step does not use changes nothing.
- **Records.** What a trace learns is returned with it (`_Step`); each layout's program
  is an immutable `_Program`, replaced whole when the layout changes.
- **Ownership.** Donated buffers come from `variables.gather`, which copies any buffer
  someone else may hold, so donation is never observable. A call whose previous call
  left `variables.buffers_stamp()` unchanged (no Variable read, written, disposed or
  re-flagged since) donates the buffers that call committed as they are, and leaves its
  own results pending (`variables.commit_later`: stored in the Variables when anything
  next reads or writes one); a call that would trace takes the full path.
- **Transactions.** Nothing is committed until the call has succeeded. A program with
  host callbacks, and every program while `jax_debug_nans`/`jax_debug_infs` is on,
  runs without donation (and is waited for), so a failure at run time leaves every
  input as it was; Variables created by a failed call are disposed.
- **Threads.** Gathering buffers, dispatching and committing happen under the store's
  lock, so steps sharing Variables run one at a time and no update is lost.
"""

from __future__ import annotations

import contextvars
import dataclasses
import functools
import inspect
import warnings
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, ParamSpec, Protocol, TypeVar, overload

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer, eval_jaxpr

from . import _store
from ._jax_internals import tracing
from ._jaxpr import has_callbacks
from ._tensor import Tensor, unwrap, unwrap_tree, wrap_tree
from .variables import (
    TracedAssignError,
    Variable,
    buffers_stamp,
    check_alive,
    commit,
    commit_all,
    commit_later,
    epoch,
    gather,
    pinned_sharding,
    thread,
    variable_by_uid,
    write,
)

# Arrays of at least this many elements captured from Python (not Variables, not
# arguments) make tf.jit warn: they are baked into the program as constants.
CONSTANT_WARNING_SIZE = 256

# Argument types that can hold no Variable: calls with only these skip the pytree walk.
# (JAX's array type joins on the first call: making an array at import would start the
# backend, and a process that forks after importing tfjs_grad would hang.)
_PLAIN = {np.ndarray, float, int, bool, type(None), str, Tensor}


def _is_plain(x: Any) -> bool:
    """A concrete JAX array or a NumPy scalar (`np.float32(0.1)`): holds no Variable."""
    return isinstance(x, np.generic) or (isinstance(x, jax.Array) and not isinstance(x, Tracer))


def _dtype_of(x: Any) -> Any:
    dtype = getattr(x, "dtype", None)
    return np.dtype(dtype) if dtype is not None else np.result_type(x)


class Threaded(NamedTuple):
    """One Variable a program takes, with what of it the program is compiled for."""

    uid: int
    trainable: bool  # its flag decides what a loss differentiates
    sharding: Any = None  # the sharding a written Variable's new value keeps (if pinned)


@dataclasses.dataclass(frozen=True)
class Layout:
    """The static description of one compiled program's state."""

    written: tuple[Threaded, ...] = ()  # donated (when `donate`) and returned
    read: tuple[Threaded, ...] = ()  # passed, never donated
    watched: tuple[Threaded, ...] = ()  # not passed: only their `trainable` flags matter
    donate: bool = True

    @functools.cached_property
    def written_uids(self) -> tuple[int, ...]:
        return tuple(t.uid for t in self.written)

    @functools.cached_property
    def bound_uids(self) -> tuple[int, ...]:
        """The uids of the Variables passed in, in the order they are passed."""
        return self.written_uids + tuple(t.uid for t in self.read)

    @functools.cached_property
    def known_uids(self) -> frozenset[int]:
        return frozenset(self.bound_uids).union(t.uid for t in self.watched)


@dataclasses.dataclass(frozen=True, eq=False)
class _Program:
    """One layout's compiled program and the Variables it threads (replaced, never changed)."""

    layout: Layout
    written: tuple[Variable, ...]
    read: tuple[Variable, ...]
    watched: tuple[Variable, ...]
    call: Callable[..., Any]
    epoch: int  # `variables.epoch()` when it was made


@dataclasses.dataclass(frozen=True, eq=False)
class _Step:
    """`fn` traced once for one argument signature: the staged program (inputs: the values
    of `bound`, then the arguments' arrays), what it did, and whether it calls back."""

    traced: _store.Traced
    bound: tuple[int, ...]
    signature: Any
    callbacks: bool


class _Fast:
    """What a full call left for the next: its program, the buffers it committed (donated
    next as they are) and the read-only ones, `buffers_stamp()` after its commit, and
    whether the step returns one array (wrapped straight into a Tensor)."""

    __slots__ = ("program", "donated", "kept", "stamp", "single")

    def __init__(
        self, program: _Program, donated: list[Any], kept: list[Any], stamp: int, single: bool
    ):
        self.program, self.donated, self.kept, self.stamp = program, donated, kept, stamp
        self.single = single


class _NeedsFullCall(Exception):
    """Raised by a trace that starts during a fast call: the full call traces instead."""


class _Retrace(Exception):
    """The trace needs a wider layout (or no donation): carries the trace, to be staged by
    the program of that layout instead of running `fn` again."""

    def __init__(self, step: _Step):
        super().__init__("the traced function needs a program with another layout")
        self.step = step


# The trace a retried call hands to the program it retries with (set for that call only).
_handed: contextvars.ContextVar[_Step | None] = contextvars.ContextVar(
    "tfjs_grad_jit_handed", default=None
)


class _VarRef:
    """Stands for a Variable passed as an argument: static, with no array leaves."""

    __slots__ = ("uid",)

    def __init__(self, uid: int):
        self.uid = uid


jax.tree_util.register_pytree_node(_VarRef, lambda r: ((), r.uid), lambda uid, _: _VarRef(uid))


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


def _is_ref(x: Any) -> bool:
    return isinstance(x, _VarRef)


def _as_refs(tree: Any) -> Any:
    def ref(v: Any) -> Any:
        if not _is_variable(v):
            return v
        check_alive(v)
        return _VarRef(v.id)

    return jax.tree.map(ref, tree, is_leaf=_is_variable)


def _from_refs(tree: Any) -> Any:
    return jax.tree.map(
        lambda r: variable_by_uid(r.uid) if _is_ref(r) else r, tree, is_leaf=_is_ref
    )


def _array_of(x: Any) -> Any:
    """A Tensor argument as its array (JAX would flatten it through Python on every call);
    a Variable stays itself (it is threaded state), anything else as it is."""
    return unwrap(x) if type(x) is Tensor else x


def _output(v: Any) -> Any:
    return jnp.asarray(v.raw() if _is_variable(v) else v)


def _warn_at(fn: Callable[..., Any], message: str) -> None:
    """Warn at `fn`'s definition: raised while JAX traces it, the stack holds JAX's frames."""
    code = getattr(fn, "__code__", None)
    if code is None:
        warnings.warn(message, UserWarning, stacklevel=3)
        return
    module = getattr(fn, "__module__", None) or "tfjs_grad"
    registry = getattr(fn, "__globals__", {}).setdefault("__warningregistry__", {})
    warnings.warn_explicit(
        message, UserWarning, code.co_filename, code.co_firstlineno, module, registry
    )


def _with_state_parameters(fn: Callable[..., Any]) -> inspect.Signature | None:
    """`fn`'s signature behind the two state lists the program takes first, so that JAX
    names a bad argument by `fn`'s parameter (as `jax.jit(fn)` does)."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    state = [
        inspect.Parameter(name, inspect.Parameter.POSITIONAL_ONLY)
        for name in ("tfjs_written_state", "tfjs_read_state")
    ]
    try:
        return signature.replace(parameters=[*state, *signature.parameters.values()])
    except ValueError:
        return None


def _needs_another_layout(layout: Layout, step: _Step) -> bool:
    effects = step.traced.effects
    if effects.promoted or (layout.donate and step.callbacks):
        return True
    written = layout.written_uids
    if any(uid not in written and uid not in effects.created for uid in effects.writes):
        return True
    return any(uid not in layout.known_uids for uid in effects.flags)


class Jitted:
    """A compiled stateful function; call it like `fn`. `trace_count` counts traces."""

    _api = "jit"

    def __init__(self, fn: Callable[..., Any], jit_kwargs: dict[str, Any]):
        if not callable(fn):
            raise TypeError(f"The fn passed in {self._api}(fn) must be a function")
        functools.update_wrapper(self, fn)
        self._fn = fn
        self.trace_count = 0
        self._allow_constants = bool(jit_kwargs.pop("allow_constants", False))
        self._warned = False
        for forbidden in ("donate_argnums", "donate_argnames"):
            if forbidden in jit_kwargs:
                raise ValueError(f"tf.jit manages donation itself; '{forbidden}' is not accepted")
        static = jit_kwargs.pop("static_argnums", None)
        static = () if static is None else (static,) if isinstance(static, int) else tuple(static)
        self._static = tuple(i + 2 if i >= 0 else i for i in static)
        self._jit_kwargs = jit_kwargs
        self._signature = _with_state_parameters(fn)
        self._compiled: dict[Layout, Callable[..., Any]] = {}
        self._fast: _Fast | None = None  # set by a full call whose state the next may reuse
        # JAX hands dicts back with sorted keys: the order each result dict had when
        # traced, by its sorted keys, where the two differ (so calls give the user's order)
        self._key_orders: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self._program = self._install((), (), (), donate=True)

    @property
    def traceCount(self) -> int:  # noqa: N802 (camelCase alias, as every public name has)
        return self.trace_count

    @property
    def _written(self) -> list[Variable]:
        """The Variables the current program writes (and donates)."""
        return list(self._program.written)

    @property
    def _read(self) -> list[Variable]:
        """The Variables the current program only reads."""
        return list(self._program.read)

    # -- programs -------------------------------------------------------------------
    def _jitted(self, layout: Layout) -> Callable[..., Any]:
        """The `jax.jit` of `_pure` for one layout (made once, then looked up)."""
        program = self._compiled.get(layout)
        if program is None:

            def _pure(donated: list[Any], kept: list[Any], *args: Any, **kwargs: Any) -> Any:
                return self._pure(layout, donated, kept, args, kwargs)

            _pure.__qualname__ = getattr(self._fn, "__qualname__", "_pure")
            _pure.__module__ = getattr(self._fn, "__module__", None) or __name__
            if self._signature is not None:
                _pure.__signature__ = self._signature  # type: ignore[attr-defined]
            program = jax.jit(
                _pure,
                static_argnums=self._static,
                donate_argnums=(0,) if layout.donate else (),
                **self._jit_kwargs,
            )
            self._compiled[layout] = program
        return program

    def _install(
        self,
        written: Sequence[Variable],
        read: Sequence[Variable],
        watched: Sequence[Variable],
        donate: bool,
    ) -> _Program:
        """Make (and use from now on) the program that threads these Variables."""
        thread((*written, *read, *watched))
        layout = Layout(
            tuple(Threaded(v.id, v.trainable, pinned_sharding(v)) for v in written),
            tuple(Threaded(v.id, v.trainable) for v in read),
            tuple(Threaded(v.id, v.trainable) for v in watched),
            donate,
        )
        program = _Program(
            layout, tuple(written), tuple(read), tuple(watched), self._jitted(layout), epoch()
        )
        self._program = program
        self._fast = None
        return program

    def _refreshed(self, program: _Program) -> _Program:
        """After a disposal or a flag/sharding change anywhere: drop dead Variables (a
        later trace then reports a use of one) and re-key on the current flags."""

        def alive(variables: tuple[Variable, ...]) -> list[Variable]:
            return [v for v in variables if not v.is_disposed]

        return self._install(
            alive(program.written),
            alive(program.read),
            alive(program.watched),
            program.layout.donate,
        )

    def _widened(self, program: _Program, step: _Step) -> _Program:
        """The program whose layout takes what `step` needs besides `program`'s."""
        effects = step.traced.effects

        def variables(uids: Sequence[int]) -> list[Variable]:
            found = [variable_by_uid(uid) for uid in sorted(uids)]
            return [v for v in found if v is not None]

        written = list(program.written)
        written += variables(
            [
                u
                for u in effects.writes
                if u not in effects.created and u not in program.layout.written_uids
            ]
        )
        moved = {v.id for v in written}
        read = [v for v in program.read if v.id not in moved]
        read += [v for v in variables(list(effects.promoted)) if v.id not in moved]
        known = moved.union(v.id for v in read).union(t.uid for t in program.layout.watched)
        watched = list(program.watched) + variables([u for u in effects.flags if u not in known])
        donate = self._program.layout.donate and not step.callbacks
        return self._install(written, read, watched, donate)

    # -- what runs while jax.jit traces -------------------------------------------------
    def _pure(
        self, layout: Layout, donated: list[Any], kept: list[Any], args: Any, kwargs: Any
    ) -> tuple[list[Any], dict[int, Any], Any]:
        """Stage `fn` for this layout: traced here (once), or handed over by a retried call.

        Returns `(new values of layout.written, {uid: value} of the Variables the trace
        created, out)`: the state first, so that JAX pairs each donated input with its own
        new value (an output before them would take the first donated buffer of its
        shape, and shift every pairing after it into a copy)."""
        if not _store.is_collecting():  # started by a fast call: the full path traces
            raise _NeedsFullCall
        state = [*donated, *kept]
        leaves, tree = jax.tree.flatten((args, kwargs))
        dynamic = [i for i, x in enumerate(leaves) if isinstance(x, (Tracer, jax.Array))]
        at = set(dynamic)
        signature = (tree, tuple(jax.typeof(x) if i in at else x for i, x in enumerate(leaves)))
        step = _handed.get()
        if step is None or step.signature != signature:
            self.trace_count += 1
            step = self._trace(layout, state, leaves, tree, dynamic, signature)
            if _needs_another_layout(layout, step):
                raise _Retrace(step)
        # jax_debug_nans re-runs this function on concrete values to locate a NaN
        rerun = not any(isinstance(x, Tracer) for x in (*state, *leaves))
        return self._stage(layout, step, state, [leaves[i] for i in dynamic], len(donated), rerun)

    def _trace(
        self,
        layout: Layout,
        state: list[Any],
        leaves: list[Any],
        tree: Any,
        dynamic: list[int],
        signature: Any,
    ) -> _Step:
        bound = layout.bound_uids

        def body(*xs: Any) -> Any:
            full = list(leaves)
            for i, x in zip(dynamic, xs[len(bound) :]):
                full[i] = x
            # the user's code sees Tensors (a Variable passed in stays itself), and so do
            # the step's callers
            args, kwargs = wrap_tree(_from_refs(jax.tree.unflatten(tree, full)))
            out = self._body(args, kwargs)
            _note_key_orders(out, self._key_orders)
            return wrap_tree(jax.tree.map(_output, out, is_leaf=_is_variable))

        avals = [jax.typeof(x) for x in (*state, *(leaves[i] for i in dynamic))]
        traced = _store.trace(body, avals, bound, tracks=True)
        return _Step(traced, bound, signature, has_callbacks(traced.jaxpr.jaxpr))

    def _stage(
        self,
        layout: Layout,
        step: _Step,
        state: list[Any],
        arguments: list[Any],
        n_donated: int,
        rerun: bool,
    ) -> tuple[list[Any], dict[int, Any], Any]:
        closed, effects = step.traced.jaxpr, step.traced.effects
        by_uid = dict(zip(layout.bound_uids, state))
        consts = list(closed.consts)
        if effects.promoted:  # Variables the trace read as constants are inputs here
            at = {id(value): uid for uid, value in effects.promoted.items()}
            consts = [by_uid[at[id(c)]] if id(c) in at else c for c in consts]
            self._check_constants([c for c in closed.consts if id(c) not in at])
        else:
            self._check_constants(consts)
        inputs = [by_uid[uid] for uid in step.bound] + arguments
        with jax.disable_jit(rerun):  # op by op, so the NaN check names the op
            outs = eval_jaxpr(closed.jaxpr, consts, *inputs)
        n_out = step.traced.out_tree.num_leaves
        out, written = outs[:n_out], dict(zip(effects.writes, outs[n_out:]))
        new = [written.pop(uid) if uid in written else by_uid[uid] for uid in layout.written_uids]
        new, extra, out = _unaliased(
            new, list(written.values()), out, [*state[n_donated:], *arguments]
        )
        new = [
            v if t.sharding is None else jax.lax.with_sharding_constraint(v, t.sharding)
            for v, t in zip(new, layout.written)
        ]
        # the caller wraps the result's arrays in Tensors again (`wrap_tree`): a Tensor
        # node in a compiled program's output would be rebuilt through its pytree
        # unflatten, which checks the calling frame, on every call
        result = unwrap_tree(jax.tree.unflatten(step.traced.out_tree, out))
        return new, dict(zip(written, extra)), result

    def _check_constants(self, consts: list[Any]) -> None:
        """Warn (once) about a data-like array captured from Python: it is baked into the
        program, so every later call would silently reuse its first value."""
        if self._allow_constants or self._warned:
            return
        for const in consts:
            if not isinstance(const, Tracer) and np.size(const) >= CONSTANT_WARNING_SIZE:
                self._warned = True
                _warn_at(
                    self._fn,
                    f"tf.{self._api} step '{getattr(self._fn, '__qualname__', 'fn')}' reads a "
                    f"{np.shape(const)} {_dtype_of(const)} array that is neither a "
                    "Variable nor an argument (e.g. a batch fetched inside the step): it is "
                    "baked into the compiled program, and every later call reuses the value "
                    "it had on the first call. Pass it as an argument; if it is meant to be "
                    f"a constant, use tf.{self._api}(fn, allow_constants=True).",
                )
                return

    def _body(self, args: Any, kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    # -- calling --------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        fast = self._fast
        if fast is None or kwargs:
            return self._call_full(args, kwargs)
        kinds = tuple(map(type, args))
        if not (
            _PLAIN.issuperset(kinds)
            and _store.current() is None
            and not tracing()
            and _store.donation_allowed()
        ):
            return self._call_full(args, kwargs)
        if Tensor in kinds:
            args = tuple(map(_array_of, args))
        with _store.LOCK:
            if fast.stamp != buffers_stamp():  # something moved since it committed
                return self._call_full(args, kwargs)
            return self._call_fast(fast, args)

    def _call_fast(self, fast: _Fast, args: tuple[Any, ...]) -> Any:
        """The call after a full one that left every buffer as it committed them (under
        the lock): donate those buffers as they are (no gather). A call that would trace
        (new argument shapes) takes the full path instead: tracing needs its bookkeeping."""
        program = fast.program
        try:
            new, created, out = program.call(fast.donated, fast.kept, *args)
        except _NeedsFullCall:
            return self._call_full(args, {})
        stamp = commit_later(program.written, new, program.epoch)
        if created:
            self._adopt(created)
        elif self._fast is fast:
            fast.donated, fast.stamp = new, stamp
        if fast.single:  # (wrap_tree's walk cost the tiny step about 2 us on one core)
            return Tensor(out)
        return self._result(out)

    def _call_full(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        self._fast = None
        if _store.current() is not None:  # inside another stateful transform: it threads state
            return self._fn(*args, **kwargs)
        if tracing():
            return self._under_outer_transform(args, kwargs)
        args = tuple(map(_array_of, args))  # as the fast call passes them
        if kwargs or not _PLAIN.issuperset(map(type, args)):
            _PLAIN.update(type(a) for a in args if _is_plain(a))
            args, kwargs = _as_refs((args, kwargs))
        with _store.LOCK, _store.collecting():
            program = self._program
            handed = None
            while True:
                if program.epoch != epoch():
                    program = self._refreshed(program)
                donate = program.layout.donate
                if donate and not _store.donation_allowed():
                    donate = False
                    program = dataclasses.replace(
                        program,
                        layout=dataclasses.replace(program.layout, donate=False),
                        call=self._jitted(dataclasses.replace(program.layout, donate=False)),
                    )
                donated, kept, shared = gather(program.written, program.read, donate)
                try:
                    if handed is None:
                        new, created, out = program.call(donated, kept, *args, **kwargs)
                    else:
                        token = _handed.set(handed)
                        try:
                            new, created, out = program.call(donated, kept, *args, **kwargs)
                        finally:
                            _handed.reset(token)
                    if not donate:  # a failure at run time must show before commit
                        jax.block_until_ready((out, new, created))
                    break
                except _Retrace as retrace:
                    handed = retrace.step
                    program = self._widened(program, handed)
            self._commit(program, new, shared, created)
            if donate and not created and program is self._program:
                single = isinstance(out, jax.Array)
                self._fast = _Fast(program, new, kept, buffers_stamp(), single)
        return self._result(out)

    def _result(self, out: Any) -> Any:
        """A call's result as the user's code returned it: Tensors, dicts in its order."""
        if self._key_orders:
            out = _in_key_order(out, self._key_orders)
        return wrap_tree(out)

    def _commit(
        self, program: _Program, new: list[Any], shared: bool, created: dict[int, Any]
    ) -> None:
        """Take a call's results (under the lock): the written Variables' new buffers,
        and the Variables the trace created, which the program takes from now on."""
        commit_all(program.written, new, shared, program.epoch)
        if created:
            self._adopt(created)

    def _adopt(self, created: dict[int, Any]) -> None:
        """Give the Variables a call created their values; the program takes them now."""
        born = [var for uid in created if (var := variable_by_uid(uid)) is not None]
        for var in born:
            commit(var, created[var.id])
        now = self._program
        self._install([*now.written, *born], now.read, now.watched, now.layout.donate)

    def _under_outer_transform(self, args: Any, kwargs: Any) -> Any:
        """Under jax.jit/vmap/grad/scan: a step that only reads Variables composes (they
        are constants of the outer trace); one that would change state raises."""
        args, kwargs = wrap_tree((args, kwargs))
        effects = _store.run(lambda: self._fn(*args, **kwargs), {})
        effects.discard()
        if effects.writes:
            names = [v.name for uid in effects.writes if (v := variable_by_uid(uid)) is not None]
            raise TracedAssignError(
                f"tf.{self._api} step '{getattr(self._fn, '__name__', 'fn')}' was called under "
                f"an outer JAX transform (jax.jit, jax.vmap, jax.grad, lax.scan, ...) and "
                f"would change Variables ({', '.join(names) or 'new ones'}), which cannot leave "
                "that trace. Call it outside the transform, or use tf.functionalize(fn) to get "
                "a pure function of the state that composes with every JAX transform. "
                "Nothing was changed."
            )
        return effects.output


def _unaliased(new: list[Any], extra: list[Any], out: list[Any], inputs: list[Any]):
    """Copy any state output that is also an input, or that appears twice among the
    outputs: each Variable must own a buffer of its own, distinct from the user's."""
    taken = {id(x) for x in inputs if isinstance(x, Tracer)}

    def own(values: list[Any]) -> list[Any]:
        result = []
        for value in values:
            if id(value) in taken:
                value = jnp.copy(value)
            taken.add(id(value))
            result.append(value)
        return result

    new, extra = own(new), own(extra)
    state = {id(x) for x in (*new, *extra)}
    out = [jnp.copy(x) if id(x) in state else x for x in out]
    return new, extra, out


def _note_key_orders(tree: Any, orders: dict[tuple[Any, ...], tuple[Any, ...]]) -> None:
    """Remember the key order of each plain dict in `tree` whose keys JAX would sort."""
    if type(tree) is dict:
        keys = tuple(tree)
        try:
            ordered = tuple(sorted(keys))
        except TypeError:  # keys JAX cannot sort either: it raises on its own
            return
        if ordered != keys:
            orders[ordered] = keys
        for value in tree.values():
            _note_key_orders(value, orders)
    elif isinstance(tree, (list, tuple)):
        for value in tree:
            _note_key_orders(value, orders)


def _in_key_order(tree: Any, orders: dict[tuple[Any, ...], tuple[Any, ...]]) -> Any:
    """`tree` (as a compiled call returns it: plain dicts in sorted key order) with each
    dict's keys in the order `_note_key_orders` saw when tracing."""
    if type(tree) is dict:
        keys = orders.get(tuple(tree), tuple(tree))
        return {k: _in_key_order(tree[k], orders) for k in keys}
    if type(tree) is list:
        return [_in_key_order(v, orders) for v in tree]
    if isinstance(tree, tuple):
        items = [_in_key_order(v, orders) for v in tree]
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    return tree


class JittedLoop(Jitted):
    """`fn` run once per leading-axis slice of its arguments, in one compiled call."""

    _api = "jit_loop"

    def _body(self, args: Any, kwargs: Any) -> Any:
        leaves = jax.tree.leaves((args, kwargs))
        if not leaves:
            raise ValueError("jit_loop needs at least one array argument to loop over")
        steps = {leaf.shape[0] if jnp.ndim(leaf) else None for leaf in leaves}
        if len(steps) != 1 or None in steps:
            raise ValueError(
                "Every argument of a jit_loop function must have the same leading (step) "
                f"axis; got leading sizes {sorted(map(str, steps))}"
            )
        if steps == {0}:
            raise ValueError("jit_loop needs at least one step: the leading axis has length 0")
        slice_at = lambda i: jax.tree.map(lambda a: a[i], (args, kwargs))  # noqa: E731
        step = lambda a, kw: self._fn(*a, **kw)  # noqa: E731
        # A first trace of one step creates the state it needs (optimizer slots) and
        # reveals what it writes; its result is not used, so the step compiles once.
        scratch = _store.trace(lambda: jax.tree.leaves(step(*slice_at(0))), [], ()).effects
        if scratch.created:
            scratch.discard()
            raise ValueError(
                "jit_loop: the step creates Variables from traced values "
                f"({', '.join(v.name for v in scratch.created.values())}); create them before "
                "the loop, or in a tf.jit step"
            )
        carried = [v for uid in scratch.writes if (v := variable_by_uid(uid)) is not None]
        uids = [v.id for v in carried]

        def one_step(carry: list[Any], xs: Any) -> Any:
            inner = _store.run(lambda: step(*xs), dict(zip(uids, carry)))
            if inner.created:
                names = ", ".join(v.name for v in inner.created.values())
                raise ValueError(
                    f"jit_loop: the step created Variables ({names}) after its first run; "
                    "create state in the first step only"
                )
            new = [
                inner.writes.get(uid, c).astype(jnp.result_type(c)) for uid, c in zip(uids, carry)
            ]
            _note_key_orders(inner.output, self._key_orders)
            return new, inner.output

        initial = [var.raw() for var in carried]  # bound, or read as an input to be
        carry, outs = jax.lax.scan(one_step, initial, (args, kwargs))
        for var, value in zip(carried, carry):
            write(var, value)
        return outs


def repeat_steps(count: Any, step: Callable[[Any, Any], Any], carry: Any) -> Any:
    """Inside a `tf.jit` function: `carry = step(i, carry)` for `i` in `range(count)` as
    one `lax.fori_loop` (`count` may be traced), the Variables `step` assigns threaded
    through the loop. A first step that creates state (optimizer slots) runs once before
    the loop, which then starts at 1. `carry` is a pytree of arrays `step` returns alike.

    >>> import tfjs_grad as tf, jax.numpy as jnp
    >>> w = tf.variable(tf.scalar(1.0), name="doc_repeat_w")
    >>> @tf.jit
    ... def grow(n):
    ...     def step(i, total):
    ...         w.assign(w * 2)
    ...         return total + w.value
    ...     return repeat_steps(n, step, jnp.float32(0))
    >>> float(grow(3)), float(w)
    (14.0, 8.0)
    >>> w.dispose()
    """
    zero = jnp.int32(0)
    scratch = _store.trace(lambda: jax.tree.leaves(step(zero, carry)), [], ()).effects
    first = 0
    if scratch.created:
        scratch.discard()
        carry, first = step(zero, carry), 1
        scratch = _store.trace(lambda: jax.tree.leaves(step(zero, carry)), [], ()).effects
    carried = [v for uid in scratch.writes if (v := variable_by_uid(uid)) is not None]
    uids = [v.id for v in carried]

    def body(i: Any, state: tuple[list[Any], Any]) -> tuple[list[Any], Any]:
        values, inner_carry = state
        inner = _store.run(lambda: step(i, inner_carry), dict(zip(uids, values)))
        if inner.created:
            names = ", ".join(v.name for v in inner.created.values())
            raise ValueError(f"repeat_steps: the step created Variables ({names}) in the loop")
        new = [inner.writes.get(uid, v).astype(jnp.result_type(v)) for uid, v in zip(uids, values)]
        return new, inner.output

    initial = ([var.raw() for var in carried], carry)
    values, carry = jax.lax.fori_loop(first, jnp.maximum(count, first), body, initial)
    for var, value in zip(carried, values):
        write(var, value)
    return carry


def jit_loop(fn: Callable[..., Any] | None = None, **jax_jit_kwargs: Any) -> Any:
    """Compile K calls of a stateful step into one program (`lax.scan` underneath).

    Every argument carries a leading step axis of length K; call i sees slice i. The
    result stacks the K outputs (e.g. per-step costs). State the step needs (optimizer
    slots) is created before the loop; the step must not create Variables from traced
    values.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 1]), name="doc_loop_w")
    >>> opt = tf.train.sgd(0.1)
    >>> @tf.jit_loop
    ... def train(x):
    ...     return opt.minimize(lambda: ((w * x) ** 2).sum(), return_cost=True)
    >>> costs = train(tf.ones([3, 2]))  # three steps
    >>> [round(c, 4) for c in costs.tolist()], opt.iterations
    ([2.0, 1.28, 0.8192], 3)
    >>> w.dispose()
    """
    if fn is None:
        return lambda f: JittedLoop(f, dict(jax_jit_kwargs))
    return JittedLoop(fn, dict(jax_jit_kwargs))


P = ParamSpec("P")
R = TypeVar("R", covariant=True)


class Compiled(Protocol[P, R]):
    """What `tf.jit(fn)` returns, as a type checker sees it: called as `fn` is."""

    trace_count: int

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...


@overload
def jit(fn: Callable[P, R], **jax_jit_kwargs: Any) -> Compiled[P, R]: ...
@overload
def jit(fn: None = None, **jax_jit_kwargs: Any) -> Callable[[Callable[P, R]], Compiled[P, R]]: ...
def jit(fn: Callable[..., Any] | None = None, **jax_jit_kwargs: Any) -> Any:
    """Compile a function that reads and assigns Variables and runs optimizer steps.

    After each call the Variables hold their new values. Calls with inputs of the same
    shapes reuse the compiled program; `.trace_count` says how often it was traced.
    Keyword arguments go to `jax.jit` (`static_argnums=1` or `(1,)`, `static_argnames`).
    A step that reads an array of 256 or more elements that is neither a Variable nor an
    argument warns once (it would be baked in); `allow_constants=True` silences that.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_jit_w")
    >>> opt = tf.train.sgd(0.1)
    >>> @tf.jit
    ... def step(x):
    ...     return opt.minimize(lambda: ((w * x) ** 2).sum(), return_cost=True)
    >>> float(step(tf.tensor1d([1, 1])))
    5.0
    >>> w.value.tolist()
    [0.800000011920929, 1.600000023841858]
    >>> w.dispose()
    """
    if fn is None:
        return lambda f: Jitted(f, dict(jax_jit_kwargs))
    return Jitted(fn, dict(jax_jit_kwargs))


jitLoop = jit_loop
