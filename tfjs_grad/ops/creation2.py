"""Creation ops of OPS2.md: eye, tensor5d/6d, complex, real, imag, clone, diag, meshgrid,
cosineWindow, enclosingPowerOfTwo.

`complex(re, im)` is how a complex64 tensor is made (`tf.tensor` takes no complex values in
tfjs); `real`/`imag` give float32. `diag`'s gradient is the true derivative (tfjs has none).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._tensors import NUMERIC, ArrayLike, Shape, op, to_dtype
from . import _js
from .creation import _make, _values

__all__ = [
    "clone",
    "complex_",
    "cosine_window",
    "cosineWindow",
    "diag",
    "enclosing_power_of_two",
    "enclosingPowerOfTwo",
    "eye",
    "imag",
    "meshgrid",
    "real",
    "tensor5d",
    "tensor6d",
]


@op("eye")
def eye(
    num_rows: int,
    num_columns: int | None = None,
    batch_shape: Sequence[int] | None = None,
    dtype: Any = "float32",
) -> jax.Array:
    """An identity matrix `[num_rows, num_columns]` (square by default), like `tf.eye`.

    batch_shape (1 to 3 dims) prepends dims: copies of the matrix.

    >>> import tfjs_grad as tf
    >>> tf.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> tf.eye(2, 3, [2], "int32").shape
    (2, 2, 3)
    """
    columns = num_rows if num_columns is None else num_columns
    matrix = jnp.eye(int(num_rows), int(columns), dtype=to_dtype(dtype))
    if batch_shape is None:
        return matrix
    batch = tuple(int(d) for d in batch_shape)
    if not 1 <= len(batch) <= 3:
        raise ValueError(
            f"eye() currently supports only 1D and 2D batchShapes, but received {len(batch)}D."
        )
    return jnp.broadcast_to(matrix, batch + matrix.shape)


_RANK_WORDS = {5: "five", 6: "six"}


def _ranked(values: ArrayLike, shape: Shape | None, dtype: Any, rank: int) -> jax.Array:
    fn = f"tensor{rank}d"
    if shape is not None and len(shape) != rank:
        raise ValueError(f"{fn}() requires shape to have {_RANK_WORDS[rank]} numbers")
    array = _values(values, fn)
    if array.ndim not in (rank, 1):
        raise ValueError(f"{fn}() requires values to be number{'[]' * rank} or flat/TypedArray")
    if array.ndim == 1 and shape is None:
        raise ValueError(f"{fn}() requires shape to be provided when `values` are a flat array")
    return _make(array, shape, dtype)


@op("tensor5d")
def tensor5d(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """A rank-5 array from nested lists, or from flat values and a shape, like `tf.tensor5d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor5d([1, 2, 3, 4], [1, 1, 2, 1, 2]).shape
    (1, 1, 2, 1, 2)
    """
    return _ranked(values, shape, dtype, 5)


@op("tensor6d")
def tensor6d(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """A rank-6 array, like `tf.tensor6d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor6d([1, 2], [1, 1, 1, 1, 1, 2], "int32").dtype
    dtype('int32')
    """
    return _ranked(values, shape, dtype, 6)


def _float(x: jax.Array) -> jax.Array:
    return x.astype(jnp.float32) if not jnp.issubdtype(x.dtype, jnp.floating) else x


@op("complex", real=NUMERIC, imag=NUMERIC)
def complex_(real: ArrayLike, imag: ArrayLike) -> jax.Array:
    """A complex64 tensor from its real and imaginary parts (same shape), like `tf.complex`.

    >>> import tfjs_grad as tf
    >>> tf.complex([1, 2], [3, -4]).tolist()
    [(1+3j), (2-4j)]
    """
    if tuple(real.shape) != tuple(imag.shape):
        a, b = _js.array(real.shape), _js.array(imag.shape)
        raise ValueError(
            f"real and imag shapes, {a} and {b}, must match in call to tf.complex(). "
            f"Shapes {a} and {b} must match"
        )
    return jax.lax.complex(_float(real), _float(imag)).astype(jnp.complex64)


@op("real", input=NUMERIC)
def real(input: ArrayLike) -> jax.Array:  # noqa: A002 - tfjs's parameter name
    """The real part of a complex tensor, float32, like `tf.real`.

    >>> import tfjs_grad as tf
    >>> tf.real(tf.complex([1, 2], [3, 4])).tolist()
    [1.0, 2.0]
    """
    return jnp.real(input)


@op("imag", input=NUMERIC)
def imag(input: ArrayLike) -> jax.Array:  # noqa: A002 - tfjs's parameter name
    """The imaginary part of a complex tensor, float32, like `tf.imag`.

    >>> import tfjs_grad as tf
    >>> tf.imag(tf.complex([1, 2], [3, 4])).tolist()
    [3.0, 4.0]
    """
    return jnp.imag(input)


@op("clone", x=NUMERIC)
def clone(x: ArrayLike) -> jax.Array:
    """A new tensor equal to x (same dtype), like `tf.clone`: disposing x leaves it usable.

    >>> import tfjs_grad as tf
    >>> tf.clone(tf.tensor1d([1, 2], "int32")).tolist()
    [1, 2]
    """
    return jnp.array(x, copy=True)


@op("diag", x=NUMERIC)
def diag(x: ArrayLike) -> jax.Array:
    """x's values on the diagonal of a rank-2r tensor (shape `x.shape + x.shape`), like
    `tf.diag`. The gradient is the true derivative (tfjs has none).

    >>> import tfjs_grad as tf
    >>> tf.diag([1, 2]).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    return jnp.diag(x.reshape(-1)).reshape(x.shape + x.shape)


