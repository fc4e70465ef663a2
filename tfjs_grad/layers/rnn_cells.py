"""`tf.layers.rnn` over a cell: the built-in cells, `stackedRNNCells`, or a user's cell.

A cell is a layer with `stateSize` (one number, or one per state) whose
`call([input, ...states])` computes one step and returns `[output, ...newStates]`; the RNN
layer runs it over the time axis (a `lax.scan`) with tfjs's `returnSequences`,
`returnState`, `goBackwards`, `stateful` and masks. A cell written as in tfjs (a
`tf.layers.Layer` subclass) gets Tensors in `call`, as it would there.
`stackedRNNCells({cells})` chains cells in one step; its states are the cells' states,
last cell first (tfjs's order).

The built-in cells' `dropout`/`recurrentDropout` masks are drawn once per sequence, before
the loop, and every step uses them. tfjs's own `tf.layers.rnn` keeps a cell's first masks
for all later calls (only simpleRNN/lstm/gru drop them at each call); here every call of
the RNN draws new ones, as those layers do.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> cell = tf.layers.stackedRNNCells({'cells': [tf.layers.lstmCell({'units': 3}),
...                                            tf.layers.simpleRNNCell({'units': 2})]})
>>> rnn = tf.layers.rnn({'cell': cell, 'returnState': True})
>>> [list(t.shape) for t in rnn.apply(np.zeros((1, 4, 5), np.float32))]
[[1, 2], [1, 2], [1, 3], [1, 3]]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

import jax
import jax.numpy as jnp

from .. import _store
from .._config import REQUIRED
from .base import Layer, deserialize_layer
from .recurrent import GRU, LSTM, SimpleRNN
from .recurrent_state import StatefulRecurrence, state_sizes

_RNN_ONLY = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll")


class _BuiltinCell:
    """One step of a built-in recurrent layer, as a cell: `call([x, *states])`."""

    units: int
    _sequence_masks: tuple[Any, Any] | None = None
    kernel: Any
    recurrent_kernel: Any
    bias: Any
    inputSpec: Any

    if TYPE_CHECKING:  # given by the recurrent layer class the cell also derives from

        def dropped_step(self, states: Any, x_proj: Any, weights: Any, rec_mask: Any) -> Any: ...

        def sequence_dropout_masks(
            self, batch: int, features: int, training: bool
        ) -> tuple[Any, Any]: ...

        def _initial_states(self, batch: int, dtype: Any) -> tuple[Any, ...]: ...

    @property
    def stateSize(self) -> Any:  # noqa: N802 (tfjs's name)
        count = len(self._initial_states(1, jnp.float32))
        return self.units if count == 1 else [self.units] * count

    state_size = stateSize

    def start_sequence(self, batch: int, features: int, training: bool) -> None:
        """Draw the dropout masks every step of the coming sequence uses (tfjs draws them
        at a sequence's first step and its recurrent layers drop them at each call)."""
        self._sequence_masks = self.sequence_dropout_masks(batch, features, training)

    def end_sequence(self) -> None:
        self._sequence_masks = None

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        del mask
        x, *states = inputs
        x = jnp.asarray(x)
        masks = self._sequence_masks  # a call outside an RNN draws masks of its own
        in_mask, rec_mask = masks or self.sequence_dropout_masks(x.shape[0], x.shape[-1], training)
        if in_mask is not None:
            x = x * in_mask
        weights = {
            "kernel": self.kernel.raw(),
            "recurrent": self.recurrent_kernel.raw(),
            "bias": self.bias.raw() if self.bias is not None else None,
        }
        proj = jnp.matmul(x, weights["kernel"])
        if weights["bias"] is not None:
            proj = proj + weights["bias"]
        new = self.dropped_step(tuple(states), proj, weights, rec_mask)
        return [new[0], *new]

    def compute_output_shape(self, input_shape: Any) -> Any:
        shapes = input_shape if isinstance(input_shape[0], (list, tuple)) else [input_shape]
        batch = shapes[0][0]
        return [[batch, size] for size in [self.units, *state_sizes(self.stateSize)]]

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()  # type: ignore[misc]
        for key in _RNN_ONLY:
            config.pop(key, None)
        return config


def _cell_init(self: Any) -> None:
    self.inputSpec = None


def _start_sequence(cell: Layer, batch: int, features: int, training: bool) -> None:
    """Before a sequence: the built-in cells in `cell` draw their dropout masks."""
    if isinstance(cell, _BuiltinCell):
        cell.start_sequence(batch, features, training)
    elif isinstance(cell, StackedRNNCells):
        for inner in cell.cells:
            _start_sequence(inner, batch, features, training)
            features = _first_state_size(inner)


def _end_sequence(cell: Layer) -> None:
    if isinstance(cell, _BuiltinCell):
        cell.end_sequence()
    elif isinstance(cell, StackedRNNCells):
        for inner in cell.cells:
            _end_sequence(inner)


class SimpleRNNCell(_BuiltinCell, SimpleRNN):
    """tfjs's `tf.layers.simpleRNNCell`: one step of `simpleRNN`."""

    className = "SimpleRNNCell"

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        _cell_init(self)


class LSTMCell(_BuiltinCell, LSTM):
    """tfjs's `tf.layers.lstmCell`: one step of `lstm`; states `[h, c]`."""

    className = "LSTMCell"

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        _cell_init(self)


class GRUCell(_BuiltinCell, GRU):
    """tfjs's `tf.layers.gruCell`: one step of `gru`."""

    className = "GRUCell"

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        _cell_init(self)


def _build_cell(cell: Layer, input_shape: list[Any]) -> None:
    if not cell.built:
        cell.build(input_shape)
        cell.built = True


def _call_cell(cell: Layer, inputs: list[Any], training: bool) -> list[Any]:
    out = cell.run_call(inputs, training)
    return list(out) if isinstance(out, (list, tuple)) else [out]


def cell_state_size(cell: Any) -> Any:
    """A cell's `stateSize` (tfjs's name) or `state_size` (Keras's); None without one."""
    size = getattr(cell, "stateSize", None)
    return getattr(cell, "state_size", None) if size is None else size


def _first_state_size(cell: Layer) -> int:
    return state_sizes(cell_state_size(cell))[0]


class _CellOwner(Layer):
    """A layer whose weights are those of the cells it holds (tfjs's RNN, StackedRNNCells)."""

    def owned_cells(self) -> list[Layer]:
        raise NotImplementedError

    def _all_weights(self) -> list[Any]:
        return [w for cell in self.owned_cells() for w in cell.weights]

    @property
    def trainableWeights(self) -> list[Any]:  # noqa: N802 (tfjs's name)
        if not self.trainable:
            return []
        return [w for cell in self.owned_cells() for w in cell.trainableWeights]

    @property
    def nonTrainableWeights(self) -> list[Any]:  # noqa: N802 (tfjs's name)
        if not self.trainable:
            return self._all_weights()
        return [w for cell in self.owned_cells() for w in cell.nonTrainableWeights]

    trainable_weights = trainableWeights
    non_trainable_weights = nonTrainableWeights

    def regularization_losses(self) -> list[Any]:
        return [loss for cell in self.owned_cells() for loss in cell.regularization_losses()]

    def apply_constraints(self) -> None:
        for cell in self.owned_cells():
            cell.apply_constraints()


class StackedRNNCells(_CellOwner):
    """tfjs's `tf.layers.stackedRNNCells({cells})`: the cells one after another in a step."""

    className = "StackedRNNCells"
    _KEYS: ClassVar[dict[str, Any]] = {"cells": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.cells: list[Layer] = [
            deserialize_layer(cell, "A cell of stackedRNNCells") for cell in self._args["cells"]
        ]

    def owned_cells(self) -> list[Layer]:
        return self.cells

    @property
    def stateSize(self) -> list[int]:  # noqa: N802 (tfjs's name)
        return [s for cell in reversed(self.cells) for s in state_sizes(cell_state_size(cell))]

    state_size = stateSize

    def build(self, input_shape: Any) -> None:
        if input_shape and isinstance(input_shape[0], (list, tuple)):
            input_shape = input_shape[0]
        shape = list(input_shape)
        for index, cell in enumerate(self.cells):  # tfjs names their weights RNNCell_<i>
            cell.scope_weights(f"{self._weight_scope or self.name}/RNNCell_{index}")
            _build_cell(cell, shape)
            shape = [shape[0], _first_state_size(cell)]
        self.built = True

    def call(self, inputs: Any, training: bool = False) -> Any:
        x, states = inputs[0], list(inputs[1:])
        nested = []
        for cell in reversed(self.cells):
            count = len(state_sizes(cell_state_size(cell)))
            nested.append(states[:count])
            states = states[count:]
        nested.reverse()
        new_nested = []
        for cell, cell_states in zip(self.cells, nested):
            out = _call_cell(cell, [x, *cell_states], training)
            x = out[0]
            new_nested.append(out[1:])
        return [x, *[s for cell_states in reversed(new_nested) for s in cell_states]]

    def get_config(self) -> dict[str, Any]:
        return {
            **Layer.get_config(self),
            "cells": [
                {"class_name": cell.getClassName(), "config": cell.get_config()}
                for cell in self.cells
            ],
        }


class RNN(StatefulRecurrence, _CellOwner):
    """tfjs's `tf.layers.rnn({cell, returnSequences, returnState, goBackwards, stateful})`."""

    className = "RNN"
    _SUPPORTS_MASKING = True
    _USES_MASK = True
    _KEYS: ClassVar[dict[str, Any]] = {
        "cell": None,
        "returnSequences": False,
        "returnState": False,
        "goBackwards": False,
        "stateful": False,
        "unroll": False,
        "inputDim": None,
        "inputLength": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        cell = a["cell"]
        if cell is None:
            raise ValueError("cell property is missing for the constructor of RNN.")
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells({"cells": list(cell)})
        elif isinstance(cell, Mapping):
            cell = deserialize_layer(cell, "The cell of an RNN")
        if cell_state_size(cell) is None:
            raise ValueError(
                "The RNN cell should have an attribute `stateSize` (tuple of integers, one "
                "integer per RNN state)."
            )
        self.cell: Layer = cell
        self.returnSequences = bool(a["returnSequences"])
        self.returnState = bool(a["returnState"])
        self.goBackwards = bool(a["goBackwards"])
        self.stateful = bool(a["stateful"])
        self.unroll = bool(a["unroll"])
        if self.batchInputShape is None and a["inputDim"] is not None:
            self.batchInputShape = [None, a["inputLength"], a["inputDim"]]
            self.dtype = self.dtype or "float32"
        self.inputSpec = [{"ndim": 3}]

    def owned_cells(self) -> list[Layer]:
        return [self.cell]

    def state_size_list(self) -> list[int]:
        return state_sizes(cell_state_size(self.cell))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.recurrent_output_shape(input_shape)

    computeOutputShape = compute_output_shape

    def build(self, input_shape: Any) -> None:
        if input_shape and isinstance(input_shape[0], (list, tuple)):
            input_shape = input_shape[0]
        self.cell.scope_weights(self._weight_scope or self.name)
        _build_cell(self.cell, [input_shape[0], *input_shape[2:]])
        self.built = True
        self.build_states(input_shape)

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        out = mask if self.returnSequences else None
        if self.returnState:
            return [out, *[None] * len(self.state_size_list())]
        return out

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        given: list[Any] = []
        if isinstance(inputs, (list, tuple)):
            inputs, given = inputs[0], list(inputs[1:])
        x = jnp.asarray(inputs)
        batch = x.shape[0]
        self.warn_if_unrolled()
        sizes = self.state_size_list()
        if given and len(given) != len(sizes):
            raise ValueError(
                f"RNN Layer has {len(sizes)} state(s) but was passed {len(given)} initial state(s)."
            )
        start = (
            tuple(jnp.asarray(h, x.dtype) for h in given)
            or self.carried_states()
            or tuple(jnp.zeros((batch, size), x.dtype) for size in sizes)
        )
        steps = jnp.swapaxes(x, 0, 1)
        if mask is None:
            keep = jnp.ones(steps.shape[:2] + (1,), x.dtype)
        else:
            keep = jnp.swapaxes(jnp.asarray(mask).astype(bool).astype(x.dtype), 0, 1)[..., None]
        if self.goBackwards:
            steps, keep = steps[::-1], keep[::-1]

        # The cell's weights are read here and bound inside the loop (a Variable read in a
        # lax.scan body would be baked in as a constant).
        cell_weights = self.cell.weights
        bound = [w.raw() for w in cell_weights]

        def body(states: Any, xm: Any) -> Any:
            x_t, m_t = xm
            bindings = {w.id: value for w, value in zip(cell_weights, bound)}
            cell = self.cell
            out = _store.run(lambda: _call_cell(cell, [x_t, *states], training), bindings).output
            output, new = jnp.asarray(out[0]), [jnp.asarray(s) for s in out[1:]]
            # a masked step outputs the previous first state and keeps the states (tfjs's rnn)
            output = output * m_t + states[0] * (1 - m_t)
            kept = tuple(n * m_t + s * (1 - m_t) for n, s in zip(new, states))
            return kept, output

        _start_sequence(self.cell, batch, x.shape[-1], training)
        try:
            final, outputs = jax.lax.scan(body, start, (steps, keep))
        finally:
            _end_sequence(self.cell)
        self.keep_states(final)
        output = jnp.swapaxes(outputs, 0, 1) if self.returnSequences else outputs[-1]
        if self.returnState:
            return [output, *final]
        return output

    def get_config(self) -> dict[str, Any]:
        cell_config = self.cell.get_config()
        return {
            **cell_config,
            **Layer.get_config(self),
            "return_sequences": self.returnSequences,
            "return_state": self.returnState,
            "go_backwards": self.goBackwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
            "cell": {"class_name": self.cell.getClassName(), "config": cell_config},
        }
