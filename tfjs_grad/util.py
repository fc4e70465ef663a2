"""`tf.util`: tfjs's host-side helpers that training code uses.

`tf.util.assert` is a Python keyword as an attribute name, so ports write
`tf.util.assert_(...)` (or `getattr(tf.util, "assert")`, the same function).

>>> import tfjs_grad as tf
>>> tf.util.createShuffledIndices is tf.util.create_shuffled_indices
True
"""

from collections.abc import Callable

from .ops.utilities import create_shuffled_indices, createShuffledIndices, shuffle

__all__ = ["assert_", "create_shuffled_indices", "createShuffledIndices", "shuffle"]


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
