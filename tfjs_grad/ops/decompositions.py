"""`tf.linalg`: bandPart, gramSchmidt and qr.

`qr` is Householder's method with tfjs's choice of signs (each reflection sends the column to
`-sign(r_jj) * norm`, so r's diagonal may be negative), written out column by column in JAX
so that it traces and differentiates (tfjs has no gradient for it).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, overload

import jax
import jax.numpy as jnp

from .._tensor import Tensor
from .._tensors import LIST, NUMERIC, ArrayLike, convert, op

__all__ = ["band_part", "bandPart", "gram_schmidt", "gramSchmidt", "qr"]


def _band_limit(value: Any, size: int, name: str, what: str) -> Any:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if value % 1 != 0:
            raise ValueError(f"bandPart(): {name} must be an integer, got {value}.")
        if value > size:
            raise ValueError(
                f"bandPart(): {name} ({value}) must not be greater than the number of {what} "
                f"({size})."
            )
        return size if value < 0 else int(value)
    limit = convert(value, argument=name, fn="bandPart")
    if limit.dtype != jnp.int32:
        raise ValueError(f"bandPart(): {name}'s dtype must be an int32.")
    return jnp.where(limit < 0, size, jnp.minimum(limit, size))


@op("bandPart", a=NUMERIC)
def band_part(a: ArrayLike, num_lower: Any, num_upper: Any) -> jax.Array:
    """The band of each innermost matrix of a: entries at most `num_lower` below and
    `num_upper` above the diagonal are kept, the rest zeroed (a negative count keeps that
    whole triangle), like `tf.linalg.bandPart`.

    >>> import tfjs_grad as tf
    >>> tf.linalg.band_part(tf.ones([3, 3]), 0, 1).tolist()
    [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [0.0, 0.0, 1.0]]
    """
    if a.ndim < 2:
        raise ValueError(f"bandPart(): Rank must be at least 2, got {a.ndim}.")
    rows, cols = a.shape[-2:]
    lower = _band_limit(num_lower, rows, "numLower", "rows")
    upper = _band_limit(num_upper, cols, "numUpper", "columns")
    offset = jnp.arange(rows)[:, None] - jnp.arange(cols)[None, :]
    keep = (offset <= lower) & (-offset <= upper)
    return jnp.where(keep, a, jnp.zeros((), a.dtype))


@overload
def gram_schmidt(xs: list[ArrayLike] | tuple[ArrayLike, ...]) -> list[Tensor]: ...
@overload
def gram_schmidt(xs: ArrayLike) -> Tensor: ...
@op("gramSchmidt", xs=LIST)
def gram_schmidt(xs: ArrayLike | Sequence[ArrayLike]) -> Any:
    """Orthonormal vectors spanning the rows of a matrix (or a list of vectors), by
    Gram-Schmidt in order, like `tf.linalg.gramSchmidt`. A list (a JS array) gives a list;
    a tensor or numpy matrix gives a matrix.

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> np.asarray(tf.linalg.gram_schmidt(tf.tensor2d([[3, 4], [1, 0]])), float).round(4).tolist()
    [[0.6, 0.8], [0.8, -0.6]]
    >>> [v.tolist() for v in tf.linalg.gram_schmidt([[0, 2]])]
    [[0.0, 1.0]]
    """
    is_matrix = not isinstance(xs, (list, tuple))  # a JS array is a list of vectors
    if is_matrix:
        vectors = list(convert(xs, argument="xs", fn="gramSchmidt"))
    else:
        if len(xs) == 0:
            raise ValueError("Gram-Schmidt process: input must not be null, undefined, or empty")
        vectors = [convert(x, argument="xs", fn="gramSchmidt") for x in xs]
        for v in vectors[1:]:
            if v.shape[0] != vectors[0].shape[0]:
                raise ValueError(
                    "Gram-Schmidt: Non-unique lengths found in the input vectors: "
                    f"({v.shape[0]} vs. {vectors[0].shape[0]})"
                )
    if len(vectors) > vectors[0].shape[0]:
        raise ValueError(
            f"Gram-Schmidt: Number of vectors ({len(vectors)}) exceeds number of dimensions "
            f"({vectors[0].shape[0]})."
        )
    ys: list[jax.Array] = []
    for x in vectors:
        for y in ys:
            x = x - jnp.sum(y * x) * y
        ys.append(x / jnp.linalg.norm(x))
    return jnp.stack(ys) if is_matrix else ys


@functools.partial(jax.jit, static_argnums=1)  # one program: the loop is many small ops
def _qr2d(x: jax.Array, full_matrices: bool) -> list[jax.Array]:
    m, n = x.shape
    q = jnp.eye(m, dtype=x.dtype)
    r = x
    for j in range(min(m, n)):
        column = r[j:, j]
        norm = jnp.linalg.norm(column)
        s = jnp.where(r[j, j] > 0, -1.0, 1.0).astype(x.dtype)
        u1 = r[j, j] - s * norm
        w = (column / u1).at[0].set(1.0)
        tau = -s * u1 / norm
        r = r.at[j:, :].add(-tau * jnp.outer(w, w @ r[j:, :]))
        q = q.at[:, j:].add(-tau * jnp.outer(q[:, j:] @ w, w))
    if not full_matrices and m > n:
        q, r = q[:, :n], r[:n, :]
    return [q, r]


@op("qr", x=NUMERIC)
def qr(x: ArrayLike, full_matrices: bool = False) -> list[jax.Array]:
    """`[q, r]` with `x = q @ r` for each innermost matrix of x: q orthonormal columns, r
    upper triangular, by Householder reflections with tfjs's signs, like `tf.linalg.qr`.
    `full_matrices` False (default) gives the reduced factors of a tall matrix.

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> q, r = tf.linalg.qr([[3, 1], [4, 2]])
    >>> np.asarray(r, float).round(4).tolist()
    [[-5.0, -2.2], [0.0, -0.4]]
    """
    if x.ndim < 2:
        raise ValueError(f"qr() requires input tensor to have a rank >= 2, but got rank {x.ndim}")
    if x.ndim == 2:
        return _qr2d(x, bool(full_matrices))
    batch = x.shape[:-2]
    flat = jnp.reshape(x, (-1, *x.shape[-2:]))
    q, r = jax.vmap(lambda m: _qr2d(m, bool(full_matrices)))(flat)
    return [jnp.reshape(q, (*batch, *q.shape[1:])), jnp.reshape(r, (*batch, *r.shape[1:]))]


bandPart = band_part
gramSchmidt = gram_schmidt
