"""What every recurrent layer shares: its state sizes, output shapes and `stateful` states.

A stateful layer (`stateful: true`, with a fixed batch size from `batchInputShape`,
`batchSize` or an input's `batchShape`) starts each call from the states the previous
call ended with, in `predict`, `fit` and `apply` alike, as tfjs does; `resetStates()` sets
them back to zeros and `resetStates(states)` to given values. The states are Variables of
the library's own (outside `layer.weights`), so compiled programs thread them; a state
carried into the next batch is a constant there (no gradient flows across batches).

>>> import numpy as np
>>> import tfjs_grad as tf
>>> rnn = tf.layers.simpleRNN(units=1, stateful=True, batchInputShape=[1, 2, 1],
...                           kernelInitializer='ones', recurrentInitializer='ones')
>>> x = np.ones((1, 2, 1), np.float32)
>>> first, second = float(rnn.apply(x).dataSync()[0]), float(rnn.apply(x).dataSync()[0])
>>> second > first
True
>>> rnn.resetStates()
>>> float(rnn.apply(x).dataSync()[0]) == first
True
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import jax.numpy as jnp
from jax import lax

from .._tensor import Tensor, unwrap, wrap
from ..variables import Variable, hidden_variable

BATCH_SIZE_MESSAGE = (
    "If an RNN is stateful, it needs to know its batch size. Specify the batch size of your "
    "input tensors: \n"
    "- If using a Sequential model, specify the batch size by passing a `batchInputShape` "
    "option to your first layer.\n"
    "- If using the functional API, specify the batch size by passing a `batchShape` option "
    "to your Input layer."
)


def state_sizes(state_size: Any) -> list[int]:
    """A cell's `stateSize` (one number, or one per state) as a list."""
    return (
        [int(s) for s in state_size] if isinstance(state_size, (list, tuple)) else [int(state_size)]
    )


class StatefulRecurrence:
    """Mixin of the recurrent layers: `stateful` states, `resetStates`, output shapes.

    The host class gives `name`, `stateful`, `returnSequences`, `returnState` and
    `state_size_list()`.
    """

    name: str
    inputSpec: Any
    stateful: bool
    unroll: bool
    returnSequences: bool
    returnState: bool
    _state_variables: list[Variable] | None = None
    _state_batch: int | None = None

    def state_size_list(self) -> list[int]:
        raise NotImplementedError

    def apply(
        self,
        inputs: Any,
        kwargs: Mapping[str, Any] | None = None,
        *,
        training: Any = None,
        initialState: Any = None,
        initial_state: Any = None,
    ) -> Any:
        """As `Layer.apply`, plus `initialState` (one array or symbolic tensor per state:
        `[h]`, LSTM `[h, c]`), which become further inputs of the call, as in tfjs."""
        options = dict(kwargs or {})
        state = initialState if initialState is not None else initial_state
        for key in ("initialState", "initial_state"):
            if key in options:
                state = options.pop(key)
        if state is not None:
            states = list(state) if isinstance(state, (list, tuple)) else [state]
            if len(states) != len(self.state_size_list()):
                raise ValueError(
                    f"An initialState was passed that is not compatible with cell.stateSize. "
                    f"Received stateSpec of length {len(states)}; expected "
                    f"{len(self.state_size_list())}."
                )
            inputs = [inputs, *states]
        return super().apply(inputs, options, training=training)  # type: ignore[misc]

    __call__ = apply

    def build_states(self, input_shape: Sequence[Any]) -> None:
        """At build: a stateful layer remembers its batch size and starts from zeros."""
        if self.stateful:
            self._state_batch = input_shape[0]
            self.inputSpec = [{"shape": [input_shape[0], None, *input_shape[2:]]}]
            self.resetStates()

    def resetStates(self, states: Any = None, training: bool = False) -> None:  # noqa: N802
        """Zeros (no `states`) or the given values as the states the next call starts from."""
        del training  # tfjs keeps the old states for backpropagation then; nothing to keep here
        if not self.stateful:
            raise AttributeError("Cannot call resetStates() on an RNN Layer that is not stateful.")
        batch = self._state_batch
        if batch is None:
            raise ValueError(BATCH_SIZE_MESSAGE)
        sizes = self.state_size_list()
        if states is None:
            values = [jnp.zeros((batch, size), jnp.float32) for size in sizes]
        else:
            given = list(states) if isinstance(states, (list, tuple)) else [states]
            if len(given) != len(sizes):
                raise ValueError(
                    f"Layer {self.name} expects {len(sizes)} state(s), but it received "
                    f"{len(given)} state value(s)."
                )
            values = []
            for index, (value, size) in enumerate(zip(given, sizes)):
                array = jnp.asarray(unwrap(value), jnp.float32)
                if tuple(array.shape) != (batch, size):
                    raise ValueError(
                        f"State {index} is incompatible with layer {self.name}: expected "
                        f"shape={batch},{size}, received shape="
                        f"{','.join(str(d) for d in array.shape)}"
                    )
                values.append(array)
        if self._state_variables is None:
            self._state_variables = [
                hidden_variable(v, f"{self.name}/state_{i}") for i, v in enumerate(values)
            ]
        else:
            for var, value in zip(self._state_variables, values):
                var.assign(value)

    reset_states = resetStates

    @property
    def states(self) -> list[Tensor | None]:
        """The current states (tfjs's `layer.states`); None for each before a stateful build."""
        if self._state_variables is None:
            return [None] * len(self.state_size_list())
        return [wrap(v.raw()) for v in self._state_variables]

    def carried_states(self) -> tuple[Any, ...] | None:
        """The states a stateful layer's call starts from (None when not stateful)."""
        if not self.stateful or self._state_variables is None:
            return None
        return tuple(v.raw() for v in self._state_variables)

    def warn_if_unrolled(self) -> None:
        """`unroll: true` changes nothing (the loop is one compiled `lax.scan`); tfjs, which
        ignores it too, warns at each call with this message."""
        if self.unroll:
            warnings.warn(
                "Ignoring unroll = true for RNN layer, due to imperative backend.", stacklevel=4
            )

    def keep_states(self, final: Sequence[Any]) -> None:
        """After a call: a stateful layer's next call starts from `final`."""
        if self.stateful and self._state_variables is not None:
            for var, value in zip(self._state_variables, final):
                var.assign(lax.stop_gradient(jnp.asarray(value, jnp.float32)))

    def recurrent_output_shape(self, input_shape: Any) -> Any:
        """tfjs's `RNN.computeOutputShape`: `[batch, (steps,) stateSize[0]]`, then states."""
        if input_shape and isinstance(input_shape[0], (list, tuple)):
            input_shape = input_shape[0]
        sizes = self.state_size_list()
        batch = input_shape[0]
        out = [batch, input_shape[1], sizes[0]] if self.returnSequences else [batch, sizes[0]]
        if self.returnState:
            return [out, *[[batch, size] for size in sizes]]
        return out
