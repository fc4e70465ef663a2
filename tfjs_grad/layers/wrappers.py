"""Wrappers: timeDistributed (a layer over every step) and bidirectional (an RNN both ways).

Their weights are the wrapped layers', named under the wrapper as tfjs names them:
`time_distributed/kernel`, `bidirectional/forward_lstm/kernel`, `.../backward_lstm/...`.
Both support masking: bidirectional hands its mask to both RNNs (each skips the masked
steps), timeDistributed passes the mask on to the layers after it.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> td = tf.layers.timeDistributed(layer=tf.layers.dense(units=2))
>>> np.asarray(td.apply(np.zeros((1, 3, 4), np.float32))).shape
(1, 3, 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from .._config import REQUIRED
from ..variables import Variable
from .base import Layer, deserialize_layer
from .recurrent import LSTM


class _Wrapper(Layer):
    _KEYS: ClassVar[dict[str, Any]] = {"layer": REQUIRED}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.layer = deserialize_layer(self._args["layer"], "The layer of a wrapper")
        if self.batchInputShape is None and self.layer.batchInputShape is not None:
            self.batchInputShape = list(self.layer.batchInputShape)
            self.dtype = self.layer.dtype

    def _inner(self) -> list[Layer]:
        return [self.layer]

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for inner in self._inner():
            inner.trainable = value

    @property
    def trainableWeights(self) -> list[Variable]:
        if not self._trainable:
            return []
        return [w for inner in self._inner() for w in inner.trainableWeights]

    @property
    def nonTrainableWeights(self) -> list[Variable]:
        rest = [w for inner in self._inner() for w in inner.nonTrainableWeights]
        if not self._trainable:
            return [w for inner in self._inner() for w in inner._trainable_weights] + rest
        return rest

    trainable_weights = trainableWeights
    non_trainable_weights = nonTrainableWeights

    def regularization_losses(self) -> list[Any]:
        return [loss for inner in self._inner() for loss in inner.regularization_losses()]

    def apply_constraints(self) -> None:
        for inner in self._inner():
            inner.apply_constraints()


class TimeDistributed(_Wrapper):
    """Apply `layer` to each step of `[batch, steps, ...]`."""

    className = "TimeDistributed"
    _SUPPORTS_MASKING = True
    _USES_MASK = True

    def build(self, input_shape: Any) -> None:
        if len(input_shape) < 3:
            raise ValueError(
                "TimeDistributed layer expects an input shape >= 3D, but received input shape "
                f"{list(input_shape)}"
            )
        self.layer.scope_weights(self.name)
        self.layer._maybe_build([input_shape[0], *input_shape[2:]])
        self.built = True

    def compute_output_shape(self, input_shape: Any) -> Any:
        inner = self.layer.compute_output_shape([input_shape[0], *input_shape[2:]])
        return [inner[0], input_shape[1], *inner[1:]]

    computeOutputShape = compute_output_shape

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        if mask is not None and self.layer._USES_MASK:
            raise NotImplementedError(
                f"Layer {self.name}: timeDistributed({self.layer.getClassName()}) given a mask "
                "(e.g. from an embedding with maskZero) is not supported"
            )
        batch, steps = inputs.shape[0], inputs.shape[1]
        if getattr(self.layer, "stateful", False):  # as tfjs: step by step, the states carry on
            outs = [self.layer.run_call(inputs[:, t], training) for t in range(steps)]
            return jnp.stack(outs, axis=1)
        flat = inputs.reshape(batch * steps, *inputs.shape[2:])
        out = self.layer.run_call(flat, training)
        return out.reshape(batch, steps, *out.shape[1:])

    def get_config(self) -> dict[str, Any]:
        return {
            "layer": {"class_name": self.layer.getClassName(), "config": self.layer.get_config()},
            **super().get_config(),
        }


_MERGE_MODES = ("sum", "mul", "concat", "ave", None)


class Bidirectional(_Wrapper):
    """An RNN run forwards and backwards; outputs merged by `mergeMode` ('concat')."""

    className = "Bidirectional"
    _SUPPORTS_MASKING = True
    _USES_MASK = True
    _KEYS: ClassVar[dict[str, Any]] = {"layer": REQUIRED, "mergeMode": "concat", "weights": None}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.mergeMode = self._args["mergeMode"]
        if self.mergeMode not in _MERGE_MODES:
            raise ValueError(
                f"Invalid merge mode: {self.mergeMode}; expected one of {list(_MERGE_MODES)}"
            )
        cls = type(self.layer)
        config = self.layer.get_config()
        self.forwardLayer = cls.from_config({**config, "name": f"forward_{self.layer.name}"})
        self.backwardLayer = cls.from_config(
            {
                **config,
                "name": f"backward_{self.layer.name}",
                "go_backwards": not config.get("go_backwards", False),
            }
        )
        self.returnSequences = bool(config.get("return_sequences"))
        self.returnState = bool(config.get("return_state"))

    def _inner(self) -> list[Layer]:
        return [self.forwardLayer, self.backwardLayer]

    def build(self, input_shape: Any) -> None:
        for inner in self._inner():
            inner.scope_weights(f"{self.name}/{inner.name}")
            inner._maybe_build(input_shape)
        self.built = True

    @property
    def stateful(self) -> bool:
        """As tfjs: stateful when the wrapped RNN is (both directions carry their states)."""
        return bool(getattr(self.forwardLayer, "stateful", False))

    def resetStates(self, states: Any = None) -> None:  # noqa: N802 (tfjs's name)
        """Zero the states of both directions (tfjs ignores `states` here too)."""
        del states
        self.forwardLayer.resetStates()  # type: ignore[attr-defined]
        self.backwardLayer.resetStates()  # type: ignore[attr-defined]

    reset_states = resetStates

    def compute_output_shape(self, input_shape: Any) -> Any:
        shape = self.forwardLayer.compute_output_shape(input_shape)
        states: list[Any] = []
        if self.returnState:
            shape, states = shape[0], list(shape[1:])
        if self.mergeMode == "concat":
            shape = [*shape[:-1], shape[-1] * 2]
        outs = [shape, shape] if self.mergeMode is None else [shape]
        if self.returnState:
            return [*outs, *states, *states]
        return outs if self.mergeMode is None else shape

    computeOutputShape = compute_output_shape

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        out = mask if self.returnSequences else None
        outs = [out, out] if self.mergeMode is None else [out]
        if self.returnState:
            states = 2 if isinstance(self.forwardLayer, LSTM) else 1
            return [*outs, *[None] * (2 * states)]
        return outs if self.mergeMode is None else out

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        y = self.forwardLayer.run_call(inputs, training, mask)
        y_rev = self.backwardLayer.run_call(inputs, training, mask)
        states: list[Any] = []
        if self.returnState:
            states = [*y[1:], *y_rev[1:]]
            y, y_rev = y[0], y_rev[0]
        if self.returnSequences:
            y_rev = jnp.flip(y_rev, axis=1)
        if self.mergeMode == "concat":
            out: Any = jnp.concatenate([y, y_rev], axis=-1)
        elif self.mergeMode == "sum":
            out = y + y_rev
        elif self.mergeMode == "ave":
            out = (y + y_rev) / 2
        elif self.mergeMode == "mul":
            out = y * y_rev
        else:
            out = [y, y_rev]
        if self.returnState:
            return [*(out if isinstance(out, list) else [out]), *states]
        return out

    def get_config(self) -> dict[str, Any]:
        return {
            "merge_mode": self.mergeMode,
            "layer": {"class_name": self.layer.getClassName(), "config": self.layer.get_config()},
            **super().get_config(),
        }
