"""`tf.train.sgd`: w <- c*g + w, with c = -lr."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import optax

from . import _schedule
from ._optimizer import Optimizer


class SGDState(NamedTuple):
    count: Any


def tfjs_sgd(learning_rate: _schedule.LearningRate) -> optax.GradientTransformation:
    """tfjs's SGD update as an optax transformation."""

    def init_fn(params: Any) -> SGDState:
        return SGDState(_schedule.zero_count())

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        c = -_schedule.at(learning_rate, state.count)
        return jax.tree.map(lambda g: c * g, updates), SGDState(state.count + 1)

    return optax.GradientTransformation(init_fn, update_fn)


class SGDOptimizer(Optimizer):
    """Plain gradient descent (`tf.train.sgd`)."""

    class_name = "SGD"
    _config_keys = ("learningRate",)
    _slots = ()

    def __init__(self, learning_rate: _schedule.LearningRate):
        self._learningRate = learning_rate
        super().__init__(tfjs_sgd(learning_rate))


def sgd(learning_rate: _schedule.LearningRate) -> SGDOptimizer:
    """`tf.train.sgd(learningRate)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_sgd_w")
    >>> tf.train.sgd(0.1).apply_gradients({"doc_sgd_w": tf.tensor1d([0.5, -1])})
    >>> w.value.tolist()
    [0.949999988079071, 2.0999999046325684]
    >>> w.dispose()
    """
    return SGDOptimizer(learning_rate)
