"""`tf.variable` / `tf.Variable`: named, mutable, array-like state.

A Variable reads its value through the functional store (`_store`): inside a transform
it sees the value the transform bound; elsewhere, its own buffer.

Ownership: a buffer is *shared* once it has left the store (read outside a transform,
given to `variable()`/`assign` by the user, taken from another Variable) and *owned*
while only the store has seen it (a compiled step's result). `tf.jit` donates owned
buffers only; a shared one is copied first, so donation is never observable.
"""

from __future__ import annotations

import inspect
import itertools
import operator
import os
import re
import warnings
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import ShapedArray, Tracer

from . import _store, _tape
from ._jax_internals import refuse_in_primitives, staging
from ._stopped import stopped
from ._tensor import Tensor, wrap
from ._tensors import ArrayLike, _is_python_numeric, convert, dtype_name, to_dtype

_registry: weakref.WeakValueDictionary[str, Variable] = weakref.WeakValueDictionary()
_by_uid: weakref.WeakValueDictionary[int, Variable] = weakref.WeakValueDictionary()
_uids = itertools.count()
_auto_names = itertools.count()
_version = [0]  # bumped whenever the set of live Variables changes
# Bumped when a Variable that a compiled program threads is disposed, or its trainable
# flag or sharding changes: what tf.jit rechecks. Other Variables never bump it.
_epoch = [0]
# Bumped whenever a Variable's buffer or its shared flag changes (and with `_epoch`): a
# compiled step that committed last and sees it unchanged may reuse what it committed.
_moves = [0]
# A compiled step's fast call leaves its results here, not yet stored in the Variables it
# writes: [(variables, new buffers, epoch when the call ran)] or [None]. Storing twenty
# buffers after every call cost the tiny MLP's step about 1.7 us of 70 (one core; the
# Variables are likely out of the cache once XLA has run), and the step's next fast call
# donates these buffers as they are and defers its own results in their place. Every
# read or write of a buffer below settles it first (`_settle`).
_deferred: list[Any] = [None]
# [version, names in JS key order, (name, weakref) of the live ones] for registered_variables
_ordered: list[Any] = [-1, [], []]


class TracedAssignError(TypeError, ValueError):
    """A traced value would be written to a Variable outside `tf.jit`/`tf.functionalize`."""


# -- a Variable's value starts anew (tfjs's tape keys gradients by tensor id) -----------
# In tfjs a Variable is one tensor id: `assign` swaps the data under it and `tf.variable`
# makes a new id, so a value stored in a Variable has no gradient path back to what
# computed it, and every read of a Variable (before or after an assign) is a read of that
# one id: d(loss)/d(v) sums over all of them, each at the value it read. Inside a
# transform the stored value is therefore `new` with the derivative of the value it
# replaces (the Variable's bound input, through any earlier assigns); a created
# Variable's value has none.
@jax.custom_jvp
def _rebased(new: Any, current: Any) -> Any:
    return new


@_rebased.defjvp
def _rebased_jvp(primals: Any, tangents: Any) -> Any:
    new, _ = primals
    return new, tangents[1]


def _stored_value(new: Any, current: Any = None) -> Any:
    if current is None:
        return stopped(new)
    return _rebased(new, current)


def _stored(new: Any, current: Any = None) -> Any:
    """What a write inside a transform stores (see `_rebased`): recorded on the eager
    tape when f computed either value, else computed at once (on tracers)."""
    tape = _tape.active()
    if tape is not None:
        recorded, result = tape.record(
            _stored_value, {"new": new, "current": current}, ("new", "current")
        )
        if recorded:
            return result.__tfjs_value__() if isinstance(result, Tensor) else result
    if _tape.is_lazy(new):
        new = new.staged()
    if _tape.is_lazy(current):
        current = current.staged()
    return _stored_value(new, current)


def _multi_device_sharding(value: Any) -> jax.sharding.Sharding | None:
    """The sharding to keep across assignments, when the value spans several devices."""
    if (
        isinstance(value, jax.Array)
        and not isinstance(value, Tracer)
        and len(value.sharding.device_set) > 1
    ):
        return value.sharding
    return None


