"""`tf.jit`: compile stateful tfjs-style code, threading its Variables through `jax.jit`.

A call passes the current buffers of the Variables `fn` uses into one compiled program,
binds them in the store while `fn` traces, and commits the results afterwards.

- **Layout.** The Variables the program takes: those `fn` writes (donated, and returned)
  and those it only reads (not donated), plus the `trainable` flags its result depends
  on. It is found by tracing: a trace that touches a Variable outside the layout raises
  `_LayoutMiss`, the layout widens and `fn` is traced again. Creating or disposing
  Variables the step does not use changes nothing.
- **Ownership.** Donated buffers come from `Variable._lend`, which copies any buffer
  someone else may hold, so donation is never observable.
- **Transactions.** Nothing is committed until the call has succeeded. A program with
  host callbacks, and every program while `jax_debug_nans`/`jax_debug_infs` is on,
  runs without donation (and is waited for), so a failure at run time leaves every
  input as it was.
- **Threads.** Gathering buffers, dispatching and committing happen under the store's
  lock, so steps sharing Variables run one at a time and no update is lost.
"""

from __future__ import annotations

import functools
import operator
import warnings
from collections.abc import Callable
from itertools import repeat as _repeat
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer, eval_jaxpr

from . import _store
from ._jax_internals import trace_to_jaxpr, tracing
from ._jaxpr import has_callbacks
from ._tensor import Tensor, wrap_tree
from .variables import TracedAssignError, Variable, _epoch, epoch, variable_by_uid

_buffer_of = operator.attrgetter("_buffer")
_NONES = _repeat(None)  # `None in buffers` would compare arrays with ==: test identity
_shared_of = operator.attrgetter("_shared")

# Arrays of at least this many elements captured from Python (not Variables, not
# arguments) make tf.jit warn: they are baked into the program as constants.
CONSTANT_WARNING_SIZE = 256

# Argument types that can hold no Variable: calls with only these skip the pytree walk.
# (JAX's array type joins on the first call: making an array at import would start the
# backend, and a process that forks after importing tfjs_grad would hang.)
_PLAIN = {np.ndarray, float, int, bool, type(None), str, Tensor}


def _is_concrete_array(x: Any) -> bool:
    return isinstance(x, jax.Array) and not isinstance(x, Tracer)


class _Layout:
    """The static description of one compiled program's state (a jax.jit static arg)."""

    __slots__ = ("written", "read", "watched", "shardings", "flags", "donate", "_hash")

    def __init__(
        self,
        written: tuple[int, ...] = (),
        read: tuple[int, ...] = (),
        watched: tuple[int, ...] = (),
        shardings: tuple[Any, ...] = (),
        flags: tuple[bool, ...] = (),
        donate: bool = True,
    ):
        self.written, self.read, self.watched = written, read, watched
        self.shardings, self.flags, self.donate = shardings, flags, donate
        self._hash = hash((written, read, watched, shardings, flags, donate))

    def _key(self) -> tuple[Any, ...]:
        return (self.written, self.read, self.watched, self.shardings, self.flags, self.donate)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, _Layout) and other._key() == self._key())


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
        v._check_disposed()
        return _VarRef(v._uid)

    return jax.tree.map(ref, tree, is_leaf=_is_variable)


def _from_refs(tree: Any) -> Any:
    return jax.tree.map(
        lambda r: variable_by_uid(r.uid) if _is_ref(r) else r, tree, is_leaf=_is_ref
    )


class _LayoutMiss(Exception):
    """A trace touched Variables outside the layout; carries what to add."""

    def __init__(self, read: set[int], written: set[int], watched: set[int]):
        super().__init__("the traced function used Variables outside the compiled layout")
        self.read, self.written, self.watched = read, written, watched


class _MustNotDonate(Exception):
    """The traced program has host callbacks: run it without donation."""


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


