"""How many times a call enters one Python function: for tests that check which path a
call took (a fast path, no Tensor rebuilt) without timing anything."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType
from typing import Any


def calls_into(code: CodeType, call: Callable[[], Any]) -> int:
    """How many times `call()` enters the function whose code object is `code`.

    >>> def inner(): pass
    >>> calls_into(inner.__code__, lambda: [inner(), inner()])
    2
    """
    count = [0]

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event == "call" and frame.f_code is code:
            count[0] += 1

    sys.setprofile(profile)
    try:
        call()
    finally:
        sys.setprofile(None)
    return count[0]
