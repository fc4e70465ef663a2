"""Tensor helpers for porting tfjs code, and the one conversion every entry point uses."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ._scope import track

ArrayLike = Any
Shape = Sequence[int]

_DTYPES = {
    "float32": jnp.float32,
    "int32": jnp.int32,
    "bool": jnp.bool_,
    "complex64": jnp.complex64,
}


def to_dtype(dtype: Any, *, argument: str = "dtype") -> Any:
    """Map a tfjs dtype string (or any numpy/JAX dtype) to a numpy dtype."""
    if dtype is None:
        return None
    if isinstance(dtype, str):
        if dtype not in _DTYPES:
            raise ValueError(
                f"Argument '{argument}' must be one of {sorted(_DTYPES)}, but got '{dtype}'"
            )
        return np.dtype(_DTYPES[dtype])
    return np.dtype(dtype)


def dtype_name(dtype: Any) -> str:
    """tfjs's name for a dtype ('float32', 'int32', 'bool'); numpy's name otherwise."""
    name = np.dtype(dtype).name
    return name


def js_shape(shape: Sequence[int]) -> str:
    """A shape as tfjs prints it in messages: [2, 3] -> "2,3", [] -> ""."""
    return ",".join(str(d) for d in shape)


def _is_python_numeric(values: Any) -> bool:
    if isinstance(values, bool):
        return False
    if isinstance(values, (int, float)):
        return True
    if isinstance(values, (list, tuple)):
        return all(_is_python_numeric(v) for v in values)
    return False


def convert(values: ArrayLike, *, argument: str = "x", fn: str = "tensor", dtype: Any = None):
    """Turn an array-like into an array, the way tfjs's `convertToTensor` does.

    Python numbers and nested lists of numbers become float32 (as JS numbers do);
    arrays keep their dtype; JAX tracers pass through untouched. Strings and objects
    that are not array-like raise TypeError naming the argument and function.
    """
    from .variables import Variable  # circular: variables imports this module

    if isinstance(values, Variable):
        values = values.read()
    if isinstance(values, (str, bytes)) or values is None:
        got = "null" if values is None else type(values).__name__
        raise TypeError(
            f"Argument '{argument}' passed to '{fn}' must be a Tensor or TensorLike, "
            f"but got '{got}'"
        )
    target = to_dtype(dtype)
    if isinstance(values, jax.Array):
        return values if target is None or values.dtype == target else values.astype(target)
    if _is_python_numeric(values):
        return jnp.asarray(values, dtype=target or jnp.float32)
    try:
        array = jnp.asarray(values)
    except (TypeError, ValueError) as error:
        raise TypeError(
            f"Argument '{argument}' passed to '{fn}' must be a Tensor or TensorLike, "
            f"but got '{type(values).__name__}'"
        ) from error
    if array.dtype == jnp.float64:
        array = array.astype(jnp.float32)
    return array if target is None else array.astype(target)


def tensor(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """Create an array from values, like `tf.tensor`.

    >>> import tfjs_grad as tf
    >>> tf.tensor([1, 2, 3, 4], [2, 2]).shape
    (2, 2)
    """
    array = convert(values, argument="values", fn="tensor", dtype=dtype)
    if shape is not None:
        shape = tuple(shape)
        if array.ndim == 0 and int(np.prod(shape)) != 1:
            array = jnp.full(shape, array)
        elif int(np.prod(shape)) != array.size:
            raise ValueError(
                f"Based on the provided shape, [{','.join(map(str, shape))}], the tensor "
                f"should have {int(np.prod(shape))} values but has {array.size}"
            )
        array = array.reshape(shape)
    return track(array, (values,))


def scalar(value: ArrayLike, dtype: Any = None) -> jax.Array:
    """A rank-0 array, like `tf.scalar`.

    >>> import tfjs_grad as tf
    >>> float(tf.scalar(3.5))
    3.5
    """
    array = convert(value, argument="value", fn="scalar", dtype=dtype)
    if array.ndim != 0:
        raise ValueError("scalar() requires a single number as its value")
    return track(array, (value,))


def _ranked(values: ArrayLike, rank: int, fn: str, shape: Shape | None, dtype: Any):
    array = tensor(values, shape, dtype)
    if array.ndim != rank:
        raise ValueError(f"{fn}() requires values of rank {rank}, but got rank {array.ndim}")
    return array


def tensor1d(values: ArrayLike, dtype: Any = None) -> jax.Array:
    """A rank-1 array, like `tf.tensor1d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor1d([1, 2, 3]).tolist()
    [1.0, 2.0, 3.0]
    """
    return _ranked(values, 1, "tensor1d", None, dtype)


def tensor2d(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """A rank-2 array, like `tf.tensor2d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor2d([[1, 2], [3, 4]]).shape
    (2, 2)
    """
    return _ranked(values, 2, "tensor2d", shape, dtype)


def zeros(shape: Shape, dtype: Any = "float32") -> jax.Array:
    """An array of zeros, like `tf.zeros`.

    >>> import tfjs_grad as tf
    >>> tf.zeros([2]).tolist()
    [0.0, 0.0]
    """
    return track(jnp.zeros(tuple(shape), to_dtype(dtype)))


def ones(shape: Shape, dtype: Any = "float32") -> jax.Array:
    """An array of ones, like `tf.ones`.

    >>> import tfjs_grad as tf
    >>> tf.ones([2]).tolist()
    [1.0, 1.0]
    """
    return track(jnp.ones(tuple(shape), to_dtype(dtype)))


_seed_counter = iter(range(2**31))


def random_normal(
    shape: Shape,
    mean: float = 0.0,
    stddev: float = 1.0,
    dtype: Any = "float32",
    seed: int | None = None,
) -> jax.Array:
    """Normally distributed values, like `tf.randomNormal`.

    Without a seed each call draws fresh numbers (a process-wide counter feeds
    `jax.random.key`); with a seed the result is reproducible.

    >>> import tfjs_grad as tf
    >>> bool((tf.random_normal([2, 2], seed=1) == tf.random_normal([2, 2], seed=1)).all())
    True
    """
    dtype = to_dtype(dtype)
    if dtype not in (np.dtype(np.float32),):
        raise ValueError(f"Unsupported data type {dtype_name(dtype)}")
    key = jax.random.key(next(_seed_counter) if seed is None else seed)
    return track(mean + stddev * jax.random.normal(key, tuple(shape), dtype))


randomNormal = random_normal
