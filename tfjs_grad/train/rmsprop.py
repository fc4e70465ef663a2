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

from . import _hyperparams
from ._optimizer import TfjsOptimizer


class RMSPropState(NamedTuple):
    ms: Any
    mom: Any
    mg: Any  # None unless centered


def _tfjs_rmsprop(
    learning_rate: Any, decay: float, momentum: float, epsilon: float, centered: bool
) -> optax.GradientTransformation:
    def init_fn(params: Any) -> RMSPropState:
        zeros = lambda: jax.tree.map(jnp.zeros_like, params)  # noqa: E731 (distinct buffers)
        return RMSPropState(zeros(), zeros(), zeros() if centered else None)

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        lr = learning_rate
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
        return jax.tree.map(jnp.negative, mom), RMSPropState(ms, mom, mg)

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_rmsprop(
    learning_rate: _hyperparams.LearningRate,
    decay: float = 0.9,
    momentum: float = 0.0,
    epsilon: float = 1e-7,
    centered: bool = False,
) -> optax.GradientTransformation:
    """tfjs's RMSProp update."""
    return _hyperparams.with_learning_rate_in_state(
        _tfjs_rmsprop,
        learning_rate,
        decay=decay,
        momentum=momentum,
        epsilon=epsilon,
        centered=centered,
    )


class RMSPropOptimizer(TfjsOptimizer):
    """RMSProp as tfjs computes it (`tf.train.rmsprop`)."""

    class_name = "RMSProp"
    _config_keys = ("learningRate", "decay", "momentum", "epsilon", "centered")

    def __init__(
        self,
        learning_rate: _hyperparams.LearningRate,
        decay: float = 0.9,
        momentum: float = 0.0,
        epsilon: float | None = None,
        centered: bool = False,
    ):
        fn = "rmsprop"
        self._learningRate = _hyperparams.learning_rate(
            learning_rate, fn, required_by="RMSPropOptimizer"
        )
        self._decay = _hyperparams.number(decay, "decay", fn, 0.9)
        self._momentum = _hyperparams.number(momentum, "momentum", fn, 0.0)
        self._epsilon = _hyperparams.number(epsilon, "epsilon", fn, 1e-7)
        self._centered = _hyperparams.flag(centered, False)
        super().__init__(
            tfjs_rmsprop(
                self._learningRate, self._decay, self._momentum, self._epsilon, self._centered
            )
        )

    def _slot_fields(self) -> tuple[tuple[str, str], ...]:
        plain = (("ms", "rms"), ("mom", "momentum"))
        return (*plain, ("mg", "mg")) if self._centered else plain


def rmsprop(
    learning_rate: _hyperparams.LearningRate,
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
