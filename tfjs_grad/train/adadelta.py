"""`tf.train.adadelta`, exactly as tfjs 4.22 computes it.

    A_g' = rho*A_g + (1-rho)*g^2
    D    = sqrt(A_x + eps) / sqrt(A_g + eps) * g      # the OLD A_g
    A_x' = rho*A_x + (1-rho)*D^2
    w   <- D*(-lr) + w

From equal zero accumulators A_x == A_g forever, so D == g: tfjs's Adadelta is plain SGD
with `lr` (a quirk kept for parity; `optax.adadelta` gives the textbook algorithm).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from . import _hyperparams
from ._optimizer import TfjsOptimizer


class AdadeltaState(NamedTuple):
    accumulated_grads: Any
    accumulated_updates: Any


def _tfjs_adadelta(learning_rate: Any, rho: float, epsilon: float) -> optax.GradientTransformation:
    def init_fn(params: Any) -> AdadeltaState:
        zeros = lambda: jax.tree.map(jnp.zeros_like, params)  # noqa: E731 (distinct buffers)
        return AdadeltaState(zeros(), zeros())

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        a_g, a_x = state.accumulated_grads, state.accumulated_updates
        new_a_g = jax.tree.map(lambda a, g: a * rho + jnp.square(g) * (1 - rho), a_g, updates)
        delta = jax.tree.map(
            lambda x, a, g: jnp.sqrt(x + epsilon) / jnp.sqrt(a + epsilon) * g, a_x, a_g, updates
        )
        new_a_x = jax.tree.map(lambda x, d: x * rho + jnp.square(d) * (1 - rho), a_x, delta)
        out = jax.tree.map(lambda d: d * -learning_rate, delta)
        return out, AdadeltaState(new_a_g, new_a_x)

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_adadelta(
    learning_rate: _hyperparams.LearningRate = 0.001, rho: float = 0.95, epsilon: float = 1e-7
) -> optax.GradientTransformation:
    """tfjs's Adadelta update."""
    return _hyperparams.with_learning_rate_in_state(
        _tfjs_adadelta, learning_rate, rho=rho, epsilon=epsilon
    )


class AdadeltaOptimizer(TfjsOptimizer):
    """Adadelta as tfjs computes it (`tf.train.adadelta`)."""

    class_name = "Adadelta"
    _config_keys = ("learningRate", "rho", "epsilon")
    _slots = (("accumulated_grads", "accum_grad"), ("accumulated_updates", "accum_var"))

    def __init__(
        self,
        learning_rate: _hyperparams.LearningRate = 0.001,
        rho: float = 0.95,
        epsilon: float | None = None,
    ):
        fn = "adadelta"
        self._learningRate = _hyperparams.learning_rate(learning_rate, fn, 0.001)
        self._rho = _hyperparams.number(rho, "rho", fn, 0.95)
        self._epsilon = _hyperparams.number(epsilon, "epsilon", fn, 1e-7)
        super().__init__(tfjs_adadelta(self._learningRate, self._rho, self._epsilon))


def adadelta(
    learning_rate: _hyperparams.LearningRate = 0.001,
    rho: float = 0.95,
    epsilon: float | None = None,
) -> AdadeltaOptimizer:
    """`tf.train.adadelta(learningRate=0.001, rho=0.95, epsilon=1e-7)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_adadelta_w")
    >>> tf.train.adadelta().apply_gradients({"doc_adadelta_w": tf.tensor1d([0.5, -1])})
    >>> [round(x, 6) for x in w.value.tolist()]
    [0.9995, 2.001]
    >>> w.dispose()
    """
    return AdadeltaOptimizer(learning_rate, rho, epsilon)