def _debug_checks() -> bool:
    return bool(jax.debug_nans.value or jax.debug_infs.value)


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
        self._programs: dict[_Layout, Callable[..., Any]] = {}
        self._written: list[Variable] = []
        self._read: list[Variable] = []
        self._watched: list[Variable] = []
        self._layout = _Layout()
        self._call = self._program(self._layout)
        self._epoch = epoch()
        self._newborn: list[Variable] = []
        self._one_off: _LayoutMiss | None = None

    # -- what runs while jax.jit traces -------------------------------------------------
    @property
    def traceCount(self) -> int:  # noqa: N802 (camelCase alias, as every public name has)
        return self.trace_count

    def _program(self, layout: _Layout) -> Callable[..., Any]:
        """The `jax.jit` of `_pure` for one layout (made once, then looked up)."""
        program = self._programs.get(layout)
        if program is None:
            donate = (0,) if layout.donate else ()
            pure = functools.partial(self._pure, layout)
            program = jax.jit(
                functools.update_wrapper(pure, self._pure, assigned=("__name__", "__qualname__")),
                static_argnums=self._static,
                donate_argnums=donate,
                **self._jit_kwargs,
            )
            self._programs[layout] = program
        return program

    def _pure(
        self, layout: _Layout, donated: list[Any], kept: list[Any], *args: Any, **kwargs: Any
    ):
        """Trace `fn` to a program (once), check it against the layout, then stage it.

        Returns `(out, new values of layout.written, {uid: value} of other Variables
        written or created)`. The last is empty unless the trace created Variables from
        traced values while it also used Variables outside the layout: such a program
        is right for this call (it reads those as constants) and runs once.
        """
        self.trace_count += 1
        leaves, treedef = jax.tree.flatten((donated, kept, args, kwargs))
        dynamic = [i for i, x in enumerate(leaves) if isinstance(x, (Tracer, jax.Array))]
        # jax_debug_nans re-runs this function on concrete values to locate a NaN
        rerun = not any(isinstance(x, Tracer) for x in leaves)
        info: dict[str, Any] = {}

        def traced(*xs: Any) -> list[Any]:
            full = list(leaves)
            for i, x in zip(dynamic, xs):
                full[i] = x
            d, k, a, kw = jax.tree.unflatten(treedef, full)
            bound = dict(zip(layout.written, d)) | dict(zip(layout.read, k))
            with _store.bind(bound, tracks=True) as frame:
                try:
                    # the user's code sees Tensors (a Variable passed in stays itself)
                    out = self._body(frame, *wrap_tree(_from_refs((a, kw))))
                    out = wrap_tree(
                        jax.tree.map(
                            lambda v: v.read() if _is_variable(v) else v,
                            out,
                            is_leaf=_is_variable,
                        )
                    )
                finally:
                    self._newborn = list(frame.created.values())
            out_leaves, info["out_tree"] = jax.tree.flatten(out)
            info["frame"] = frame
            known = set(layout.written)
            info["extra"] = extra = [uid for uid in frame.written if uid not in known]
            new = [frame.values[uid] for uid in layout.written]
            return [*map(jnp.asarray, out_leaves), *new, *(frame.values[u] for u in extra)]

        closed = trace_to_jaxpr(traced, [jax.typeof(leaves[i]) for i in dynamic])
        frame: _store.Frame = info["frame"]
        miss = self._layout_miss(frame, layout)
        if miss is not None and not frame.created:
            raise miss
        self._one_off = miss
        if layout.donate and has_callbacks(closed.jaxpr):
            raise _MustNotDonate()
        self._check_constants(closed.consts)
        with jax.disable_jit(rerun):  # op by op, so the NaN check names the op
            outs = eval_jaxpr(closed.jaxpr, closed.consts, *(leaves[i] for i in dynamic))
        n_new, n_extra = len(layout.written), len(info["extra"])
        n_out = len(outs) - n_new - n_extra
        out, new, extra = outs[:n_out], outs[n_out : n_out + n_new], outs[n_out + n_new :]
        inputs = [leaves[i] for i in dynamic[len(donated) :]]
        new, extra, out = _unaliased(new, extra, out, inputs)
        new = [
            v if s is None else jax.lax.with_sharding_constraint(v, s)
            for v, s in zip(new, layout.shardings)
        ]
        return jax.tree.unflatten(info["out_tree"], out), new, dict(zip(info["extra"], extra))

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
                    f"{np.shape(const)} {np.result_type(const)} array that is neither a "
                    "Variable nor an argument (e.g. a batch fetched inside the step): it is "
                    "baked into the compiled program, and every later call reuses the value "
                    "it had on the first call. Pass it as an argument; if it is meant to be "
                    f"a constant, use tf.{self._api}(fn, allow_constants=True).",
                )
                return

    def _layout_miss(self, frame: _store.Frame, layout: _Layout) -> _LayoutMiss | None:
        newborn = set(frame.created)
        bound = set(layout.written) | set(layout.read)
        read = frame.missing - newborn
        written = set(frame.written) - newborn - set(layout.written)
        watched = set(frame.flags) - bound - set(layout.watched)
        return _LayoutMiss(read, written, watched) if read or written or watched else None

    def _body(self, frame: _store.Frame, args: Any, kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    # -- the layout -----------------------------------------------------------------
    def _set_layout(self, written: list[Variable], read: list[Variable], watched: list[Variable]):
        self._written, self._read, self._watched = written, read, watched
        for var in (*written, *read, *watched):
            var._threaded = True
        self._epoch = epoch()
        self._use(self._make_layout(self._layout.donate))

    def _use(self, layout: _Layout) -> None:
        self._layout, self._call = layout, self._program(layout)

    def _make_layout(self, donate: bool) -> _Layout:
        return _Layout(
            tuple(v._uid for v in self._written),
            tuple(v._uid for v in self._read),
            tuple(v._uid for v in self._watched),
            tuple(v._sharding for v in self._written),
            tuple(v._trainable for v in (*self._written, *self._read, *self._watched)),
            donate,
        )

    def _refresh(self) -> None:
        """After a disposal or a flag/sharding change anywhere: drop dead Variables (a
        retrace then reports a use of one) and re-key on the current flags."""
        alive = lambda vs: [v for v in vs if not v._disposed]  # noqa: E731
        written, read, watched = alive(self._written), alive(self._read), alive(self._watched)
        if (len(written), len(read), len(watched)) != (
            len(self._written),
            len(self._read),
            len(self._watched),
        ):
            self._set_layout(written, read, watched)
            return
        self._epoch = epoch()
        layout = self._make_layout(self._layout.donate)
        if layout != self._layout:
            self._use(layout)

    def _widen(self, miss: _LayoutMiss) -> None:
        def variables(uids: set[int]) -> list[Variable]:
            found = [variable_by_uid(uid) for uid in sorted(uids)]
            return [v for v in found if v is not None]

        written = self._written + variables(miss.written)
        moved = {v._uid for v in written}
        read = [v for v in self._read if v._uid not in moved]
        read += [v for v in variables(miss.read) if v._uid not in moved]
        self._set_layout(written, read, self._watched + variables(miss.watched))

    # -- calling --------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _store.current() is not None:  # inside another stateful transform: it threads state
            return self._fn(*args, **kwargs)
        if tracing():
            return self._under_outer_transform(args, kwargs)
        if kwargs or not _PLAIN.issuperset(map(type, args)):
            _PLAIN.update(type(a) for a in args if _is_concrete_array(a))
            args, kwargs = _as_refs((args, kwargs))
        with _store.LOCK:
            while True:
                if self._epoch != _epoch[0]:
                    self._refresh()
                layout, call = self._layout, self._call
                if layout.donate and _debug_checks():
                    layout = self._make_layout(donate=False)
                    call = self._program(layout)
                try:
                    written = self._written
                    # `_shared` is also set on a Variable without a buffer: one test for both
                    lent = any(map(_shared_of, written))
                    if lent:
                        lend = Variable._lend if layout.donate else Variable._peek
                        donated = [lend(var) for var in written]
                    else:
                        donated = list(map(_buffer_of, written))
                    kept = list(map(_buffer_of, self._read))
                    if any(map(operator.is_, kept, _NONES)):
                        kept = [var._peek() for var in self._read]
                    out, new, extra = call(donated, kept, *args, **kwargs)
                    if not layout.donate:  # a failure at run time must show before commit
                        jax.block_until_ready((out, new, extra))
                    break
                except _LayoutMiss as miss:
                    self._discard_newborn()
                    self._widen(miss)
                except _MustNotDonate:
                    self._discard_newborn()
                    self._use(self._make_layout(donate=False))
                except BaseException:
                    self._discard_newborn()
                    raise
            # Variable._commit for each, as C-level loops: this runs on every step
            written = self._written
            list(map(setattr, written, _repeat("_buffer"), new))
            if lent:
                list(map(setattr, written, _repeat("_shared"), _repeat(False)))
            if self._epoch != _epoch[0]:  # disposed during the call (e.g. dead slots pruned)
                for var in written:
                    if var._disposed:
                        var._buffer = None
            if extra:
                for uid, value in extra.items():
                    if (var := variable_by_uid(uid)) is not None:
                        var._commit(value)
            if self._newborn:
                self._newborn = []
            if self._one_off is not None:  # (see _pure) thread what it touched from now on
                self._widen(self._one_off)
                self._one_off = None
        return out

    def _discard_newborn(self) -> None:
        """Variables born in a trace or call that failed never get a value: dispose them."""
        for var in self._newborn:
            var.dispose()
        self._newborn, self._one_off = [], None

    def _under_outer_transform(self, args: Any, kwargs: Any) -> Any:
        """Under jax.jit/vmap/grad/scan: a step that only reads Variables composes (they
        are constants of the outer trace); one that would change state raises."""
        args, kwargs = wrap_tree((args, kwargs))
        with _store.bind({}) as frame:
            try:
                out = self._fn(*args, **kwargs)
            finally:
                for var in frame.created.values():
                    var.dispose()
        if frame.written:
            names = [v.name for uid in frame.written if (v := variable_by_uid(uid)) is not None]
            raise TracedAssignError(
                f"tf.{self._api} step '{getattr(self._fn, '__name__', 'fn')}' was called under "
                f"an outer JAX transform (jax.jit, jax.vmap, jax.grad, lax.scan, ...) and "
                f"would change Variables ({', '.join(names) or 'new ones'}), which cannot leave "
                "that trace. Call it outside the transform, or use tf.functionalize(fn) to get "
                "a pure function of the state that composes with every JAX transform. "
                "Nothing was changed."
            )
        return out


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


class JittedLoop(Jitted):
    """`fn` run once per leading-axis slice of its arguments, in one compiled call."""

    _api = "jit_loop"

    def _body(self, frame: _store.Frame, args: Any, kwargs: Any) -> Any:
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
        # reveals what it reads; its result is not used, so the step compiles once.
        with _store.bind({}) as scratch:
            trace_to_jaxpr(lambda *xs: jax.tree.leaves(step(*slice_at(0))), [])
        if scratch.created:
            for var in scratch.created.values():
                var.dispose()
            raise ValueError(
                "jit_loop: the step creates Variables from traced values "
                f"({', '.join(v.name for v in scratch.created.values())}); create them before "
                "the loop, or in a tf.jit step"
            )
        carried = tuple(scratch.written)
        unbound = {uid for uid in carried if uid not in frame.values}
        if unbound:
            raise _LayoutMiss(frame.missing | unbound, unbound, set())

        def one_step(carry: list[Any], xs: Any) -> Any:
            with _store.bind(dict(zip(carried, carry))) as inner:
                out = step(*xs)
            if inner.created:
                names = ", ".join(v.name for v in inner.created.values())
                raise ValueError(
                    f"jit_loop: the step created Variables ({names}) after its first run; "
                    "create state in the first step only"
                )
            new = [inner.values[u].astype(jnp.result_type(c)) for u, c in zip(carried, carry)]
            return new, out

        initial = [frame.values[uid] for uid in carried]
        carry, outs = jax.lax.scan(one_step, initial, (args, kwargs))
        for uid, value in zip(carried, carry):
            frame.values[uid] = value
            frame.written[uid] = None
        return outs


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
