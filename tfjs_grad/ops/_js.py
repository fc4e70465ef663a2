"""How JavaScript prints numbers and tfjs prints tensors, for messages and `tf.print`."""

from __future__ import annotations

import math
from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

_LIMIT = 20  # tfjs's FORMAT_LIMIT_NUM_VALS: longer axes are summarised with "..."
_EDGE = 3  # values shown at each end of a summarised axis
_DECIMALS = 7  # tfjs prints toFixed(7) of each value


def number(x: Any) -> str:
    """`String(x)` for a JS number: 3.0 -> "3", 1e-7 -> "1e-7", 1e21 -> "1e+21"."""
    if isinstance(x, (bool, np.bool_)):
        return "true" if x else "false"
    x = float(x)
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    # repr gives the shortest round-tripping digits, as JS does; only the layout differs.
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k, n = len(digits), int(exponent) + len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits if k == 1 else digits[0] + "." + digits[1:]
        body = f"{mantissa}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


def array(values: Iterable[Any]) -> str:
    """`String(array)`: the elements joined by commas, nested arrays flattened: [2, 3] -> "2,3"."""
    return ",".join(
        v if isinstance(v, str) else array(v) if np.ndim(v) else number(v) for v in values
    )


def _fixed(x: float) -> str:
    """`parseFloat(x.toFixed(7)).toString()`: at most 7 decimals, halves away from zero."""
    if not math.isfinite(x) or abs(x) >= 1e21:
        return number(x)
    rounded = Decimal(x).quantize(Decimal(1).scaleb(-_DECIMALS), rounding=ROUND_HALF_UP)
    return number(float(rounded))


def _value(x: Any, dtype: str) -> str:
    if dtype == "bool":
        return "true" if x else "false"
    return _fixed(float(x))


def _lines(
    values: np.ndarray, shape: tuple[int, ...], dtype: str, widths: list[int], is_last: bool
) -> list[str]:
    rank = len(shape)
    if rank == 0:
        if dtype == "bool":
            return [_value(values[0], dtype)]
        return [number(values[0])]  # a scalar prints every digit of its float32 value
    size = shape[0]
    if rank == 1:

        def cell(i: int) -> str:
            return _value(values[i], dtype).ljust(widths[i] if i < len(widths) else 0)

        if size > _LIMIT:
            head = ", ".join(cell(i) for i in range(_EDGE))
            tail = ", ".join(cell(i) for i in range(size - _EDGE, size))
            return [f"[{head}, ..., {tail}]"]
        return ["[" + ", ".join(cell(i) for i in range(size)) + "]"]
    stride = int(np.prod(shape[1:]))
    rows = range(size) if size <= _LIMIT else [*range(_EDGE), None, *range(size - _EDGE, size)]
    lines: list[str] = []
    for i in rows:
        if i is None:
            lines.append("...")
            continue
        part = values[i * stride : (i + 1) * stride]
        lines.extend(_lines(part, shape[1:], dtype, widths, i == size - 1))
    sep = "," if rank == 2 else ""
    lines = lines or [""]  # an empty axis still prints its brackets
    lines[0] = "[" + (lines[0] + sep if size > 0 else "")
    for i in range(1, len(lines) - 1):
        lines[i] = " " + lines[i] + sep
    newline_sep = ",\n" + "\n" * (rank - 2)
    lines[-1] = " " + lines[-1] + "]" + ("" if is_last else newline_sep)
    return lines


def tensor_to_string(value: Any, verbose: bool = False) -> str:
    """What tfjs's `Tensor.toString(verbose)` gives for an array's values."""
    host = np.asarray(value)
    dtype = "bool" if host.dtype == np.bool_ else host.dtype.name
    shape = tuple(host.shape)
    flat = host.reshape(-1)
    widths: list[int] = [0]
    if len(shape) > 1:
        columns = shape[-1]
        widths = [0] * columns
        for j in range(columns):
            for v in flat[j::columns] if columns else []:
                widths[j] = max(widths[j], len(_value(v, dtype)))
    lines = ["Tensor"]
    if verbose:
        lines += [f"  dtype: {dtype}", f"  rank: {len(shape)}", f"  shape: [{array(shape)}]"]
        lines.append("  values:")
    lines.append("\n".join("    " + line for line in _lines(flat, shape, dtype, widths, True)))
    return "\n".join(lines)
