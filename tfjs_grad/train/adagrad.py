"""`tf.train.adagrad`: s' = s + g^2; w <- (g / sqrt(s' + eps))*(-lr) + w."""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from . import _hyperparams
from ._optimizer import TfjsOptimizer

EPSILON = 1e-7  # tfjs's backend epsilon on float32 backends; not configurable in tfjs


class AdagradState(NamedTuple):
    accumulated_grads: Any


def _tfjs_adagrad(
    learning_rate: Any, initial_accumulator_value: float
) -> optax.GradientTransformation:
    def init_fn(params: Any) -> AdagradState:
        return AdagradState(
            jax.tree.map(
                lambda p: jnp.full(jnp.shape(p), initial_accumulator_value, p.dtype), params
            )
        )

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        acc = jax.tree.map(lambda s, g: s + jnp.square(g), state.accumulated_grads, updates)
        out = jax.tree.map(lambda g, s: (g / jnp.sqrt(s + EPSILON)) * -learning_rate, updates, acc)
        return out, AdagradState(acc)

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_adagrad(
    learning_rate: _hyperparams.LearningRate, initial_accumulator_value: float = 0.1
) -> optax.GradientTransformation:
    """tfjs's Adagrad update (epsilon inside the square root)."""
    return _hyperparams.with_learning_rate_in_state(
        _tfjs_adagrad, learning_rate, initial_accumulator_value=initial_accumulator_value
    )


class AdagradOptimizer(TfjsOptimizer):
    """Adagrad (`tf.train.adagrad`)."""

    class_name = "Adagrad"
    _config_keys = ("learningRate", "initialAccumulatorValue")
    _slots = (("accumulated_grads", "accumulator"),)

    def __init__(
        self, learning_rate: _hyperparams.LearningRate, initial_accumulator_value: float = 0.1
    ):
        self._learningRate = _hyperparams.learning_rate(
            learning_rate, "adagrad", required_by="AdagradOptimizer"
        )
        self._initialAccumulatorValue = _hyperparams.number(
            initial_accumulator_value, "initialAccumulatorValue", "adagrad", 0.1
        )
        super().__init__(tfjs_adagrad(self._learningRate, self._initialAccumulatorValue))


def adagrad(
    learning_rate: _hyperparams.LearningRate, initial_accumulator_value: float = 0.1
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
