"""`tf.callbacks`: what `model.fit` calls while it trains, as tfjs-layers has it.

`fit(..., callbacks=...)` takes a `Callback`, an object or dict with any of `onTrainBegin,
onTrainEnd, onEpochBegin, onEpochEnd, onBatchBegin, onBatchEnd, onYield` (snake_case names
too: `on_epoch_end`), or a list of those. Hooks get `(logs)` for train begin/end,
`(epoch, batch, logs)` for onYield and `(epoch, logs)` / `(batch, logs)` otherwise; logs
hold Python floats. onYield runs after a batch at most once every `yieldEvery` ms (fit's
config: a number, or 'auto' = 125 ms; 'batch', 'epoch' and 'never' never call it), as tfjs.
A hook may be an `async def`: fit runs it to completion before going on, as tfjs awaits it.
`tf.callbacks.earlyStopping({...})` stops training when a monitored value stops improving;
`modelCheckpoint`, `csvLogger` and `reduceLROnPlateau` do what Keras's callbacks of those
names do (`_epoch_callbacks.py`).

>>> import tfjs_grad as tf
>>> stop = tf.callbacks.earlyStopping(monitor="loss", patience=1)
>>> stop.monitor, stop.patience
('loss', 1)
"""

from __future__ import annotations

import asyncio
import inspect
import numbers
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ._monitor import Monitor

__all__ = [
    "Callback",
    "Logs",
    "CustomCallback",
    "EarlyStopping",
    "History",
    "earlyStopping",
    "early_stopping",
    "ModelCheckpoint",
    "CSVLogger",
    "ReduceLROnPlateau",
    "modelCheckpoint",
    "model_checkpoint",
    "csvLogger",
    "csv_logger",
    "reduceLROnPlateau",
    "reduce_lr_on_plateau",
]

_HOOKS = (
    ("onTrainBegin", "on_train_begin"),
    ("onTrainEnd", "on_train_end"),
    ("onEpochBegin", "on_epoch_begin"),
    ("onEpochEnd", "on_epoch_end"),
    ("onBatchBegin", "on_batch_begin"),
    ("onBatchEnd", "on_batch_end"),
    ("onYield", "on_yield"),
)


class Logs(dict):
    """A dict whose keys read as attributes too: `logs.loss` is `logs["loss"]`, as tfjs's logs.

    fit's hooks get their logs as this, and `History.history` is one (key -> values).
    A missing key raises AttributeError naming it; equality and repr are a plain dict's.

    >>> from tfjs_grad.callbacks import Logs
    >>> logs = Logs(loss=0.5)
    >>> logs.loss, logs["loss"], logs == {"loss": 0.5}
    (0.5, 0.5, True)
    >>> logs.acc
    Traceback (most recent call last):
    ...
    AttributeError: logs have no key 'acc'
    """

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"logs have no key {name!r}") from None

    def __setattr__(self, name: str, value: Any) -> None:
        self[name] = value

    def __delattr__(self, name: str) -> None:
        try:
            del self[name]
        except KeyError:
            raise AttributeError(f"logs have no key {name!r}") from None


def _settle(result: Any) -> Any:
    """Run a hook's coroutine to completion (in a worker thread if a loop is running)."""
    if not inspect.isawaitable(result):
        return result
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(result))
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(_awaited(result))
        except BaseException as error:  # re-raised in the caller's thread
            box["error"] = error

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


async def _awaited(awaitable: Any) -> Any:
    return await awaitable


