"""The eager tape: f runs in Python on every call, its tf ops are recorded, not traced.

Inside the f of an eager gradient call (`tf.grad`, `variableGrads`, `minimize`, ...) every
public op given a tensor returns a Tensor holding a `Lazy` value: a slot of the tape, with
its shape and dtype but no array yet. Ops on constants only are recorded too (the program
computes them, rather than a dispatch each per call; like everything f computes, their
results are disposed when the call returns, as tfjs's gradient functions tidy f); ops
given no tensor (`tf.scalar`, `tf.ones`) run at once.
When f returns, the tape's structure (which op, its static arguments, which slots it reads,
the shapes and dtypes of the constants and inputs) keys a cache of traced programs, so a
repeated structure costs the recording and one compiled dispatch, and JAX traces the ops
only the first time. The program is a `_trace.Program`, so everything downstream (the
vjp, the optimizer's fused step, write-back) is the traced path's.

Reading a value inside f (`dataSync`, `float`, `print`, `if loss > 1`) runs the cached
forward program of the tape so far and f goes on. `v.assign(x)` of a recorded value is a
write the program computes (as on the traced path).

When f does something the tape cannot record (hands a recorded value to JAX: a `jnp` or
`jax.nn` call, `v.value`, a layer computing with `lax`; a nested gradient; a customGrad),
the tape *stages*: it opens a jaxpr trace (`_jax_internals.Staging`), replays what it
recorded into it, and f goes on from where it is, on JAX tracers, until it returns; the
program is that jaxpr. f runs once either way. Values read as data after that come from
the program traced so far. One case cannot be continued: a recorded value first handed
to JAX inside a JAX transform that f itself entered (a closure read inside its own
`jax.vmap`); that call raises `TapeFallback` and runs again staged from the start, as
every later call of that function with arguments of the same structure does.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import math
import os
import weakref
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

import jax
import numpy as np
from jax.core import ShapedArray, Tracer

from . import _jaxpr, _store
from ._jax_internals import Staging, trace_to_jaxpr, tracing

# TFJS_GRAD_TAPE=0 (or ENABLED[0] = False) puts every eager gradient call on the traced path.
ENABLED = [os.environ.get("TFJS_GRAD_TAPE", "1") != "0"]
IMMEDIATE = frozenset({"print"})  # ops that act when called (their inputs are materialised)


class TapeFallback(Exception):
    """The tape could not go on from where f is (see the module docstring); `quiet` when
    the user need not be told."""

    def __init__(self, why: str, quiet: bool = False):
        super().__init__(why)
        self.why, self.quiet = why, quiet


_active: contextvars.ContextVar[Tape | None] = contextvars.ContextVar(
    "tfjs_grad_tape", default=None
)


active: Callable[[], Tape | None] = _active.get
"""The tape recording in this context, if any."""

_calling: contextvars.ContextVar[Tape | None] = contextvars.ContextVar(
    "tfjs_grad_tape_call", default=None
)  # the tape of the eager gradient call running f here (recording or staged)


def made_traced(tensor: Any) -> None:
    """Note a Tensor a tf op made over a tracer while an eager gradient call runs f
    staged: the call disposes it when it returns (or, kept, gives it its value)."""
    tape = _calling.get()
    if tape is not None and tape.staging is not None:
        if tape.made is None:
            tape.made = []
        tape.made.append(tensor)


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


def bind_tensor(tensor: type) -> None:
    """Called by tfjs_grad._tensor once Tensor exists (this module cannot import it)."""
    _Tensor[:] = [tensor]
    _TENSOR_TREE[:] = [jax.tree.structure(tensor(np.zeros(())))]


class Lazy:
    """A value f computed that the tape has not materialised: its slot and abstract value.

    Reading it as data (`np.asarray`, `float`, `bool`) materialises it; handing it to JAX
    (`__jax_array__`, flattening) stages the tape and gives the value's tracer."""

    __slots__ = ("tape", "slot", "shape", "dtype", "weak_type", "value")

    def __init__(self, tape: Tape, slot: int, shape: tuple[int, ...], dtype: Any, weak_type: bool):
        self.tape, self.slot = tape, slot
        self.shape, self.dtype, self.weak_type = shape, dtype, weak_type
        self.value: Any = None

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    def materialize(self) -> Any:
        tape = self.tape
        if tape.done:
            return tape.after_call(self.slot)
        if self.value is None:
            self.value = tape.evaluate(self.slot)
        return self.value

    def staged(self) -> Any:
        """What JAX gets for this value: its tracer (the tape stages first, if it has not),
        or, once the tape's call has returned, its value."""
        tape = self.tape
        if tape.done:
            return self.materialize()
        if tape.staging is None:
            tape.stage("a JAX function was given a value f computed")
        return tape.env[self.slot]

    def __jax_array__(self) -> Any:
        return self.staged()

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
        return self.staged()[index]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # protocol probes (numpy's __array_struct__, ...)
            raise AttributeError(name)
        return getattr(self.staged(), name)


