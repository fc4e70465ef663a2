"""Training the Keras way: `compile`, `fit`, `evaluate`, `trainOnBatch`, `predictOnBatch`.

`Trainable` is a mixin for a model with `trainableWeights` (a list of `tf.Variable`) and
`apply(x, training=...)`; `LayersModel` inherits it. The semantics are tfjs 4.22's
(tfjs-layers `training.ts`), measured in shared/LAYERS.md:

- batches are `[0, b), [b, 2b), ...` over the sample order, the last one short; with
  `shuffle` the order is reshuffled in place each epoch by tfjs's Fisher-Yates, drawing
  from Python's `random.random` where tfjs draws `Math.random` (so `random.seed` fixes it);
- `validationSplit` keeps the last fraction, taken before any shuffling;
- each batch is one optimizer step on `model.trainableWeights`; its logged loss and
  metrics come from the same (training-mode) forward pass, before the step;
- an epoch's value of each key is `Σ batch_value × batch_size / samples` (float32);
- validation runs after the epoch's last step, in inference mode, batched like the fit;
- 'accuracy' is logged as `acc`, validation keys come first (`val_loss`, ...).

A model with several outputs (tfjs's `outputNames` name them) logs `loss` (the total:
each output's per-sample loss, scaled by `lossWeights`, summed, then averaged), each
output's `<name>_loss`, then `<name>_<metric>`; `trainOnBatch` and `evaluate` return them
in that order. Two deliberate differences from tfjs 4.22: its `compile` ignores
`lossWeights` (a TODO there; here they scale the total, as Keras does), and its test
function returns the running sum of the output losses where each output's loss belongs
(`evaluate` of two outputs gives `[L1, L1+L2, L1, L2, ...metrics]`, so its `val_loss` is
the first output's loss alone); here `evaluate` and the `val_` logs follow `metricsNames`.


Training runs in one compiled program (`tf.jit`'s machinery; `repeat_steps` loops over
batches inside it): per batch, the slice of the data, the forward pass, the loss and
metrics, the gradients, the update and the running epoch sums. Every batch reads a window
of `batchSize` rows; the short last batch reads the window that ends at the last sample
and masks out the rows before its own, so it compiles nothing new. Models whose layers mix
a batch's rows or draw per-row noise (BatchNormalization, the dropout and noise layers,
layers from outside the library) or whose losses/metrics are not per-sample (precision,
user functions) keep an exact window for the short batch (a second trace), as padding
would change what they compute. Without a callback that hooks single batches, one call
runs all of an epoch's batches (a twentieth of them when a progress bar shows), and the
epoch's values reach Python once per epoch; a batch hook gets one call per batch.
`evaluate` (and validation) runs all its batches in one call the same way.
"""

from __future__ import annotations

import functools
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import callbacks as _callbacks
from .. import metrics as _metrics
from .._tensor import Tensor, unwrap, unwrap_tree, wrap
from .._tensors import convert
from ..jit import jit, repeat_steps
from ..train import Optimizer, adadelta, adagrad, adam, adamax, rmsprop, sgd
from ..variables import Variable, hidden_variable
from ._fit_dataset import evaluate_dataset, fit_dataset

__all__ = ["Trainable", "get_optimizer", "get_loss"]

_EPS = _metrics.EPSILON

_OPTIMIZERS = {
    "Adagrad": lambda: adagrad(0.01),
    "Adadelta": lambda: adadelta(1, 0.95, _EPS),
    "Adam": lambda: adam(0.001, 0.9, 0.999, _EPS),
    "Adamax": lambda: adamax(0.002, 0.9, 0.999, _EPS, 0),
    "RMSProp": lambda: rmsprop(0.001, 0.9, 0, _EPS),
    "SGD": lambda: sgd(0.01),
}
for _name in list(_OPTIMIZERS):
    _OPTIMIZERS[_name.lower()] = _OPTIMIZERS[_name]

_ACCURACY = ("accuracy", "acc")
_CROSSENTROPY = ("crossentropy", "ce")

_COMPILE_KEYS = {"optimizer", "loss", "lossWeights", "metrics"}
_FIT_KEYS = {
    "batchSize", "epochs", "verbose", "callbacks", "validationSplit", "validationData",
    "shuffle", "classWeight", "sampleWeight", "initialEpoch", "stepsPerEpoch",
    "validationSteps", "yieldEvery",
}  # fmt: skip
_EVALUATE_KEYS = {"batchSize", "verbose", "sampleWeight", "steps"}


@functools.lru_cache(maxsize=256)
def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _config(
    args: Mapping[str, Any] | None, kwargs: Mapping[str, Any], allowed: set[str], fn: str
) -> dict[str, Any]:
    """A tfjs config object from a dict and/or keywords, keys camelCased and checked."""
    if args is not None and not isinstance(args, Mapping):
        raise TypeError(f"{fn}: the config must be a dict (or keywords), got {type(args).__name__}")
    merged = {_camel(k): v for k, v in (args or {}).items()}
    merged.update((_camel(k), v) for k, v in kwargs.items())
    unknown = sorted(set(merged) - allowed)
    if unknown:
        raise ValueError(
            f"{fn}: unknown config key(s) {unknown}; expected some of {sorted(allowed)}"
        )
    return merged


def get_optimizer(identifier: Any) -> Optimizer:
    """`compile`'s optimizer: a tfjs name ('sgd', 'adam', ...: tfjs's defaults) or an Optimizer.

    >>> get_optimizer("sgd").learning_rate
    0.01
    """
    if isinstance(identifier, str):
        if identifier in _OPTIMIZERS:
            return _OPTIMIZERS[identifier]()
        raise ValueError(f"Unknown Optimizer {identifier}")
    if not isinstance(identifier, Optimizer):
        raise ValueError("User-defined optimizer must be an instance of tf.Optimizer.")
    return identifier


def get_loss(identifier: Any) -> Any:
    """`compile`'s loss: a tfjs-layers loss name or a function `(yTrue, yPred) -> per sample`.

    >>> get_loss("meanSquaredError").__name__
    'mean_squared_error'
    """
    if isinstance(identifier, str):
        if identifier in _metrics.LOSSES:
            return _metrics.LOSSES[identifier]
        message = f"Unknown loss {identifier}"
        if "softmaxcrossentropy" in identifier.lower():
            message += (
                '. Use "categoricalCrossentropy" as the string name for '
                "tf.losses.softmaxCrossEntropy"
            )
        raise ValueError(message)
    if not callable(identifier):
        raise ValueError(f"Unknown loss {identifier!r}: expected a name or a function")
    return identifier


