"""Host values of the arguments that decide an op's result shape (sparse and ragged ops).

These ops are eager only in what fixes their shape: index, split and shape arguments must be
concrete, while their value arguments may be traced, so `tf.grad` and `jax.grad` still
differentiate with respect to the values (the indices held fixed).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np
from jax.core import Tracer

from .. import _store
from .._tensors import INT, EagerOnlyError, convert
from ..variables import Variable


def host(tfjs_name: str, argument: str, value: Any, dtype: Any = INT) -> np.ndarray:
    """`value` converted as tfjs converts it (int32 by default), as a numpy array.

    Array-likes are converted on the host even while JAX traces (a Python list closed over
    by a jitted function stays concrete); a traced value raises EagerOnlyError naming the op.

    >>> from tfjs_grad.ops._eager import host
    >>> host("raggedRange", "starts", [1, 2.7]).tolist()
    [1, 2]
    """
    read = getattr(type(value), "__tfjs_value__", None)  # a Tensor or Variable: its value
    # tf.jit's trace reads a Variable's current value, then takes it as the program's
    # input: a shape fixed by it would be wrong once the Variable changes.
    in_program = isinstance(value, Variable) and _store.tracker() is not None
    if read is not None:
        value = read(value)
    if in_program or isinstance(value, Tracer):
        qualified = f"sparse.{tfjs_name}" if tfjs_name.startswith("sparse") else tfjs_name
        raise EagerOnlyError(
            f"tf.{qualified} runs eagerly only: the shape of its result depends on the values "
            f"of '{argument}', which are not known while JAX traces (inside tf.jit, jax.jit, "
            "jax.vmap, ...). Call it outside the compiled function, or close over a concrete "
            f"'{argument}' (its value arguments may be traced)."
        )
    with jax.ensure_compile_time_eval():
        return np.asarray(convert(value, argument=argument, fn=tfjs_name, dtype=dtype))