class _Signature(NamedTuple):
    """One op call's signature (cached by it: op, static arguments, how its tensor
    arguments nest, their abstract values; not which slots they are) and what it makes.
    Its shapes are evaluated once per signature, wherever in f, and in whichever f, the
    op is called."""

    fn: Callable[..., Any]
    statics: dict[str, Any]  # the call's other arguments, as given
    dynamic: tuple[tuple[str, Any, tuple[int, ...]], ...]  # (param, treedef, marks)
    out_tree: Any
    out_avals: tuple[Any, ...]
    n_keys: int
    out_keys: tuple[tuple[Any, ...], ...]  # (shape, dtype, weak_type) of each output
    out_ids: tuple[int, ...]  # their interned ids
    part: int  # the signature's interned id in a tape's structure key
    single: bool  # the result is one Tensor


class _Node(NamedTuple):
    op: _Signature
    slots: tuple[int, ...]  # the slots its tensor leaves read, in order (its wiring)
    first: int  # the slot of its first output (the others follow)
    keys: tuple[int, ...]  # const slots holding the random keys the op draws


_aval_ids: dict[tuple[Any, ...], int] = {}
_aval_counter = itertools.count()


def _aval_id(key: tuple[Any, ...]) -> int:
    """A small int standing for an abstract value (shape, dtype, weak_type) in keys
    (one per value, also when threads intern it at once)."""
    found = _aval_ids.get(key)
    if found is None:
        found = _aval_ids.setdefault(key, next(_aval_counter))
    return found


class _Interned(NamedTuple):
    """An input's abstract value as a tape keys it."""

    aval: Any  # the object, held so that its id is not reused while it is remembered
    key: tuple[Any, ...]  # (shape, dtype, weak_type)
    id: int  # `_aval_id(key)`
    part: tuple[str, int]  # the input's entry in a tape's structure key


_by_aval: dict[int, _Interned] = {}
_BY_AVAL_MAX = 1024


def _interned(aval: Any) -> _Interned:
    """How a tape keys an input of abstract value `aval`, remembered by the object (a
    Variable's abstract value is one object from step to step), not rebuilt per call.

    >>> from jax.core import ShapedArray
    >>> import numpy as np
    >>> a = ShapedArray((2,), np.float32)
    >>> _interned(a) is _interned(a), _interned(a).key
    (True, ((2,), dtype('float32'), False))
    """
    found = _by_aval.get(id(aval))
    if found is not None and found.aval is aval:
        return found
    key = _aval_key(aval)
    number = _aval_id(key)
    found = _Interned(aval, key, number, ("p", number))
    if len(_by_aval) >= _BY_AVAL_MAX:
        _by_aval.clear()
    _by_aval[id(aval)] = found
    return found


_part_ids = itertools.count()  # never reused: a cleared table cannot alias a cached plan
_PLAIN = frozenset({type(None), bool, int, float, str})  # static arguments kept as given
_CONSTANT_KINDS: set[type] = {float}  # a float, and the concrete array types seen


def _is_constant_kind(kind: type, value: Any) -> bool:
    """Whether a tensor argument of type `kind` is a concrete array (remembered: the
    common check is then a set lookup, not `jax.Array`'s ABC check)."""
    if isinstance(value, jax.Array) and not isinstance(value, Tracer):
        _CONSTANT_KINDS.add(kind)
        return True
    return isinstance(value, jax.Array)


_LEAF = jax.tree.structure(0)
_NONE_TREE = jax.tree.structure(None)
_Tensor: list[Any] = []  # tfjs_grad._tensor.Tensor, set at its import (it imports this)
_TENSOR_TREE: list[Any] = []
_Program: list[Any] = []  # tfjs_grad._trace.Program, once a tape first makes one


def _program_type() -> Any:
    """`_trace.Program` (imported once: `_trace` imports this module; an import statement
    in a function costs about a microsecond on every call)."""
    if not _Program:
        from ._trace import Program

        _Program.append(Program)
    return _Program[0]


_floats: dict[Any, Any] = {}  # Python float constants as arrays (weakly typed float32)
_FLOATS_MAX = 1024


def _float_constant(value: float) -> Any:
    """`value` as the array a float argument becomes (cached: a device transfer costs
    more than recording the op)."""
    key = (value, math.copysign(1.0, value))  # 0.0 and -0.0 are different constants
    array = _floats.get(key)
    if array is None:
        array = jax.numpy.asarray(value)
        if len(_floats) > _FLOATS_MAX:
            _floats.clear()
        _floats[key] = array
    return array