def _shape_text(shape: Iterable[int]) -> str:
    return "(" + ",".join(str(d) for d in shape) + ")"


_PACKAGE_DIRS = tuple(os.path.dirname(m.__file__) + os.sep for m in (jax, np) if m.__file__) + (
    os.path.dirname(__file__) + os.sep,
)
_baked_sites: set[tuple[str, int]] = set()


def _warn_baked(name: str) -> None:
    """Warn, once per line of user code, that a plain JAX trace bakes a Variable's value in."""
    frame = inspect.currentframe()
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIRS):
        frame = frame.f_back
    if frame is None:
        return
    site = (frame.f_code.co_filename, frame.f_lineno)
    if site in _baked_sites:
        return
    _baked_sites.add(site)
    warnings.warn_explicit(
        f"Variable '{name}' is read under a plain JAX transform (jax.jit, lax.scan, ...): "
        "its current value is baked into the traced program as a constant, so later "
        "assigns are ignored by that program. Compile stateful code with tf.jit, or make "
        "the state an argument with tf.functionalize.",
        UserWarning,
        site[0],
        site[1],
        frame.f_globals.get("__name__", "__main__"),
        frame.f_globals.setdefault("__warningregistry__", {}),
    )


def _bump(_ref: object = None) -> None:
    _version[0] += 1


def _copy(array: Any) -> Any:
    """A fresh buffer with the same contents and sharding (a device copy, no compile)."""
    if not array.is_fully_addressable:
        return jnp.copy(array)  # spans processes: let XLA copy each process's shards
    # An uncommitted array stays uncommitted (free to join any computation's devices).
    target = array.sharding if array.committed else None
    return jax.device_put(array, target, may_alias=False)


