"""The eager tape: f runs in Python on every call, its tf ops are recorded, not traced.

Inside the f of an eager gradient call (`tf.grad`, `variableGrads`, `minimize`, ...) every
public op whose inputs depend on f's inputs returns a Tensor holding a `Lazy` value: a slot
of the tape, with its shape and dtype but no array yet. Ops on constants only run at once.
When f returns, the tape's structure (which op, its static arguments, which slots it reads,
the shapes and dtypes of the constants and inputs) keys a cache of traced programs, so a
repeated structure costs the recording and one compiled dispatch, and JAX traces the ops
only the first time. The program is a `_trace.Program`, so everything downstream (the
vjp, the optimizer's fused step, write-back) is the traced path's.

Reading a value inside f (`dataSync`, `float`, `print`, `if loss > 1`) runs the cached
forward program of the tape so far and f goes on. Anything the tape cannot record (a `jnp`
or `lax` call on a recorded value, a nested gradient, a Variable made from one) raises
`TapeFallback`: the call reruns on the traced path, which is always correct.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np
from jax.core import ShapedArray

from . import _jaxpr
from ._jax_internals import trace_to_jaxpr

# TFJS_GRAD_TAPE=0 (or ENABLED[0] = False) puts every eager gradient call on the traced path.
ENABLED = [os.environ.get("TFJS_GRAD_TAPE", "1") != "0"]
IMMEDIATE = frozenset({"print"})  # ops that act when called (their inputs are materialised)


class TapeFallback(Exception):
    """f did something the tape cannot record; `quiet` when it is expected (nested
    gradients, customGrad) and the user need not be told."""

    def __init__(self, why: str, quiet: bool = False):
        super().__init__(why)
        self.why, self.quiet = why, quiet


_active: contextvars.ContextVar[Tape | None] = contextvars.ContextVar(
    "tfjs_grad_tape", default=None
)


def active() -> Tape | None:
    """The tape recording in this context, if any."""
    return _active.get()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """Run ops for real (while a program is traced from the tape, or shapes evaluated)."""
    token = _active.set(None)
    try:
        yield
    finally:
        _active.reset(token)


def _aval_key(x: Any) -> tuple[Any, ...]:
    return (tuple(x.shape), x.dtype, getattr(x, "weak_type", False) is True)


class Lazy:
    """A value f computed that the tape has not materialised: its slot and abstract value.

    Reading it as data (`np.asarray`, `float`, `bool`) materialises it; handing it to JAX
    (`__jax_array__`) cannot be recorded and sends the call to the traced path."""

    __slots__ = ("tape", "slot", "shape", "dtype", "weak_type", "value")

    def __init__(self, tape: Tape, slot: int, aval: Any):
        self.tape, self.slot = tape, slot
        self.shape, self.dtype = tuple(aval.shape), aval.dtype
        self.weak_type = bool(getattr(aval, "weak_type", False))
        self.value: Any = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def materialize(self) -> Any:
        if self.value is None:
            self.value = self.tape.evaluate(self.slot)
        return self.value

    def __jax_array__(self) -> Any:
        raise TapeFallback("a JAX function was called on a value f computed")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = np.asarray(self.materialize())
        return array if dtype is None else array.astype(dtype)

    def __float__(self) -> float:
        return float(self.materialize())

    def __int__(self) -> int:
        return int(self.materialize())

    def __bool__(self) -> bool:
        return bool(self.materialize())

    def __index__(self) -> int:
        return self.materialize().__index__()

    def __complex__(self) -> complex:
        return complex(self.materialize())

    def item(self, *args: Any) -> Any:
        return self.materialize().item(*args)

    def tolist(self) -> Any:
        return np.asarray(self.materialize()).tolist()

    def __getitem__(self, index: Any) -> Any:
        raise TapeFallback("a recorded value was indexed outside the ops")

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # protocol probes (numpy's __array_struct__, ...)
            raise AttributeError(name)
        raise TapeFallback(f"'.{name}' of a recorded value")


class _Node(NamedTuple):
    fn: Callable[..., Any]
    statics: dict[str, Any]  # the call's other arguments, as given
    dynamic: tuple[tuple[str, Any, tuple[int, ...]], ...]  # (param, treedef, slots)
    outs: tuple[int, ...]
    out_tree: Any
    keys: tuple[int, ...]  # const slots holding the random keys the op draws


class _Signature(NamedTuple):
    out_tree: Any
    out_avals: tuple[Any, ...]
    n_keys: int


_signatures: dict[Any, _Signature] = {}
_SIGNATURES_MAX = 4096


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a static argument; TapeFallback when there is none."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value), value)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple((k, _freeze(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        raise TapeFallback(f"an argument of type {type(value).__name__}") from None
    if isinstance(value, (jax.Array, np.ndarray)):
        raise TapeFallback("an array passed where a static argument is expected")
    return (type(value), value)


class Plan(NamedTuple):
    """What one tape structure compiles to (shared by every call with that structure)."""

    jaxpr: Any
    baked: list[Any]  # constants the replay trace itself made, before the tape's
    connected: tuple[bool, ...]
    needed: tuple[bool, ...]
    y_aval: Any


_plans: dict[Any, Plan] = {}
_PLANS_MAX = 512
_forward: dict[Any, Callable[..., Any]] = {}


class Tape:
    """The ops one call of f made: slots 0..n-1 are f's inputs, then constants and outputs."""

    def __init__(self, primal_avals: Sequence[Any], fetch: Callable[[], list[Any]]):
        self.avals: list[Any] = list(primal_avals)
        self.n_primals = len(self.avals)
        self.keys: list[Any] = [_aval_key(a) for a in self.avals]  # per slot
        self.parts: list[Any] = [("p", k) for k in self.keys]
        self.const_slots: list[int] = []
        self.const_values: list[Any] = []
        self.nodes: list[_Node] = []
        self._fetch = fetch
        self._primal_values: list[Any] | None = None

    # -- recording -------------------------------------------------------------------
    def constant(self, value: Any) -> int:
        slot = len(self.avals)
        if not hasattr(value, "dtype"):
            value = np.asarray(value)
        key = _aval_key(value)
        self.avals.append(jax.ShapeDtypeStruct(key[0], key[1], weak_type=key[2]))
        self.keys.append(key)
        self.parts.append(("c", key))
        self.const_slots.append(slot)
        self.const_values.append(value)
        return slot

    def _leaf_slot(self, leaf: Any) -> int | None:
        """The slot of a tensor argument's leaf, or None for a static leaf."""
        if type(leaf) is Lazy:
            if leaf.tape is not self:
                raise TapeFallback("a value recorded by another gradient call")
            return leaf.slot
        if isinstance(leaf, jax.Array):
            return self.constant(leaf)
        if isinstance(leaf, (np.ndarray, np.generic)):  # as tfjs parses it (float32, int32)
            from ._tensors import convert

            return self.constant(convert(leaf))
        if type(leaf) is float:  # a Python float is the same program for every value
            return self.constant(jax.numpy.asarray(leaf))
        return None

    def record(
        self, fn: Callable[..., Any], values: dict[str, Any], tensor_params: Any
    ) -> tuple[bool, Any]:
        """Record one op call: (True, result of lazy Tensors), or (False, None) when no
        argument depends on f's inputs (the op then runs at once)."""
        from ._tensor import Tensor

        if not any(_depends(values[name]) for name in tensor_params if name in values):
            return False, None
        statics: dict[str, Any] = {}
        dynamic = []
        frozen = []
        for name, value in values.items():
            if name not in tensor_params:
                statics[name] = value
                frozen.append((name, _freeze(value)))
                continue
            leaves, tree = jax.tree.flatten(value, is_leaf=_is_recorded_leaf)
            slots, static_leaves = [], []
            for i, leaf in enumerate(leaves):
                if isinstance(leaf, Tensor):
                    leaf = leaf.__tfjs_value__()
                    leaves[i] = leaf
                slot = self._leaf_slot(leaf)
                if slot is None:
                    static_leaves.append((i, _freeze(leaf)))
                    slots.append(-1)
                else:
                    slots.append(slot)
            if static_leaves:
                statics[name] = leaves
                frozen.append((name, tuple(static_leaves)))
            dynamic.append((name, tree, tuple(slots)))
        dynamic_t = tuple(dynamic)
        in_avals = tuple(self.keys[s] for _, _, slots in dynamic_t for s in slots
                         if s >= 0)
        static_key = tuple(frozen)
        wiring = tuple((name, tree, slots) for name, tree, slots in dynamic_t)
        sig_key = (fn, static_key, tuple((n, t) for n, t, _ in wiring), in_avals)
        signature = _signatures.get(sig_key)
        if signature is None:
            signature = self._signature(fn, statics, dynamic_t)
            if len(_signatures) > _SIGNATURES_MAX:
                _signatures.clear()
            _signatures[sig_key] = signature
        keys = tuple(self.constant(_unseeded_key()) for _ in range(signature.n_keys))
        outs = []
        lazies = []
        for aval in signature.out_avals:
            slot = len(self.avals)
            self.avals.append(aval)
            self.keys.append(_aval_key(aval))
            outs.append(slot)
            lazies.append(Lazy(self, slot, aval))
        self.parts.append((fn, static_key, wiring, len(keys)))
        self.nodes.append(_Node(fn, statics, dynamic_t, tuple(outs), signature.out_tree, keys))
        return True, jax.tree.unflatten(signature.out_tree, lazies)

    def _signature(
        self, fn: Callable[..., Any], statics: dict[str, Any], dynamic: Any
    ) -> _Signature:
        from . import _rng

        avals = [self.avals[s] for _, _, slots in dynamic for s in slots if s >= 0]

        def call(*leaves: Any) -> Any:
            with _rng.counting() as count:
                out = fn(**_arguments(statics, dynamic, iter(leaves)))
            drawn.append(count[0])
            return out

        drawn: list[int] = []
        with paused():
            out = jax.eval_shape(call, *avals)
        out_avals, out_tree = jax.tree.flatten(out)
        return _Signature(out_tree, tuple(out_avals), drawn[0])

    def index(self, tensor: Any, index: Any) -> Any:
        """`tensor[index]` of a recorded value, recorded (a static index only)."""
        _freeze(index)
        recorded, result = self.record(_getitem, {"x": tensor, "index": index}, ("x",))
        return result

    # -- programs ----------------------------------------------------------------------
    def _replay(self, nodes: Sequence[_Node], env: dict[int, Any]) -> None:
        from . import _rng

        with paused():
            for node in nodes:
                it = iter(env[s] for _, _, slots in node.dynamic for s in slots if s >= 0)
                with _rng.supplying([env[s] for s in node.keys]):
                    out = node.fn(**_arguments(node.statics, node.dynamic, it))
                for slot, leaf in zip(node.outs, jax.tree.leaves(out)):
                    env[slot] = leaf

    def _sources(self) -> list[Any]:
        """f's inputs: arrays, or the Variables whose values they are."""
        if self._primal_values is None:
            self._primal_values = list(self._fetch())
        return self._primal_values

    def evaluate(self, slot: int) -> Any:
        """The value of one slot, from the cached forward program of the tape so far."""
        from . import _store
        from .variables import Variable, peek

        if slot < self.n_primals:  # f's input itself: it reaches the user, so it is read
            source = self._sources()[slot]
            with _store.detached():  # the Variable's own buffer, not f's binding
                return source.read() if isinstance(source, Variable) else source
        if slot in self.const_slots:
            return self.const_values[self.const_slots.index(slot)]
        key = (tuple(self.parts), slot)
        run = _forward.get(key)
        if run is None:
            nodes = list(self.nodes)
            const_slots = list(self.const_slots)
            n_primals = self.n_primals

            def forward(consts: list[Any], primals: list[Any]) -> Any:
                env = dict(zip(const_slots, consts))
                env.update(enumerate(primals[:n_primals]))
                self._replay(nodes, env)
                return env[slot]

            run = jax.jit(forward)
            if len(_forward) > _PLANS_MAX:
                _forward.clear()
            _forward[key] = run
        # The program only reads the Variables' buffers, so they stay owned (a later step
        # may donate them); the lock keeps another thread's step from donating them first.
        with _store.LOCK:
            primals = [peek(x) if isinstance(x, Variable) else x for x in self._sources()]
            return run(list(self.const_values), primals)

    def program(self, outputs: Sequence[Any], write_uids: tuple[int, ...], created: Any,
                source: Any) -> Any:
        """The `_trace.Program` computing `outputs` (y, then the written values)."""
        from ._trace import Program

        out_slots = tuple(
            o.slot if type(o) is Lazy and o.tape is self else self.constant(o) for o in outputs
        )
        key = (tuple(self.parts), out_slots)
        plan = _plans.get(key)
        if plan is None:
            plan = self._plan(out_slots, source)
            if len(_plans) > _PLANS_MAX:
                _plans.clear()
            _plans[key] = plan
        return Program(
            jaxpr=plan.jaxpr,
            consts=[*plan.baked, *self.const_values],
            y_aval=plan.y_aval,
            write_uids=write_uids,
            created=created,
            connected=plan.connected,
            needed=plan.needed,
        )

    def _plan(self, out_slots: tuple[int, ...], source: Any) -> Plan:
        nodes, const_slots, n_c = list(self.nodes), list(self.const_slots), len(self.const_slots)

        def replay(*args: Any) -> list[Any]:
            env = dict(zip(const_slots, args[:n_c]))
            env.update(enumerate(args[n_c:]))
            self._replay(nodes, env)
            return [env[s] for s in out_slots]

        avals = [_shaped(self.avals[s]) for s in const_slots]
        avals += [_shaped(a) for a in self.avals[: self.n_primals]]
        closed = trace_to_jaxpr(replay, avals, source)
        jaxpr = _jaxpr.with_leading_constvars(
            closed.jaxpr, n_c, [*closed.consts, *self.const_values]
        )
        n_writes = len(out_slots) - 1
        connected = _jaxpr.needed_inputs(jaxpr, [True] + [False] * n_writes)
        needed = _jaxpr.needed_inputs(jaxpr, [True] * len(out_slots), effects=True)
        y = self.avals[out_slots[0]]
        return Plan(
            jaxpr, list(closed.consts), tuple(connected), tuple(needed),
            jax.ShapeDtypeStruct(tuple(y.shape), y.dtype),
        )