_host_scalars: dict[Any, Any] = {}  # tf.scalar's values made inside f, as device arrays


def host_scalar(host: np.ndarray) -> Any:
    """A rank-0 host value as the device array `tf.scalar` makes of it, while a tape
    records: one per value, cached (a loss that makes `tf.scalar(3)` on every call would
    otherwise pay a transfer per call for the same constant).

    >>> import numpy as np
    >>> host_scalar(np.asarray(3, np.int32)) is host_scalar(np.asarray(3, np.int32))
    True
    """
    key = (host.dtype, host.tobytes())  # bytes: 0.0 and -0.0, NaNs, kept apart
    array = _host_scalars.get(key)
    if array is None:
        array = jax.numpy.asarray(host)
        if len(_host_scalars) > _FLOATS_MAX:
            _host_scalars.clear()
        _host_scalars[key] = array
    return array


_signatures: dict[Any, _Signature] = {}  # by op signature: its shapes, evaluated once
_SIGNATURES_MAX = 4096


class _Unrecordable(Exception):
    """An op argument the tape cannot key (the tape stages instead)."""


def _freeze(value: Any) -> Any:
    """A hashable stand-in for a static argument; _Unrecordable when there is none."""
    if type(value) is float:  # 0.0 == -0.0, but they are different arguments
        return (float, value, math.copysign(1.0, value))
    if value is None or isinstance(value, (bool, int, float, str)):
        return (type(value), value)
    if isinstance(value, (list, tuple)):
        return (type(value), tuple(_freeze(v) for v in value))
    if isinstance(value, dict):
        return (dict, tuple((k, _freeze(v)) for k, v in value.items()))
    try:
        hash(value)
    except TypeError:
        raise _Unrecordable(f"an argument of type {type(value).__name__}") from None
    if isinstance(value, (jax.Array, np.ndarray)):
        raise _Unrecordable("an array passed where a static argument is expected")
    return (type(value), value)


