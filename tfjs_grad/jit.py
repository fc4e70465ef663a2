"""`tf.jit`: compile stateful tfjs-style code, threading every Variable through `jax.jit`.

Each call passes the current values of all live Variables (optimizer slots included)
into one compiled function, binds them in the store while `fn` traces, and writes the
results back. The variable layout is computed once per change of the registry, so a
call costs one `jax.jit` dispatch plus a list of buffers in and out.
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
    """The uids of the Variables threaded through one compiled function (a static arg)."""

    __slots__ = ("uids", "_hash")

    def __init__(self, uids: tuple[int, ...]):
        self.uids = uids
        self._hash = hash(uids)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, _Layout) and other.uids == self.uids)


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


class Jitted:
    """A compiled stateful function; call it like `fn`. `trace_count` counts traces."""

    def __init__(self, fn: Callable[..., Any], jit_kwargs: dict[str, Any]):
        if not callable(fn):
            raise TypeError(f"The fn passed in {self._api}(fn) must be a function")
        functools.update_wrapper(self, fn)
        self._fn = fn
        self.trace_count = 0
        self._version = -1
        self._layout = _Layout(())
        self._vars: list[Variable] = []
        self._seen: set[_Layout] = set()
        static = tuple(i + 2 for i in jit_kwargs.pop("static_argnums", ()) or ())
        for forbidden in ("donate_argnums", "donate_argnames"):
            if forbidden in jit_kwargs:
                raise ValueError(f"tf.jit manages donation itself; '{forbidden}' is not accepted")
        self._jitted = jax.jit(
            self._pure, static_argnums=(1, *static), donate_argnums=(0,), **jit_kwargs
        )

    _api = "jit"

    def _pure(self, values: list[Any], layout: _Layout, *args: Any, **kwargs: Any) -> Any:
        self.trace_count += 1
        args, kwargs = jax.tree.map(
            lambda r: variable_by_uid(r.uid) if _is_ref(r) else r, (args, kwargs), is_leaf=_is_ref
        )
        with _store.bind(dict(zip(layout.uids, values))) as frame:
            self._created = frame.created
            out = self._body(frame, args, kwargs)
        out = jax.tree.map(lambda v: v.read() if _is_variable(v) else v, out, is_leaf=_is_variable)
        new_values = [frame.values[uid] for uid in layout.uids]
        known = set(layout.uids)
        created = {uid: frame.values[uid] for uid in frame.written if uid not in known}
        return out, new_values, created

    def _body(self, frame: _store.Frame, args: Any, kwargs: Any) -> Any:
        return self._fn(*args, **kwargs)

    def _settle_layout(
        self, layout: _Layout, variables: list[Variable], args: Any, kwargs: Any
    ) -> tuple[_Layout, list[Variable]]:
        """Trace (without compiling) a new layout; if the trace made new state concretely
        (an optimizer's first slots), take that state in and trace again, so the program
        that gets compiled is the one every later call reuses."""
        version = registry_version()
        self._created = {}
        try:
            self._jitted.trace([v._buffer for v in variables], layout, *args, **kwargs)
        except BaseException:
            for var in self._created.values():
                var.dispose()
            raise
        if registry_version() != version and not self._created:
            layout, variables = self._current_layout()
        self._seen.add(layout)
        return layout, variables

    def _current_layout(self) -> tuple[_Layout, list[Variable]]:
        version = registry_version()
        if version != self._version:
            self._vars = [v for v in live_variables() if v._buffer is not None]
            self._layout = _Layout(tuple(v._uid for v in self._vars))
            self._version = version
        return self._layout, self._vars

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if any(
            _is_variable(leaf) for leaf in jax.tree.leaves((args, kwargs), is_leaf=_is_variable)
        ):
            args, kwargs = jax.tree.map(
                lambda v: _VarRef(v._uid) if _is_variable(v) else v,
                (args, kwargs),
                is_leaf=_is_variable,
            )
        layout, variables = self._current_layout()
        if layout not in self._seen:
            layout, variables = self._settle_layout(layout, variables, args, kwargs)
        values = [jnp.copy(v._buffer) if v._exported else v._buffer for v in variables]
        self._created: dict[int, Variable] = {}
        try:
            out, new_values, created = self._jitted(values, layout, *args, **kwargs)
        except BaseException:
            for var in self._created.values():  # born in a failed trace: never had a value
                var.dispose()
            self._created = {}
            raise
        for var, value in zip(variables, new_values):
            var._buffer = value
            var._exported = False
        for uid, value in created.items():
            var = self._created[uid] if uid in self._created else variable_by_uid(uid)
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
            var = frame.created[uid] if uid in frame.created else variable_by_uid(uid)
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
