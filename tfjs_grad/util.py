"""`tf.util`: tfjs's host-side helpers that training code uses.

`tf.util.assert` is a Python keyword as an attribute name, so ports write
`tf.util.assert_(...)` (or `getattr(tf.util, "assert")`, the same function).

>>> import tfjs_grad as tf
>>> tf.util.createShuffledIndices is tf.util.create_shuffled_indices
True
"""

import math as _math
import time as _time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as _np

from .ops.utilities import create_shuffled_indices, createShuffledIndices, shuffle

__all__ = [
    "arrays_equal",
    "arraysEqual",
    "assert_",
    "create_shuffled_indices",
    "createShuffledIndices",
    "decode_string",
    "decodeString",
    "encode_string",
    "encodeString",
    "flatten",
    "now",
    "shuffle",
    "size_from_shape",
    "sizeFromShape",
]


def __dir__() -> list[str]:
    return sorted([*__all__, "assert"])


def assert_(expr: object, msg: str | Callable[[], str]) -> None:
    """Raise ValueError(msg) when expr is false, like `tf.util.assert` (msg may be a string
    or a function giving it, called only on failure); returns None.

    >>> import tfjs_grad as tf
    >>> tf.util.assert_(1 + 1 == 2, lambda: "arithmetic is broken")
    >>> tf.util.assert_(False, "xs and ys must have the same length")
    Traceback (most recent call last):
    ValueError: xs and ys must have the same length
    """
    if not expr:
        raise ValueError(msg if isinstance(msg, str) else msg())


globals()["assert"] = assert_  # tfjs's name, reachable as getattr(tf.util, "assert")


def size_from_shape(shape: Sequence[int]) -> int:
    """The number of elements of a tensor of this shape (1 for a scalar's `[]`).

    >>> import tfjs_grad as tf
    >>> tf.util.sizeFromShape([2, 3]), tf.util.sizeFromShape([])
    (6, 1)
    """
    return _math.prod(shape)


def flatten(
    arr: Any, result: list[Any] | None = None, skip_typed_array: bool | None = None
) -> list[Any]:
    """The leaves of nested lists (and tuples and numpy arrays, unless `skip_typed_array`),
    in order, appended to `result` when given.

    >>> import tfjs_grad as tf
    >>> tf.util.flatten([[1, [2, 3]], [4]])
    [1, 2, 3, 4]
    """
    out = [] if result is None else result
    if isinstance(arr, (list, tuple)) or (isinstance(arr, _np.ndarray) and not skip_typed_array):
        for item in arr:
            flatten(item, out, skip_typed_array)
    else:
        out.append(arr)
    return out


def arrays_equal(n1: Sequence[Any], n2: Sequence[Any]) -> bool:
    """Whether two flat sequences have the same length and equal elements.

    >>> import tfjs_grad as tf
    >>> tf.util.arraysEqual([1, 2], [1, 2]), tf.util.arraysEqual([1, 2], [1, 2, 3])
    (True, False)
    """
    return len(n1) == len(n2) and all(a == b for a, b in zip(n1, n2, strict=True))


def now() -> float:
    """A monotonic clock in milliseconds, as a float (tfjs's `performance.now()`).

    >>> import tfjs_grad as tf
    >>> tf.util.now() <= tf.util.now()
    True
    """
    return _time.perf_counter() * 1000.0


def encode_string(s: str, encoding: str | None = None) -> _np.ndarray:
    """The bytes of `s` as a uint8 array (tfjs's Uint8Array).

    >>> import tfjs_grad as tf
    >>> tf.util.encodeString("hé").tolist()
    [104, 195, 169]
    """
    return _np.frombuffer(s.encode(encoding or "utf-8"), dtype=_np.uint8).copy()


def decode_string(data: Any, encoding: str | None = None) -> str:
    """The text that `encode_string` encoded (any bytes-like or sequence of bytes).

    >>> import tfjs_grad as tf
    >>> tf.util.decodeString(tf.util.encodeString("hé"))
    'hé'
    """
    return bytes(_np.asarray(data, dtype=_np.uint8)).decode(encoding or "utf-8")


sizeFromShape = size_from_shape
arraysEqual = arrays_equal
encodeString = encode_string
decodeString = decode_string
