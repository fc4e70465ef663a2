"""Utilities: cast, buffer, print, dispose, nextFrame, and `tf.util`'s shuffling helpers."""

from __future__ import annotations

import builtins
import functools
import random
from collections.abc import Generator
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._scope import track
from .._tensor import Tensor
from .._tensors import NUMERIC, ArrayLike, Shape, op, to_dtype
from ..memory import dispose
from . import _checks, _js

__all__ = [
    "TensorBuffer",
    "buffer",
    "cast",
    "create_shuffled_indices",
    "createShuffledIndices",
    "dispose",
    "next_frame",
    "nextFrame",
    "print_",
    "shuffle",
]


@op("cast", x=NUMERIC)
def cast(x: ArrayLike, dtype: Any) -> jax.Array:
    """x converted to dtype, like `tf.cast`: float to int32 truncates, to bool is `x != 0`.

    >>> import tfjs_grad as tf
    >>> tf.cast([1.7, -1.7], "int32")
    Tensor([ 1, -1], shape=(2,), dtype=int32)
    """
    try:
        target = to_dtype(dtype)
    except (TypeError, ValueError):
        raise ValueError(f"Error in cast: failed to cast to {dtype}") from None
    return x.astype(target)


class TensorBuffer:
    """A mutable host buffer that becomes an array with `to_tensor()`, like tfjs's.

    Attributes:
      shape: a tuple.
      dtype: the tfjs dtype string.
      size: the number of values.
      rank: the number of axes.
      values: the flat numpy array of values, of that dtype (writable).
    """

    def __init__(self, shape: Shape, dtype: str = "float32", values: Any = None):
        self.shape = _checks.sized_shape(shape, "buffer", to_dtype(dtype))
        self.dtype = dtype
        self.size = int(np.prod(self.shape))
        self.rank = len(self.shape)
        numpy_dtype = to_dtype(dtype)
        if values is None:
            self.values = np.zeros(self.size, numpy_dtype)
        else:
            flat = np.asarray(values, numpy_dtype).reshape(-1)
            if flat.size != self.size:
                raise ValueError(
                    f"Length of values '{flat.size}' does not match the size inferred by the "
                    f"shape '{self.size}'."
                )
            self.values = flat

    def _index(self, locs: tuple[int, ...]) -> int:
        locs = locs or (0,)
        if len(locs) != self.rank:
            raise ValueError(
                f"The number of provided coordinates ({len(locs)}) must match the rank "
                f"({self.rank})"
            )
        if any(not 0 <= loc < dim for loc, dim in zip(locs, self.shape)):
            raise ValueError(
                f"Requested out of range element at {_js.array(locs)}.   Buffer shape="
                f"{_js.array(self.shape)}"
            )
        return int(np.ravel_multi_index(locs, self.shape)) if self.shape else 0

    def set(self, value: Any, *locs: int) -> None:
        """Write value at locs (an int32 buffer truncates it, as tfjs's Int32Array does).

        >>> import tfjs_grad as tf
        >>> b = tf.buffer([2, 2], "int32")
        >>> b.set(3.7, 1, 0)
        >>> b.values.tolist()
        [0, 0, 3, 0]
        """
        self.values[self._index(locs)] = value

    def get(self, *locs: int) -> int | float | bool:
        """The value at locs, as a Python number (int for an int32 buffer, bool for a bool one).

        >>> import tfjs_grad as tf
        >>> tf.buffer([2], "float32", [1.5, 2.5]).get(1)
        2.5
        """
        return self.values[self._index(locs)].item()

    def to_tensor(self) -> Tensor:
        """The buffer's values as a new Tensor of its shape and dtype.

        >>> import tfjs_grad as tf
        >>> tf.buffer([2], "int32", [1, 2]).to_tensor()
        Tensor([1, 2], shape=(2,), dtype=int32)
        """
        # A copy first: on CPU some JAX versions (0.10.0) alias a numpy array's memory,
        # and the buffer's later set() calls would show through.
        return track(jnp.asarray(self.values.reshape(self.shape).copy()))

    toTensor = to_tensor

    def __repr__(self) -> str:
        return f"TensorBuffer(shape={list(self.shape)}, dtype={self.dtype!r})"


