"""`tf.train.adagrad`: s' = s + g^2; w <- (g / sqrt(s' + eps))*(-lr) + w."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from . import _schedule
from ._optimizer import Optimizer

EPSILON = 1e-7  # tfjs's backend epsilon on float32 backends; not configurable in tfjs


class AdagradState(NamedTuple):
    accumulated_grads: Any
    count: Any


def tfjs_adagrad(
    learning_rate: _schedule.LearningRate, initial_accumulator_value: float = 0.1
) -> optax.GradientTransformation:
    """tfjs's Adagrad update (epsilon inside the square root)."""

    def init_fn(params: Any) -> AdagradState:
        accumulators = jax.tree.map(
            lambda p: jnp.full(jnp.shape(p), initial_accumulator_value, p.dtype), params
        )
        return AdagradState(accumulators, _schedule.zero_count())

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        lr = _schedule.at(learning_rate, state.count)
        acc = jax.tree.map(lambda s, g: s + jnp.square(g), state.accumulated_grads, updates)
        out = jax.tree.map(lambda g, s: (g / jnp.sqrt(s + EPSILON)) * -lr, updates, acc)
        return out, AdagradState(acc, state.count + 1)

    return optax.GradientTransformation(init_fn, update_fn)


class AdagradOptimizer(Optimizer):
    """Adagrad (`tf.train.adagrad`)."""

    class_name = "Adagrad"
    _config_keys = ("learningRate", "initialAccumulatorValue")
    _slots = (("accumulated_grads", "accumulator"),)

    def __init__(
        self, learning_rate: _schedule.LearningRate, initial_accumulator_value: float = 0.1
    ):
        if initial_accumulator_value is None:
            initial_accumulator_value = 0.1
        self._learningRate = learning_rate
        self._initialAccumulatorValue = initial_accumulator_value
        super().__init__(tfjs_adagrad(learning_rate, initial_accumulator_value))


def adagrad(
    learning_rate: _schedule.LearningRate, initial_accumulator_value: float = 0.1
) -> AdagradOptimizer:
    """`tf.train.adagrad(learningRate, initialAccumulatorValue=0.1)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_adagrad_w")
    >>> opt = tf.train.adagrad(0.1)
    >>> opt.apply_gradients({"doc_adagrad_w": tf.tensor1d([0.5, -1])})
    >>> [round(x, 6) for x in w.value.tolist()]
    [0.915485, 2.095346]
    >>> w.dispose()
    """
    return AdagradOptimizer(learning_rate, initial_accumulator_value)