def _is_recorded_leaf(x: Any) -> bool:
    from ._tensor import Tensor

    return isinstance(x, Tensor) or type(x) is Lazy


def _depends(value: Any) -> bool:
    """Whether an argument holds a value recorded on a tape (or a bound Variable)."""
    from ._tensor import Tensor

    if isinstance(value, Tensor):
        return type(value.__tfjs_value__()) is Lazy
    if type(value) is Lazy:
        return True
    if isinstance(value, (list, tuple)):
        return any(_depends(v) for v in value)
    if isinstance(value, dict):
        return any(_depends(v) for v in value.values())
    return False


def _arguments(statics: dict[str, Any], dynamic: Any, leaves: Iterator[Any]) -> dict[str, Any]:
    """The keyword arguments of one op call, with the dynamic leaves taken from `leaves`."""
    kwargs = {k: v for k, v in statics.items()}
    for name, tree, slots in dynamic:
        given = statics.get(name, ())
        filled = [next(leaves) if s >= 0 else given[i] for i, s in enumerate(slots)]
        kwargs[name] = jax.tree.unflatten(tree, filled)
    return kwargs


def _unseeded_key() -> Any:
    from . import _rng

    return _rng.next_key(None)


_traced_only: set[Any] = set()  # code objects of functions the tape could not record