def _copied(value: Any) -> Any:
    """A static argument as it is now: its lists, tuples and dicts copied (a signature
    outlives the call, and the caller may mutate the list it passed)."""
    kind = type(value)
    if kind is list:
        return [_copied(v) for v in value]
    if kind is tuple:
        return tuple(_copied(v) for v in value)
    if kind is dict:
        return {k: _copied(v) for k, v in value.items()}
    return value


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

    def __init__(
        self,
        primal_avals: Sequence[Any],
        fetch: Callable[[], list[Any]],
        peek: Callable[[], list[Any]] | None = None,
    ):
        self.avals: list[Any] = list(primal_avals)
        self.n_primals = len(self.avals)
        self.inputs = [_interned(a) for a in self.avals]
        self.keys: list[int] = [i.id for i in self.inputs]  # per slot
        self.parts: list[Any] = [i.part for i in self.inputs]
        self._by_id: dict[int, int] = {}  # id of a constant array -> its slot
        self.const_slots: list[int] = []
        self.const_values: list[Any] = []
        self.nodes: list[_Node] = []
        self._fetch = fetch
        self._peek = peek  # the inputs' buffers, for a program only (they stay owned)
        self._primal_values: list[Any] | None = None

    # (class-level defaults: set per instance only when they change)
    source: Any = None  # the user's function, named by JAX's errors
    staging: Staging | None = None  # set once f goes on, on a JAX trace
    env: dict[int, Any]  # slot -> its tracer, once staged
    done = False  # the call returned: what f computed is disposed
    kept: list[Any] | None = None  # Tensors f passed to tf.keep
    made: list[Any] | None = None  # Tensors over tracers f made once staged

    # -- leaving the tape: f goes on, on a JAX trace -----------------------------------------
    def stage(self, why: str) -> None:
        """Open a jaxpr trace, replay what was recorded into it, and let f go on there
        (recording stops; every recorded value now stands for its tracer). Idempotent."""
        if self.staging is not None:
            return
        if tracing():  # inside a transform f entered (the tape starts outside any): no way on
            raise TapeFallback(why + ", inside a JAX transform f entered")
        staging = Staging(self.avals[: self.n_primals], self._inputs, self.source)
        env = dict(zip(self.const_slots, self.const_values))
        env.update(enumerate(staging.inputs))
        try:
            _replay(self.nodes, env)
        except BaseException:
            staging.abort()
            raise
        self.env, self.staging = env, staging
        _active.set(None)  # ops now run on the tracers, as in any trace
        _store.rebind(self.traced)

    def end_trace(self) -> None:
        """Let go of the closed staging trace and its tracers once the call returned (the
        trace refers back to the tape: kept, they would hold its arrays until Python's
        cyclic garbage collector ran)."""
        if self.staging is not None:
            del self.staging, self.env

    def after_call(self, slot: int) -> Any:
        """A slot's value once the call returned: an input is the caller's array (a
        Variable's current value); anything f computed was disposed with the call, as
        tfjs's gradient functions tidy f (`tf.keep` inside f keeps it: `settle`)."""
        if slot < self.n_primals:
            return self._fetch()[slot]
        raise _disposed()

    def keep(self, tensor: Any) -> None:
        """`tf.keep` of a Tensor holding a value of this tape, inside f: it outlives the
        call with the value it has now."""
        if self.kept is None:
            self.kept = []
        self.kept.append(tensor)

    def settle(self) -> None:
        """The Tensors f kept get their values (before a step changes the Variables)."""
        from ._tensor import rebind

        kept, self.kept = self.kept or [], None
        for tensor in kept:
            value = tensor.__tfjs_value__()
            if type(value) is Lazy and value.tape is self:
                rebind(tensor, value.materialize())

    def release_traced(self, keep: bool) -> None:
        """At the end of a staged call: every Tensor f made over a tracer is disposed (as
        the tape's values are: tfjs's gradient functions tidy f); one f kept (`tf.keep`)
        gets, with `keep`, its value from the program so far (the trace is still open)."""
        from ._tensor import rebind

        made, self.made = self.made or [], None
        staging, kept = self.staging, {id(t) for t in self.kept or ()}
        for tensor in made:
            value = getattr(tensor, "_value", None)
            if not isinstance(value, Tracer):
                continue
            if keep and id(tensor) in kept and staging is not None and staging.owns(value):
                rebind(tensor, staging.value_of(value))
            else:  # a slot past the tape's end: disposed with the call, its shape still known
                rebind(tensor, Lazy(self, len(self.avals), *_aval_key(jax.typeof(value))))

    def traced(self, value: Any) -> Any:
        """`value` with a recorded value of this tape replaced by its tracer (once staged)."""
        if type(value) is Lazy and value.tape is self and self.staging is not None:
            return self.env[value.slot]
        return value

    # -- recording -------------------------------------------------------------------
    def constant(self, value: Any) -> int:
        slot = len(self.avals)
        if not hasattr(value, "dtype"):
            value = np.asarray(value)
        key = _aval_id(_aval_key(value))
        self.avals.append(value)  # an array is its own abstract value (shape, dtype)
        self.keys.append(key)
        self.parts.append(("c", key))
        self.const_slots.append(slot)
        self.const_values.append(value)
        return slot

    def _constant_slot(self, value: Any) -> int:
        """The slot of a constant tensor argument (an array or a Python float); the same
        array object given twice is one slot."""
        if type(value) is float:
            value = _float_constant(value)
        slot = self._by_id.get(id(value))
        if slot is None:  # (const_values keeps the array alive: its id stays unique)
            slot = self._by_id[id(value)] = self.constant(value)
        return slot

    def _leaf_slot(self, leaf: Any) -> int | None:
        """The slot of a tensor argument's leaf, or None for a static leaf."""
        if type(leaf) is Lazy:
            if leaf.tape is not self:  # an earlier call's value: a constant now
                return self._constant_slot(leaf.materialize())
            return leaf.slot
        if isinstance(leaf, jax.Array):
            return self._constant_slot(leaf)
        if isinstance(leaf, (np.ndarray, np.generic)):  # as tfjs parses it (float32, int32)
            from ._tensors import convert

            return self.constant(convert(leaf))
        if type(leaf) is float:  # a Python float is the same program for every value
            return self._constant_slot(leaf)
        return None

    def record(
        self, fn: Callable[..., Any], values: dict[str, Any], tensor_params: Any
    ) -> tuple[bool, Any]:
        """Record one op call: (True, result of lazy Tensors), or (False, None) when it is
        given no tensor (the op then runs at once)."""
        # The common call (each tensor argument one Tensor, array or float, the others
        # plain Python scalars) is keyed by one flat tuple: per tensor argument its slot
        # and interned abstract value, per other argument its type and value.
        if self.staging is not None:  # f goes on, on JAX tracers: ops run
            return False, None
        wiring: list[Any] = []
        slots: list[int] = []
        constants: list[int] | None = None  # positions in slots of constant tensors
        depends = False
        tensor = _Tensor[0]
        keys = self.keys
        for name, value in values.items():
            if name in tensor_params:
                kind = type(value)
                if kind is tensor or (kind is not Lazy and isinstance(value, tensor)):
                    value = value.__tfjs_value__()
                    kind = type(value)
                if kind is Lazy:
                    if value.tape is not self:  # an earlier call's value: a constant now
                        return self._record_general(fn, values, tensor_params)
                    depends = True
                    slots.append(value.slot)
                    wiring.append((name, keys[value.slot]))
                elif value is None:
                    wiring.append((name, None))
                elif kind in _CONSTANT_KINDS or _is_constant_kind(kind, value):
                    if constants is None:
                        constants = []
                    constants.append(len(slots))
                    slots.append(len(wiring))  # its slot once the op is recorded
                    wiring.append((name, value))
                else:
                    return self._record_general(fn, values, tensor_params)
            elif type(value) in _PLAIN:
                kind = type(value)  # (a float's sign is part of its key: 0.0 == -0.0)
                wiring.append((name, _freeze(value) if kind is float else (kind, value)))
            else:
                return self._record_general(fn, values, tensor_params)
        if not depends and constants is None:
            return False, None
        if constants is not None:
            for i in constants:
                at = slots[i]
                name, value = wiring[at]
                slot = slots[i] = self._constant_slot(value)
                wiring[at] = (name, keys[slot])
        key = (fn, tuple(wiring))
        signature = _signatures.get(key)
        if signature is None:
            statics = {n: v for n, v in values.items() if n not in tensor_params}
            dynamic = tuple(
                (e[0], _NONE_TREE, ()) if e[1] is None else (e[0], _LEAF, (0,))
                for e in wiring
                if e[0] in tensor_params
            )
            try:
                signature = self._new_signature(key, fn, statics, dynamic, slots)
            except _Unrecordable as error:
                self.stage(str(error))
                return False, None
        return True, self._add(signature, tuple(slots))

    def _record_general(
        self, fn: Callable[..., Any], values: dict[str, Any], tensor_params: Any
    ) -> tuple[bool, Any]:
        """`record` for any arguments (nested lists of tensors, numpy arrays, ints...);
        an argument it cannot key (an unhashable object, an array where a static argument
        goes) stages the tape, and the op runs on the tracers."""
        if not any(_depends(values[name]) for name in tensor_params if name in values):
            return False, None
        try:
            return self._record_any(fn, values, tensor_params)
        except _Unrecordable as error:
            self.stage(str(error))
            return False, None

    def _record_any(
        self, fn: Callable[..., Any], values: dict[str, Any], tensor_params: Any
    ) -> tuple[bool, Any]:
        statics: dict[str, Any] = {}
        dynamic = []
        frozen = []
        wiring: list[int] = []  # the slots of the tensor leaves, in order
        for name, value in values.items():
            if name not in tensor_params:
                frozen.append((name, _freeze(value)))
                statics[name] = _copied(value)  # the caller may change its list later
                continue
            leaves, tree = jax.tree.flatten(value, is_leaf=_is_recorded_leaf)
            marks, static_leaves = [], []  # per leaf: 0 a tensor (in wiring), -1 static
            for i, leaf in enumerate(leaves):
                if isinstance(leaf, _Tensor[0]):
                    leaf = leaf.__tfjs_value__()
                    leaves[i] = leaf
                slot = self._leaf_slot(leaf)
                if slot is None:
                    static_leaves.append((i, _freeze(leaf)))
                    marks.append(-1)
                else:
                    wiring.append(slot)
                    marks.append(0)
            if static_leaves:  # (its tensor leaves left out: the signature outlives them)
                statics[name] = [leaf if m else None for leaf, m in zip(leaves, marks)]
                frozen.append((name, tuple(static_leaves)))
            dynamic.append((name, tree, tuple(marks)))
        dynamic_t = tuple(dynamic)
        in_keys = tuple([self.keys[s] for s in wiring])
        key = (fn, tuple(frozen), dynamic_t, in_keys)
        signature = _signatures.get(key)
        if signature is None:
            signature = self._new_signature(key, fn, statics, dynamic_t, wiring)
        return True, self._add(signature, tuple(wiring))

    def _new_signature(
        self,
        key: Any,
        fn: Callable[..., Any],
        statics: dict[str, Any],
        dynamic: Any,
        slots: Sequence[int],
    ) -> _Signature:
        signature = self._signature(fn, statics, dynamic, [self.avals[s] for s in slots])
        if len(_signatures) > _SIGNATURES_MAX:
            _signatures.clear()
        _signatures[key] = signature
        return signature

    def _add(self, signature: _Signature, slots: tuple[int, ...]) -> Any:
        """Append the node of one op call, reading `slots`, to the tape; its result, of
        lazy Tensors."""
        n_keys = signature.n_keys
        keys = tuple([self.constant(_unseeded_key()) for _ in range(n_keys)]) if n_keys else ()
        first = len(self.avals)
        self.avals.extend(signature.out_avals)
        self.keys.extend(signature.out_ids)
        # the structure key: the signature, then the slots it reads (their number is the
        # signature's), so two tapes of the same ops wired differently are two programs
        self.parts.append(signature.part)
        self.parts.extend(slots)
        self.nodes.append(_Node(signature, slots, first, keys))
        if signature.single:
            shape, dtype, weak = signature.out_keys[0]
            return _Tensor[0](Lazy(self, first, shape, dtype, weak))
        lazies = [Lazy(self, first + i, *k) for i, k in enumerate(signature.out_keys)]
        return jax.tree.unflatten(signature.out_tree, lazies)

    @staticmethod
    def _signature(
        fn: Callable[..., Any], statics: dict[str, Any], dynamic: Any, avals: list[Any]
    ) -> _Signature:
        from . import _rng

        def call(*leaves: Any) -> Any:
            with _rng.counting() as count:
                out = fn(**_arguments(statics, dynamic, iter(leaves)))
            drawn.append(count[0])
            return out

        drawn: list[int] = []
        try:
            with paused():
                out = jax.eval_shape(call, *avals)
        except TapeFallback:  # the op reads a recorded value it was not given (a closure)
            raise _Unrecordable("an op reading a value f computed through a closure") from None
        out_avals, out_tree = jax.tree.flatten(out)
        out_keys = tuple(_aval_key(a) for a in out_avals)
        return _Signature(
            fn,
            statics,
            dynamic,
            out_tree,
            tuple(out_avals),
            drawn[0],
            out_keys,
            tuple(_aval_id(k) for k in out_keys),
            next(_part_ids),
            out_tree == _TENSOR_TREE[0],
        )

    def index(self, tensor: Any, index: Any) -> Any:
        """`tensor[index]` of a recorded value: recorded for a static index; any other
        index stages the tape and indexes the tracer."""
        try:
            _freeze(index)
        except _Unrecordable as error:
            self.stage(str(error))
        recorded, result = self.record(_getitem, {"x": tensor, "index": index}, ("x",))
        if recorded:
            return result
        return _getitem(tensor, index)

    # -- programs ----------------------------------------------------------------------
    def _inputs(self) -> list[Any]:
        if self._primal_values is None:
            with _store.detached():  # the Variables' own buffers, not f's bindings
                self._primal_values = list(self._fetch())
        return self._primal_values

    def evaluate(self, slot: int) -> Any:
        """The value of one slot, from the cached forward program of the tape so far."""
        if slot < self.n_primals:
            return self._inputs()[slot]
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
                _replay(nodes, env)
                return env[slot]

            run = jax.jit(forward)
            if len(_forward) > _PLANS_MAX:
                _forward.clear()
            _forward[key] = run
        if self._peek is None:
            return run(list(self.const_values), self._inputs())
        # The Variables' buffers go only into the program, which returns new arrays: they
        # stay owned (a later step may donate them), so the lock covers the dispatch.
        with _store.LOCK:
            return run(list(self.const_values), self._peek())

    def program(
        self, outputs: Sequence[Any], write_uids: tuple[int, ...], created: Any, source: Any
    ) -> Any:
        """The `_trace.Program` computing `outputs` (y, then the written values)."""
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
        return _program_type()(
            jaxpr=plan.jaxpr,
            consts=[*plan.baked, *self.const_values],
            y_aval=plan.y_aval,
            write_uids=write_uids,
            created=created,
            connected=plan.connected,
            needed=plan.needed,
            source=source,
        )

    def _plan(self, out_slots: tuple[int, ...], source: Any) -> Plan:
        nodes, const_slots, n_c = list(self.nodes), list(self.const_slots), len(self.const_slots)

        def replay(*args: Any) -> list[Any]:
            env = dict(zip(const_slots, args[:n_c]))
            env.update(enumerate(args[n_c:]))
            _replay(nodes, env)
            return [env[s] for s in out_slots]

        avals = [_shaped(self.avals[s]) for s in const_slots]
        avals += [_shaped(a) for a in self.avals[: self.n_primals]]
        closed = trace_to_jaxpr(replay, avals, source)
        jaxpr = _jaxpr.with_leading_constvars(
            _jaxpr.without_dead_equations(closed.jaxpr), n_c, [*closed.consts, *self.const_values]
        )
        n_writes = len(out_slots) - 1
        connected = _jaxpr.needed_inputs(jaxpr, [True] + [False] * n_writes)
        needed = _jaxpr.needed_inputs(jaxpr, [True] * len(out_slots), effects=True)
        y = self.avals[out_slots[0]]
        return Plan(
            jaxpr,
            list(closed.consts),
            tuple(connected),
            tuple(needed),
            jax.ShapeDtypeStruct(tuple(y.shape), y.dtype),
        )


