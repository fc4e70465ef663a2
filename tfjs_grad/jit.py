"""`tf.jit`: compile stateful tfjs-style code, threading its Variables through `jax.jit`.

Each call passes the current values of the Variables `fn` uses (optimizer slots
included) into one compiled function, binds them in the store while `fn` traces, and
writes the results back, donating the old buffers. The layout is settled by tracing
and revisited only when Variables are created or disposed, so a steady-state call
costs one `jax.jit` dispatch plus a list of buffers in and out.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from . import _store
from .variables import Variable, live_variables, registry_version, variable_by_uid


class _Layout:
    """The Variables threaded through one compiled function (a static arg): their uids,
    and the shardings their new values must keep (None: no pinned sharding)."""

    __slots__ = ("uids", "shardings", "_hash")

    def __init__(self, uids: tuple[int, ...], shardings: tuple[Any, ...] = ()):
        self.uids = uids
        self.shardings = shardings or (None,) * len(uids)
        self._hash = hash((uids, self.shardings))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (
            isinstance(other, _Layout)
            and other.uids == self.uids
            and other.shardings == self.shardings
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


def _copy(array: Any) -> Any:
    """A fresh buffer with the same contents and sharding (a device copy, no compile)."""
    if not array.is_fully_addressable:
        return jnp.copy(array)  # spans processes: let XLA copy each process's shards
    # An uncommitted array stays uncommitted (free to join any computation's devices).
    target = array.sharding if array.committed else None
    return jax.device_put(array, target, may_alias=False)


def _keep_sharding(value: Any, sharding: Any) -> Any:
    # Unconstrained, XLA may re-lay out a sharded variable (a replicated bias can come back
    # split over the mesh); a Variable's pinned sharding must survive every step.
    return value if sharding is None else jax.lax.with_sharding_constraint(value, sharding)


class _LayoutMiss(Exception):
    """Raised out of a trace that read Variables the layout does not thread."""

    def __init__(self, uids: set[int]):
        super().__init__(f"{len(uids)} Variables read outside the layout")
        self.uids = uids


class Jitted:
    """A compiled stateful function; call it like `fn`. `trace_count` counts traces.

    The Variables threaded through the compiled program (its *layout*) are the ones
    `fn` reads or writes, found by tracing: a trace that reads a Variable outside the
    layout widens it and traces again, and Variables created since the last call are
    offered to one probing trace so that code that starts using them is retraced.
    """

    _api = "jit"

    def __init__(self, fn: Callable[..., Any], jit_kwargs: dict[str, Any]):
        if not callable(fn):
            raise TypeError(f"The fn passed in {self._api}(fn) must be a function")
        functools.update_wrapper(self, fn)
        self._fn = fn
        self.trace_count = 0
        self._version = -1
        self._newest_uid = -1
        self._vars: list[Variable] = []
        self._layout = _Layout(())
        self._created: dict[int, Variable] = {}
        static = tuple(i + 2 for i in jit_kwargs.pop("static_argnums", ()) or ())
        for forbidden in ("donate_argnums", "donate_argnames"):
            if forbidden in jit_kwargs:
                raise ValueError(f"tf.jit manages donation itself; '{forbidden}' is not accepted")
        self._jitted = jax.jit(
            self._pure, static_argnums=(1, *static), donate_argnums=(0,), **jit_kwargs
        )
        self._probe = jax.jit(self._probe_fn, static_argnums=(1, *static), **jit_kwargs)

    # -- what runs under jax.jit ------------------------------------------------------
    def _run(self, values: list[Any], layout: _Layout, args: Any, kwargs: Any) -> Any:
        self.trace_count += 1
        args, kwargs = jax.tree.map(
            lambda r: variable_by_uid(r.uid) if _is_ref(r) else r, (args, kwargs), is_leaf=_is_ref
        )
        with _store.bind(dict(zip(layout.uids, values)), tracks=True) as frame:
            self._created = frame.created
            out = self._body(frame, args, kwargs)
        out = jax.tree.map(lambda v: v.read() if _is_variable(v) else v, out, is_leaf=_is_variable)
        return frame, out

    def _pure(self, values: list[Any], layout: _Layout, *args: Any, **kwargs: Any) -> Any:
        frame, out = self._run(values, layout, args, kwargs)
        missing = frame.missing - set(frame.created)
        if missing:
            raise _LayoutMiss(missing)
        new_values = [
            _keep_sharding(frame.values[uid], s) for uid, s in zip(layout.uids, layout.shardings)
        ]
        known = set(layout.uids)
        created = {uid: frame.values[uid] for uid in frame.written if uid not in known}
        return out, new_values, created

    def _probe_fn(self, values: list[Any], layout: _Layout, *args: Any, **kwargs: Any) -> Any:
        frame, _ = self._run(values, layout, args, kwargs)
        self._probed = (frame.touched | frame.missing | set(frame.written)) - set(frame.created)
        return frame.initial

    def _body(self, frame: _store.Frame, args: Any, kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    # -- the layout -----------------------------------------------------------------
    def _set_layout(self, variables: list[Variable]) -> None:
        self._vars = variables
        self._layout = _Layout(
            tuple(v._uid for v in variables), tuple(v._sharding for v in variables)
        )

    def _refresh_layout(self, args: Any, kwargs: Any) -> None:
        """After Variables were created or disposed anywhere: drop the dead ones, and let
        one probing trace (no compile) decide which new ones `fn` uses."""
        self._version = registry_version()
        usable = lambda v: not v._disposed and v._buffer is not None  # noqa: E731
        kept = [v for v in self._vars if usable(v)]
        new = [v for v in live_variables() if v._uid > self._newest_uid and usable(v)]
        self._newest_uid = max([self._newest_uid, *(v._uid for v in new)])
        if not new:  # Variables died, or a pinned sharding changed (a restored checkpoint)
            self._set_layout(kept)
            return
        candidates = kept + new
        self._set_layout(candidates)
        self._probed: set[int] = set()
        buffers = [v._buffer for v in self._vars]  # the probe donates nothing
        self._guarded(self._probe.trace, buffers, self._layout, args, kwargs)
        if self._created:
            # fn made Variables from traced values (kept by fn for later calls): give them
            # their initial values now, running the probe (compiled down to just those).
            born = dict(self._created)
            for uid, value in self._guarded(
                self._probe, buffers, self._layout, args, kwargs
            ).items():
                born[uid]._write(value)
            self._probed |= set(born)
        used = [v for v in candidates if v._uid in self._probed]
        used += [
            v
            for uid in sorted(self._probed - {v._uid for v in candidates})
            if (v := variable_by_uid(uid)) is not None and usable(v)
        ]
        self._newest_uid = max([self._newest_uid, *(v._uid for v in used)])
        self._version = registry_version()
        self._set_layout(used)

    def _widen(self, uids: set[int]) -> None:
        extra = [v for uid in sorted(uids) if (v := variable_by_uid(uid)) is not None]
        if not extra:
            raise RuntimeError("tf.jit: a traced read of a Variable that no longer exists")
        self._set_layout(self._vars + extra)

    def _values(self) -> list[Any]:
        # A buffer someone else may hold is copied (a device copy, no compile) before the
        # compiled call donates it.
        return [_copy(v._buffer) if v._exported else v._buffer for v in self._vars]

    def _guarded(
        self, call: Callable[..., Any], values: list[Any], layout: _Layout, args: Any, kwargs: Any
    ) -> Any:
        self._created = {}
        try:
            return call(values, layout, *args, **kwargs)
        except BaseException:
            for var in self._created.values():  # born in a failed trace: never had a value
                var.dispose()
            raise

    # -- calling --------------------------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if _store.current() is not None:  # inside another transform: it threads the state
            return self._fn(*args, **kwargs)
        if any(
            _is_variable(leaf) for leaf in jax.tree.leaves((args, kwargs), is_leaf=_is_variable)
        ):
            args, kwargs = jax.tree.map(
                lambda v: _VarRef(v._uid) if _is_variable(v) else v,
                (args, kwargs),
                is_leaf=_is_variable,
            )
        if registry_version() != self._version:
            self._refresh_layout(args, kwargs)
        while True:
            try:
                out, new_values, created = self._guarded(
                    self._jitted, self._values(), self._layout, args, kwargs
                )
                break
            except _LayoutMiss as miss:
                self._widen(miss.uids)
        for var, value in zip(self._vars, new_values):
            var._buffer = value
            var._exported = False
        for uid, value in created.items():
            var = variable_by_uid(uid)
            if var is not None:
                var._write(value)
        self._created = {}
        return out


class JittedLoop(Jitted):
    """`fn` run once per leading-axis slice of its arguments, in one compiled call."""

    _api = "jit_loop"

    def _body(self, frame: _store.Frame, args: Any, kwargs: Any) -> Any:
        leaves = jax.tree.leaves((args, kwargs))
        if not leaves:
            raise ValueError("jit_loop needs at least one array argument to loop over")
        steps = {leaf.shape[0] if leaf.ndim else None for leaf in leaves}
        if len(steps) != 1 or None in steps:
            raise ValueError(
                "Every argument of a jit_loop function must have the same leading (step) "
                f"axis; got leading sizes {sorted(map(str, steps))}"
            )
        slice_at = lambda i: jax.tree.map(lambda a: a[i], (args, kwargs))  # noqa: E731
        # The first step runs unrolled so that state it creates (e.g. optimizer slots)
        # exists before the loop; lax.scan then carries every Variable's value.
        first_args, first_kwargs = slice_at(0)
        first = self._fn(*first_args, **first_kwargs)
        uids = tuple(frame.values)

        def one_step(carry: list[Any], xs: Any) -> Any:
            step_args, step_kwargs = xs
            with _store.bind(dict(zip(uids, carry))) as inner:
                out = self._fn(*step_args, **step_kwargs)
            if inner.created:
                names = ", ".join(v.name for v in inner.created.values())
                raise ValueError(
                    f"jit_loop: the step created Variables ({names}) after its first run; "
                    "create state in the first step only"
                )
            new = [inner.values[u].astype(jnp.result_type(c)) for u, c in zip(uids, carry)]
            return new, out

        rest = jax.tree.map(lambda a: a[1:], (args, kwargs))
        carry, outs = jax.lax.scan(one_step, [frame.values[u] for u in uids], rest)
        for uid, value in zip(uids, carry):
            var = variable_by_uid(uid)
            if var is not None:
                var._write(value)
        return jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), first, outs)


def jit_loop(fn: Callable[..., Any] | None = None, **jax_jit_kwargs: Any) -> Any:
    """Compile K calls of a stateful step into one program (`lax.scan` underneath).

    Every argument carries a leading step axis of length K; call i sees slice i. The
    result stacks the K outputs (e.g. per-step costs). Variables created by the first
    step (optimizer slots) are allowed; later steps must not create state.

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
    Keyword arguments go to `jax.jit` (`static_argnums`, `static_argnames`, ...).

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
