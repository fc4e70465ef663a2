"""`tf.train.momentum`: a' = mu*a + g; w <- c*a' + w (Nesterov: w <- c*(g + mu*a') + w)."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import optax

from . import _hyperparams
from ._optimizer import TfjsOptimizer


class MomentumState(NamedTuple):
    accumulation: Any


def _tfjs_momentum(
    learning_rate: Any, momentum: float, use_nesterov: bool
) -> optax.GradientTransformation:
    def init_fn(params: Any) -> MomentumState:
        return MomentumState(jax.tree.map(lambda p: p * 0, params))

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        c = -learning_rate
        acc = jax.tree.map(lambda a, g: a * momentum + g, state.accumulation, updates)
        if use_nesterov:
            out = jax.tree.map(lambda g, a: c * (g + a * momentum), updates, acc)
        else:
            out = jax.tree.map(lambda a: c * a, acc)
        return out, MomentumState(acc)

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_momentum(
    learning_rate: _hyperparams.LearningRate, momentum: float, use_nesterov: bool = False
) -> optax.GradientTransformation:
    """tfjs's momentum update (velocity holds raw gradients; lr applied after)."""
    return _hyperparams.with_learning_rate_in_state(
        _tfjs_momentum, learning_rate, momentum=momentum, use_nesterov=use_nesterov
    )


class MomentumOptimizer(TfjsOptimizer):
    """Momentum SGD (`tf.train.momentum`)."""

    class_name = "Momentum"
    _config_keys = ("learningRate", "momentum", "useNesterov")
    _slots = (("accumulation", "momentum"),)

    def __init__(
        self,
        learning_rate: _hyperparams.LearningRate,
        momentum: float,
        use_nesterov: bool = False,
    ):
        if momentum is None:
            raise ValueError("Argument 'momentum' passed to 'momentum' must be a number")
        self._learningRate = _hyperparams.learning_rate(
            learning_rate, "momentum", required_by="MomentumOptimizer"
        )
        self._momentum = _hyperparams.number(momentum, "momentum", "momentum", None)
        self._useNesterov = _hyperparams.flag(use_nesterov, False)
        super().__init__(tfjs_momentum(self._learningRate, self._momentum, self._useNesterov))


def momentum(
    learning_rate: _hyperparams.LearningRate, momentum: float, use_nesterov: bool = False
) -> MomentumOptimizer:
    """`tf.train.momentum(learningRate, momentum, useNesterov=false)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_momentum_w")
    >>> opt = tf.train.momentum(0.1, 0.9)
    >>> opt.apply_gradients({"doc_momentum_w": tf.tensor1d([0.5, -1])})
    >>> opt.apply_gradients({"doc_momentum_w": tf.tensor1d([2, 0.25])})
    >>> [round(x, 6) for x in w.value.tolist()]
    [0.705, 2.165]
    >>> w.dispose()
    """
    return MomentumOptimizer(learning_rate, momentum, use_nesterov)
