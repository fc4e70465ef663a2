"""The small model every scale-out test trains: MLP 64-128-10, Adam, softmax cross-entropy.

Shared by the subprocess entry points in this folder and by the tests (which load it by
path). Data and initial values are fixed numpy arrays, so every run, on any layout of
devices or processes, starts from the same numbers and sees the same batches.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import tfjs_grad as tf

SIZES = (64, 128, 10)
BATCH = 64
NAMES = ("w1", "b1", "w2", "b2")


def initial_values(seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    d_in, d_hidden, d_out = SIZES
    return {
        "w1": (rng.standard_normal((d_in, d_hidden)) / np.sqrt(d_in)).astype(np.float32),
        "b1": np.zeros(d_hidden, np.float32),
        "w2": (rng.standard_normal((d_hidden, d_out)) / np.sqrt(d_hidden)).astype(np.float32),
        "b2": np.zeros(d_out, np.float32),
    }


def batch(step: int, size: int = BATCH) -> tuple[np.ndarray, np.ndarray]:
    """The global batch of training step `step` (inputs, one-hot labels)."""
    rng = np.random.default_rng(1000 + step)
    x = rng.standard_normal((size, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], size)
    return x, np.eye(SIZES[-1], dtype=np.float32)[labels]


class Model:
    """Variables w1, b1, w2, b2 (each on `shardings[name]` when given), an Adam optimizer,
    and `step(x, y)`: one tfjs-style `minimize` under `tf.jit`, returning the cost."""

    def __init__(self, shardings: dict[str, Any] | None = None, seed: int = 0):
        shardings = shardings or {}
        self.vars = {
            name: tf.variable(value, name=name, sharding=shardings.get(name))
            for name, value in initial_values(seed).items()
        }
        self.opt = tf.train.adam(0.01)
        self.step = tf.jit(self._step)

    def _loss(self, x: Any, y: Any) -> Any:
        v = self.vars
        hidden = jnp.tanh(x @ v["w1"] + v["b1"])
        logits = hidden @ v["w2"] + v["b2"]
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(logits), axis=-1))

    def _step(self, x: Any, y: Any) -> Any:
        return self.opt.minimize(lambda: self._loss(x, y), return_cost=True)

    def state(self) -> dict[str, np.ndarray]:
        """Every Variable's value (model, Adam's slots and iterations) as host arrays, by
        name; optimizer state is named 'adam/...' whatever the optimizer's own prefix."""
        prefix = self.opt._prefix + "/"
        return {
            name.replace(prefix, "adam/"): np.asarray(v.value)
            for name, v in tf.registered_variables().items()
        }


def train(model: Model, steps: range, put: Any = None) -> list[float]:
    """Run `model.step` on the batches of `steps`; `put(x, y)` places each batch.

    Each step finishes on every device before the next one starts. That matters on
    simulated CPU devices: with several multi-device steps in flight on a busy machine,
    XLA's CPU all-reduce can deadlock (each waiting device holds a thread).
    """
    costs = []
    for i in steps:
        x, y = batch(i)
        if put is not None:
            x, y = put(x, y)
        cost = jax.block_until_ready(model.step(x, y))  # every shard, not just one
        costs.append(float(cost))
    return costs
