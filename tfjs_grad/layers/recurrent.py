"""Recurrent layers: simpleRNN, lstm, gru over `[batch, steps, features]`, h0 = 0.

Weights: `kernel [in, g*units]`, `recurrent_kernel [units, g*units]`, `bias [g*units]`, gate
blocks in tfjs's order (LSTM i, f, c, o; GRU z, r, h). The recurrent activation defaults to
hardSigmoid (`clip(0.2x + 0.5, 0, 1)`); GRU updates `h = z*h_prev + (1-z)*hh` with the reset
applied before the recurrent matmul (`resetAfter` false). The time loop is a `lax.scan`.

A mask (`[batch, steps]`, from an embedding with `maskZero` or a masking layer before it in
a model, or `apply(x, {'mask': m})`) makes a step whose mask is false keep the previous
output and states, as tfjs's `rnn()` does; with `returnSequences` the output keeps the mask.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> rnn = tf.layers.lstm(units=2, returnSequences=True)
>>> np.asarray(rnn.apply(np.zeros((1, 3, 4), np.float32))).shape
(1, 3, 2)
>>> [w.shape for w in rnn.weights]
[(4, 8), (2, 8), (8,)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp

from .. import _rng
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._config import REQUIRED
from . import activations
from .base import Layer, js_shape, positive_integer
from .recurrent_state import StatefulRecurrence


class _UnitForgetBias(_initializers.Initializer):
    """Bias with ones in the forget-gate block (LSTM's `unitForgetBias`)."""

    className = "UnitForgetBias"

    def __init__(self, base: _initializers.Initializer, units: int):
        super().__init__()
        self.base, self.units = base, units

    def _make(self, shape: tuple[int, ...]) -> Any:
        u = self.units
        return jnp.concatenate([self.base.apply([u]), jnp.ones((u,)), self.base.apply([2 * u])])


def dropout_mask(rate: float, shape: tuple[int, ...], training: bool) -> Any:
    """tfjs's `generateDropoutMask`: 0 or `1 / (1 - rate)` per element while training with
    `0 < rate < 1`; otherwise None (no dropout, as tfjs at rate 0 or 1 or in inference).

    >>> import numpy as np
    >>> set(np.asarray(dropout_mask(0.5, (4, 8), True)).ravel().tolist()) <= {0.0, 2.0}
    True
    >>> dropout_mask(0.5, (4, 8), False) is None, dropout_mask(1.0, (4, 8), True) is None
    (True, True)
    """
    if not training or not 0 < rate < 1:
        return None
    keep = jax.random.bernoulli(_rng.next_key(None, "recurrent dropout"), 1 - rate, shape)
    return keep.astype(jnp.float32) / (1 - rate)


class _RNN(StatefulRecurrence, Layer):
    gates: ClassVar[int] = 1
    _SUPPORTS_MASKING = True
    _USES_MASK = True
    _KEYS: ClassVar[dict[str, Any]] = {
        "units": REQUIRED,
        "activation": "tanh",
        "useBias": True,
        "kernelInitializer": "glorotNormal",
        "recurrentInitializer": "orthogonal",
        "biasInitializer": "zeros",
        "kernelRegularizer": None,
        "recurrentRegularizer": None,
        "biasRegularizer": None,
        "activityRegularizer": None,
        "kernelConstraint": None,
        "recurrentConstraint": None,
        "biasConstraint": None,
        "dropout": 0.0,
        "recurrentDropout": 0.0,
        "returnSequences": False,
        "returnState": False,
        "goBackwards": False,
        "stateful": False,
        "unroll": False,
        "inputDim": None,
        "inputLength": None,
        "cell": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        if a["cell"] is not None:
            raise NotImplementedError("tf.layers.rnn with a custom cell is not supported")
        self.units = positive_integer(a["units"], "units")
        self.activation = activations.canonical(a["activation"])
        self.useBias = bool(a["useBias"])
        self.kernelInitializer = _initializers.get(a["kernelInitializer"])
        self.recurrentInitializer = _initializers.get(a["recurrentInitializer"])
        self.biasInitializer = _initializers.get(a["biasInitializer"])
        self.kernelRegularizer = _regularizers.get(a["kernelRegularizer"])
        self.recurrentRegularizer = _regularizers.get(a["recurrentRegularizer"])
        self.biasRegularizer = _regularizers.get(a["biasRegularizer"])
        self.activityRegularizer = _regularizers.get(a["activityRegularizer"])
        self.kernelConstraint = _constraints.get(a["kernelConstraint"])
        self.recurrentConstraint = _constraints.get(a["recurrentConstraint"])
        self.biasConstraint = _constraints.get(a["biasConstraint"])
        self.dropout = min(1.0, max(0.0, float(a["dropout"] or 0)))
        self.recurrentDropout = min(1.0, max(0.0, float(a["recurrentDropout"] or 0)))
        self.returnSequences = bool(a["returnSequences"])
        self.returnState = bool(a["returnState"])
        self.goBackwards = bool(a["goBackwards"])
        self.stateful = bool(a["stateful"])
        self.unroll = bool(a["unroll"])
        if self.batchInputShape is None and a["inputDim"] is not None:
            self.batchInputShape = [None, a["inputLength"], a["inputDim"]]
            self.dtype = self.dtype or "float32"
        self.inputSpec = [{"ndim": 3}]
        self.bias: Any = None

    def _bias_initializer(self) -> _initializers.Initializer:
        return self.biasInitializer

    def state_size_list(self) -> list[int]:
        return [self.units] * len(self._initial_states(1, jnp.float32))

    def compute_output_shape(self, input_shape: Any) -> Any:
        return self.recurrent_output_shape(input_shape)

    computeOutputShape = compute_output_shape

    def build(self, input_shape: Any) -> None:
        if input_shape and isinstance(input_shape[0], (list, tuple)):
            input_shape = input_shape[0]  # [x, *initial states]
        features, width = input_shape[-1], self.gates * self.units
        self.kernel = self.add_weight(
            "kernel",
            [features, width],
            initializer=self.kernelInitializer,
            regularizer=self.kernelRegularizer,
            constraint=self.kernelConstraint,
        )
        self.recurrent_kernel = self.add_weight(
            "recurrent_kernel",
            [self.units, width],
            initializer=self.recurrentInitializer,
            regularizer=self.recurrentRegularizer,
            constraint=self.recurrentConstraint,
        )
        if self.useBias:
            self.bias = self.add_weight(
                "bias",
                [width],
                initializer=self._bias_initializer(),
                regularizer=self.biasRegularizer,
                constraint=self.biasConstraint,
            )
        self.built = True
        self.build_states(input_shape)

    def _initial_states(self, batch: int, dtype: Any) -> tuple[Any, ...]:
        return (jnp.zeros((batch, self.units), dtype),)

    def _step(
        self, states: tuple[Any, ...], x_proj: Any, weights: dict[str, Any]
    ) -> tuple[Any, ...]:
        raise NotImplementedError

    def dropped_step(
        self, states: tuple[Any, ...], x_proj: Any, weights: dict[str, Any], rec_mask: Any
    ) -> tuple[Any, ...]:
        """One step, with h times the recurrent dropout mask wherever the step reads it (as
        tfjs's cells do; GRU's `z * h` included)."""
        if rec_mask is not None:
            states = (states[0] * rec_mask, *states[1:])
        return self._step(states, x_proj, weights)

    def sequence_dropout_masks(self, batch: int, features: int, training: bool) -> tuple[Any, Any]:
        """The `dropout` mask of the inputs and the `recurrentDropout` mask of h for one
        sequence: drawn once, used at every step (tfjs's `generateDropoutMask`)."""
        return (
            dropout_mask(self.dropout, (batch, features), training),
            dropout_mask(self.recurrentDropout, (batch, self.units), training),
        )

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        if isinstance(mask, (list, tuple)):
            mask = mask[0] if mask else None
        out = mask if self.returnSequences else None
        if self.returnState:
            return [out, *[None] * len(self._initial_states(1, jnp.float32))]
        return out

    def _step_masks(self, mask: Any, x: Any) -> Any:
        """The mask as `[time, batch, 1]` floats (1 keep, 0 skip), in the scan's order."""
        if isinstance(mask, (list, tuple)):
            raise NotImplementedError(
                f"Layer {self.name} was passed a list of masks (one per input); a recurrent "
                "layer takes one mask for its sequence input"
            )
        m = jnp.asarray(mask).astype(bool).astype(x.dtype)
        if m.ndim == x.ndim - 1:
            m = m[..., None]
        if m.ndim != 3 or m.shape[:2] != x.shape[:2] or m.shape[2] not in (1, self.units):
            raise ValueError(
                f"Layer {self.name} was passed a mask of shape {js_shape(jnp.shape(mask))}, but "
                f"its input has shape {js_shape(x.shape)}: the mask of a recurrent layer must "
                "be [batch, timesteps]"
            )
        m = jnp.swapaxes(m, 0, 1)
        return m[::-1] if self.goBackwards else m

    def call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        given: list[Any] = []
        if isinstance(inputs, (list, tuple)):
            inputs, given = inputs[0], list(inputs[1:])
        x = jnp.asarray(inputs)
        batch = x.shape[0]
        self.warn_if_unrolled()
        step_masks = None if mask is None else self._step_masks(mask, x)
        weights = {
            "kernel": self.kernel.raw(),
            "recurrent": self.recurrent_kernel.raw(),
            "bias": self.bias.raw() if self.bias is not None else None,
        }
        in_mask, rec_mask = self.sequence_dropout_masks(batch, x.shape[-1], training)
        if in_mask is not None:  # the same mask at every step
            x = x * in_mask[:, None, :]
        proj = jnp.matmul(x, weights["kernel"])
        if weights["bias"] is not None:
            proj = proj + weights["bias"]
        steps = jnp.swapaxes(proj, 0, 1)  # [time, batch, g*units]
        if self.goBackwards:
            steps = steps[::-1]

        def body(states: tuple[Any, ...], x_t: Any) -> tuple[tuple[Any, ...], Any]:
            new = self.dropped_step(states, x_t, weights, rec_mask)
            return new, new[0]

        def masked_body(states: tuple[Any, ...], xm: Any) -> tuple[tuple[Any, ...], Any]:
            x_t, m_t = xm
            new = self.dropped_step(states, x_t, weights, rec_mask)
            # a masked step keeps the previous states (and so the previous output, h)
            kept = tuple(n * m_t + s * (1 - m_t) for n, s in zip(new, states))
            return kept, kept[0]

        start = (
            tuple(jnp.asarray(h, proj.dtype) for h in given)
            or self.carried_states()
            or self._initial_states(batch, proj.dtype)
        )
        if step_masks is None:
            final, outputs = jax.lax.scan(body, start, steps)
        else:
            final, outputs = jax.lax.scan(masked_body, start, (steps, step_masks))
        self.keep_states(final)
        output = jnp.swapaxes(outputs, 0, 1) if self.returnSequences else final[0]
        if self.returnState:
            return [output, *final]
        return output

    def _recurrent(self, h: Any, weights: dict[str, Any], g: int) -> Any:
        u = self.units
        return jnp.matmul(h, weights["recurrent"][:, g * u : (g + 1) * u])

    def _config(self) -> dict[str, Any]:
        return {
            "units": self.units,
            "activation": activations.pythonic(self.activation),
        }

    def _tail_config(self) -> dict[str, Any]:
        return {
            "kernel_regularizer": _regularizers.serialize(self.kernelRegularizer),
            "recurrent_regularizer": _regularizers.serialize(self.recurrentRegularizer),
            "bias_regularizer": _regularizers.serialize(self.biasRegularizer),
            "activity_regularizer": _regularizers.serialize(self.activityRegularizer),
            "kernel_constraint": _constraints.serialize(self.kernelConstraint),
            "recurrent_constraint": _constraints.serialize(self.recurrentConstraint),
            "bias_constraint": _constraints.serialize(self.biasConstraint),
            "dropout": self.dropout,
            "recurrent_dropout": self.recurrentDropout,
        }

    def _rnn_config(self) -> dict[str, Any]:
        return {
            "return_sequences": self.returnSequences,
            "return_state": self.returnState,
            "go_backwards": self.goBackwards,
            "stateful": self.stateful,
            "unroll": self.unroll,
        }

    def _initializer_config(self) -> dict[str, Any]:
        return {
            "use_bias": self.useBias,
            "kernel_initializer": _initializers.serialize(self.kernelInitializer),
            "recurrent_initializer": _initializers.serialize(self.recurrentInitializer),
            "bias_initializer": _initializers.serialize(self.biasInitializer),
        }

    def get_config(self) -> dict[str, Any]:
        base = Layer.get_config(self)
        return {
            "name": base.pop("name"),
            "trainable": base.pop("trainable"),
            **self._config(),
            **self._initializer_config(),
            **self._tail_config(),
            **self._rnn_config(),
            **base,
        }


class SimpleRNN(_RNN):
    """`h = act(x_t K + h R + b)`."""

    className = "SimpleRNN"
    gates = 1

    def _step(
        self, states: tuple[Any, ...], x_proj: Any, weights: dict[str, Any]
    ) -> tuple[Any, ...]:
        (h,) = states
        return (activations.get(self.activation)(x_proj + self._recurrent(h, weights, 0)),)


class _Gated(_RNN):
    _KEYS: ClassVar[dict[str, Any]] = {
        **_RNN._KEYS,
        "recurrentActivation": "hardSigmoid",
        "implementation": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.recurrentActivation = activations.canonical(self._args["recurrentActivation"])
        self.implementation = self._args["implementation"]

    def _config(self) -> dict[str, Any]:
        return {
            **super()._config(),
            "recurrent_activation": activations.pythonic(self.recurrentActivation),
        }


class LSTM(_Gated):
    """Long short-term memory; `returnState` gives `[output, h, c]`."""

    className = "LSTM"
    gates = 4
    _KEYS: ClassVar[dict[str, Any]] = {**_Gated._KEYS, "unitForgetBias": None}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        self.unitForgetBias = self._args["unitForgetBias"]

    def _bias_initializer(self) -> _initializers.Initializer:
        if self.unitForgetBias:
            return _UnitForgetBias(self.biasInitializer, self.units)
        return self.biasInitializer

    def _initial_states(self, batch: int, dtype: Any) -> tuple[Any, ...]:
        zeros = jnp.zeros((batch, self.units), dtype)
        return (zeros, zeros)

    def _step(
        self, states: tuple[Any, ...], x_proj: Any, weights: dict[str, Any]
    ) -> tuple[Any, ...]:
        h, c = states
        u = self.units
        act = activations.get(self.activation)
        rec = activations.get(self.recurrentActivation)
        z = [x_proj[:, g * u : (g + 1) * u] + self._recurrent(h, weights, g) for g in range(4)]
        i, f, o = rec(z[0]), rec(z[1]), rec(z[3])
        c = f * c + i * act(z[2])
        return (o * act(c), c)

    def _initializer_config(self) -> dict[str, Any]:
        return {**super()._initializer_config(), "unit_forget_bias": self.unitForgetBias}

    def _tail_config(self) -> dict[str, Any]:
        return {**super()._tail_config(), "implementation": self.implementation}


class GRU(_Gated):
    """Gated recurrent unit (`resetAfter` false)."""

    className = "GRU"
    gates = 3
    _KEYS: ClassVar[dict[str, Any]] = {**_Gated._KEYS, "resetAfter": False}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        if self._args["resetAfter"]:
            raise NotImplementedError("GRU with resetAfter: true is not supported (nor by tfjs)")

    def _step(
        self, states: tuple[Any, ...], x_proj: Any, weights: dict[str, Any]
    ) -> tuple[Any, ...]:
        (h,) = states
        u = self.units
        act = activations.get(self.activation)
        rec = activations.get(self.recurrentActivation)
        z = rec(x_proj[:, :u] + self._recurrent(h, weights, 0))
        r = rec(x_proj[:, u : 2 * u] + self._recurrent(h, weights, 1))
        hh = act(x_proj[:, 2 * u :] + self._recurrent(r * h, weights, 2))
        return (z * h + (1 - z) * hh,)

    def _tail_config(self) -> dict[str, Any]:
        return {
            **super()._tail_config(),
            "implementation": self.implementation,
            "reset_after": False,
        }