@op("meshgrid", x=NUMERIC, y=NUMERIC)
def meshgrid(
    x: ArrayLike | None = None, y: ArrayLike | None = None, options: dict | None = None
) -> list[jax.Array]:
    """Coordinate grids from two vectors, like `tf.meshgrid`: a list of two tensors.

    options is tfjs's `{indexing}`: `{'indexing': 'xy'}` (the default) gives shape
    `[len(y), len(x)]`, `{'indexing': 'ij'}` gives `[len(x), len(y)]`. Inputs are flattened.

    >>> import tfjs_grad as tf
    >>> X, Y = tf.meshgrid([1, 2, 3], [4, 5])
    >>> X.tolist(), Y.tolist()
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], [[4.0, 4.0, 4.0], [5.0, 5.0, 5.0]])
    """
    indexing = (options or {}).get("indexing", "xy")
    if indexing not in ("xy", "ij"):
        raise TypeError(f"{indexing} is not a valid third argument to meshgrid")
    if x is None:
        return []
    if y is None:
        return [x]
    xs, ys = x.reshape(-1), y.reshape(-1)
    if indexing == "xy":
        shape = (ys.size, xs.size)
        return [jnp.broadcast_to(xs[None, :], shape), jnp.broadcast_to(ys[:, None], shape)]
    shape = (xs.size, ys.size)
    return [jnp.broadcast_to(xs[:, None], shape), jnp.broadcast_to(ys[None, :], shape)]


@op("cosineWindow")
def cosine_window(window_length: int, a: float, b: float) -> jax.Array:
    """a - b cos(2 pi k / d) for k = 0 .. n-1, float32, like `tf.cosineWindow`.

    As in tfjs, d is n for even n (a periodic window) and n - 1 for odd n (symmetric).

    >>> import tfjs_grad as tf
    >>> tf.cosine_window(4, 0.5, 0.5).tolist()
    [0.0, 0.5, 1.0, 0.5]
    """
    n = int(window_length)
    even = 1 - n % 2
    k = np.arange(n, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = a - b * np.cos(2.0 * np.pi * k / (n + even - 1))
    return jnp.asarray(values.astype(np.float32))


@op("enclosingPowerOfTwo")
def enclosing_power_of_two(value: float) -> int:
    """The smallest power of two >= value, a Python int, like `tf.enclosingPowerOfTwo`.

    >>> import tfjs_grad as tf
    >>> tf.enclosing_power_of_two(5), tf.enclosing_power_of_two(16)
    (8, 16)
    """
    return int(math.floor(2 ** math.ceil(math.log(value) / math.log(2.0))))


cosineWindow = cosine_window
enclosingPowerOfTwo = enclosing_power_of_two