def _get_metric(identifier: Any) -> Any:
    if isinstance(identifier, str):
        if identifier in _metrics.METRICS:
            return _metrics.METRICS[identifier]
        raise ValueError(f"Unknown metric {identifier}")
    if identifier is None or not callable(identifier):
        raise ValueError(f"Unknown metric {identifier}")
    return identifier


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


_REQUIRED = object()


def _per_output(value: Any, names: list[str], what: str, missing: Any = _REQUIRED) -> list[Any]:
    """`compile`'s per-output argument: one value for every output, a list with one entry
    per output, or a dict keyed by output name (tfjs's checks and messages)."""
    if isinstance(value, Mapping):
        for key in value:
            if key not in names:
                raise ValueError(
                    f'Unknown entry in {what} dictionary: "{key}". Only expected the following '
                    f"keys: {','.join(names)}"
                )
        if missing is _REQUIRED:
            absent = [name for name in names if value.get(name) is None]
            if absent:
                raise ValueError(
                    f'Output "{absent[0]}" is missing from the {what} dictionary (expected one '
                    f"entry for each of: {','.join(names)})"
                )
        return [value.get(name, missing) for name in names]
    if isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise ValueError(
                f"When passing an Array as {what}, it should have one entry per model output. "
                f"The model has {len(names)} output(s), but you passed {what}="
                f"{','.join(str(v) for v in value)}."
            )
        return list(value)
    return [value] * len(names)


def _collect_metrics(metrics: Any, names: list[str]) -> list[list[Any]]:
    """tfjs's collectMetrics: a list applies to every output, a dict names each output's
    (keys that are not outputs are ignored, as tfjs ignores them)."""
    if isinstance(metrics, Mapping):
        return [_as_list(metrics.get(name, [])) for name in names]
    return [_as_list(metrics) for _ in names]


def _js(shape: Sequence[Any]) -> str:
    return ",".join("null" if d is None else str(d) for d in shape)


def _rank2(array: jax.Array) -> jax.Array:
    return array.reshape(-1, 1) if array.ndim == 1 else array


def _float32_mean(total: Any, count: int) -> float:
    """`total / count` in float32 (tfjs's `div` on a float32 tensor)."""
    return float(np.float32(np.asarray(total)) / np.float32(count))


def _float32_scaled(total: Any, count: int) -> float:
    """BaseLogger's `(1 / seen) * total` in float32."""
    return float((np.float32(1) / np.float32(count)) * np.float32(np.asarray(total)))


def _zeros(count: int) -> list[Any]:
    """Fresh epoch totals: one zero on the device, shared (steps never donate them)."""
    return [_zero()] * count


@functools.cache
def _zero() -> jax.Array:
    with jax.ensure_compile_time_eval():  # a concrete array even when made under a trace
        return jnp.zeros((), jnp.float32)


@functools.lru_cache(maxsize=32)
def _batch_plan(
    size: int, batch_size: int, padded: bool, most: int | None
) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int, int], ...]]:
    """An epoch over `size` rows: its batches ((start, end) rows) and its dispatches
    (first batch, batch count, window), runs of at most `most` batches (None: no limit)
    that share a window. Each batch's window (the rows its step reads) is the full batch
    size when the model pads batches, else the batch's own size.

    >>> _batch_plan(5, 2, False, None)
    (((0, 2), (2, 4), (4, 5)), ((0, 2, 2), (2, 1, 1)))
    >>> _batch_plan(5, 2, True, 2)[1]
    ((0, 2, 2), (2, 1, 2))
    """
    batches = tuple((start, min(size, start + batch_size)) for start in range(0, size, batch_size))
    if padded:
        windows = [min(batch_size, size)] * len(batches)
    else:
        windows = [end - start for start, end in batches]
    limit = len(batches) if most is None else most
    chunks: list[tuple[int, int, int]] = []
    for index, window in enumerate(windows):
        if chunks and chunks[-1][2] == window and chunks[-1][1] < limit:
            chunks[-1] = (chunks[-1][0], chunks[-1][1] + 1, window)
        else:
            chunks.append((index, 1, window))
    return batches, tuple(chunks)


def _batch_window(start: Any, window: int, length: int) -> tuple[Any, Any]:
    """The `window` rows a step reads from `start` in an array of `length` rows, and which
    of them are the batch's: a short last batch reads the window that ends at the last
    row (`dynamic_slice` clamps its start there), whose leading rows belong to the batch
    before and are masked out. One window size serves every batch: one compiled step."""
    first = jnp.clip(start, 0, length - window)
    return first, first + jnp.arange(window) >= start


def _batch_mean(values: Any, mask: Any) -> Any:
    """The mean of per-sample `values` over the rows `mask` keeps (all rows: no mask)."""
    values = jnp.asarray(values)
    if mask is None or values.ndim == 0:
        return jnp.mean(values)
    rows = values if values.ndim == 1 else jnp.mean(values.reshape(values.shape[0], -1), axis=1)
    kept = jnp.where(mask, rows, jnp.zeros((), rows.dtype))
    return jnp.sum(kept) / jnp.sum(mask).astype(rows.dtype)


def _per_sample(fn: Any) -> bool:
    """Whether a loss or metric is one of tfjs's per-sample functions (masking can drop
    a padded row from its mean); 'precision' and user functions may reduce the batch."""
    if fn in ("acc", "ce"):
        return True
    return fn is not _metrics.precision and any(fn is k for k in _library_metrics())


@functools.cache
def _library_metrics() -> tuple[Any, ...]:
    """tfjs's loss and metric functions as the library defines them."""
    known = (*_metrics.LOSSES.values(), *_metrics.METRICS.values())
    return (*known, _metrics.sparse_categorical_accuracy)


def _mixes_rows(layer: Any) -> bool:
    """Whether a layer's training pass couples a batch's rows (batch statistics) or draws
    random numbers per row: padding its batch would change what the real rows see. Layers
    from outside the library count as mixing (nothing is known of them)."""
    from_library = type(layer).__module__.startswith("tfjs_grad.")
    if isinstance(layer, _row_mixing_layers()) or not from_library:
        return True
    inner = [*(getattr(layer, "layers", None) or []), getattr(layer, "layer", None)]
    return any(_mixes_rows(sub) for sub in inner if sub is not None)


