"""Learning rates: a number, or an optax schedule evaluated at the optimizer's step count."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np

LearningRate = float | Callable[[Any], Any]


def at(learning_rate: LearningRate, count: Any) -> Any:
    """The learning rate for the update at 0-based step `count`."""
    return learning_rate(count) if callable(learning_rate) else learning_rate


def zero_count() -> Any:
    return jnp.asarray(np.int32(0))  # a transfer, not a compiled op, when run eagerly
