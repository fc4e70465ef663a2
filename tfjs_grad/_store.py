"""The functional variable store: where a Variable's value lives while a transform runs.

Outside any transform a Variable reads and writes its own buffer. A transform
(`variable_grads`, `tf.jit`, `functionalize`) opens a `Frame` that binds Variables to
values it chooses (usually tracers). Inside, reads see the innermost binding and
writes land in the innermost frame; the transform decides afterwards what to write
back. Frames live in a `ContextVar`, so threads and nested transforms never see each
other's values.

`run` is the one way to run code with Variables bound: it returns the `Effects` (output,
writes, Variables created, Variables read without a binding, trainable flags read) and
disposes the Variables it created when the code fails; `collecting` extends that to a
failure later on (a failed compile). `trace` stages a function with some Variables bound
to a jaxpr and returns its `Effects` with it. The buffer side (gather buffers for a step,
lending copies of shared ones, commit results) is `variables.gather` / `variables.commit_all`.

Buffers outside frames are guarded by one lock (`LOCK`): a compiled step takes it while
it gathers, donates and replaces buffers, and an eager read takes it while it hands a
buffer out, so no thread ever receives a buffer that another is donating.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import jax

LOCK = threading.RLock()
_DEBUG_NANS, _DEBUG_INFS = jax.debug_nans, jax.debug_infs


def donation_allowed() -> bool:
    """Whether a program may donate its inputs now. Not while `jax_debug_nans` or
    `jax_debug_infs` is on: JAX re-runs a failing program op by op to name the op, and
    needs its inputs for that (the failure then leaves every Variable as it was)."""
    return not (_DEBUG_NANS.value or _DEBUG_INFS.value)


class Frame:
    """One transform's view of the store: bound values, and what was written or created.

    A tracking frame (tf.jit's) also records the Variables read without a binding
    (`promoted`: their concrete values, which the program takes as inputs from the next
    call on) and the ones whose `trainable` flag decided what the program computes
    (`flags`), so that the compiled program can be keyed and widened by them.
    """

    __slots__ = ("values", "written", "created", "parent", "tracks", "promoted", "flags")

    def __init__(self, values: Mapping[int, Any], parent: Frame | None, tracks: bool = False):
        self.values: dict[int, Any] = dict(values)
        self.written: dict[int, None] = {}
        self.created: dict[int, Any] = {}  # uid -> Variable created inside this frame
        self.parent = parent
        self.tracks = tracks
        self.promoted: dict[int, Any] = {}
        self.flags: dict[int, bool] = {}

    def writes(self) -> dict[int, Any]:
        """uid -> value for every Variable assigned or created inside this frame."""
        return {uid: self.values[uid] for uid in self.written}


@dataclass(frozen=True)
class Effects:
    """What running a function with Variables bound did (returned by `run` and `trace`).

    `writes`: uid -> new value of each Variable assigned or created (in write order; in a
    `trace`, the values are the traced program's extra outputs, in this order).
    `created`: uid -> Variable made inside. `promoted`: uid -> the concrete value a
    tracking run read for a Variable it did not bind. `flags`: uid -> the `trainable` flag
    the result depends on.
    """

    output: Any = None
    writes: dict[int, Any] = field(default_factory=dict)
    created: dict[int, Any] = field(default_factory=dict)
    promoted: dict[int, Any] = field(default_factory=dict)
    flags: dict[int, bool] = field(default_factory=dict)

    def discard(self) -> None:
        """Dispose the Variables created (they never get a value)."""
        for var in self.created.values():
            var.dispose()


_top: contextvars.ContextVar[Frame | None] = contextvars.ContextVar("tfjs_grad_store", default=None)
_runs: contextvars.ContextVar[list[Effects] | None] = contextvars.ContextVar(
    "tfjs_grad_store_runs", default=None
)


# The innermost frame, or None outside every transform: the ContextVar's own getter (no
# Python frame: tf.jit's fast call asks on every call).
current: Callable[[], Frame | None] = _top.get


def run(fn: Callable[[], Any], bindings: Mapping[int, Any], *, tracks: bool = False) -> Effects:
    """`fn()` with the Variables of these uids reading the given values; its `Effects`.

    Writes land in the record, not in the Variables; Variables created by a failing `fn`
    are disposed. `tracks`: record reads without a binding and flags (tf.jit's trace).
    """
    frame = Frame(bindings, _top.get(), tracks)
    token = _top.set(frame)
    try:
        output = fn()
    except BaseException:
        for var in frame.created.values():
            var.dispose()
        raise
    finally:
        _top.reset(token)
    effects = Effects(output, frame.writes(), frame.created, frame.promoted, frame.flags)
    runs = _runs.get()
    if runs is not None:
        runs.append(effects)
    return effects


def is_collecting() -> bool:
    """Whether a `collecting()` block is open here (a tf.jit full call's)."""
    return _runs.get() is not None


class collecting:  # noqa: N801 (a context manager, used as a function)
    """Within: every `run`'s Effects are collected; on an error, their Variables are
    disposed (a trace whose program then failed to compile or run)."""

    __slots__ = ("runs", "_outer", "_token")

    def __enter__(self) -> list[Effects]:
        self.runs: list[Effects] = []
        self._outer = _runs.get()
        self._token = _runs.set(self.runs)
        return self.runs

    def __exit__(self, kind: Any, error: Any, tb: Any) -> None:
        _runs.reset(self._token)
        if kind is not None:
            for effects in self.runs:
                effects.discard()
        elif self._outer is not None:  # an enclosing collector answers for them now
            self._outer.extend(self.runs)


@dataclass(frozen=True)
class Traced:
    """A function staged with some Variables bound: `jaxpr` (a ClosedJaxpr whose inputs are
    the bound values then the other arguments, and whose outputs are `out_tree`'s leaves
    then `effects.writes`'s values) and what running it did."""

    jaxpr: Any
    out_tree: Any
    effects: Effects


def trace(
    fn: Callable[..., Any],
    avals: Sequence[Any],
    uids: Sequence[int],
    *,
    tracks: bool = False,
    source: Any = None,
    result: Callable[[Any], Any] | None = None,
) -> Traced:
    """Stage `fn(*xs)` on abstract values, with `uids[i]` reading `xs[i]` (the first
    `len(uids)` inputs are Variables' values); the leaves of its output (after `result`,
    applied outside the bindings) must be arrays. `source` is named in JAX's errors."""
    from ._jax_internals import trace_to_jaxpr

    found: list[tuple[Any, Effects]] = []

    def flat(*xs: Any) -> list[Any]:
        effects = run(lambda: fn(*xs), dict(zip(uids, xs)), tracks=tracks)
        output = effects.output if result is None else result(effects.output)
        leaves, out_tree = jax.tree.flatten(output)
        found.append((out_tree, effects))
        return [*leaves, *effects.writes.values()]

    with collecting():
        closed = trace_to_jaxpr(flat, avals, source)
    out_tree, effects = found[0]
    # The traced output and written values belong to the trace: keep the write order only.
    kept = Effects(
        None, dict.fromkeys(effects.writes), effects.created, effects.promoted, effects.flags
    )
    return Traced(closed, out_tree, kept)


def rebind(replace: Callable[[Any], Any]) -> None:
    """Replace every bound value `v` of the active frames by `replace(v)` (the eager tape,
    once it stages, binds tracers where it bound the values it recorded)."""
    frame = _top.get()
    while frame is not None:
        for uid, value in frame.values.items():
            frame.values[uid] = replace(value)
        frame = frame.parent


def lookup(uid: int) -> tuple[bool, Any]:
    """(found, value) of the innermost binding of `uid`."""
    frame = _top.get()
    while frame is not None:
        if uid in frame.values:
            return True, frame.values[uid]
        frame = frame.parent
    return False, None


def tracker() -> Frame | None:
    """The tracking frame (a tf.jit trace's), if one is active."""
    frame = _top.get()
    while frame is not None:
        if frame.tracks:
            return frame
        frame = frame.parent
    return None


def tracking() -> bool:
    """Whether a tf.jit trace is running (some frame records what the program touches)."""
    return tracker() is not None


def promote(frame: Frame, uid: int, value: Any) -> Any:
    """Bind `value` (a Variable's concrete value, read without a binding) in the tracking
    `frame`: the trace reads it as a constant, which the program then takes as an input."""
    frame.values[uid] = value
    frame.promoted[uid] = value
    return value


def note_flag(uid: int, trainable: bool) -> None:
    """Record that a traced program depends on a Variable's `trainable` flag."""
    frame = tracker()
    if frame is not None:
        frame.flags[uid] = trainable


_own: contextvars.ContextVar[bool] = contextvars.ContextVar("tfjs_grad_own_trace", default=False)


@contextlib.contextmanager
def own_trace() -> Iterator[None]:
    """Mark a trace as the package's own (an eager program compiled for reuse): a Variable
    read there is not the user's plain `jax.jit` baking it in."""
    token = _own.set(True)
    try:
        yield
    finally:
        _own.reset(token)


def in_own_trace() -> bool:
    return _own.get()


@contextlib.contextmanager
def detached() -> Iterator[None]:
    """Run as if no transform were active (to create state with concrete values)."""
    token = _top.set(None)
    try:
        yield
    finally:
        _top.reset(token)