@functools.cache
def _row_mixing_layers() -> tuple[type, ...]:
    """The library's layers whose training pass mixes a batch's rows or draws per row
    (imported on first use: the layers import this module's package)."""
    from ..layers.core import Dropout
    from ..layers.noise import AlphaDropout, GaussianDropout, GaussianNoise
    from ..layers.normalization import BatchNormalization

    return (BatchNormalization, Dropout, GaussianNoise, GaussianDropout, AlphaDropout)


def _check_batch_size(batch_size: Any) -> int:
    if (
        isinstance(batch_size, bool)
        or not isinstance(batch_size, (int, np.integer))
        or batch_size <= 0
    ):
        raise ValueError(f"batchSize is required to be a positive integer, but got {batch_size}")
    return int(batch_size)


class _Compiled:
    """What `compile` fixed: the optimizer, each output's loss function and weight, the
    metric functions and the logged names (tfjs's `metricsNames`)."""

    def __init__(
        self,
        optimizer: Optimizer,
        owned: bool,
        outputs: list[str],
        losses: list[Any],
        loss_weights: list[float],
        metrics: list[tuple[str, Any, int]],
    ):
        self.optimizer, self.owned = optimizer, owned
        self.losses, self.loss_weights = losses, loss_weights
        # (name, fn or 'acc'|'ce' resolved from the output's shape at trace time, output index)
        self.metrics = metrics
        # tfjs: 'loss', each output's loss when there are several, then the metrics
        per_output = [f"{name}_loss" for name in outputs] if len(outputs) > 1 else []
        self.names = ["loss", *per_output, *(name for name, _, _ in metrics)]
        self.labels = [  # tfjs's getDedupedMetricsNames
            f"{name}_{self.names[:i].count(name)}" if self.names.count(name) > 1 else name
            for i, name in enumerate(self.names)
        ]
        # One hidden scalar per logged value after the loss: the training forward pass
        # writes the batch's value there, so it leaves the loss function (whose only result
        # is the total loss) intact.
        self.slots = [
            hidden_variable(jnp.zeros((), jnp.float32), f"<metric {name}>")
            for name in self.labels[1:]
        ]
        self.train_step: Any = None
        self.test_step: Any = None


