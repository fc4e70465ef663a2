"""einsum: tensor contraction by an equation, tfjs's subset of numpy's notation."""

from __future__ import annotations

import re
from collections.abc import Sequence

import jax
import jax.numpy as jnp

from .._tensor import Tensor
from .._tensors import LIST, ArrayLike, convert, op, upcast

__all__ = ["einsum"]


def _check_equation(equation: str, count: int) -> str:
    """tfjs's decodeEinsumEquation checks, with its messages; the equation without spaces."""
    equation = re.sub(r"\s", "", equation)
    arrows = equation.count("->")
    if arrows < 1:
        raise ValueError("Equations without an arrow are not supported.")
    if arrows > 1:
        raise ValueError('Equation must contain exactly one arrow ("->").')
    inputs, output = equation.split("->")
    if "..." in inputs:
        raise ValueError('The ellipsis notation ("...") is not supported yet.')
    terms = inputs.split(",")
    if count != len(terms):
        raise ValueError(f"Expected {len(terms)} input tensors, received {count}")
    if len(terms) > 2:
        raise ValueError("Support for more than 2 input tensors is not implemented yet.")
    for label in output:
        if not any(label in term for term in terms):
            raise ValueError(
                f"Output subscripts contain the label {label} not present in the input subscripts."
            )
    for term in terms:
        if len(set(term)) != len(term):
            raise ValueError(
                f"Found duplicate axes in input component {term}. Support for duplicate axes "
                "in input is not implemented yet."
            )
    return equation


@op("einsum", tensors=LIST)
def _einsum(equation: str, tensors: Sequence[ArrayLike]) -> jax.Array:
    arrays = [convert(t, argument=f"tensors{i}", fn="einsum") for i, t in enumerate(tensors)]
    equation = _check_equation(equation, len(arrays))
    if len(arrays) > 1:
        dtype = upcast(arrays, list(tensors))
        arrays = [a.astype(dtype) for a in arrays]
    return jnp.einsum(equation, *arrays)


def einsum(equation: str, *tensors: ArrayLike) -> Tensor:
    """The contraction `equation` describes (numpy's notation, with '->'; at most two
    tensors, no repeated label within one tensor, no '...'), like `tf.einsum`. The gradient is
    the true one (tfjs has none).

    >>> import tfjs_grad as tf
    >>> tf.einsum("ij,jk->ik", [[1, 2]], [[3], [4]]).tolist()
    [[11.0]]
    >>> tf.einsum("i,i->", [1, 2], [3, 4]).tolist()
    11.0
    """
    return _einsum(equation, list(tensors))