def _replay(nodes: Sequence[_Node], env: dict[int, Any]) -> None:
    """Run the recorded ops `nodes` on the values in `env` (slot -> value), adding theirs.
    (Not a method: the forward programs cached by structure must not hold a tape.)"""
    from . import _rng

    with paused():
        for node in nodes:
            op = node.op
            with _rng.supplying([env[s] for s in node.keys]):
                out = op.fn(
                    **_arguments(op.statics, op.dynamic, iter([env[s] for s in node.slots]))
                )
            for slot, leaf in enumerate(jax.tree.leaves(out), node.first):
                env[slot] = leaf


def _is_recorded_leaf(x: Any) -> bool:
    return isinstance(x, _Tensor[0]) or type(x) is Lazy


def _depends(value: Any) -> bool:
    """Whether an argument holds a value recorded on a tape (or a bound Variable)."""
    if isinstance(value, _Tensor[0]):
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
    for name, tree, marks in dynamic:
        given = statics.get(name, ())
        filled = [next(leaves) if s >= 0 else given[i] for i, s in enumerate(marks)]
        kwargs[name] = jax.tree.unflatten(tree, filled)
    return kwargs


def _unseeded_key() -> Any:
    from . import _rng

    return _rng.next_key(None)


# function (held weakly) -> the call structures for which f could not go on from where it
# was on the tape (a `TapeFallback`): calls of that function with one of them start staged
_staged_from_start: weakref.WeakKeyDictionary[Any, set[Any]] = weakref.WeakKeyDictionary()
_STRUCTURES_MAX = 64  # per function