def usable(source: Any, primals: Sequence[Any]) -> bool:
    """Whether an eager gradient call of `source` runs on the tape."""
    from jax.core import Tracer

    from . import _store
    from ._jax_internals import tracing

    return (
        ENABLED[0]
        and _active.get() is None
        and _store.current() is None
        and getattr(source, "__code__", None) not in _traced_only
        and not tracing()
        and not any(isinstance(p, Tracer) for p in primals)
    )


def run(
    body: Callable[..., Any],
    primals: Sequence[Any],
    bind_uids: Sequence[int],
    source: Any,
    fetch: Callable[[], list[Any]] | None,
) -> Any:
    """Run `body` once on the tape; its `_trace.Program`. TapeFallback when it cannot be
    recorded (the caller then traces it; the function stays on that path)."""
    from . import _store
    from ._tensor import Tensor

    avals = [p if isinstance(p, ShapedArray) else jax.typeof(p) for p in primals]
    tape = Tape(avals, fetch if fetch is not None else (lambda: list(primals)))
    lazies = [Lazy(tape, i, a) for i, a in enumerate(avals)]
    token = _active.set(tape)
    try:
        effects = _store.run(
            lambda: _output(body(*(Tensor(lazy) for lazy in lazies))), dict(zip(bind_uids, lazies))
        )
    except TapeFallback as error:
        code = getattr(source, "__code__", None)
        if code is not None:
            _traced_only.add(code)
        if not error.quiet:
            _warn(source, error.why)
        raise
    finally:
        _active.reset(token)
    try:
        return tape.program(
            [effects.output, *effects.writes.values()],
            tuple(effects.writes),
            effects.created,
            source,
        )
    except BaseException:
        effects.discard()
        raise


