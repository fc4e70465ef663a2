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

from . import _hyperparams
from ._optimizer import TfjsOptimizer, running_product


class AdamaxState(NamedTuple):
    m: Any
    u: Any
    iteration: Any
    acc_beta1: Any


def _tfjs_adamax(
    learning_rate: Any, beta1: float, beta2: float, epsilon: float, decay: float
) -> optax.GradientTransformation:
    def init_fn(params: Any) -> AdamaxState:
        zeros = lambda: jax.tree.map(jnp.zeros_like, params)  # noqa: E731 (distinct buffers)
        return AdamaxState(zeros(), zeros(), jnp.float32(0), jnp.float32(beta1))

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        lr = jnp.float32(-learning_rate) / (state.iteration * decay + 1)
        step = lr / (1 - state.acc_beta1)
        m = jax.tree.map(lambda m, g: m * beta1 + g * (1 - beta1), state.m, updates)
        u = jax.tree.map(lambda u, g: jnp.maximum(u * beta2, jnp.abs(g)), state.u, updates)
        out = jax.tree.map(lambda m, u: step * (m / (u + epsilon)), m, u)
        return out, AdamaxState(m, u, state.iteration + 1, state.acc_beta1 * beta1)

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_adamax(
    learning_rate: _hyperparams.LearningRate = 0.002,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float = 1e-7,
    decay: float = 0.0,
) -> optax.GradientTransformation:
    """tfjs's Adamax update."""
    return _hyperparams.with_learning_rate_in_state(
        _tfjs_adamax, learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon, decay=decay
    )


class AdamaxOptimizer(TfjsOptimizer):
    """Adamax as tfjs computes it (`tf.train.adamax`)."""

    class_name = "Adamax"
    _config_keys = ("learningRate", "beta1", "beta2", "epsilon", "decay")
    _slots = (("m", "m"), ("u", "v"))

    def __init__(
        self,
        learning_rate: _hyperparams.LearningRate = 0.002,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float | None = None,
        decay: float = 0.0,
    ):
        fn = "adamax"
        self._learningRate = _hyperparams.learning_rate(learning_rate, fn, 0.002)
        self._beta1 = _hyperparams.number(beta1, "beta1", fn, 0.9)
        self._beta2 = _hyperparams.number(beta2, "beta2", fn, 0.999)
        self._epsilon = _hyperparams.number(epsilon, "epsilon", fn, 1e-7)
        self._decay = _hyperparams.number(decay, "decay", fn, 0.0)
        super().__init__(
            tfjs_adamax(self._learningRate, self._beta1, self._beta2, self._epsilon, self._decay)
        )

    def _after_set_weights(self, iterations: int) -> None:
        # The decay counter and the float32 running product of beta1, as `iterations`
        # steps leave them (tfjs itself cannot save or load Adamax's weights).
        super()._after_set_weights(iterations)
        self._write_shared("iteration", float(iterations))
        self._write_shared("acc_beta1", running_product(self._beta1, iterations))


def adamax(
    learning_rate: _hyperparams.LearningRate = 0.002,
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
