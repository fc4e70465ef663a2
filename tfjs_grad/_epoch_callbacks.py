"""Callbacks Keras users reach for beside earlyStopping, in tfjs's callback style: save
the model when a monitored value improves, log each epoch to a CSV file, lower the
learning rate on a plateau. tfjs 4.22 has none of them; their arguments and rules are
Keras 3's (`ModelCheckpoint`, `CSVLogger`, `ReduceLROnPlateau`), in camelCase.

>>> import tfjs_grad as tf
>>> tf.callbacks.reduceLROnPlateau(monitor="loss", factor=0.5, patience=2).factor
0.5
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Mapping
from typing import Any, TextIO

from ._monitor import Monitor
from .callbacks import Callback, config_of


def _checked_keys(config: Mapping[str, Any], allowed: set[str], owner: str) -> None:
    unknown = set(config) - allowed
    if unknown:
        raise ValueError(
            f"Unknown {owner} config key(s): {sorted(unknown)}; expected some of {sorted(allowed)}"
        )


def _number(config: Mapping[str, Any], key: str, default: float, owner: str) -> float:
    value = config.get(key, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ValueError(f"{owner}: '{key}' must be a number, got {value!r}")
    return float(value)


class ModelCheckpoint(Callback):
    """Save the model (`model.save`) after every epoch, or only when `monitor` improved.

    Config (a dict or keywords, camelCase or snake_case): `filepath` (required: a folder or
    `file://` URL, formatted with `epoch` (1-based, as Keras) and the epoch's logs, e.g.
    `'file://ckpt/{epoch:02d}-{val_loss:.3f}'`), `monitor` ('val_loss'), `saveBestOnly`
    (False), `mode` ('auto'), `minDelta` (0), `initialValueThreshold` (None: the first
    value saves), `verbose` (0). `best` holds the best value seen.

    >>> import tfjs_grad as tf
    >>> ckpt = tf.callbacks.modelCheckpoint("file:///tmp/best", monitor="loss", saveBestOnly=True)
    >>> ckpt.monitor, ckpt.saveBestOnly
    ('loss', True)
    """

    _KEYS = {
        "filepath", "monitor", "saveBestOnly", "mode", "minDelta", "initialValueThreshold",
        "verbose", "saveFreq",
    }  # fmt: skip

    def __init__(self, config: Mapping[str, Any]):
        super().__init__()
        _checked_keys(config, self._KEYS, "ModelCheckpoint")
        filepath = config.get("filepath")
        if not isinstance(filepath, (str, os.PathLike)) or not str(filepath):
            raise ValueError(
                f"ModelCheckpoint: 'filepath' must be a folder path or 'file://' URL, "
                f"got {filepath!r}"
            )
        if config.get("saveFreq", "epoch") != "epoch":
            raise ValueError(
                f"ModelCheckpoint: 'saveFreq' must be 'epoch' (saving every N batches is not "
                f"supported), got {config['saveFreq']!r}"
            )
        self.filepath = str(filepath)
        self.monitor: str = config.get("monitor") or "val_loss"
        self.saveBestOnly = bool(config.get("saveBestOnly", False))
        self.verbose = int(config.get("verbose") or 0)
        self._watch = Monitor(
            self.monitor,
            config.get("mode") or "auto",
            _number(config, "minDelta", 0.0, "ModelCheckpoint"),
            "ModelCheckpoint",
        )
        self.mode = self._watch.mode
        threshold = config.get("initialValueThreshold")
        self._initial = (
            self._watch.worst
            if threshold is None
            else _number(config, "initialValueThreshold", 0.0, "ModelCheckpoint")
        )
        self.best = self._initial
        self.saved: list[str] = []  # the paths written, in order

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        self.best = self._initial

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        logs = dict(logs or {})
        if self.saveBestOnly:
            current = self._watch.read(logs)
            if current is None or not self._watch.improved(current, self.best):
                if self.verbose and current is not None:
                    print(f"Epoch {epoch + 1}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose:
                print(
                    f"Epoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} to "
                    f"{current:.5f}, saving model"
                )
            self.best = current
        path = self._path(epoch, logs)
        self.model.save(path)
        self.saved.append(path)

    def _path(self, epoch: int, logs: Mapping[str, Any]) -> str:
        try:
            return self.filepath.format(epoch=epoch + 1, **logs)
        except (KeyError, IndexError, ValueError) as error:
            raise ValueError(
                f"ModelCheckpoint: cannot format filepath '{self.filepath}' with epoch and "
                f"the logs' keys {sorted(logs)}: {error!r}"
            ) from None


class CSVLogger(Callback):
    """Append each epoch's logs to a CSV file: a header `epoch,<keys sorted>`, then a row
    per epoch (epochs 0-based, as fit's hooks count them).

    Config: `filename` (required), `separator` (','), `append` (False: the file is
    rewritten when training begins; True: rows are added, the header only to an empty file).

    >>> import tfjs_grad as tf
    >>> tf.callbacks.csvLogger("/tmp/log.csv", separator=";").separator
    ';'
    """

    _KEYS = {"filename", "separator", "append"}

    def __init__(self, config: Mapping[str, Any]):
        super().__init__()
        _checked_keys(config, self._KEYS, "CSVLogger")
        filename = config.get("filename")
        if not isinstance(filename, (str, os.PathLike)) or not str(filename):
            raise ValueError(f"CSVLogger: 'filename' must be a file path, got {filename!r}")
        separator = config.get("separator", ",")
        if not isinstance(separator, str) or len(separator) != 1:
            raise ValueError(f"CSVLogger: 'separator' must be one character, got {separator!r}")
        self.filename = os.fspath(filename)
        self.separator = separator
        self.append = bool(config.get("append", False))
        self._file: TextIO | None = None
        self._keys: list[str] | None = None

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        has_rows = self.append and os.path.exists(self.filename)
        has_rows = has_rows and os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w", newline="")  # noqa: SIM115
        self._keys = None if not has_rows else []  # [] : a header is there already

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        if self._file is None:
            self.onTrainBegin()
        assert self._file is not None
        logs = logs or {}
        writer = csv.writer(self._file, delimiter=self.separator)
        if not self._keys:
            if self._keys is None:
                writer.writerow(["epoch", *sorted(logs)])
            self._keys = sorted(logs)
        writer.writerow([epoch, *(logs.get(k, "NA") for k in self._keys)])
        self._file.flush()

    def onTrainEnd(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        if self._file is not None:
            self._file.close()
            self._file = None


class ReduceLROnPlateau(Callback):
    """Multiply the optimizer's learning rate by `factor` when `monitor` has not improved
    by `minDelta` for `patience` epochs; then wait `cooldown` epochs; never below `minLr`.

    Config: `monitor` ('val_loss'), `factor` (0.1, must be < 1), `patience` (10), `mode`
    ('auto'), `minDelta` (1e-4), `cooldown` (0), `minLr` (0), `verbose` (0). The rate lives
    in the optimizer's state, so the compiled training step picks it up without a retrace.

    >>> import tfjs_grad as tf
    >>> cb = tf.callbacks.reduceLROnPlateau({"monitor": "loss", "patience": 0})
    >>> cb.patience, cb.minLr
    (0, 0.0)
    """

    _KEYS = {"monitor", "factor", "patience", "mode", "minDelta", "cooldown", "minLr", "verbose"}

    def __init__(self, config: Mapping[str, Any]):
        super().__init__()
        _checked_keys(config, self._KEYS, "ReduceLROnPlateau")
        owner = "ReduceLROnPlateau"
        self.monitor: str = config.get("monitor") or "val_loss"
        self.factor = _number(config, "factor", 0.1, owner)
        if not 0 <= self.factor < 1:
            raise ValueError(f"{owner}: 'factor' must be in [0, 1), got {self.factor}")
        self.patience = int(_number(config, "patience", 10, owner))
        self.cooldown = int(_number(config, "cooldown", 0, owner))
        self.minLr = _number(config, "minLr", 0.0, owner)
        self.verbose = int(config.get("verbose") or 0)
        self._watch = Monitor(
            self.monitor, config.get("mode") or "auto", _number(config, "minDelta", 1e-4, owner),
            owner,
        )  # fmt: skip
        self.mode = self._watch.mode
        self.best = self._watch.worst
        self.wait = 0
        self.cooldownCounter = 0

    def onTrainBegin(self, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        self.best = self._watch.worst
        self.wait = 0
        self.cooldownCounter = 0

    def onEpochEnd(self, epoch: int, logs: dict[str, Any] | None = None) -> None:  # noqa: N802
        current = self._watch.read(logs)
        if current is None:
            return
        cooling = self.cooldownCounter > 0
        if cooling:
            self.cooldownCounter -= 1
            self.wait = 0
        if self._watch.improved(current, self.best):
            self.best = current
            self.wait = 0
            return
        if cooling:
            return
        self.wait += 1
        if self.wait < self.patience:
            return
        optimizer = getattr(self.model, "optimizer", None)
        if optimizer is None:
            raise ValueError("ReduceLROnPlateau: the model has no optimizer (compile it first)")
        rate = optimizer.learning_rate
        if callable(rate):
            raise ValueError(
                "ReduceLROnPlateau: the optimizer's learning rate is a schedule; the callback "
                "needs a number it can lower"
            )
        old = float(rate)
        if old > self.minLr:
            new = max(old * self.factor, self.minLr)
            optimizer.learning_rate = new
            if self.verbose:
                print(f"Epoch {epoch + 1}: ReduceLROnPlateau reducing learning rate to {new}.")
            self.cooldownCounter = self.cooldown
            self.wait = 0


def model_checkpoint(
    filepath: Any = None, args: Mapping[str, Any] | None = None, **kwargs: Any
) -> ModelCheckpoint:
    """`tf.callbacks.modelCheckpoint(filepath, {monitor, saveBestOnly, ...})` (or one config
    dict with `filepath`): a `ModelCheckpoint`.

    >>> import tfjs_grad as tf
    >>> tf.callbacks.modelCheckpoint({"filepath": "/tmp/m", "save_best_only": True}).saveBestOnly
    True
    """
    if isinstance(filepath, Mapping):
        filepath, args = None, {**filepath, **(args or {})}
    config = config_of(args, kwargs)
    if filepath is not None:
        config["filepath"] = filepath
    return ModelCheckpoint(config)


def csv_logger(
    filename: Any = None, args: Mapping[str, Any] | None = None, **kwargs: Any
) -> CSVLogger:
    """`tf.callbacks.csvLogger(filename, {separator, append})`: a `CSVLogger`.

    >>> import tfjs_grad as tf
    >>> tf.callbacks.csvLogger("/tmp/log.csv", append=True).append
    True
    """
    if isinstance(filename, Mapping):
        filename, args = None, {**filename, **(args or {})}
    config = config_of(args, kwargs)
    if filename is not None:
        config["filename"] = filename
    return CSVLogger(config)


def reduce_lr_on_plateau(args: Mapping[str, Any] | None = None, **kwargs: Any) -> ReduceLROnPlateau:
    """`tf.callbacks.reduceLROnPlateau({monitor, factor, patience, ...})`.

    >>> import tfjs_grad as tf
    >>> tf.callbacks.reduceLROnPlateau(min_lr=1e-5).minLr
    1e-05
    """
    return ReduceLROnPlateau(config_of(args, kwargs))


modelCheckpoint = model_checkpoint
csvLogger = csv_logger
reduceLROnPlateau = reduce_lr_on_plateau
