"""`tf.train.sgd`: w <- c*g + w, with c = -lr."""

from __future__ import annotations

from typing import Any

import jax
import optax

from . import _hyperparams
from ._optimizer import TfjsOptimizer


def _tfjs_sgd(learning_rate: Any) -> optax.GradientTransformation:
    def init_fn(params: Any) -> optax.EmptyState:
        return optax.EmptyState()

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        c = -learning_rate
        return jax.tree.map(lambda g: c * g, updates), state

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_sgd(learning_rate: _hyperparams.LearningRate) -> optax.GradientTransformation:
    """tfjs's SGD update as an optax transformation (the rate in `state.hyperparams`)."""
    return _hyperparams.with_learning_rate_in_state(_tfjs_sgd, learning_rate)


class SGDOptimizer(TfjsOptimizer):
    """Plain gradient descent (`tf.train.sgd`)."""

    class_name = "SGD"
    _config_keys = ("learningRate",)
    _slots = ()

    def __init__(self, learning_rate: _hyperparams.LearningRate):
        self._learningRate = _hyperparams.learning_rate(
            learning_rate, "sgd", required_by="SGDOptimizer"
        )
        super().__init__(tfjs_sgd(self._learningRate))


def sgd(learning_rate: _hyperparams.LearningRate) -> SGDOptimizer:
    """`tf.train.sgd(learningRate)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_sgd_w")
    >>> tf.train.sgd(0.1).apply_gradients({"doc_sgd_w": tf.tensor1d([0.5, -1])})
    >>> w.value.tolist()
    [0.949999988079071, 2.0999999046325684]
    >>> w.dispose()
    """
    return SGDOptimizer(learning_rate)
