"""Linear algebra: matMul (batched, with transposes), dot, outerProduct."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._tensors import PROMOTED, ArrayLike, op
from . import _checks, _js

__all__ = ["dot", "mat_mul", "matMul", "outer_product", "outerProduct"]


def _js_bool(value: bool) -> str:
    return "true" if value else "false"


@op("matMul", a=PROMOTED, b=PROMOTED)
def mat_mul(
    a: ArrayLike, b: ArrayLike, transpose_a: bool = False, transpose_b: bool = False
) -> jax.Array:
    """The matrix product of the last two axes, batch axes broadcast, like `tf.matMul`.

    >>> import tfjs_grad as tf
    >>> tf.mat_mul([[1, 2]], [[3], [4]])
    Tensor([[11.]], shape=(1, 1), dtype=float32)
    >>> tf.mat_mul(tf.ones([5, 2, 3]), tf.ones([3, 4])).shape
    (5, 2, 4)
    """
    if a.ndim < 2 or b.ndim < 2:
        raise ValueError(
            "Error in matMul: inputs must be rank 2 or more (a batch of matrices), but got "
            f"ranks {a.ndim} and {b.ndim}."
        )
    inner_a = a.shape[-2] if transpose_a else a.shape[-1]
    inner_b = b.shape[-1] if transpose_b else b.shape[-2]
    if inner_a != inner_b:
        raise ValueError(
            f"Error in matMul: inner shapes ({inner_a}) and ({inner_b}) of Tensors with shapes "
            f"{_js.array(a.shape)} and {_js.array(b.shape)} and "
            f"transposeA={_js_bool(transpose_a)} and transposeB={_js_bool(transpose_b)} "
            "must match."
        )
    _checks.broadcast(a.shape[:-2], b.shape[:-2])
    if transpose_a:
        a = jnp.swapaxes(a, -1, -2)
    if transpose_b:
        b = jnp.swapaxes(b, -1, -2)
    return jnp.matmul(a, b)


@op("dot", t1=PROMOTED, t2=PROMOTED)
def dot(t1: ArrayLike, t2: ArrayLike) -> jax.Array:
    """The dot product of vectors and/or matrices (rank 1 or 2), like `tf.dot`.

    >>> import tfjs_grad as tf
    >>> tf.dot([1, 2], [3, 4])
    Tensor(11., shape=(), dtype=float32)
    """
    if t1.ndim not in (1, 2) or t2.ndim not in (1, 2):
        raise ValueError(
            f"Error in dot: inputs must all be rank 1 or 2, but got ranks {t1.ndim} and {t2.ndim}."
        )
    inner_1 = t1.size if t1.ndim == 1 else t1.shape[1]
    inner_2 = t2.size if t2.ndim == 1 else t2.shape[0]
    if inner_1 != inner_2:
        raise ValueError(
            f"Error in dot: inner dimensions of inputs must match, but got {inner_1} and {inner_2}."
        )
    return jnp.dot(t1, t2)


@op("outerProduct", v1=PROMOTED, v2=PROMOTED)
def outer_product(v1: ArrayLike, v2: ArrayLike) -> jax.Array:
    """The outer product of two vectors, like `tf.outerProduct`.

    >>> import tfjs_grad as tf
    >>> tf.outer_product([1, 2], [3, 4])
    Tensor([[3., 4.],
            [6., 8.]], shape=(2, 2), dtype=float32)
    """
    if v1.ndim != 1 or v2.ndim != 1:
        raise ValueError(
            f"Error in outerProduct: inputs must be rank 1, but got ranks {v1.ndim} and {v2.ndim}."
        )
    return jnp.outer(v1, v2)


matMul = mat_mul
outerProduct = outer_product
