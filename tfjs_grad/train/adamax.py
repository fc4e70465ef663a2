"""`tf.train.adamax`, exactly as tfjs 4.22 computes it.

lr_t = -lr / (I*decay + 1)                      # I = number of earlier calls
m' = b1*m + (1-b1)*g          u' = max(b2*u, |g|)
w <- (lr_t/(1-P1)) * (m'/(u' + eps)) + w         # eps in the denominator, not in u
after every call: I <- I+1, P1 <- P1*b1
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from . import _schedule
from ._optimizer import Optimizer


class AdamaxState(NamedTuple):
    m: Any
    u: Any
    iteration: Any
    acc_beta1: Any
    count: Any


def tfjs_adamax(
    learning_rate: _schedule.LearningRate = 0.002,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float = 1e-7,
    decay: float = 0.0,
) -> optax.GradientTransformation:
    """tfjs's Adamax update."""

    def init_fn(params: Any) -> AdamaxState:
        zeros = lambda: jax.tree.map(jnp.zeros_like, params)  # noqa: E731 (distinct buffers)
        return AdamaxState(
            zeros(), zeros(), jnp.float32(0), jnp.float32(beta1), _schedule.zero_count()
        )

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        lr = jnp.float32(-_schedule.at(learning_rate, state.count)) / (state.iteration * decay + 1)
        step = lr / (1 - state.acc_beta1)
        m = jax.tree.map(lambda m, g: m * beta1 + g * (1 - beta1), state.m, updates)
        u = jax.tree.map(lambda u, g: jnp.maximum(u * beta2, jnp.abs(g)), state.u, updates)
        out = jax.tree.map(lambda m, u: step * (m / (u + epsilon)), m, u)
        new_state = AdamaxState(m, u, state.iteration + 1, state.acc_beta1 * beta1, state.count + 1)
        return out, new_state

    return optax.GradientTransformation(init_fn, update_fn)


class AdamaxOptimizer(Optimizer):
    """Adamax as tfjs computes it (`tf.train.adamax`)."""

    class_name = "Adamax"
    _config_keys = ("learningRate", "beta1", "beta2", "epsilon", "decay")
    _slots = (("m", "m"), ("u", "v"))

    def __init__(
        self,
        learning_rate: _schedule.LearningRate = 0.002,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float | None = None,
        decay: float = 0.0,
    ):
        self._learningRate = 0.002 if learning_rate is None else learning_rate
        self._beta1 = 0.9 if beta1 is None else beta1
        self._beta2 = 0.999 if beta2 is None else beta2
        self._epsilon = 1e-7 if epsilon is None else epsilon
        self._decay = 0.0 if decay is None else decay
        super().__init__(
            tfjs_adamax(self._learningRate, self._beta1, self._beta2, self._epsilon, self._decay)
        )


def adamax(
    learning_rate: _schedule.LearningRate = 0.002,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float | None = None,
    decay: float = 0.0,
) -> AdamaxOptimizer:
    """`tf.train.adamax(learningRate=0.002, beta1=0.9, beta2=0.999, epsilon=1e-7, decay=0)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_adamax_w")
    >>> tf.train.adamax().apply_gradients({"doc_adamax_w": tf.tensor1d([0.5, -1])})
    >>> [round(x, 6) for x in w.value.tolist()]
    [0.998, 2.002]
    >>> w.dispose()
    """
    return AdamaxOptimizer(learning_rate, beta1, beta2, epsilon, decay)