class Variable(Tensor):
    """A named, mutable tensor (a `tf.Tensor`, as in tfjs). Create one with `tf.variable`.

    Every Tensor method and operator works on the current value (`v.square().sum()`,
    `v + 1`), and so do `np.asarray`, `jnp` functions and indexing. `==` and `hash` are
    by identity, so Variables can key dicts and sets; compare values with `tf.equal(v, x)`.
    `copy.copy` / `copy.deepcopy` make a new, independent Variable with a fresh name.

    >>> import tfjs_grad as tf
    >>> v = tf.variable(tf.tensor1d([1, 2, 3]), name="doc_v")
    >>> v.assign(v.mul(2))
    >>> v.add(1).arraySync()
    [3.0, 5.0, 7.0]
    >>> v.dispose()
    """

    __slots__ = (
        "_uid",
        "_name",
        "_trainable",
        "_buffer",
        "_shape",
        "_dtype",
        "_shared",
        "_threaded",
        "_disposed",
        "_sharding",
        "_aval_memo",
    )
    __array_priority__ = 100
    __hash__ = object.__hash__  # type: ignore[assignment]  (identity: dict keys, sets)

    def __eq__(self, other: object) -> bool:  # type: ignore[override]
        return self is other

    def __ne__(self, other: object) -> bool:  # type: ignore[override]
        return self is not other

    def __init__(
        self,
        initial_value: ArrayLike,
        trainable: bool = True,
        name: str | None = None,
        dtype: Any = None,
        *,
        sharding: jax.sharding.Sharding | None = None,
    ):
        fresh = _is_python_numeric(initial_value)
        value = convert(initial_value, argument="initial_value", fn="variable")
        target = to_dtype(dtype)
        if target is not None and value.dtype != target:
            value, fresh = value.astype(target), True
        if sharding is not None:
            if not isinstance(sharding, jax.sharding.Sharding):
                raise TypeError(
                    "Argument 'sharding' passed to 'variable' must be a jax.sharding.Sharding, "
                    f"but got '{type(sharding).__name__}'"
                )
            value = jax.device_put(value, sharding)
        if not name:
            name = str(next(_auto_names))
        elif not isinstance(name, str):
            raise TypeError(f"Argument 'name' passed to 'variable' must be a string, got {name!r}")
        if name in _registry:
            raise ValueError(f"Variable with name {name} was already registered")
        if name == GENERATOR_STATE_NAME:
            raise ValueError(
                f"Argument 'name' passed to 'variable': {name!r} is reserved for the random "
                "generator's state (get_state() holds it under that name)"
            )
        self._uid = next(_uids)
        self._name = name
        self._trainable = True if trainable is None else bool(trainable)  # None: JS undefined
        self._shape = tuple(value.shape)
        self._dtype = value.dtype
        self._disposed = False
        self._buffer: Any = None
        self._shared = not fresh
        self._threaded = False  # set once a tf.jit layout takes this Variable
        self._sharding = _multi_device_sharding(value)
        frame = _store.current()
        if frame is not None:
            frame.created[self._uid] = self
            frame.values[self._uid] = _stored(value)  # a new value: no gradient path back
            frame.written[self._uid] = None
            self._shared = True  # no buffer yet: not lendable until the transform commits
        elif isinstance(value, Tracer):
            raise TracedAssignError(
                f"Cannot create Variable '{name}' from a traced value outside a stateful "
                "transform. Create it outside jax.jit/jax.vmap, or compile with tf.jit "
                "(or use tf.functionalize) so the new value can be written back."
            )
        else:
            self._buffer = value
        _registry[name] = self
        _by_uid[self._uid] = self
        _bump()

    # -- identity and metadata -------------------------------------------------------
    @property
    def id(self) -> int:
        """A unique int for this Variable (tfjs's `Tensor.id`); the store keys state by it."""
        return self._uid

    @property
    def name(self) -> str:
        return self._name

    @property
    def trainable(self) -> bool:
        """Whether gradient functions and optimizers differentiate this Variable."""
        return self._trainable

    @trainable.setter
    def trainable(self, trainable: bool) -> None:
        if bool(trainable) != self._trainable:
            self._trainable = bool(trainable)
            _epoch[0] += self._threaded
            _moves[0] += 1

    @property
    def shape(self) -> tuple[int, ...]:
        return self._shape

    @property
    def dtype(self) -> Any:
        return self._dtype

    @property
    def rank(self) -> int:
        return len(self._shape)

    ndim = rank

    @property
    def size(self) -> int:
        return int(np.prod(self._shape, dtype=np.int64))

    @property
    def is_disposed(self) -> bool:
        return self._disposed

    isDisposed = is_disposed

    # -- reading and writing ---------------------------------------------------------
    def read(self) -> Tensor:
        """The current value as a `tf.Tensor` (tfjs's `LayerVariable.read()`), for method
        chains such as `inputs.matMul(kernel.read())`; it keeps this value after later
        assignments.

        >>> import tfjs_grad as tf
        >>> v = tf.variable(tf.tensor1d([1, 2]), name="doc_read")
        >>> v.read().square().arraySync()
        [1.0, 4.0]
        """
        return wrap(self.raw())

    def raw(self) -> Any:
        """The current value as stored: the store's binding inside a transform, else the
        buffer (which is then shared: no later step donates it)."""
        if self._disposed:
            raise ValueError(f"Variable '{self._name}' is disposed.")
        if _store.current() is not None:
            found, value = _store.lookup(self._uid)
            if found:
                return value
            tracker = _store.tracker()
            if tracker is not None:  # tf.jit's trace: it takes this Variable as an input
                return _store.promote(tracker, self._uid, self._concrete_copy())
        elif staging() and _registry.get(self._name) is self and not _store.in_own_trace():
            _warn_baked(self._name)
        with _store.LOCK:
            buffer = self._peek()
            if not self._shared:
                self._shared = True
                _moves[0] += 1
            return buffer

    __tfjs_value__ = raw  # what the argument converter takes from a Variable
    _get = raw

    @property
    def _value(self) -> Any:  # type: ignore[override]  (what Tensor's members read)
        return self.raw()

    def _concrete_copy(self) -> Any:
        """The buffer (a copy if anyone else may hold it), to stand for this Variable in
        a trace until the program takes it as an input; it stays owned."""
        buffer = self._peek()
        if not self._shared:
            return buffer
        with jax.ensure_compile_time_eval(), _store.detached():
            return _copy(buffer)

    def _peek(self) -> Any:
        """The buffer, for internal use that never lets it escape (it stays owned)."""
        if _deferred[0] is not None:
            _settle()
        if self._buffer is None:
            self._check_disposed()
            raise ValueError(
                f"Variable '{self._name}' was created inside a transform whose result was "
                "never written back, so it has no value."
            )
        return self._buffer

    def aval(self) -> Any:
        """The abstract value (shape, dtype, sharding) of the current value, without
        reading it (a transform does not count this as a use of the Variable)."""
        self._check_disposed()
        frame = _store.current()
        while frame is not None:
            if self._uid in frame.values:
                return jax.typeof(frame.values[self._uid])
            frame = frame.parent
        if _deferred[0] is not None:
            _settle()
        buffer = self._buffer
        if buffer is None:
            return ShapedArray(self._shape, self._dtype)
        # jax.typeof is a function of the buffer's aval and sharding, which a compiled
        # step's outputs share from call to call: remembered for the last pair seen.
        raw, sharding = buffer.aval, buffer.sharding
        memo = getattr(self, "_aval_memo", None)
        if memo is not None and memo[0] is raw and memo[1] is sharding:
            return memo[2]
        aval = jax.typeof(buffer)
        self._aval_memo = (raw, sharding, aval)
        return aval

    @property
    def value(self) -> jax.Array:
        """The current value as a `jax.Array` (a JAX tracer inside a transform or a
        gradient call); it stays valid after later steps."""
        value = self.raw()
        if _tape.is_lazy(value):  # raw JAX from here on: the eager tape stages
            return value.staged()
        return value

    def assign(self, new_value: ArrayLike) -> None:
        """Replace the value; dtype and shape must match exactly (tfjs's rule)."""
        value = _tape.assignable(new_value)  # a value f computed, on the eager tape
        if value is None:
            value = convert(new_value, argument="new_value", fn="assign")
        self._check_disposed()
        if value.dtype != self._dtype:
            raise ValueError(
                f"dtype of the new value ({dtype_name(value.dtype)}) and previous value "
                f"({dtype_name(self._dtype)}) must match"
            )
        if tuple(value.shape) != self._shape:
            raise ValueError(
                f"shape of the new value {_shape_text(value.shape)} and previous value "
                f"{_shape_text(self._shape)} must match"
            )
        self._write(value, owned=_is_python_numeric(new_value))

    def _write(self, value: Any, owned: bool = True) -> None:
        """Store a value already checked for shape and dtype: in the innermost frame
        inside a transform, else as the buffer (`owned`: no one outside holds it)."""
        frame = _store.current()
        if frame is not None:
            found, current = _store.lookup(self._uid)
            frame.values[self._uid] = _stored(value, current if found else None)
            frame.written[self._uid] = None
            return
        if isinstance(value, Tracer):
            raise TracedAssignError(
                f"Cannot assign a traced value to Variable '{self._name}' under a plain JAX "
                "transform (jax.jit, jax.vmap, ...): the new value would leak out of the "
                "trace. Compile stateful code with tf.jit, or use tf.functionalize to get a "
                "pure function of the variables' state."
            )
        if _deferred[0] is not None:
            _settle()
        if self._disposed or value is self._buffer:
            return
        if self._sharding is not None and value.sharding != self._sharding:
            value = jax.device_put(value, self._sharding)
        with _store.LOCK:
            if _deferred[0] is not None:
                _settle()
            self._buffer = value
            self._shared = not owned
            _moves[0] += 1

    # -- the store's protocol (tf.jit): lend buffers to a donating call, commit results ----
    def _lend(self) -> Any:
        """The buffer to pass to a call that donates it: a copy if anyone else may hold
        it. The caller holds `_store.LOCK` until it commits the results."""
        buffer = self._peek()
        return _copy(buffer) if self._shared else buffer

    def _commit(self, value: Any) -> None:
        """Take a compiled step's result as the new (owned) buffer."""
        if _deferred[0] is not None:
            _settle()
        self._buffer = value
        self._shared = False
        _moves[0] += 1

    def _pin_sharding(self, sharding: jax.sharding.Sharding | None) -> None:
        """Keep `sharding` across later writes (a checkpoint restores it); `tf.jit` re-reads
        the pinned shardings when the registry version moves."""
        if sharding != self._sharding:
            self._sharding = sharding
            _epoch[0] += self._threaded
            _moves[0] += 1

    def _check_disposed(self) -> None:
        if self._disposed:
            raise ValueError(f"Variable '{self._name}' is disposed.")

    def dispose(self) -> None:
        """Free the buffer and unregister; the name can be reused. Disposing twice is a no-op."""
        with _store.LOCK:
            if self._disposed:
                return
            if _deferred[0] is not None:
                _settle()
            self._disposed = True
            if _registry.get(self._name) is self:
                del _registry[self._name]
            _by_uid.pop(self._uid, None)
            _bump()
            _epoch[0] += self._threaded
            _moves[0] += 1
            buffer, self._buffer = self._buffer, None
            if isinstance(buffer, jax.Array) and not self._shared and not buffer.is_deleted():
                buffer.delete()
            self._shared = True  # no buffer: never lendable

    # -- copies -------------------------------------------------------------------
    def __copy__(self) -> Variable:
        """A new, independent Variable with the current value and a fresh auto name."""
        return Variable(self.raw(), self._trainable)

    def __deepcopy__(self, memo: dict[int, Any]) -> Variable:
        copied = memo[id(self)] = self.__copy__()
        return copied

    def __reduce__(self) -> Any:
        raise TypeError(
            f"tf.Variable '{self._name}' cannot be pickled: save its value (v.value, "
            "tf.get_state(), tf.io.save_weights) and make a new Variable from it"
        )

    def __format__(self, spec: str) -> str:
        return format(np.asarray(self.raw()), spec) if spec else repr(self)

    def __repr__(self) -> str:
        if self._disposed:
            return f"<tf.Variable '{self._name}' (disposed)>"
        value = self.raw()
        shown = "<traced>" if isinstance(value, Tracer) else np.asarray(value)
        return (
            f"<tf.Variable '{self._name}' shape={self._shape} dtype={dtype_name(self._dtype)}"
            f" trainable={self.trainable} value={shown}>"
        )