@op("buffer")
def buffer(shape: Shape, dtype: str = "float32", values: Any = None) -> TensorBuffer:
    """A `TensorBuffer` to fill on the host, then turn into an array, like `tf.buffer`.

    >>> import tfjs_grad as tf
    >>> b = tf.buffer([2, 2])
    >>> b.set(5, 0, 1)
    >>> b.to_tensor()
    Tensor([[0., 5.],
            [0., 0.]], shape=(2, 2), dtype=float32)
    """
    return TensorBuffer(shape, dtype, values)


def _write(value: np.ndarray, verbose: bool) -> None:
    builtins.print(_js.tensor_to_string(value, verbose), flush=True)


@op("print", x=NUMERIC)
def print_(x: ArrayLike, verbose: bool = False) -> None:
    """Print x as tfjs's `tf.print` does; returns None.

    Eagerly it prints at once. Inside `tf.jit`, `jax.jit`, `tf.grad`'s f and the other
    transforms it prints the values each time the compiled program runs, in program order.

    >>> import tfjs_grad as tf
    >>> tf.print([[1, -0.5], [10, 2]])
    Tensor
        [[1 , -0.5],
         [10, 2   ]]
    """
    jax.debug.callback(functools.partial(_write, verbose=bool(verbose)), x, ordered=True)


class _NextFrame:
    """Awaiting it yields to the event loop once, like `await tf.nextFrame()`."""

    __slots__ = ()

    def __await__(self) -> Generator[None, None, None]:
        yield  # a bare yield is how asyncio's own sleep(0) hands control back to the loop


def next_frame() -> _NextFrame:
    """An awaitable that yields to the event loop once, like `tf.nextFrame()`.

    Calling it without `await` does nothing (and warns nothing).

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def train():
    ...     await tf.next_frame()
    ...     return "done"
    >>> asyncio.run(train())
    'done'
    """
    return _NextFrame()


def shuffle(array: list[Any] | np.ndarray) -> None:
    """Shuffle a list or numpy array in place (along its first axis), like `tf.util.shuffle`.

    Fisher-Yates with `random.random()`, so `random.seed()` makes it reproducible.

    >>> import random
    >>> import tfjs_grad as tf
    >>> items = [1, 2, 3, 4]
    >>> tf.util.shuffle(items)
    >>> sorted(items)
    [1, 2, 3, 4]
    """
    if isinstance(array, np.ndarray):
        if not array.flags.writeable:
            raise ValueError("shuffle() needs a writable array")
    elif not isinstance(array, list):
        raise TypeError(
            f"shuffle() needs a list or a numpy array to shuffle in place, but got "
            f"'{type(array).__name__}'"
        )
    counter = len(array)
    while counter > 0:
        index = int(random.random() * counter)
        counter -= 1
        if isinstance(array, np.ndarray):
            array[[counter, index]] = array[[index, counter]]
        else:
            array[counter], array[index] = array[index], array[counter]


def create_shuffled_indices(n: int) -> np.ndarray:
    """The integers 0 .. n-1 shuffled, as a uint32 numpy array (tfjs: a Uint32Array).

    >>> import tfjs_grad as tf
    >>> indices = tf.util.create_shuffled_indices(5)
    >>> indices.dtype, sorted(indices.tolist())
    (dtype('uint32'), [0, 1, 2, 3, 4])
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"createShuffledIndices() needs a non-negative integer, but got {n!r}")
    _checks.check_size(n, "createShuffledIndices", "n", np.uint32)
    indices = np.arange(int(n), dtype=np.uint32)
    shuffle(indices)
    return indices


createShuffledIndices = create_shuffled_indices
nextFrame = next_frame
