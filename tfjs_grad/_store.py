"""The functional variable store: where a Variable's value lives while a transform runs.

Outside any transform a Variable reads and writes its own buffer. A transform
(`variable_grads`, `tf.jit`, `functionalize`) opens a `Frame` that binds Variables to
values it chooses (usually tracers). Inside, reads see the innermost binding and
writes land in the innermost frame; the transform decides afterwards what to write
back. Frames live in a `ContextVar`, so threads and nested transforms never see each
other's values.

Buffers outside frames are guarded by one lock (`LOCK`): a compiled step takes it while
it gathers, donates and replaces buffers, and an eager read takes it while it hands a
buffer out, so no thread ever receives a buffer that another is donating.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Iterator, Mapping
from typing import Any

LOCK = threading.RLock()


class Frame:
    """One transform's view of the store: bound values, and what was written or created.

    A tracking frame (tf.jit's) also records the Variables read without a binding
    (`missing`) and the ones whose `trainable` flag decided what the program computes
    (`flags`), so that the compiled program can be keyed and widened by them.
    """

    __slots__ = ("values", "written", "created", "parent", "tracks", "missing", "flags")

    def __init__(self, values: Mapping[int, Any], parent: Frame | None, tracks: bool = False):
        self.values: dict[int, Any] = dict(values)
        self.written: dict[int, None] = {}
        self.created: dict[int, Any] = {}  # uid -> Variable created inside this frame
        self.parent = parent
        self.tracks = tracks
        self.missing: set[int] = set()
        self.flags: dict[int, bool] = {}

    def writes(self) -> dict[int, Any]:
        """uid -> value for every Variable assigned or created inside this frame."""
        return {uid: self.values[uid] for uid in self.written}


_top: contextvars.ContextVar[Frame | None] = contextvars.ContextVar("tfjs_grad_store", default=None)


def current() -> Frame | None:
    return _top.get()


@contextlib.contextmanager
def bind(values: Mapping[int, Any], tracks: bool = False) -> Iterator[Frame]:
    """Open a frame in which the Variables with these uids read the given values."""
    frame = Frame(values, _top.get(), tracks)
    token = _top.set(frame)
    try:
        yield frame
    finally:
        _top.reset(token)


def lookup(uid: int) -> tuple[bool, Any]:
    """(found, value) of the innermost binding of `uid`; tracking frames note a miss."""
    frame = _top.get()
    while frame is not None:
        if uid in frame.values:
            return True, frame.values[uid]
        frame = frame.parent
    frame = _top.get()
    while frame is not None:
        if frame.tracks:
            frame.missing.add(uid)
        frame = frame.parent
    return False, None


def tracking() -> bool:
    """Whether a tf.jit trace is running (some frame records what the program touches)."""
    frame = _top.get()
    while frame is not None:
        if frame.tracks:
            return True
        frame = frame.parent
    return False


def note_flag(uid: int, trainable: bool) -> None:
    """Record that a traced program depends on a Variable's `trainable` flag."""
    frame = _top.get()
    while frame is not None:
        if frame.tracks:
            frame.flags[uid] = trainable
        frame = frame.parent


@contextlib.contextmanager
def detached() -> Iterator[None]:
    """Run as if no transform were active (to create state with concrete values)."""
    token = _top.set(None)
    try:
        yield
    finally:
        _top.reset(token)