def _flatten(v: Variable) -> tuple[tuple[Any], None]:
    return (v.raw(),), None


def _unflatten(_aux: None, children: Any) -> Any:
    # Inside a JAX transform a Variable is just its value: lax, custom_jvp rules and
    # tangents all see a plain array, and nothing can mutate state behind the transform.
    return children[0]


jax.tree_util.register_pytree_node(Variable, _flatten, _unflatten)
refuse_in_primitives(Variable, "Variable")


# -- the store's side of a Variable, for the package's transforms and optimizers ----------
# (the only way other modules touch a Variable's buffer; `var.id` is its key in the store)


def write(var: Variable, value: Any, *, owned: bool = True) -> None:
    """Store a value already checked for shape and dtype (the innermost frame's binding
    inside a transform, else the buffer); `owned`: no one outside holds `value`."""
    var._write(value, owned)


def peek(var: Variable) -> Any:
    """The buffer, for use that never lets it escape to the user (it stays owned)."""
    return var._peek()


def lend(var: Variable) -> Any:
    """The buffer for a call that donates it (a copy if anyone else may hold it); hold
    `_store.LOCK` until `commit`."""
    return var._lend()


def commit(var: Variable, value: Any) -> None:
    """Take a compiled step's result as the new, owned buffer."""
    var._commit(value)