class Trainable:
    """Mixin: tfjs's `compile`/`fit`/`evaluate`/`trainOnBatch`/`predictOnBatch`.

    The class using it provides `trainableWeights` (Variables) and `apply(x, training=)`;
    optionally `inputs`/`outputs` (symbolic tensors with `.shape` and `.name`, for tfjs's
    shape checks), `predict(x, batchSize=)` and `calculateLosses()` or
    `regularization_losses()` (regularizer penalties, added to the training loss as tfjs does).
    """

    stopTraining: bool = False
    isTraining: bool = False
    _compiled: _Compiled | None = None
    history: Any = None

    # -- compile ------------------------------------------------------------------------
    def compile(self, args: Mapping[str, Any] | None = None, **kwargs: Any) -> None:
        """Configure training: `optimizer` (name or Optimizer), `loss` (name or function:
        one for every output, a list with one per output, or a dict by output name),
        `lossWeights` (a list or dict: each output's loss is scaled in the total, as Keras
        does; tfjs 4.22 accepts the key and ignores it), `metrics` (names like 'accuracy',
        'mse', or functions: a list for every output, or a dict by output name).

        A model with several outputs logs `loss` (the total), `<output>_loss` for each
        output, then `<output>_<metric>` (tfjs's `metricsNames`).

        >>> import tfjs_grad as tf
        >>> layer = tf.layers.dense(units=1, inputShape=[2])
        >>> model = tf.sequential(layers=[layer])
        >>> loss = "meanSquaredError"
        >>> model.compile(optimizer="sgd", loss=loss, metrics=["mae"])
        >>> model.metricsNames
        ['loss', 'mae']
        """
        config = _config(args, kwargs, _COMPILE_KEYS, "compile")
        optimizer_arg = config.get("optimizer")
        optimizer = get_optimizer(optimizer_arg)
        names = [name for name, _ in self._output_specs()] or ["output"]
        loss = config.get("loss")
        if loss is None:
            raise ValueError("compile: 'loss' is required (a loss name or function)")
        losses = [get_loss(entry) for entry in _per_output(loss, names, "loss")]
        loss_weights = config.get("lossWeights")
        weights = [1.0] * len(names)
        if loss_weights is not None:
            weights = [
                1.0 if w is None else float(w)
                for w in _per_output(loss_weights, names, "lossWeights", missing=None)
            ]
        metrics_arg = config.get("metrics") or []
        metrics: list[tuple[str, Any, int]] = []
        for index, output_metrics in enumerate(_collect_metrics(metrics_arg, names)):
            for metric in output_metrics:
                if isinstance(metric, str) and metric in _ACCURACY:
                    name, entry = "acc", "acc"
                elif isinstance(metric, str) and metric in _CROSSENTROPY:
                    name, entry = "ce", "ce"
                else:
                    name, entry = _metrics.metric_name(metric), _get_metric(metric)
                metrics.append((f"{names[index]}_{name}" if len(names) > 1 else name, entry, index))
        self._dispose_compiled()
        self._compiled = _Compiled(
            optimizer, isinstance(optimizer_arg, str), names, losses, weights, metrics
        )
        self.loss = loss
        self.metrics = metrics_arg

    @property
    def optimizer(self) -> Optimizer | None:
        """The optimizer `compile` set (tfjs's `model.optimizer`)."""
        return None if self._compiled is None else self._compiled.optimizer

    @property
    def metricsNames(self) -> list[str]:  # noqa: N802 (tfjs's name)
        """['loss', each output's `<name>_loss` when there are several, then the metrics]
        (tfjs's `model.metricsNames`)."""
        return [] if self._compiled is None else list(self._compiled.names)

    metrics_names = metricsNames

    def _dispose_compiled(self) -> None:
        compiled = self._compiled
        if compiled is not None:
            for slot in compiled.slots:
                slot.dispose()
            if compiled.owned:
                compiled.optimizer.dispose()
        self._compiled = None

    def _require_compiled(self) -> _Compiled:
        if self._compiled is None:
            raise RuntimeError(
                "You must compile a model before training/testing. Use "
                "LayersModel.compile(modelCompileArgs)."
            )
        return self._compiled

    # -- the model's inputs and outputs ---------------------------------------------------
    def _specs(self, attr: str) -> list[tuple[str, list[Any] | None]]:
        tensors = getattr(self, attr, None)
        if tensors is None:
            return []
        try:
            items = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
        except TypeError:
            return []
        try:
            tfjs_names = list(getattr(self, attr[:-1] + "Names", None) or [])
        except (AttributeError, TypeError):
            tfjs_names = []
        out = []
        for i, t in enumerate(items):
            shape = getattr(t, "shape", None)
            name = tfjs_names[i] if i < len(tfjs_names) else getattr(t, "name", None)
            name = name or f"{attr}_{i}"
            out.append((str(name), None if shape is None else list(shape)))
        return out

    def _input_specs(self) -> list[tuple[str, list[Any] | None]]:
        return self._specs("inputs")

    def _output_specs(self) -> list[tuple[str, list[Any] | None]]:
        return self._specs("outputs")

    def _standardize(
        self, data: Any, specs: list[tuple[str, Any]], prefix: str, what: str
    ) -> list[jax.Array]:
        """tfjs's standardizeInputData: a tensor or a list of them (or a dict by name),
        float arrays of rank >= 2, checked against the model's shapes (batch axis free)."""
        names = [name for name, _ in specs]
        if isinstance(data, Mapping):
            arrays = []
            for name in names:
                if data.get(name) is None:
                    raise ValueError(
                        f'No data provided for "{name}". Need data for each key in: '
                        f"{','.join(names)}"
                    )
                arrays.append(data[name])
        elif isinstance(data, (list, tuple)) and data and not _is_number_list(data):
            arrays = list(data)
            if names and len(arrays) != len(names):
                raise ValueError(
                    f"Error when checking model {prefix}: the Array of Tensors that you are "
                    f"passing to your model is not the size the model expected. Expected to "
                    f"see {len(names)} Tensor(s), but instead got {len(arrays)} Tensor(s)."
                )
        else:
            if len(names) > 1:
                raise ValueError(
                    f"The model {prefix} expects {len(names)} Tensor(s), but only received one "
                    "Tensor."
                )
            arrays = [data]
        converted = []
        for a in arrays:
            x = convert(a, argument=what, fn="fit")
            if not jnp.issubdtype(x.dtype, jnp.floating) and not jnp.issubdtype(
                x.dtype, jnp.integer
            ):
                x = x.astype(jnp.float32)
            converted.append(_rank2(x))
        for (name, shape), array in zip(specs, converted):
            if shape is None:
                continue
            if array.ndim != len(shape):
                raise ValueError(
                    f"Error when checking {prefix}: expected {name} to have {len(shape)} "
                    f"dimension(s). but got array with shape {_js(array.shape)}"
                )
            for j in range(1, len(shape)):
                ref = shape[j]
                if ref is not None and ref >= 0 and array.shape[j] != ref:
                    inner = _js(shape[1:])
                    raise ValueError(
                        f"{prefix} expected a batch of elements where each example has shape "
                        f"[{inner}] (i.e.,tensor shape [*,{inner}]) but the {prefix} received an "
                        f"input with {array.shape[0]} examples, each with shape "
                        f"[{_js(array.shape[1:])}] (tensor shape [{_js(array.shape)}])"
                    )
        return converted

    def _standardize_xy(self, x: Any, y: Any) -> tuple[list[jax.Array], list[jax.Array]]:
        compiled = self._require_compiled()
        xs = self._standardize(x, self._input_specs(), "input", "x")
        output_specs = self._output_specs()
        out_specs = []
        for (name, shape), loss in zip(output_specs, compiled.losses):
            if shape is not None and loss is _metrics.sparse_categorical_crossentropy:
                shape = shape[:-1] + [1]
            out_specs.append((name, shape))
        ys = self._standardize(y, out_specs, "target", "y")
        x_counts = {a.shape[0] for a in xs}
        y_counts = {a.shape[0] for a in ys}
        if len(x_counts) > 1:
            raise ValueError(
                "All input Tensors (x) should have the same number of samples. Got array "
                f"shapes: {[list(a.shape) for a in xs]}"
            )
        if len(y_counts) > 1:
            raise ValueError(
                "All target Tensors (y) should have the same number of samples. Got array "
                f"shapes: {[list(a.shape) for a in ys]}"
            )
        if x_counts and y_counts and x_counts != y_counts:
            raise ValueError(
                "Input Tensors should have the same number of samples as target Tensors. "
                f"Found {x_counts.pop()} input sample(s) and {y_counts.pop()} target sample(s)."
            )
        for target, loss, (_, shape) in zip(ys, compiled.losses, output_specs):
            if loss is _metrics.categorical_crossentropy and target.shape[-1] == 1:
                raise ValueError(
                    f"You are passing a target array of shape {_js(target.shape)} while using a "
                    "loss 'categorical_crossentropy'. 'categorical_crossentropy'expects targets "
                    "to be binary matrices (1s and 0s) of shape [samples, classes]."
                )
            keyed = (
                _metrics.mean_squared_error,
                _metrics.binary_crossentropy,
                _metrics.categorical_crossentropy,
            )
            if shape is not None and loss in keyed:
                for t_dim, o_dim in zip(target.shape[1:], shape[1:]):
                    if o_dim is not None and t_dim != o_dim:
                        raise ValueError(
                            f"A target Tensor with shape {_js(target.shape)} was passed for an "
                            f"output of shape {_js(shape)}, while using a loss function that "
                            "expects targets to have the same shape as the output."
                        )
        return xs, ys

    # -- the compiled programs -------------------------------------------------------------
    def _forward(self, xs: list[Any], training: bool) -> list[Any]:
        out = self.apply(xs[0] if len(xs) == 1 else xs, training=training)  # type: ignore[attr-defined]
        return _as_list(out)

    @staticmethod
    def _metric_fn(entry: Any, loss: Any, output: Any) -> Any:
        if entry not in ("acc", "ce"):
            return entry
        if output.shape[-1] == 1 or loss is _metrics.binary_crossentropy:
            return _metrics.binary_accuracy if entry == "acc" else _metrics.binary_crossentropy
        if loss is _metrics.sparse_categorical_crossentropy:
            if entry == "acc":
                return _metrics.sparse_categorical_accuracy
            return _metrics.sparse_categorical_crossentropy
        return (
            _metrics.categorical_accuracy if entry == "acc" else _metrics.categorical_crossentropy
        )

    def _losses_and_metrics(
        self,
        compiled: _Compiled,
        ys: list[Any],
        outputs: list[Any],
        weights: Any,
        mask: Any = None,
    ) -> tuple[Any, list[Any]]:
        """The batch's total loss (tfjs: the per-sample losses summed over the outputs, then
        averaged; each scaled by its `lossWeights` entry), then the logged values after it:
        each output's mean loss (when there are several), then each metric's mean."""
        total: Any = None
        output_losses = []
        for i, (loss_fn, scale, target, output) in enumerate(
            zip(compiled.losses, compiled.loss_weights, ys, outputs)
        ):
            per_sample = loss_fn(target, output)
            if weights is not None:  # class weights: a vector, or a column per output
                per_sample = per_sample * (weights if weights.ndim == 1 else weights[:, i])
            output_losses.append(_batch_mean(per_sample, mask))
            scaled = per_sample if scale == 1.0 else per_sample * scale
            total = scaled if total is None else total + scaled
        values = output_losses if len(outputs) > 1 else []
        for _, entry, index in compiled.metrics:
            fn = self._metric_fn(entry, compiled.losses[index], outputs[index])
            values.append(_batch_mean(fn(ys[index], outputs[index]), mask))
        return _batch_mean(total, mask), values

    def _penalties(self) -> list[Any]:
        """The regularizers' penalties (tfjs's `calculateLosses`), added to the training loss."""
        for name in ("calculateLosses", "regularization_losses"):
            fn = getattr(self, name, None)
            if fn is not None:
                return list(fn())
        return []

    def _pads_batches(self, compiled: _Compiled) -> bool:
        """Whether a short batch may run in the full batch's program, padded and masked:
        only tfjs's per-sample losses and metrics, and no layer that mixes rows."""
        layers = getattr(self, "layers", None)
        if layers is None:
            return False
        functions = [*compiled.losses, *(entry for _, entry, _ in compiled.metrics)]
        return all(map(_per_sample, functions)) and not any(map(_mixes_rows, layers))

    def _train_program(self, compiled: _Compiled) -> Any:
        if compiled.train_step is not None:
            return compiled.train_step

        labels = len(compiled.labels)

        # Flat arguments (ints, then arrays): tf.jit's and jax.jit's fastest call path.
        # `count` batches from row `start` on, `stride` rows apart, in one program;
        # arrays = (*epoch totals, *xs, *ys, [sample weights], [sample order])
        def train_step(window, n_x, n_y, weighted, ordered, start, count, stride, *arrays):
            start, count, stride = unwrap(start), unwrap(count), unwrap(stride)  # tf.jit
            arrays = tuple(unwrap(a) for a in arrays)
            totals, rest = arrays[:labels], arrays[labels:]
            xs, ys, rest = rest[:n_x], rest[n_x : n_x + n_y], rest[n_x + n_y :]
            weights = rest[0] if weighted else None

            def one_batch(i, state):
                _, totals = state
                begin = start + i * stride
                first, mask = _batch_window(begin, window, xs[0].shape[0])
                if ordered:
                    ids = jax.lax.dynamic_slice_in_dim(rest[-1], first, window)
                    take = lambda a: jnp.take(a, ids, axis=0)  # noqa: E731
                else:
                    take = lambda a: jax.lax.dynamic_slice_in_dim(a, first, window)  # noqa: E731
                bx, by = [take(a) for a in xs], [take(a) for a in ys]
                bw = None if weights is None else take(weights)

                def total_loss():
                    outputs = self._forward(bx, training=True)
                    loss, values = self._losses_and_metrics(compiled, by, outputs, bw, mask)
                    for slot, value in zip(compiled.slots, values):
                        slot.assign(value.astype(jnp.float32))
                    for penalty in self._penalties():
                        loss = loss + penalty
                    return loss

                weights_list = list(self.trainableWeights)  # type: ignore[attr-defined]
                cost = unwrap(compiled.optimizer.minimize(total_loss, True, weights_list))
                values = [jnp.asarray(cost, jnp.float32)]
                values += [slot.raw().astype(jnp.float32) for slot in compiled.slots]
                n = jnp.sum(mask).astype(jnp.float32)
                return values, [t + v * n for t, v in zip(totals, values)]

            initial = ([jnp.zeros((), jnp.float32) for _ in totals], list(totals))
            return repeat_steps(count, one_batch, initial)

        compiled.train_step = jit(train_step, static_argnums=(0, 1, 2, 3, 4))
        return compiled.train_step

    def _test_program(self, compiled: _Compiled) -> Any:
        if compiled.test_step is not None:
            return compiled.test_step

        # `count` batches from row `start` on, `stride` rows apart, in one program
        def test_step(xs, ys, start, count, stride, totals, window):
            xs, ys, totals = unwrap_tree((xs, ys, totals))  # tf.jit: Tensors
            start, count, stride = unwrap(start), unwrap(count), unwrap(stride)

            def one_batch(i, totals):
                first, mask = _batch_window(start + i * stride, window, xs[0].shape[0])
                take = lambda a: jax.lax.dynamic_slice_in_dim(a, first, window)  # noqa: E731
                outputs = self._forward([take(a) for a in xs], training=False)
                loss, values = self._losses_and_metrics(
                    compiled, [take(a) for a in ys], outputs, None, mask
                )
                n = jnp.sum(mask).astype(jnp.float32)
                return [t + v.astype(jnp.float32) * n for t, v in zip(totals, [loss, *values])]

            return repeat_steps(count, one_batch, list(totals))

        compiled.test_step = jit(test_step, static_argnums=6)
        return compiled.test_step

    def _test_loop(self, xs: list[Any], ys: list[Any], batch_size: int) -> list[Any]:
        compiled = self._require_compiled()
        step = self._test_program(compiled)
        n = xs[0].shape[0]
        totals = _zeros(len(compiled.labels))
        padded = self._pads_batches(compiled)
        for first, count, window in _batch_plan(n, batch_size, padded, None)[1]:
            totals = step(xs, ys, first * batch_size, count, batch_size, totals, window)
        return [wrap(jnp.float32(unwrap(t)) / jnp.float32(n)) for t in totals]

    # -- fit ----------------------------------------------------------------------------
    def fit(
        self, x: Any, y: Any, args: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> _callbacks.History:
        """Train for `epochs` over `(x, y)`; returns a `History` (awaitable, as tfjs's Promise).

        Config (a dict or keywords, camelCase or snake_case): `epochs` (1), `batchSize`
        (32), `shuffle` (True), `validationSplit`, `validationData` ([x, y]), `callbacks`,
        `verbose` (1: a progress bar), `initialEpoch` (0), `classWeight` ({class: weight}).

        >>> import tfjs_grad as tf
        >>> layer = tf.layers.dense(units=1, inputShape=[1])
        >>> model = tf.sequential(layers=[layer])
        >>> model.compile(optimizer=tf.train.sgd(0.1), loss="meanSquaredError")
        >>> h = model.fit([[1.0], [2.0]], [[2.0], [4.0]], epochs=3, verbose=0)
        >>> h.epoch, len(h.history["loss"])
        ([0, 1, 2], 3)
        """
        if self.isTraining:
            raise RuntimeError("Cannot start training because another fit() call is ongoing.")
        config = _config(args, kwargs, _FIT_KEYS, "fit")
        self.isTraining = True
        try:
            return self._fit(x, y, config)
        finally:
            self.isTraining = False

    def _fit(self, x: Any, y: Any, config: dict[str, Any]) -> Any:
        batch_size = _check_batch_size(
            32 if config.get("batchSize") is None else config["batchSize"]
        )
        if config.get("sampleWeight") is not None:
            raise NotImplementedError("Support sampleWeight is not implemented yet")
        if config.get("stepsPerEpoch") is not None:
            raise NotImplementedError("stepsPerEpoch mode is not implemented yet.")
        xs, ys = self._standardize_xy(x, y)
        self._check_stateful_batches(xs, batch_size)
        weights = None
        if config.get("classWeight") is not None:
            names = [name for name, _ in self._output_specs()] or ["output"]
            weights = _class_weights(ys, config["classWeight"], names)
        do_validation = False
        val_xs: list[Any] = []
        val_ys: list[Any] = []
        validation_data = config.get("validationData")
        split = config.get("validationSplit")
        if validation_data is not None and len(validation_data) > 0:
            if len(validation_data) == 3:
                raise NotImplementedError(
                    "validationData including sample weights is not supported yet."
                )
            if len(validation_data) != 2:
                raise ValueError(
                    "When passing validation data, it must contain 2 (valX, valY) or 3 (valX, "
                    f"valY, valSampleWeight) items; {validation_data} is invalid."
                )
            do_validation = True
            val_xs, val_ys = self._standardize_xy(validation_data[0], validation_data[1])
        elif split is not None and 0 < split < 1:
            do_validation = True
            n = xs[0].shape[0]
            split_at = int(np.floor(n * (1 - split)))
            val_xs, val_ys = [a[split_at:] for a in xs], [a[split_at:] for a in ys]
            xs, ys = [a[:split_at] for a in xs], [a[:split_at] for a in ys]
            if weights is not None:
                weights = weights[:split_at]
        if xs[0].shape[0] == 0:
            # tfjs runs its epochs on no batches (empty logs, weights unchanged); a step on
            # no samples here would average over zero and train on NaN, so it is refused.
            left = f" once validationSplit {split} is taken" if do_validation and split else ""
            raise ValueError(f"model.fit() has no training samples{left}")
        epochs = 1 if config.get("epochs") is None else int(config["epochs"])
        initial_epoch = int(config.get("initialEpoch") or 0)
        shuffle = True if config.get("shuffle") is None else config["shuffle"]
        if shuffle == "batch":
            raise NotImplementedError("batch shuffling is not implemneted yet")
        verbose = 1 if config.get("verbose") is None else int(config["verbose"])
        return self._fit_loop(
            xs, ys, weights, batch_size, epochs, initial_epoch, bool(shuffle), verbose,
            _callbacks.standardize(config.get("callbacks")),
            (val_xs, val_ys) if do_validation else None, config.get("yieldEvery"),
        )  # fmt: skip

    def _fit_loop(
        self,
        xs: list[Any],
        ys: list[Any],
        weights: Any,
        batch_size: int,
        epochs: int,
        initial_epoch: int,
        shuffle: bool,
        verbose: int,
        user_callbacks: list[Any],
        validation: tuple[list[Any], list[Any]] | None,
        yield_every: Any = None,
    ) -> Any:
        compiled = self._require_compiled()
        labels = compiled.labels
        callback_metrics = labels + ([f"val_{k}" for k in labels] if validation else [])
        n = xs[0].shape[0]
        history = _callbacks.History()
        callbacks = [*user_callbacks, history]
        params = {
            "epochs": epochs, "initialEpoch": initial_epoch, "samples": n, "steps": None,
            "batchSize": batch_size, "verbose": verbose, "doValidation": validation is not None,
            "metrics": callback_metrics,
        }  # fmt: skip
        for cb in callbacks:
            cb.setModel(self)
            cb.setParams(params)
        self.history = history
        batch_logs_wanted = any(cb._wants_batch_logs() for cb in user_callbacks)
        batch_begin = [cb for cb in user_callbacks if _overrides(cb, "onBatchBegin")]
        step = self._train_program(compiled)
        n_batches = -(-n // batch_size)
        progress = _Progress(verbose, epochs, n_batches)
        clock = _callbacks.YieldClock(user_callbacks, yield_every)
        per_batch = batch_logs_wanted or bool(batch_begin) or clock.wanted
        most = 1 if per_batch else progress.chunk()
        batches, chunks = _batch_plan(n, batch_size, self._pads_batches(compiled), most)
        progressed = progress.tqdm is not None
        # Only History reads the epoch logs: they stay on the device until it is read, and
        # the next epoch (or the next fit call) is dispatched without waiting for this one.
        unread = not user_callbacks and verbose == 0
        _callbacks.run_hook(callbacks, "onTrainBegin", _callbacks.Logs())
        self.stopTraining = False
        # shuffled in place each epoch, as tfjs's indexArray
        order = list(range(n)) if shuffle else []
        try:
            for epoch in range(initial_epoch, epochs):
                _callbacks.run_hook(callbacks, "onEpochBegin", epoch, _callbacks.Logs())
                epoch_logs = _callbacks.Logs()
                indices = None
                if shuffle:
                    _shuffle(order)
                    indices = jnp.asarray(np.asarray(order, np.int32))
                data = (*xs, *ys, *([] if weights is None else [weights]))
                data += () if indices is None else (indices,)
                flags = (len(xs), len(ys), weights is not None, indices is not None)
                totals = _zeros(len(labels))
                seen = 0  # samples stepped on this epoch
                progress.start(epoch)
                for batch_index, count, window in chunks:
                    if self.stopTraining:  # set before the epoch's first step: one step
                        count = 1
                    if batch_begin:
                        _callbacks.run_hook(
                            batch_begin, "onBatchBegin", batch_index, _callbacks.Logs()
                        )
                    start = batches[batch_index][0]
                    values, totals = step(window, *flags, start, count, batch_size, *totals, *data)
                    batch_index += count - 1
                    size = batches[batch_index][1] - batches[batch_index][0]
                    seen = batches[batch_index][1]
                    if batch_index == len(batches) - 1 and validation is not None:
                        val = self._test_loop(validation[0], validation[1], batch_size)
                        for label, value in zip(labels, val):
                            epoch_logs[f"val_{label}"] = value
                    if batch_logs_wanted or clock.wanted:
                        logs = _callbacks.Logs(batch=batch_index, size=size)
                        logs.update((k, float(v)) for k, v in zip(labels, values))
                        if batch_logs_wanted:
                            _callbacks.run_hook(user_callbacks, "onBatchEnd", batch_index, logs)
                        clock.after_batch(epoch, batch_index, logs)
                    if progressed:
                        progress.batch(values[0], count)
                    if self.stopTraining:
                        break
                for key, total in zip(labels, totals):
                    mean = functools.partial(_float32_scaled, unwrap(total), seen)
                    epoch_logs[key] = _callbacks.PendingNumber(mean) if unread else mean()
                for key, value in list(epoch_logs.items()):
                    if key.startswith("val_"):
                        # (the array: an enclosing tf.tidy disposes the Tensor)
                        number = functools.partial(float, unwrap(value))
                        epoch_logs[key] = _callbacks.PendingNumber(number) if unread else number()
                progress.end(epoch_logs)
                _callbacks.run_hook(callbacks, "onEpochEnd", epoch, epoch_logs)
                if self.stopTraining:
                    break
        finally:
            progress.close()
        _callbacks.run_hook(callbacks, "onTrainEnd", _callbacks.Logs())
        return history

    # -- evaluate / trainOnBatch / predictOnBatch -------------------------------------
    def evaluate(
        self, x: Any, y: Any, args: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Tensor | list[Tensor]:
        """Loss (and metrics) over `(x, y)` in inference mode, batched (`batchSize`, 32):
        a scalar tensor, or `[loss, *metrics]` when the model has metrics.

        >>> import tfjs_grad as tf
        >>> layer = tf.layers.dense(units=1, inputShape=[1], useBias=False)
        >>> model = tf.sequential(layers=[layer])
        >>> model.setWeights([tf.tensor2d([[2.0]])])
        >>> model.compile(optimizer="sgd", loss="meanSquaredError")
        >>> float(model.evaluate([[1.0], [2.0]], [[2.0], [5.0]]))
        0.5
        """
        config = _config(args, kwargs, _EVALUATE_KEYS, "evaluate")
        batch_size = _check_batch_size(
            32 if config.get("batchSize") is None else config["batchSize"]
        )
        if config.get("sampleWeight") is not None:
            raise NotImplementedError("Support sampleWeight is not implemented yet")
        xs, ys = self._standardize_xy(x, y)
        self._check_stateful_batches(xs, batch_size)
        outs = self._test_loop(xs, ys, batch_size)
        return outs[0] if len(outs) == 1 else outs

    def _check_stateful_batches(self, xs: list[Any], batch_size: int) -> None:
        """A stateful model carries states from batch to batch: as tfjs's
        standardizeUserData, fit and evaluate take only whole batches."""
        if getattr(self, "stateful", False) and xs[0].shape[0] % batch_size:
            raise ValueError(
                "In a stateful network, you should only pass inputs with a number of samples "
                f"that is divisible by the batch size {batch_size}. Found: {xs[0].shape[0]} "
                "sample(s)."
            )

    def trainOnBatch(self, x: Any, y: Any) -> Any:  # noqa: N802 (tfjs's name)
        """One optimizer step on the whole `(x, y)`; the loss before it (a float), or
        `[loss, *metrics]` with metrics.

        >>> import tfjs_grad as tf
        >>> layer = tf.layers.dense(units=1, inputShape=[1], useBias=False)
        >>> model = tf.sequential(layers=[layer])
        >>> model.setWeights([tf.tensor2d([[1.0]])])
        >>> model.compile(optimizer=tf.train.sgd(0.1), loss="meanSquaredError")
        >>> x, y = [[1.0]], [[2.0]]
        >>> model.trainOnBatch(x, y), model.trainOnBatch(x, y)
        (1.0, 0.6399999260902405)
        """
        compiled = self._require_compiled()
        xs, ys = self._standardize_xy(x, y)
        step = self._train_program(compiled)
        n = xs[0].shape[0]
        totals = _zeros(len(compiled.labels))
        values, _ = step(n, len(xs), len(ys), False, False, 0, 1, n, *totals, *xs, *ys)
        out = [float(v) for v in values]
        return out[0] if len(out) == 1 else out

    def predictOnBatch(self, x: Any) -> Tensor | list[Tensor]:  # noqa: N802 (tfjs's name)
        """The model's outputs on `x` as one batch (inference mode).

        >>> import tfjs_grad as tf
        >>> layer = tf.layers.dense(units=1, inputShape=[1], useBias=False)
        >>> model = tf.sequential(layers=[layer])
        >>> model.setWeights([tf.tensor2d([[3.0]])])
        >>> model.predictOnBatch(tf.tensor2d([[1.0], [2.0]])).tolist()
        [[3.0], [6.0]]
        """
        xs = self._standardize(x, self._input_specs(), "input", "x")
        predict = getattr(self, "predict", None)
        data = xs[0] if len(xs) == 1 else xs
        if predict is not None:
            return predict(data, batchSize=xs[0].shape[0])
        return self.apply(data, training=False)  # type: ignore[attr-defined]

    # -- tf.data ------------------------------------------------------------------------
    def fitDataset(  # noqa: N802 (tfjs's name)
        self, dataset: Any, args: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        """Train on a `tf.data.Dataset` of batches `{xs, ys}`; returns a `History`.

        Config: `epochs` (required), `batchesPerEpoch` (else each epoch reads the dataset
        to its end), `validationData` (a Dataset, or `[x, y]`), `validationBatches`,
        `validationBatchSize` (32), `callbacks`, `verbose`, `initialEpoch`.

        >>> import tfjs_grad as tf
        >>> model = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[1])])
        >>> model.compile(optimizer="sgd", loss="meanSquaredError")
        >>> xs = tf.data.array([[1.0], [2.0], [3.0]])
        >>> ds = tf.data.zip({"xs": xs, "ys": xs.map(lambda x: [2 * x[0]])}).batch(2)
        >>> len(model.fitDataset(ds, epochs=2, verbose=0).history["loss"])
        2
        """
        return fit_dataset(self, dataset, list(self._require_compiled().labels), args, kwargs)

    def evaluateDataset(  # noqa: N802 (tfjs's name)
        self, dataset: Any, args: Mapping[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        """Loss (and metrics) over a Dataset of batches `{xs, ys}`, or its first `batches`.

        >>> import tfjs_grad as tf
        >>> layer = tf.layers.dense(units=1, inputShape=[1], useBias=False)
        >>> model = tf.sequential(layers=[layer])
        >>> model.setWeights([tf.tensor2d([[2.0]])])
        >>> model.compile(optimizer="sgd", loss="meanSquaredError")
        >>> ds = tf.data.array([{"xs": [[1.0], [2.0]], "ys": [[2.0], [5.0]]}])
        >>> float(model.evaluateDataset(ds))
        0.5
        """
        self._require_compiled()
        return evaluate_dataset(self, dataset, args, kwargs)

    train_on_batch = trainOnBatch
    predict_on_batch = predictOnBatch
    fit_dataset = fitDataset
    evaluate_dataset = evaluateDataset


def _shuffle(array: list[int]) -> None:
    """tfjs's `util.shuffle` (Fisher-Yates, from the back), with `random.random` for JS's
    `Math.random`: seeding `random` (or replaying tfjs's draws) reproduces tfjs's order."""
    counter = len(array)
    while counter > 0:
        index = int(random.random() * counter)
        counter -= 1
        array[counter], array[index] = array[index], array[counter]


def _overrides(cb: Any, name: str) -> bool:
    if isinstance(cb, _callbacks.CustomCallback):
        return name in cb._hooks
    return getattr(type(cb), name) is not getattr(_callbacks.Callback, name)


def _is_number_list(data: Sequence[Any]) -> bool:
    first = data[0]
    return (
        isinstance(first, (int, float, list, tuple))
        and not isinstance(first, bool)
        or (isinstance(first, (list, tuple)))
    )


def _class_weights(ys: list[jax.Array], class_weight: Any, names: list[str]) -> jax.Array:
    """tfjs's standardizeClassWeights + standardizeWeights: each sample's class (an id, or
    the arg-max of a one-hot row) mapped through its output's `classWeight`. One output:
    a vector; several: a column per output (1 where an output has no class weights)."""
    if len(names) == 1:
        if isinstance(class_weight, (list, tuple)) and len(class_weight) == 1:
            class_weight = class_weight[0]
        elif isinstance(class_weight, Mapping) and names[0] in class_weight:
            class_weight = class_weight[names[0]]
        elif isinstance(class_weight, (list, tuple)):
            raise ValueError(
                f"Provided classWeight is an array of {len(class_weight)} element(s), but the "
                "model has 1 outputs. Make sure a set of weights is provided for each model output."
            )
        return _sample_class_weights(ys[0], class_weight)
    if isinstance(class_weight, (list, tuple)):
        if len(class_weight) != len(names):
            raise ValueError(
                f"Provided classWeight is an array of {len(class_weight)} element(s), but the "
                f"model has {len(names)} outputs. Make sure a set of weights is provided for "
                "each model output."
            )
        per_output = list(class_weight)
    elif (
        isinstance(class_weight, Mapping)
        and class_weight
        and isinstance(next(iter(class_weight.values())), Mapping)
    ):
        per_output = [class_weight.get(name) for name in names]
    else:
        raise ValueError(
            f"The model has multiple ({len(names)}) outputs, so classWeight must be either an "
            f"array with {len(names)} elements or an object with {','.join(names)} keys. "
            f"Provided classWeight not understood: {class_weight}"
        )
    columns = [
        jnp.ones((y.shape[0],), jnp.float32) if table is None else _sample_class_weights(y, table)
        for y, table in zip(ys, per_output)
    ]
    return jnp.stack(columns, axis=1)


def _sample_class_weights(y: jax.Array, class_weight: Mapping[Any, Any]) -> jax.Array:
    values = np.asarray(y)
    if values.ndim == 1:
        classes = values
    elif values.ndim == 2 and values.shape[1] > 1:
        classes = values.argmax(axis=1)
    elif values.ndim == 2 and values.shape[1] == 1:
        classes = values.reshape(-1)
    else:
        raise ValueError(
            f"Unexpected rank of target (y) tensor ({values.ndim}) during handling of class "
            "weights. The rank is expected to be 1 or 2."
        )
    table = {int(k): float(v) for k, v in class_weight.items()}
    out = []
    for c in classes.astype(np.int64).tolist():
        if c not in table:
            raise ValueError(
                "classWeight must contain all classes in the training data. The class "
                f"{c} exists in the data but not in classWeight"
            )
        out.append(table[c])
    return jnp.asarray(np.asarray(out, np.float32))


class _Progress:
    """verbose=1: a tqdm bar per epoch with the running loss (tqdm when installed, else one
    line per epoch); verbose=0: nothing. The loss is read (a device sync) at most ~5 times
    a second, so the bar costs the training loop next to nothing."""

    def __init__(self, verbose: int, epochs: int, batches: int):
        self.verbose, self.epochs, self.batches = verbose, epochs, batches
        self.bar: Any = None
        self.last = 0.0
        self.tqdm = None
        if verbose == 1:
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover (tqdm is in the demo/test extras)
                tqdm = None
            self.tqdm = tqdm

    def start(self, epoch: int) -> None:
        if self.tqdm is not None:
            self.bar = self.tqdm(
                total=self.batches,
                desc=f"Epoch {epoch + 1}/{self.epochs}",
                unit="batch",
                leave=True,
            )
            self.last = time.monotonic()

    def chunk(self) -> int:
        """How many batches one dispatch may run: all of an epoch's, or about a twentieth
        of them when a bar shows the progress."""
        return self.batches if self.bar is None and self.tqdm is None else -(-self.batches // 20)

    def batch(self, loss: Any, count: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(count)
            now = time.monotonic()
            if now - self.last > 0.2:
                self.last = now
                self.bar.set_postfix(loss=f"{float(loss):.4g}", refresh=False)

    def end(self, logs: Mapping[str, Any]) -> None:
        if self.verbose < 1:
            return
        text = {k: f"{v:.4g}" for k, v in logs.items()}
        if self.bar is not None:
            self.bar.set_postfix(text)
            self.bar.close()
            self.bar = None
        else:
            print(" - ".join(f"{k}={v}" for k, v in text.items()))

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


# A Variable list type check helper for pyright users of the mixin.
VariableList = list[Variable]