def usable(primals: Sequence[Any]) -> bool:
    """Whether an eager gradient call runs here (f runs once on real values: recorded,
    then staged if needed); otherwise a transform is tracing and it is traced."""
    return (
        _active.get() is None
        and _store.current() is None
        and not tracing()
        and not any(isinstance(p, Tracer) for p in primals)
    )


def run(
    body: Callable[..., Any],
    primals: Sequence[Any],
    bind_uids: Sequence[int],
    source: Any,
    fetch: Callable[[], list[Any]] | None,
    peek: Callable[[], list[Any]] | None = None,
) -> Any:
    """Run `body` once, on the tape (staged from where it had to be); its
    `_trace.Program`. A call whose f could not go on from where it was runs again, staged
    from the start; it warns, and later calls of that function with arguments of the same
    structure start staged."""
    if ENABLED[0] and not _fell_back(source, primals, bind_uids):
        try:
            return _run(body, primals, bind_uids, source, fetch, peek, staged=False)
        except TapeFallback as error:
            _remember_fallback(source, primals, bind_uids)
            if not error.quiet:
                _warn(source, error.why)
    return _run(body, primals, bind_uids, source, fetch, peek, staged=True)


def _fallback_key(source: Any, primals: Sequence[Any], bind_uids: Sequence[int]) -> tuple[Any, Any]:
    """(the function a fallback is remembered on, the call's structure): a bound method
    is its function, with its instance in the structure (the method object is made
    anew at each attribute read)."""
    owner, instance = getattr(source, "__func__", None), None
    if owner is None:
        owner = source
    else:
        instance = id(getattr(source, "__self__", None))
    avals = [p if isinstance(p, ShapedArray) else jax.typeof(p) for p in primals]
    return owner, (instance, tuple(bind_uids), tuple(_aval_key(a) for a in avals))


