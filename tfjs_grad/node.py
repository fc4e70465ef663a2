"""`tf.node`: what tfjs-node adds for training outside the browser, here TensorBoard logs.

`tf.node.tensorBoard(logdir, {updateFreq})` is a fit callback writing the epoch's (and,
with `updateFreq: 'batch'`, each batch's) loss and metrics as TensorBoard scalars under
`logdir/train` and `logdir/val`, named as tfjs-node names them (`epoch_loss`,
`batch_acc`, ...). `tf.node.summaryFileWriter(logdir)` writes scalars and histograms
directly. The event files are written by `_event_file.py`: no TensorFlow needed.

>>> import tfjs_grad as tf
>>> tf.node.tensorBoard("/tmp/tb_doc", {"updateFreq": "batch"}).updateFreq
'batch'
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from typing import Any

import numpy as np

from ._event_file import EventFile, histogram_event, scalar_event
from .callbacks import CustomCallback

__all__ = [
    "SummaryFileWriter",
    "TensorBoardCallback",
    "summaryFileWriter",
    "summary_file_writer",
    "tensorBoard",
    "tensor_board",
]

_WRITERS: dict[str, SummaryFileWriter] = {}
_WRITERS_LOCK = threading.Lock()


def _number(value: Any, what: str) -> float:
    try:
        return float(np.asarray(value).reshape(()))
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number or a scalar tensor, got {value!r}") from None


class SummaryFileWriter:
    """Writes TensorBoard event files to one folder (`summaryFileWriter(logdir)`): records
    are queued and reach the disk every `maxQueue` records, every `flushMillis`, at
    `flush()` and when fit ends.

    >>> import tfjs_grad as tf
    >>> w = tf.node.summaryFileWriter("/tmp/tb_doc_writer")
    >>> w.scalar("loss", 0.5, 1); w.flush()
    """

    def __init__(self, logdir: str, max_queue: int, flush_millis: float, suffix: str):
        self.logdir = logdir
        self._file = EventFile(logdir, suffix)
        self._max_queue = max(1, int(max_queue))
        self._flush_seconds = float(flush_millis) / 1000
        self._queued = 0
        self._last_flush = time.monotonic()

    def _write(self, record: bytes) -> None:
        self._file.write(record)
        self._queued += 1
        now = time.monotonic()
        if self._queued >= self._max_queue or now - self._last_flush >= self._flush_seconds:
            self.flush()

    def scalar(self, name: str, value: Any, step: int, description: str | None = None) -> None:
        """Log `value` (a number or scalar tensor) as scalar `name` at `step`."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"scalar: 'name' must be a non-empty string, got {name!r}")
        self._write(scalar_event(name, _number(value, f"scalar '{name}': value"), int(step)))

    def histogram(
        self, name: str, data: Any, step: int, buckets: int | None = None,
        description: str | None = None,
    ) -> None:  # fmt: skip
        """Log the values of `data` (a tensor or array) as histogram `name` at `step`,
        in `buckets` (30) equal-width buckets."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"histogram: 'name' must be a non-empty string, got {name!r}")
        values = np.asarray(data, dtype=np.float64)
        self._write(histogram_event(name, values, int(step), 30 if buckets is None else buckets))

    def flush(self) -> None:
        """Write everything queued to disk."""
        self._file.flush()
        self._queued = 0
        self._last_flush = time.monotonic()


def summary_file_writer(
    logdir: str, maxQueue: int = 10, flushMillis: float = 120000, filenameSuffix: str = ".v2"
) -> SummaryFileWriter:
    """The writer for `logdir` (one per folder, shared by every call, as tfjs-node's).

    >>> import tfjs_grad as tf
    >>> tf.node.summaryFileWriter("/tmp/tb_doc2") is tf.node.summaryFileWriter("/tmp/tb_doc2")
    True
    """
    if not isinstance(logdir, (str, os.PathLike)) or not str(logdir):
        raise ValueError(f"summaryFileWriter: 'logdir' must be a folder path, got {logdir!r}")
    key = os.path.abspath(os.fspath(logdir))
    with _WRITERS_LOCK:
        writer = _WRITERS.get(key)
        if writer is None:
            writer = SummaryFileWriter(key, maxQueue, flushMillis, filenameSuffix)
            _WRITERS[key] = writer
        return writer


class TensorBoardCallback(CustomCallback):
    """fit's logs as TensorBoard scalars (`tf.node.tensorBoard(logdir, args)`)."""

    def __init__(self, logdir: str = "./logs", args: Mapping[str, Any] | None = None):
        update_freq = dict(args or {}).get("updateFreq", "epoch")
        if update_freq not in ("batch", "epoch"):
            raise ValueError(f"Expected updateFreq to be 'batch' or 'epoch', but got {update_freq}")
        hooks: dict[str, Any] = {"onEpochEnd": self._epoch_end, "onTrainEnd": self._train_end}
        if update_freq == "batch":  # only then does fit report each batch
            hooks["onBatchEnd"] = self._batch_end
        super().__init__(hooks)
        self.logdir = os.fspath(logdir)
        self.updateFreq = update_freq
        self.batchesSeen = 0
        self._train: SummaryFileWriter | None = None
        self._val: SummaryFileWriter | None = None

    def _batch_end(self, batch: int, logs: Mapping[str, Any] | None) -> None:
        self.batchesSeen += 1
        self._log(logs, "batch_", self.batchesSeen)

    def _epoch_end(self, epoch: int, logs: Mapping[str, Any] | None) -> None:
        self._log(logs, "epoch_", epoch + 1)

    def _train_end(self, logs: Mapping[str, Any] | None) -> None:
        for writer in (self._train, self._val):
            if writer is not None:
                writer.flush()

    def _log(self, logs: Mapping[str, Any] | None, prefix: str, step: int) -> None:
        for key, value in (logs or {}).items():
            if key in ("batch", "size", "num_steps"):
                continue
            if key.startswith("val_"):
                if self._val is None:
                    self._val = summary_file_writer(os.path.join(self.logdir, "val"))
                self._val.scalar(prefix + key[len("val_") :], value, step)
            else:
                if self._train is None:
                    self._train = summary_file_writer(os.path.join(self.logdir, "train"))
                self._train.scalar(prefix + key, value, step)


def tensor_board(
    logdir: str = "./logs", args: Mapping[str, Any] | None = None
) -> TensorBoardCallback:
    """`tf.node.tensorBoard(logdir, {updateFreq: 'epoch' | 'batch'})`: a fit callback that
    writes TensorBoard logs (view them with `tensorboard --logdir <logdir>`).

    >>> import tfjs_grad as tf
    >>> tf.node.tensorBoard("/tmp/tb_doc3").updateFreq
    'epoch'
    """
    return TensorBoardCallback(logdir, args)


summaryFileWriter = summary_file_writer
tensorBoard = tensor_board


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
