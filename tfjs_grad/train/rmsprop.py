"""`tf.train.rmsprop`, exactly as tfjs 4.22 computes it.

    ms' = rho*ms + (1-rho)*g^2
    plain:    mom' = mu*mom + lr*g / sqrt(ms' + eps)
    centered: mg' = rho*mg + (1-rho)*g;  mom' = mu*mom + lr*g / sqrt(ms' - (mg'^2 + eps))
    w <- w - mom'

lr sits inside the momentum accumulator; centered RMSProp *subtracts* eps (NaN where
ms' - mg'^2 < eps), a tfjs quirk kept for parity.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from . import _schedule
from ._optimizer import Optimizer


class RMSPropState(NamedTuple):
    ms: Any
    mom: Any
    mg: Any  # None unless centered
    count: Any


def tfjs_rmsprop(
    learning_rate: _schedule.LearningRate,
    decay: float = 0.9,
    momentum: float = 0.0,
    epsilon: float = 1e-7,
    centered: bool = False,
) -> optax.GradientTransformation:
    """tfjs's RMSProp update."""

    def init_fn(params: Any) -> RMSPropState:
        zeros = lambda: jax.tree.map(jnp.zeros_like, params)  # noqa: E731 (distinct buffers)
        return RMSPropState(zeros(), zeros(), zeros() if centered else None, _schedule.zero_count())

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        lr = _schedule.at(learning_rate, state.count)
        ms = jax.tree.map(lambda s, g: s * decay + jnp.square(g) * (1 - decay), state.ms, updates)
        if centered:
            mg = jax.tree.map(lambda a, g: a * decay + g * (1 - decay), state.mg, updates)
            denominator = jax.tree.map(lambda s, a: jnp.sqrt(s - (jnp.square(a) + epsilon)), ms, mg)
        else:
            mg = None
            denominator = jax.tree.map(lambda s: jnp.sqrt(s + epsilon), ms)
        mom = jax.tree.map(
            lambda m, g, d: m * momentum + (g * lr) / d, state.mom, updates, denominator
        )
        return jax.tree.map(jnp.negative, mom), RMSPropState(ms, mom, mg, state.count + 1)

    return optax.GradientTransformation(init_fn, update_fn)


class RMSPropOptimizer(Optimizer):
    """RMSProp as tfjs computes it (`tf.train.rmsprop`)."""

    class_name = "RMSProp"
    _config_keys = ("learningRate", "decay", "momentum", "epsilon", "centered")

    def __init__(
        self,
        learning_rate: _schedule.LearningRate,
        decay: float = 0.9,
        momentum: float = 0.0,
        epsilon: float | None = None,
        centered: bool = False,
    ):
        if learning_rate is None:
            raise ValueError("learningRate for RMSPropOptimizer must be defined.")
        self._learningRate = learning_rate
        self._decay = 0.9 if decay is None else decay
        self._momentum = 0.0 if momentum is None else momentum
        self._epsilon = 1e-7 if epsilon is None else epsilon
        self._centered = bool(centered)
        super().__init__(
            tfjs_rmsprop(learning_rate, self._decay, self._momentum, self._epsilon, self._centered)
        )

    def _slot_fields(self) -> tuple[tuple[str, str], ...]:
        plain = (("ms", "rms"), ("mom", "momentum"))
        return (*plain, ("mg", "mg")) if self._centered else plain


def rmsprop(
    learning_rate: _schedule.LearningRate,
    decay: float = 0.9,
    momentum: float = 0.0,
    epsilon: float | None = None,
    centered: bool = False,
) -> RMSPropOptimizer:
    """`tf.train.rmsprop(learningRate, decay=0.9, momentum=0, epsilon=1e-7, centered=false)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_rmsprop_w")
    >>> tf.train.rmsprop(0.1).apply_gradients({"doc_rmsprop_w": tf.tensor1d([0.5, -1])})
    >>> [round(x, 6) for x in w.value.tolist()]
    [0.683773, 2.316228]
    >>> w.dispose()
    """
    return RMSPropOptimizer(learning_rate, decay, momentum, epsilon, centered)