def _fell_back(source: Any, primals: Sequence[Any], bind_uids: Sequence[int]) -> bool:
    """Whether a call of `source` with this structure fell back before."""
    if not _staged_from_start or source is None:
        return False
    owner, structure = _fallback_key(source, primals, bind_uids)
    try:
        structures = _staged_from_start.get(owner)
    except TypeError:  # not weakly referenceable: never remembered
        return False
    return structures is not None and structure in structures


def _remember_fallback(source: Any, primals: Sequence[Any], bind_uids: Sequence[int]) -> None:
    if source is None:
        return
    owner, structure = _fallback_key(source, primals, bind_uids)
    try:
        structures = _staged_from_start.setdefault(owner, set())
    except TypeError:  # not weakly referenceable: each call falls back again
        return
    if len(structures) >= _STRUCTURES_MAX:
        structures.clear()
    structures.add(structure)


def _run(
    body: Callable[..., Any],
    primals: Sequence[Any],
    bind_uids: Sequence[int],
    source: Any,
    fetch: Callable[[], list[Any]] | None,
    peek: Callable[[], list[Any]] | None,
    staged: bool,
) -> Any:
    Tensor = _Tensor[0]
    avals = [p if isinstance(p, ShapedArray) else jax.typeof(p) for p in primals]
    tape = Tape(avals, fetch if fetch is not None else (lambda: list(primals)), peek)
    tape.source = source
    lazies: list[Any] = [Lazy(tape, i, *x.key) for i, x in enumerate(tape.inputs)]
    inputs = lazies
    token, calling = _active.set(tape), _calling.set(tape)
    arguments: list[Any] = []
    try:
        if staged:
            tape.stage("staged from the start")
            inputs = [tape.traced(lazy) for lazy in lazies]
        arguments = [Tensor(x) for x in inputs]
        effects = _store.run(lambda: _output(body(*arguments)), dict(zip(bind_uids, inputs)))
        if tape.staging is not None:
            outputs = [tape.traced(v) for v in (effects.output, *effects.writes.values())]
            tape.release_traced(keep=True)
            closed = tape.staging.close(outputs)
    except BaseException:
        tape.done = True
        if tape.staging is not None:
            tape.release_traced(keep=False)
            tape.staging.abort()
        tape.end_trace()
        raise
    finally:
        _active.reset(token)
        _calling.reset(calling)
        if staged:  # f's arguments read, after the call, as on the tape: the caller's values
            for argument, lazy in zip(arguments, lazies):
                _rebind_argument(argument, lazy)
    went_on_a_trace = tape.staging is not None  # (end_trace below lets go of it)
    try:
        if tape.kept is not None:
            tape.settle()
    finally:
        tape.done = True
        tape.end_trace()
    try:
        if went_on_a_trace:
            from ._trace import program_of

            return program_of(closed, tuple(effects.writes), effects.created, source)
        return tape.program(
            [effects.output, *effects.writes.values()],
            tuple(effects.writes),
            effects.created,
            source,
        )
    except BaseException:
        effects.discard()
        raise


