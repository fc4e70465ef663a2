"""Baagoe's Alea generator as the `seedrandom` package (which tfjs-data uses for
`shuffle`) computes it, JavaScript's number semantics kept, so a seeded shuffle here
draws the same order as tfjs's.

>>> r = Alea("42")
>>> [round(r(), 12) for _ in range(2)], r.int32()
([0.684863496339, 0.546324467752], -663171647)
"""

from __future__ import annotations

_TWO_32 = 4294967296.0
_INV_TWO_32 = 2.3283064365386963e-10  # 2**-32


def _mash() -> object:
    n = 0xEFC8249D

    def mash(data: str) -> float:
        nonlocal n
        for char in data:
            for unit in _utf16(char):
                n += unit
                h = 0.02519603282416938 * n
                n = int(h) % 0x100000000  # h >>> 0
                h -= n
                h *= n
                n = int(h) % 0x100000000
                h -= n
                n += h * _TWO_32
        return (int(n) % 0x100000000) * _INV_TWO_32

    return mash


def _utf16(char: str) -> list[int]:
    """The UTF-16 code units of one character (JS's charCodeAt walks those)."""
    code = ord(char)
    if code < 0x10000:
        return [code]
    code -= 0x10000
    return [0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF)]


def _int32(x: float) -> int:
    """JavaScript's `x | 0` for a finite x."""
    value = int(x) % 0x100000000
    return value - 0x100000000 if value >= 0x80000000 else value


class Alea:
    """`seedrandom.alea(seed)`: call it for a float in [0, 1); `int32()` for a signed int."""

    def __init__(self, seed: object):
        mash = _mash()
        text = _js_string(seed)
        self.c = 1
        self.s0 = mash(" ")  # type: ignore[operator]
        self.s1 = mash(" ")  # type: ignore[operator]
        self.s2 = mash(" ")  # type: ignore[operator]
        for name in ("s0", "s1", "s2"):
            value = getattr(self, name) - mash(text)  # type: ignore[operator]
            setattr(self, name, value + 1 if value < 0 else value)

    def __call__(self) -> float:
        t = 2091639 * self.s0 + self.c * _INV_TWO_32
        self.s0 = self.s1
        self.s1 = self.s2
        self.c = _int32(t)
        self.s2 = t - self.c
        return self.s2

    def int32(self) -> int:
        return _int32(self() * _TWO_32)


def _js_string(value: object) -> str:
    """`String(value)` for the seeds tfjs code passes: strings, integers, floats."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
