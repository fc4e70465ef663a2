"""`tf.train.adam`, exactly as tfjs 4.22 computes it.

m' = b1*m + (1-b1)*g          v' = b2*v + (1-b2)*g^2
w <- (m'/(1-P1)) / (sqrt(v'/(1-P2)) + eps) * (-lr) + w
after every call: P1 <- P1*b1, P2 <- P2*b2   (float32 running products, from b1, b2)

P1 and P2 are kept together as one float32 pair (`acc_betas`): a compiled step passes one
buffer fewer, and the elementwise product rounds each exactly as two scalars would.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax

from . import _hyperparams
from ._optimizer import TfjsOptimizer, running_product


class AdamState(NamedTuple):
    m: Any
    v: Any
    acc_betas: Any  # [P1, P2]


def _tfjs_adam(
    learning_rate: Any, beta1: float, beta2: float, epsilon: float
) -> optax.GradientTransformation:
    betas = np.array([beta1, beta2], np.float32)

    def init_fn(params: Any) -> AdamState:
        zeros = lambda: jax.tree.map(jnp.zeros_like, params)  # noqa: E731 (distinct buffers)
        return AdamState(zeros(), zeros(), jnp.asarray(betas))

    def update_fn(updates: Any, state: Any, params: Any = None) -> tuple[Any, Any]:
        one_minus_p1, one_minus_p2 = 1 - state.acc_betas[0], 1 - state.acc_betas[1]
        m = jax.tree.map(lambda m, g: m * beta1 + g * (1 - beta1), state.m, updates)
        v = jax.tree.map(lambda v, g: v * beta2 + jnp.square(g) * (1 - beta2), state.v, updates)
        out = jax.tree.map(
            lambda m, v: (
                (m / one_minus_p1) / (jnp.sqrt(v / one_minus_p2) + epsilon) * -learning_rate
            ),
            m,
            v,
        )
        return out, AdamState(m, v, state.acc_betas * betas)

    return optax.GradientTransformation(init_fn, update_fn)


@_hyperparams.none_is_default
def tfjs_adam(
    learning_rate: _hyperparams.LearningRate = 0.001,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float = 1e-7,
) -> optax.GradientTransformation:
    """tfjs's Adam update (epsilon added to the bias-corrected root)."""
    return _hyperparams.with_learning_rate_in_state(
        _tfjs_adam, learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon
    )


class AdamOptimizer(TfjsOptimizer):
    """Adam as tfjs computes it (`tf.train.adam`)."""

    class_name = "Adam"
    _config_keys = ("learningRate", "beta1", "beta2", "epsilon")
    _slots = (("m", "m"), ("v", "v"))

    def __init__(
        self,
        learning_rate: _hyperparams.LearningRate = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        epsilon: float | None = None,
    ):
        fn = "adam"
        self._learningRate = _hyperparams.learning_rate(learning_rate, fn, 0.001)
        self._beta1 = _hyperparams.number(beta1, "beta1", fn, 0.9)
        self._beta2 = _hyperparams.number(beta2, "beta2", fn, 0.999)
        self._epsilon = _hyperparams.number(epsilon, "epsilon", fn, 1e-7)
        super().__init__(tfjs_adam(self._learningRate, self._beta1, self._beta2, self._epsilon))

    def _after_set_weights(self, iterations: int) -> None:
        # tfjs sets the running products to pow(beta, iter+1); we repeat the float32
        # products step by step instead, so a restored optimizer continues bit for bit.
        super()._after_set_weights(iterations)
        products = [running_product(beta, iterations) for beta in (self._beta1, self._beta2)]
        self._write_shared("acc_betas", np.array(products, np.float32))


def adam(
    learning_rate: _hyperparams.LearningRate = 0.001,
    beta1: float = 0.9,
    beta2: float = 0.999,
    epsilon: float | None = None,
) -> AdamOptimizer:
    """`tf.train.adam(learningRate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-7)`.

    >>> import tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_adam_w")
    >>> tf.train.adam().apply_gradients({"doc_adam_w": tf.tensor1d([0.5, -1])})
    >>> [round(x, 6) for x in w.value.tolist()]
    [0.999, 2.001]
    >>> w.dispose()
    """
    return AdamOptimizer(learning_rate, beta1, beta2, epsilon)