def _rebind_argument(argument: Any, lazy: Lazy) -> None:
    from ._tensor import rebind

    if isinstance(getattr(argument, "_value", None), Tracer):
        rebind(argument, lazy)


def _output(y: Any) -> Any:
    if isinstance(y, _Tensor[0]):
        return y.__tfjs_value__()
    if isinstance(y, (jax.Array, Lazy)):
        return y
    from ._trace import NotATensorError

    raise NotATensorError("The result y returned by f() must be a tensor.")


def _warn(source: Any, why: str) -> None:
    import warnings

    name = getattr(source, "__qualname__", None) or repr(source)
    warnings.warn(
        f"tfjs_grad's eager tape cannot record what '{name}' does here ({why}: the tape "
        "cannot hand its recorded values over to a JAX trace from inside a transform "
        "already running). This call ran it again, traced with JAX from the start, with "
        "the same results; later calls of this function with arguments of the same shapes "
        "are traced from the start.",
        stacklevel=5,
    )


def assignable(value: Any) -> Any:
    """What `Variable.assign(value)` stores when `value` holds a recorded value: the
    `Lazy` itself inside its own f (the write is part of the tape, so the program
    computes it), its value after f returned; None for anything else."""
    if isinstance(value, _Tensor[0]):
        value = value.__tfjs_value__()
    if type(value) is not Lazy:
        return None
    tape = value.tape
    if not tape.done and tape.staging is not None:
        return value.staged()
    if _active.get() is tape and _store.current() is not None:
        return value
    return value.materialize()


def _disposed() -> Exception:
    from ._tensor import DISPOSED_MESSAGE, TensorDisposedError

    return TensorDisposedError(DISPOSED_MESSAGE)


def is_disposed(value: Any) -> bool:
    """Whether a Tensor's value is one f computed in a call that has returned."""
    return type(value) is Lazy and value.tape.done and value.slot >= value.tape.n_primals


def keep(tensor: Any) -> None:
    """`tf.keep(tensor)`: a recorded value kept inside its f outlives the call (so does a
    Tensor over a tracer f made once staged)."""
    value = getattr(tensor, "_value", None)
    if type(value) is Lazy and not value.tape.done:
        value.tape.keep(tensor)
    elif isinstance(value, Tracer):
        tape = _calling.get()
        if tape is not None and tape.staging is not None:
            tape.keep(tensor)


def is_lazy(value: Any) -> bool:
    return type(value) is Lazy


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


# A JAX transform or jnp function handed a recorded value flattens it first: that is where
# the tape learns that f left the ops it can record. JAX then sees the tracer.
def _flatten_staged(lazy: Lazy) -> Any:
    return (lazy.staged(),), None


def _unflatten_staged(aux: Any, children: Any) -> Any:
    return children[0]


jax.tree_util.register_pytree_node(Lazy, _flatten_staged, _unflatten_staged)
