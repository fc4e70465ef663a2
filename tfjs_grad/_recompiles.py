"""A warning, once per function, when the eager path compiles one function for many shapes.

An eager gradient call (`tf.variableGrads(f)`, `optimizer.minimize(f)`) compiles f's
program once per structure: a loop that feeds f a batch of a new length each step compiles
at every new length. `note_compile(f, key)` counts the distinct programs compiled for f's
code (a closure made anew each step is the same function) and warns when they pass
`MANY_SHAPES`, saying how to avoid it.
"""

from __future__ import annotations

import inspect
import os
import warnings
from typing import Any

MANY_SHAPES = 8
_KEPT_FUNCTIONS = 1024  # functions counted at once; more and the counts start over
_programs: dict[Any, set[int]] = {}  # a function's code -> hashes of its compiled programs
_warned: set[Any] = set()
_PACKAGE = os.path.dirname(__file__) + os.sep  # as the package's code objects name it


def _user_stacklevel() -> int:
    """The stacklevel of the innermost caller outside the package (the user's call)."""
    frame, level = inspect.currentframe(), 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level - 1


def note_compile(source: Any, key: Any) -> None:
    """Count the program of `key` compiled for `source` (the user's f); warn at the
    first past `MANY_SHAPES` distinct ones, once per function."""
    function = getattr(source, "__func__", source)  # a bound method: its function
    code = getattr(function, "__code__", None) or type(function)
    if code in _warned:
        return
    programs = _programs.setdefault(code, set())
    programs.add(hash(key))
    if len(programs) <= MANY_SHAPES:
        if len(_programs) > _KEPT_FUNCTIONS:
            _programs.clear()
        return
    del _programs[code]
    _warned.add(code)
    name = getattr(function, "__qualname__", None) or type(function).__name__
    warnings.warn(
        f"tfjs_grad compiled the eager gradient program of '{name}' for more than "
        f"{MANY_SHAPES} different shapes: each new shape of its inputs (a batch of a new "
        "length) compiles again, which is slow and takes memory. Pad each batch to a fixed "
        "length with tf.pad and mask the padded rows out of the loss (weights of 0) to "
        "compile once.",
        UserWarning,
        stacklevel=_user_stacklevel(),
    )
