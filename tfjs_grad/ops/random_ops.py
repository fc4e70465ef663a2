"""Random ops of OPS2.md: rand, randomGamma, randomStandardNormal, randomUniformInt, dropout.

A `seed` (int) makes a draw reproducible; without one every call draws new numbers (see
`_rng.next_key`). The numbers are JAX's: only shape, dtype, bounds and the law match tfjs.
`rand` with a deterministic function and `dropout` with rate 0 give exact values.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _rng
from .._tensors import NUMERIC, ArrayLike, Shape, inside, op
from . import _checks, _js
from .creation import random_normal, random_uniform

__all__ = [
    "dropout",
    "rand",
    "random_gamma",
    "random_standard_normal",
    "random_uniform_int",
    "randomGamma",
    "randomStandardNormal",
    "randomUniformInt",
]


@op("rand")
def rand(shape: Shape, rand_function: Callable[[], float], dtype: Any = None) -> jax.Array:
    """A tensor of `rand_function()` values, called once per element in row-major order,
    like `tf.rand`. dtype 'float32' (default), 'int32' (truncated toward zero) or 'bool'.

    >>> import tfjs_grad as tf
    >>> count = iter(range(100))
    >>> tf.rand([2, 2], lambda: next(count)).tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    shape = _checks.shape_arg(shape)
    if dtype not in (None, "float32", "int32", "bool"):
        raise ValueError(f"Unknown data type {dtype}")
    size = int(np.prod(shape, dtype=np.int64))
    values = np.array([float(rand_function()) for _ in range(size)], dtype=np.float64)
    if dtype == "int32":
        host = np.trunc(values).astype(np.int32)  # an Int32Array truncates
    elif dtype == "bool":
        host = np.trunc(values) != 0  # a Uint8Array truncates, then nonzero is true
    else:
        host = values.astype(np.float32)
    return jnp.asarray(host.reshape(shape))


@op("randomGamma")
def random_gamma(
    shape: Shape,
    alpha: float,
    beta: float = 1,
    dtype: Any = "float32",
    seed: int | None = None,
) -> jax.Array:
    """Gamma-distributed values with shape alpha and **scale** beta, like `tf.randomGamma`.

    The mean is alpha * beta and the variance alpha * beta^2: tfjs 4.22 uses beta as a scale
    although its docs call it an inverse scale; this follows tfjs. 'int32' rounds each draw
    (JS `Math.round`).

    >>> import tfjs_grad as tf
    >>> x = tf.random_gamma([10000], 2, 0.5, seed=0)
    >>> round(float(x.mean()), 1)
    1.0
    """
    shape = _checks.shape_arg(shape)
    if dtype not in ("float32", "int32"):
        raise ValueError(f"Unsupported data type {dtype}")
    unit = jax.random.gamma(_rng.next_key(seed), jnp.float32(alpha), shape, jnp.float32)
    draw = unit * jnp.float32(beta)
    if dtype == "float32":
        return draw
    return jnp.floor(draw + 0.5).astype(jnp.int32)


@op("randomStandardNormal")
def random_standard_normal(shape: Shape, dtype: Any = None, seed: int | None = None) -> jax.Array:
    """Standard normal values (mean 0, stddev 1), like `tf.randomStandardNormal`.

    'int32' rounds each draw (as `randomNormal`); 'bool' raises "Unsupported data type bool".

    >>> import tfjs_grad as tf
    >>> tf.random_standard_normal([2, 3], seed=1).shape
    (2, 3)
    """
    if dtype == "bool":
        raise ValueError("Unsupported data type bool")
    return inside(random_normal)(shape, 0, 1, dtype, seed)


@op("randomUniformInt")
def random_uniform_int(
    shape: Shape, minval: float, maxval: float, seed: int | None = None
) -> jax.Array:
    """int32 values in [minval, maxval), like `tf.randomUniformInt` (seed is the 4th argument).

    As tfjs, a float draw in [minval, maxval) truncated toward zero: uniform for
    minval >= 0; with a negative minval, minval itself never occurs and 0 twice as often.

    >>> import tfjs_grad as tf
    >>> x = tf.random_uniform_int([1000], 2, 5, seed=0)
    >>> sorted(set(x.tolist()))
    [2, 3, 4]
    """
    return inside(random_uniform)(shape, minval, maxval, "int32", seed)


def _noise_shape(x: jax.Array, noise_shape: Sequence[int | None] | None) -> tuple[int, ...]:
    if noise_shape is None:
        return tuple(x.shape)
    dims = list(noise_shape)
    if len(dims) == x.ndim:  # tfjs fills null dims from x's shape
        dims = [x.shape[i] if d is None else d for i, d in enumerate(dims)]
    return _checks.shape_arg(dims)


@op("dropout", x=NUMERIC)
def dropout(
    x: ArrayLike,
    rate: float,
    noise_shape: Sequence[int | None] | None = None,
    seed: int | None = None,
) -> jax.Array:
    """Zero each element with probability rate and scale the rest by 1 / (1 - rate), like
    `tf.dropout`. noise_shape (broadcast against x) shares one draw along its size-1 dims;
    rate 0 returns x unchanged.

    >>> import tfjs_grad as tf
    >>> y = tf.dropout(tf.ones([1000]), 0.25, None, 0)
    >>> sorted(set(round(v, 4) for v in y.tolist()))
    [0.0, 1.3333]
    """
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise ValueError(
            "x has to be a floating point tensor since it's going to be scaled, but got a "
            f"{x.dtype} tensor instead."
        )
    if not 0 <= rate < 1:
        raise ValueError(f"rate must be a float in the range [0, 1), but got {_js.number(rate)}.")
    if rate == 0:
        return jnp.array(x, copy=True)
    keep = 1.0 - rate
    shape = _noise_shape(x, noise_shape)
    draw = jax.random.uniform(_rng.next_key(seed), shape, jnp.float32)
    mask = (jnp.floor(draw + keep) / keep).astype(x.dtype)
    return _checks.elementwise(jnp.multiply, x, mask)


randomGamma = random_gamma
randomStandardNormal = random_standard_normal
randomUniformInt = random_uniform_int
