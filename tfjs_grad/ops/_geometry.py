"""Window geometry shared by the convolution and pooling ops: tfjs's padding rules, in any
number of spatial dimensions.

`pad` is 'valid', 'same' (TensorFlow's: output ceil(in / stride), the extra padding after),
a number (zero padding on every side, the output size rounded by `dim_rounding_mode`, by
default truncated), or explicit `[[0, 0], [top, bottom], [left, right], [0, 0]]` (one pair
per axis of the input).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import numpy as np

from . import _js

Pad = str | int | Sequence[Sequence[int]]
_ROUNDING = {"floor": math.floor, "round": None, "ceil": math.ceil}


def round_dim(value: float, mode: str | None) -> int:
    """tfjs's `conv_util.round`: truncation by default, else 'floor', 'round' or 'ceil'."""
    if mode is None:
        return math.trunc(value)
    if mode not in _ROUNDING:
        raise ValueError(f"Unknown roundingMode {mode}")
    if mode == "round":
        return math.floor(value + 0.5)  # JS Math.round
    return _ROUNDING[mode](value)


def check_rounding(fn: str, pad: Any, mode: str | None) -> None:
    """tfjs's `checkPadOnDimRoundingMode`: a rounding mode needs integer padding."""
    if mode is None:
        return
    if isinstance(pad, str):
        bad = [pad]
    elif isinstance(pad, (int, float)):
        bad = [] if float(pad).is_integer() else [pad]
    else:
        bad = [v for row in pad for v in row if not float(v).is_integer()]
    if bad:
        shown = bad[0] if isinstance(bad[0], str) else _js.number(bad[0])
        raise ValueError(
            f"Error in {fn}: pad must be an integer when using dimRoundingMode {mode} but got "
            f"pad {shown}."
        )


def padding(
    pad: Pad,
    size: Sequence[int],
    window: Sequence[int],
    strides: Sequence[int],
    mode: str | None,
    channels_last: bool = True,
) -> list[tuple[int, int]]:
    """(low, high) padding of each spatial axis so that XLA's window output has tfjs's size.

    `window` is the effective (dilated) filter size. A negative high padding crops: tfjs
    never reads the cells a strided window skips at the end.
    """
    if isinstance(pad, str) and pad == "same":
        out = [math.ceil(n / s) for n, s in zip(size, strides)]
        total = [max(0, (o - 1) * s + w - n) for o, s, w, n in zip(out, strides, window, size)]
        return [(t // 2, t - t // 2) for t in total]
    if isinstance(pad, str) and pad == "valid":
        before = [0] * len(size)
        out = [round_dim((n - w) / s + 1, mode) for n, w, s in zip(size, window, strides)]
    elif isinstance(pad, (int, float)) and not isinstance(pad, bool):
        before = [int(pad)] * len(size)
        out = [round_dim((n - w + 2 * pad) / s + 1, mode) for n, w, s in zip(size, window, strides)]
    elif isinstance(pad, (list, tuple)) and len(pad) == len(size) + 2:
        pairs = pad[1:-1] if channels_last else pad[2:]
        before = [int(p[0]) for p in pairs]
        out = [
            round_dim((n - w + lo + hi) / s + 1, mode)
            for n, w, s, (lo, hi) in zip(size, window, strides, pairs)
        ]
    else:
        shown = _js.array(pad) if isinstance(pad, (list, tuple)) else pad
        raise ValueError(f"Unknown padding parameter: {shown}")
    # tfjs clips windows to the input, so whatever the output size needs is padding.
    return [
        (lo, (o - 1) * s + w - n - lo) for lo, o, s, w, n in zip(before, out, strides, window, size)
    ]


def batched(x: jax.Array, rank: int, fn: str, message: str) -> tuple[jax.Array, bool]:
    """x with a batch axis (added when x has rank `rank` - 1), and whether it was added."""
    if x.ndim == rank - 1:
        return x[None], True
    if x.ndim != rank:
        raise ValueError(message.format(fn=fn, rank=x.ndim))
    return x, False


def tuple_param(value: int | Sequence[int], n: int) -> tuple[int, ...]:
    """tfjs's `parseTupleParam`: 2 -> (2, 2), [2, 3] -> (2, 3) (n entries)."""
    if isinstance(value, (int, np.integer, float)):
        return (int(value),) * n
    values = tuple(int(v) for v in value)
    return values if len(values) == n else (values + values[-1:] * n)[:n]


def js_param(value: Any) -> str:
    """A number or an array as tfjs's messages print it: 2 -> "2", [2, 1] -> "2,1"."""
    if isinstance(value, (list, tuple, np.ndarray)):
        return _js.array(value)
    return _js.number(value)


def check_strides_or_dilations(fn: str, strides: Any, dilations: Any, n: int = 2) -> None:
    """tfjs's `eitherStridesOrDilationsAreOne`, with its message."""
    if max(tuple_param(strides, n)) > 1 and max(tuple_param(dilations, n)) > 1:
        raise ValueError(
            f"Error in {fn}: Either strides or dilations must be 1. Got strides "
            f"{js_param(strides)} and dilations '{js_param(dilations)}'"
        )


def valid_counts(size: int, window: int, stride: int, low: int, out: int) -> np.ndarray:
    """How many cells of each output window along one axis lie inside the input."""
    starts = np.arange(out) * stride - low
    return np.clip(starts + window, 0, size) - np.clip(starts, 0, size)