def _output(y: Any) -> Any:
    from ._tensor import Tensor
    from ._trace import NotATensorError

    if isinstance(y, Tensor):
        return y.__tfjs_value__()
    if isinstance(y, (jax.Array, Lazy)):
        return y
    raise NotATensorError("The result y returned by f() must be a tensor.")


def _warn(source: Any, why: str) -> None:
    import warnings

    name = getattr(source, "__qualname__", None) or repr(source)
    warnings.warn(
        f"tfjs_grad's eager tape cannot record '{name}' ({why}): it runs on the traced "
        "path, which retraces it with JAX on every call (slower, same results).",
        stacklevel=5,
    )


def is_lazy(value: Any) -> bool:
    return type(value) is Lazy


def refuse(value: Any) -> None:
    """Raise TapeFallback: code that needs a real array got a recorded value."""
    raise TapeFallback("a recorded value reached code that needs an array")


def concrete(values: dict[str, Any], tensor_params: Any) -> dict[str, Any]:
    """An op call's arguments with the recorded values among its tensors materialised
    (an op that acts at once, or whose result's shape depends on values)."""
    from ._tensor import Tensor

    def real(leaf: Any) -> Any:
        if isinstance(leaf, Tensor):
            inner = leaf.__tfjs_value__()
            return Tensor(inner.materialize()) if type(inner) is Lazy else leaf
        return leaf.materialize() if type(leaf) is Lazy else leaf

    out = dict(values)
    for name in tensor_params:
        if name in out and _depends(out[name]):
            out[name] = jax.tree.map(
                real, out[name], is_leaf=lambda x: isinstance(x, (Tensor, Lazy))
            )
    return out


def _getitem(x: Any, index: Any) -> Any:
    from ._tensor import Tensor

    value = x.__jax_array__() if isinstance(x, Tensor) else x
    return Tensor(value[index])


def _shaped(aval: Any) -> Any:
    if isinstance(aval, ShapedArray):
        return aval
    return ShapedArray(
        tuple(aval.shape), aval.dtype, weak_type=bool(getattr(aval, "weak_type", False))
    )


def _refuse_flatten(lazy: Lazy) -> Any:
    raise TapeFallback("a JAX function was given a value f computed")


# A JAX transform or jnp function handed a recorded value flattens it first: that is where
# the tape learns that f left the ops it can record.
def _never_unflattened(aux: Any, children: Any) -> Lazy:
    raise TapeFallback("a recorded value was rebuilt by JAX")


jax.tree_util.register_pytree_node(Lazy, _refuse_flatten, _never_unflattened)
