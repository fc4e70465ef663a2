"""tfjs's RNN cells: basicLSTMCell (one LSTM step) and multiRNNCell (a stack of cells)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp

from .._tensors import NUMERIC, ArrayLike, convert, op

__all__ = ["basic_lstm_cell", "basicLSTMCell", "multi_rnn_cell", "multiRNNCell"]


@op(
    "basicLSTMCell",
    forget_bias=NUMERIC,
    lstm_kernel=NUMERIC,
    lstm_bias=NUMERIC,
    data=NUMERIC,
    c=NUMERIC,
    h=NUMERIC,
)
def basic_lstm_cell(
    forget_bias: ArrayLike,
    lstm_kernel: ArrayLike,
    lstm_bias: ArrayLike,
    data: ArrayLike,
    c: ArrayLike,
    h: ArrayLike,
) -> list[jax.Array]:
    """One LSTM step, like `tf.basicLSTMCell`: returns `[newC, newH]`.

    `[data, h] @ lstmKernel + lstmBias` is cut into the gates i, j, f, o (in that column
    order); `newC = sigmoid(i) * tanh(j) + c * sigmoid(forgetBias + f)` and
    `newH = tanh(newC) * sigmoid(o)`.

    >>> import tfjs_grad as tf
    >>> c, h = tf.basic_lstm_cell(1.0, tf.zeros([4, 8]), tf.zeros([8]), tf.ones([1, 2]),
    ...                           tf.ones([1, 2]), tf.zeros([1, 2]))
    >>> round(float(c[0, 0]), 4), round(float(h[0, 0]), 4)
    (0.7311, 0.3119)
    """
    gates = jnp.matmul(jnp.concatenate([data, h], axis=1), lstm_kernel) + lstm_bias
    i, j, f, o = jnp.split(gates, 4, axis=1)
    new_c = jax.nn.sigmoid(i) * jnp.tanh(j) + c * jax.nn.sigmoid(forget_bias + f)
    new_h = jnp.tanh(new_c) * jax.nn.sigmoid(o)
    return [new_c, new_h]


@op("multiRNNCell", data=NUMERIC)
def multi_rnn_cell(
    lstm_cells: Sequence[Callable[[Any, Any, Any], Sequence[Any]]],
    data: ArrayLike,
    c: Sequence[ArrayLike],
    h: Sequence[ArrayLike],
) -> list[list[jax.Array]]:
    """A stack of RNN cells run for one step, like `tf.multiRNNCell`: cell k is called as
    `lstm_cells[k](input, c[k], h[k])` and returns `[c, h]`; its h is the next cell's input.
    Returns `[[c...], [h...]]`.

    >>> import functools
    >>> import tfjs_grad as tf
    >>> cell = functools.partial(tf.basic_lstm_cell, 1.0, tf.zeros([4, 8]), tf.zeros([8]))
    >>> cs, hs = tf.multi_rnn_cell([cell, cell], tf.ones([1, 2]), [tf.zeros([1, 2])] * 2,
    ...                            [tf.zeros([1, 2])] * 2)
    >>> len(cs), hs[1].shape
    (2, (1, 2))
    """
    cs = [convert(t, argument="c", fn="multiRNNCell") for t in c]
    hs = [convert(t, argument="h", fn="multiRNNCell") for t in h]
    new_c: list[jax.Array] = []
    new_h: list[jax.Array] = []
    step = data
    for k, cell in enumerate(lstm_cells):
        cell_c, cell_h = cell(step, cs[k], hs[k])
        new_c.append(cell_c)
        new_h.append(cell_h)
        step = cell_h
    return [new_c, new_h]


basicLSTMCell = basic_lstm_cell
multiRNNCell = multi_rnn_cell