_buffer_of = operator.attrgetter("_buffer")
_shared_of = operator.attrgetter("_shared")
_NONES = itertools.repeat(None)  # `None in buffers` would compare arrays with ==


def gather(
    written: Sequence[Variable], read: Sequence[Variable], donate: bool
) -> tuple[list[Any], list[Any], bool]:
    """The buffers for one compiled step, under `_store.LOCK` until `commit_all`:
    `written`'s to donate (with `donate`, a copy of any buffer someone else may hold),
    `read`'s as they are, and whether any of `written`'s was shared (C-level loops: this
    runs on every step)."""
    if _deferred[0] is not None:
        _settle()
    # `_shared` is also set on a Variable without a buffer: one test covers both
    shared = any(map(_shared_of, written))
    if shared:
        donated = [var._lend() if donate else var._peek() for var in written]
    else:
        donated = list(map(_buffer_of, written))
    kept = list(map(_buffer_of, read))
    if any(map(operator.is_, kept, _NONES)):
        kept = [var._peek() for var in read]
    return donated, kept, shared


def commit_all(written: Sequence[Variable], new: Sequence[Any], shared: bool, since: int) -> None:
    """Take a step's results as `written`'s new, owned buffers (`shared` and `since`: what
    `gather` said, and the `epoch()` it ran in)."""
    if _deferred[0] is not None:
        _settle()
    for var, buffer in zip(written, new):  # (a plain loop: about twice map(setattr)'s speed)
        var._buffer = buffer
    _moves[0] += 1
    if shared:
        for var in written:
            var._shared = False
    if since != _epoch[0]:  # disposed during the call (e.g. dead slots pruned)
        for var in written:
            if var._disposed:
                var._buffer = None