class Callback:
    """Base class: override any of the six hooks; `model` and `params` are set by fit.

    >>> import tfjs_grad as tf
    >>> class Count(tf.callbacks.Callback):
    ...     def onEpochEnd(self, epoch, logs=None):
    ...         print(epoch, sorted(logs))
    >>> Count().onEpochEnd(0, {"loss": 1.0})
    0 ['loss']
    """

    model: Any = None
    params: dict[str, Any]

    def __init__(self) -> None:
        self.params = {}

    def setModel(self, model: Any) -> None:  # noqa: N802 (tfjs's name)
        """Attach the model being trained (`fit` calls this)."""
        self.model = model

    def setParams(self, params: dict[str, Any]) -> None:  # noqa: N802 (tfjs's name)
        """The fit's parameters: epochs, initialEpoch, samples, batchSize, metrics, ..."""
        self.params = params

    set_model = setModel
    set_params = setParams

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        """Called once before the first epoch."""

    def onTrainEnd(self, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        """Called once after the last epoch."""

    def onEpochBegin(self, epoch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        """Called at the start of each epoch."""

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        """Called at the end of each epoch with its values (`loss`, metrics, `val_*`)."""

    def onBatchBegin(self, batch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        """Called before each batch's step."""

    def onBatchEnd(self, batch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        """Called after each batch's step with `batch`, `size`, `loss` and the metrics."""

    def _wants_batch_logs(self) -> bool:
        return type(self).onBatchEnd is not Callback.onBatchEnd


class CustomCallback(Callback):
    """A callback from an object or dict of hook functions (tfjs's `CustomCallbackArgs`).

    >>> import tfjs_grad as tf
    >>> cb = tf.callbacks.CustomCallback({"on_epoch_end": lambda epoch, logs: print(epoch)})
    >>> cb.onEpochEnd(3, {})
    3
    """

    def __init__(self, hooks: Any):
        super().__init__()
        self._hooks: dict[str, Any] = {}
        for camel, snake in _HOOKS:
            fn = _lookup(hooks, camel, snake)
            if fn is not None:
                if not callable(fn):
                    raise TypeError(f"Callback hook '{camel}' must be a function, got {fn!r}")
                self._hooks[camel] = fn
        if not self._hooks and not isinstance(hooks, Mapping):
            raise TypeError(
                "Expected a tf.callbacks.Callback, or an object or dict with any of "
                f"{', '.join(c for c, _ in _HOOKS)}; got {type(hooks).__name__}"
            )

    def _call(self, name: str, *args: Any) -> Any:
        fn = self._hooks.get(name)
        return None if fn is None else _settle(fn(*args))

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onTrainBegin", logs)

    def onTrainEnd(self, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onTrainEnd", logs)

    def onEpochBegin(self, epoch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onEpochBegin", epoch, logs)

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onEpochEnd", epoch, logs)

    def onBatchBegin(self, batch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onBatchBegin", batch, logs)

    def onBatchEnd(self, batch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onBatchEnd", batch, logs)

    def onYield(self, epoch: int, batch: int, logs: dict[str, Any] | None = None) -> Any:  # noqa: N802
        return self._call("onYield", epoch, batch, logs)

    @property
    def yields(self) -> bool:
        """Whether this callback has an onYield hook."""
        return "onYield" in self._hooks

    def _wants_batch_logs(self) -> bool:
        return "onBatchEnd" in self._hooks


_YIELD_EVERY_AUTO_MS = 125  # tfjs-layers' DEFAULT_YIELD_EVERY_MS


class YieldClock:
    """When fit calls its callbacks' onYield hooks, from fit's `yieldEvery` config.

    As tfjs: a number (milliseconds) or 'auto' (125 ms) calls onYield after a batch once at
    least that long has passed since training began or since the last call; 'batch',
    'epoch' and 'never' never call it ('never' with an onYield hook is an error). A fit
    with an onYield hook dispatches its steps one batch at a time, so the hook can run.

    >>> from tfjs_grad.callbacks import CustomCallback, YieldClock
    >>> seen = []
    >>> clock = YieldClock([CustomCallback({"onYield": lambda e, b, logs: seen.append(b)})], 0)
    >>> clock.wanted
    True
    >>> clock.after_batch(0, 7, {"loss": 1.0}); seen
    [7]
    """

    def __init__(self, callbacks: Sequence[Callback], yield_every: Any = None):
        every = "auto" if yield_every is None else yield_every
        is_number = isinstance(every, numbers.Real) and not isinstance(every, bool)
        if not is_number and every not in ("auto", "batch", "epoch", "never"):
            raise ValueError(
                "yieldEvery must be 'auto', 'batch', 'epoch', 'never' or a number of "
                f"milliseconds, got {yield_every!r}"
            )
        self.hooks = [cb for cb in callbacks if isinstance(cb, CustomCallback) and cb.yields]
        if every == "never" and self.hooks:
            raise ValueError(
                "yieldEvery is `never` but you provided an `onYield` callback. "
                "Either change `yieldEvery` or remove the callback"
            )
        self.every_ms = _YIELD_EVERY_AUTO_MS if every == "auto" else every if is_number else None
        self.wanted = bool(self.hooks) and self.every_ms is not None
        self.last = time.monotonic()

    def after_batch(self, epoch: int, batch: int, logs: dict[str, Any]) -> None:
        """Call the onYield hooks if yieldEvery ms have passed since the last call."""
        if not self.wanted:
            return
        now = time.monotonic()
        if (now - self.last) * 1000 < self.every_ms:  # pyright: ignore[reportOperatorIssue]
            return
        self.last = now
        for cb in self.hooks:
            cb.onYield(epoch, batch, logs)


def _lookup(hooks: Any, camel: str, snake: str) -> Any:
    if isinstance(hooks, Mapping):
        return hooks.get(camel, hooks.get(snake))
    return getattr(hooks, camel, None) or getattr(hooks, snake, None)


def standardize(callbacks: Any) -> list[Callback]:
    """fit's `callbacks` argument as a list of `Callback`s."""
    if callbacks is None:
        return []
    items = callbacks if isinstance(callbacks, (list, tuple)) else [callbacks]
    out: list[Callback] = []
    for item in items:
        if isinstance(item, Callback):
            out.append(item)
        else:
            out.append(CustomCallback(item))
    return out


def run_hook(callbacks: list[Callback], name: str, *args: Any) -> None:
    """Call hook `name` on each callback in order, settling any coroutine it returns."""
    for cb in callbacks:
        _settle(getattr(cb, name)(*args))


_SETTLING = threading.Lock()  # one History's pending numbers are made floats at a time


class PendingNumber:
    """A logged number whose device computation may still be running: `fit` logs these
    when only its `History` reads the epoch logs, so an epoch need not wait for the
    device before the next is dispatched (tfjs's `fit` is asynchronous too).
    `float(p)` waits for it; `History.history` hands out floats only.

    >>> from tfjs_grad.callbacks import PendingNumber
    >>> float(PendingNumber(lambda: 0.25))
    0.25
    """

    __slots__ = ("_settle",)

    def __init__(self, settle: Callable[[], Any]):
        self._settle = settle

    def __float__(self) -> float:
        return float(self._settle())


class History(Callback):
    """What `fit` returns: `epoch` (list of epoch numbers) and `history` (key -> values).

    Awaitable, as tfjs's `fit` returns a Promise: `history = await model.fit(...)` inside a
    coroutine gives this same object. Values logged as `PendingNumber`s are waited for and
    made floats when `history` is first read after them.

    >>> import tfjs_grad as tf
    >>> h = tf.callbacks.History()
    >>> h.onTrainBegin(); h.onEpochEnd(0, {"loss": 0.5})
    >>> h.epoch, h.history, h.history.loss
    ([0], {'loss': [0.5]}, [0.5])
    """

    def __init__(self) -> None:
        super().__init__()
        self.epoch: list[int] = []
        self._logged = Logs()
        self._pending = False  # some value in _logged is a PendingNumber

    @property
    def history(self) -> Logs:
        """Key -> the value logged at each epoch (floats: pending ones are waited for)."""
        if self._pending:
            with _SETTLING:  # another thread may be reading it too
                for values in self._logged.values():
                    values[:] = [float(v) if type(v) is PendingNumber else v for v in values]
                self._pending = False
        return self._logged

    @history.setter
    def history(self, value: Logs) -> None:
        self._logged, self._pending = value, False

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        self.epoch = []
        self.history = Logs()

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        self.epoch.append(epoch)
        for key, value in (logs or {}).items():
            self._logged.setdefault(key, []).append(value)
            if type(value) is PendingNumber:
                self._pending = True

    def __await__(self):
        if False:  # pragma: no cover (makes this a generator: `await` returns at once)
            yield None
        return self

    def __repr__(self) -> str:
        return f"History(epoch={self.epoch}, history={self.history})"


class EarlyStopping(Callback):
    """Stop training when `monitor` has not improved by `minDelta` for `patience` epochs.

    Config (a dict or keywords, camelCase or snake_case): `monitor` ('val_loss'),
    `minDelta` (0), `patience` (0), `verbose` (0), `mode` ('auto': 'max' when the
    monitored name contains 'acc', else 'min'), `baseline` (None). As in tfjs,
    `restoreBestWeights` is not supported.

    >>> import tfjs_grad as tf
    >>> stop = tf.callbacks.earlyStopping({"monitor": "val_acc"})
    >>> stop.mode, stop.best is None
    ('auto', True)
    """

    def __init__(self, args: Mapping[str, Any] | None = None, **kwargs: Any):
        super().__init__()
        config = config_of(args, kwargs)
        if config.get("restoreBestWeights"):
            raise NotImplementedError(
                "restoreBestWeights = True is not implemented in EarlyStopping yet."
            )
        unknown = set(config) - {
            "monitor", "minDelta", "patience", "verbose", "mode", "baseline",
            "restoreBestWeights",
        }  # fmt: skip
        if unknown:
            raise ValueError(f"Unknown EarlyStopping config key(s): {sorted(unknown)}")
        self.monitor: str = config.get("monitor") or "val_loss"
        self.patience: int = config.get("patience") or 0
        self.verbose: int = config.get("verbose") or 0
        self.baseline = config.get("baseline")
        self._watch = Monitor(
            self.monitor, config.get("mode") or "auto", config.get("minDelta") or 0, "EarlyStopping"
        )
        self.mode: str = self._watch.mode
        # tfjs keeps minDelta signed: negative when the monitored value should fall
        self.minDelta = self._watch.min_delta * (1 if self._watch.maximize else -1)
        self.wait = 0
        self.stoppedEpoch = 0
        self.best: float | None = None

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        self.wait = 0
        self.stoppedEpoch = 0
        self.best = self._watch.worst if self.baseline is None else self.baseline

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        current = self._watch.read(logs)
        if current is None:
            return
        best = self._watch.worst if self.best is None else self.best
        if self._watch.improved(current, best):
            self.best = current
            self.wait = 0
        else:
            self.wait += 1
            if self.wait >= self.patience:
                self.stoppedEpoch = epoch
                if self.model is not None:
                    self.model.stopTraining = True

    def onTrainEnd(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        if self.stoppedEpoch > 0 and self.verbose:
            print(f"Epoch {self.stoppedEpoch}: early stopping.")


def _camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def config_of(args: Mapping[str, Any] | None, kwargs: Mapping[str, Any]) -> dict[str, Any]:
    """A callback's config from a dict and/or keywords, keys in camelCase."""
    merged = dict(args or {})
    merged.update(kwargs)
    return {_camel(k): v for k, v in merged.items()}


def early_stopping(args: Mapping[str, Any] | None = None, **kwargs: Any) -> EarlyStopping:
    """`tf.callbacks.earlyStopping(args)`: an `EarlyStopping` callback.

    >>> import tfjs_grad as tf
    >>> tf.callbacks.earlyStopping(min_delta=0.1, patience=2).patience
    2
    """
    return EarlyStopping(args, **kwargs)


earlyStopping = early_stopping


# after Callback and config_of, which they build on
from ._epoch_callbacks import (  # noqa: E402
    CSVLogger,
    ModelCheckpoint,
    ReduceLROnPlateau,
    csv_logger,
    csvLogger,
    model_checkpoint,
    modelCheckpoint,
    reduce_lr_on_plateau,
    reduceLROnPlateau,
)


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