def commit_later(written: Sequence[Variable], new: list[Any], since: int) -> int:
    """`commit_all(written, new, False, since)` for a fast call, under `_store.LOCK`: the
    buffers are stored in the Variables when anything next reads or writes one. A pending
    commit of the same Variables is dropped: this call donated its buffers. Returns the
    new `buffers_stamp()`."""
    pending = _deferred[0]
    if pending is not None and pending[0] is not written:
        _settle()
    _deferred[0] = (written, new, since)
    _moves[0] += 1
    return _moves[0]


def _settle() -> None:
    """Store the deferred results in their Variables (they hold them logically already:
    `buffers_stamp()` does not move)."""
    with _store.LOCK:
        pending = _deferred[0]
        if pending is None:
            return
        _deferred[0] = None
        written, new, since = pending
        for var, buffer in zip(written, new):
            var._buffer = buffer
        if since != _epoch[0]:  # disposed since the call
            for var in written:
                if var._disposed:
                    var._buffer = None


def thread(variables: Iterable[Variable]) -> None:
    """Mark Variables a compiled program takes: disposing them or changing their flag or
    sharding moves `epoch()`."""
    for var in variables:
        var._threaded = True


def concrete_value(var: Variable) -> Any:
    """The buffer where there is one (even inside a transform), else the bound value."""
    if _deferred[0] is not None:
        _settle()
    return var._buffer if var._buffer is not None else var.raw()


def pinned_sharding(var: Variable) -> jax.sharding.Sharding | None:
    """The multi-device sharding every value of `var` keeps, or None."""
    return var._sharding


def pin_sharding(var: Variable, sharding: jax.sharding.Sharding | None) -> None:
    """Keep `sharding` across later writes (a checkpoint restores it)."""
    var._pin_sharding(sharding)


def check_alive(var: Variable) -> None:
    """Raise the 'is disposed' ValueError if `var` was disposed."""
    var._check_disposed()


def variable(
    initial_value: ArrayLike,
    trainable: bool = True,
    name: str | None = None,
    dtype: Any = None,
    *,
    sharding: jax.sharding.Sharding | None = None,
) -> Variable:
    """Create a Variable, like `tf.variable(initialValue, trainable, name, dtype)`.

    Unnamed variables get tfjs's auto names: "0", "1", ... (one process-wide counter).

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.zeros([2, 3]), name="doc_w")
    >>> w.shape, w.dtype.name, w.trainable
    ((2, 3), 'float32', True)
    >>> w.dispose()
    """
    return Variable(initial_value, trainable, name, dtype, sharding=sharding)


_INTEGER_NAME = re.compile(r"^(0|[1-9][0-9]*)$")


def _js_key_order(names: Iterable[str]) -> list[str]:
    """JS object key order: integer-like names ascending first, then insertion order."""
    names = list(names)
    integers = sorted((n for n in names if _INTEGER_NAME.match(n) and int(n) < 2**32 - 1), key=int)
    chosen = set(integers)
    return integers + [n for n in names if n not in chosen]


def registered_variables() -> dict[str, Variable]:
    """Every live Variable by name, in tfjs's key order.

    >>> import tfjs_grad as tf
    >>> v = tf.variable(tf.scalar(1.0), name="doc_registered")
    >>> "doc_registered" in tf.registered_variables()
    True
    >>> v.dispose()
    >>> "doc_registered" in tf.registered_variables()
    False
    """
    version = _version[0]
    if _ordered[0] != version:
        _ordered[1] = _js_key_order(_registry.keys())
        live = dict(_registry.items())
        _ordered[2] = [(name, weakref.ref(live[name])) for name in _ordered[1] if name in live]
        _ordered[0] = version  # (read first: a change meanwhile rebuilds next time)
    # (weak references: one that died since is left out, as the registry leaves it out)
    found = {name: ref() for name, ref in _ordered[2]}
    return {name: v for name, v in found.items() if v is not None}


def as_var_list(var_list: Any, fn: str) -> list[Variable]:
    """`var_list` as a list, after checking it is a list or tuple of Variables."""
    if not isinstance(var_list, (list, tuple)) or not all(
        isinstance(v, Variable) for v in var_list
    ):
        raise TypeError(f"Argument 'var_list' passed to '{fn}' must be a list of Variables")
    return list(var_list)


def lookup_variable(name: str) -> Variable | None:
    """The live Variable called `name`, or None."""
    return _registry.get(name)


def live_variables() -> list[Variable]:
    """Live Variables in creation order (cheap; no JS key ordering)."""
    return list(_by_uid.values())


def variable_buffer_ids() -> set[int]:
    """ids of the live Variables' current buffers (which `tidy`/`dispose` never free)."""
    if _deferred[0] is not None:
        _settle()
    return {id(v._buffer) for v in list(_by_uid.values()) if v._buffer is not None}


_hidden: dict[int, Variable] = {}  # library state outside the registry, by uid

# The key of the random generator's state in `get_state()`: no Variable may take this name.
GENERATOR_STATE_NAME = "<random generator>"


def hidden_variable(value: Any, name: str) -> Variable:
    """A Variable for the library's own state (the random generator's): outside the
    registry, so `registered_variables`, `get_state` and `dispose_variables` never see
    it, yet threaded by `tf.jit` like any other (found by uid)."""
    var = Variable.__new__(Variable)
    var._uid, var._name, var._trainable = next(_uids), name, False
    var._shape, var._dtype = tuple(value.shape), value.dtype
    var._buffer, var._shared, var._threaded, var._disposed = value, False, False, False
    var._sharding = None
    _hidden[var._uid] = var
    return var


def variable_by_uid(uid: int) -> Variable | None:
    var = _by_uid.get(uid)
    return _hidden.get(uid) if var is None else var


def registry_version() -> int:
    return _version[0]


def buffers_stamp() -> int:
    """Changes whenever any Variable's buffer or shared flag changes, or `epoch()` does: a
    compiled step that sees the stamp it left may donate the buffers it committed as they
    are (no Variable was read, written, disposed or re-flagged since)."""
    return _moves[0]


def epoch() -> int:
    """Changes whenever a Variable is disposed or its trainable flag or sharding changes."""
    return _epoch[0]


def dispose_variables() -> None:
    """Dispose every live Variable (`tf.disposeVariables`), optimizer state included.

    >>> import tfjs_grad as tf
    >>> v = tf.variable(tf.scalar(1.0), name="doc_dispose_all")
    >>> tf.dispose_variables()
    >>> v.is_disposed, "doc_dispose_all" in tf.registered_variables()
    (True, False)
    """
    for v in list(_by_uid.values()):
        v.dispose()


registeredVariables = registered_variables
disposeVariables = dispose_variables
