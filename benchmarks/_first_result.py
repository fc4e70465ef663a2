"""Time to first result: two tfjs-examples recurrent models, from `fit` called to the
first epoch's logs, in a fresh process, with the XLA compiles that one `fit` call made.

  addition-rnn          the example's `createAndCompileModel` with rnnType 'LSTM' and its
                        UI defaults (2 digits, 5,000 examples split 0.9/0.1, hidden size 128,
                        batch 128): lstm(128, recurrentInitializer 'glorotNormal') ->
                        repeatVector(3) -> lstm(128, returnSequences) ->
                        timeDistributed(dense(12)) -> softmax; 'adam', categorical
                        cross-entropy, metrics ['accuracy']; `fit(x, y, {epochs: 1,
                        batchSize: 128, validationData, yieldEvery: 'epoch'})`
  lstm-text-generation  the example's `createModel(40, 57, 128)` + `compileModel(model,
                        1e-2)` (rmsprop) and one `fitModel` epoch with its UI defaults
                        (2,048 examples, batch 128, validationSplit 0.0625) and an
                        onBatchEnd callback as its UI plots batch losses

The inputs are random one-hot characters of the examples' shapes (57: the size of the
Nietzsche text's character set): the time depends on shapes, not on which characters.
benchmarks/node/first_result.js runs the same models, shapes and fit arguments in tfjs.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

MODELS: dict[str, dict[str, Any]] = {
    "addition-rnn": {
        "in_len": 5,
        "out_len": 3,
        "vocab": 12,
        "units": 128,
        "batch": 128,
        "train": 4500,
        "validation": 500,
    },
    "lstm-text-generation": {
        "in_len": 40,
        "vocab": 57,
        "units": 128,
        "batch": 128,
        "train": 2048,
        "validation_split": 0.0625,
        "learning_rate": 1e-2,
    },
}


def _one_hot(rng: np.random.Generator, shape: tuple[int, ...], vocab: int) -> np.ndarray:
    return np.eye(vocab, dtype=np.float32)[rng.integers(0, vocab, shape)]


def _addition_rnn(tf: Any, spec: dict[str, Any]) -> tuple[Any, list[Any], dict[str, Any]]:
    units, vocab = spec["units"], spec["vocab"]
    model = tf.sequential()
    model.add(
        tf.layers.lstm(
            {
                "units": units,
                "recurrentInitializer": "glorotNormal",
                "inputShape": [spec["in_len"], vocab],
            }
        )
    )
    model.add(tf.layers.repeatVector({"n": spec["out_len"]}))
    model.add(
        tf.layers.lstm(
            {"units": units, "recurrentInitializer": "glorotNormal", "returnSequences": True}
        )
    )
    model.add(tf.layers.timeDistributed({"layer": tf.layers.dense({"units": vocab})}))
    model.add(tf.layers.activation({"activation": "softmax"}))
    model.compile({"loss": "categoricalCrossentropy", "optimizer": "adam", "metrics": ["accuracy"]})
    rng = np.random.default_rng(0)
    x, y = (
        tf.tensor(_one_hot(rng, (spec["train"], spec["in_len"]), vocab)),
        tf.tensor(_one_hot(rng, (spec["train"], spec["out_len"]), vocab)),
    )
    validation = [
        tf.tensor(_one_hot(rng, (spec["validation"], spec["in_len"]), vocab)),
        tf.tensor(_one_hot(rng, (spec["validation"], spec["out_len"]), vocab)),
    ]
    args = {"batchSize": spec["batch"], "validationData": validation, "yieldEvery": "epoch"}
    return model, [x, y], args


def _lstm_text_generation(tf: Any, spec: dict[str, Any]) -> tuple[Any, list[Any], dict[str, Any]]:
    vocab = spec["vocab"]
    model = tf.sequential()
    shape = [spec["in_len"], vocab]
    model.add(
        tf.layers.lstm({"units": spec["units"], "returnSequences": False, "inputShape": shape})
    )
    model.add(tf.layers.dense({"units": vocab, "activation": "softmax"}))
    optimizer = tf.train.rmsprop(spec["learning_rate"])
    model.compile({"optimizer": optimizer, "loss": "categoricalCrossentropy"})
    rng = np.random.default_rng(0)
    x = tf.tensor(_one_hot(rng, (spec["train"], spec["in_len"]), vocab))
    y = tf.tensor(_one_hot(rng, (spec["train"],), vocab))
    batch_losses: list[float] = []
    args = {
        "batchSize": spec["batch"],
        "validationSplit": spec["validation_split"],
        "callbacks": {"onBatchEnd": lambda batch, logs: batch_losses.append(logs["loss"])},
    }
    return model, [x, y], args


BUILDERS = {"addition-rnn": _addition_rnn, "lstm-text-generation": _lstm_text_generation}


def first_result(name: str) -> dict[str, float]:
    """Build `name`'s model and data, then time its first `fit` call (this process's first).

    Returns first_epoch_s (fit called to the first onEpochEnd), fit_s (fit called to its
    return), compiles and compile_s (XLA compiles during that fit call), epoch_loss.
    """
    import _recompile

    import tfjs_grad as tf

    model, data, args = BUILDERS[name](tf, MODELS[name])
    counts = _recompile.compile_counter()
    callbacks = args.pop("callbacks", {})
    seen: dict[str, float] = {}

    def on_epoch_end(epoch: int, logs: Any) -> None:
        seen.setdefault("first_epoch_s", time.perf_counter() - start)
        seen.setdefault("epoch_loss", float(logs["loss"]))

    before = dict(counts)
    start = time.perf_counter()
    model.fit(
        *data,
        {**args, "epochs": 1, "verbose": 0, "callbacks": {**callbacks, "onEpochEnd": on_epoch_end}},
    )
    fit_s = time.perf_counter() - start
    return {
        **seen,
        "fit_s": fit_s,
        "compiles": counts["compiles"] - before["compiles"],
        "compile_s": counts["compile_s"] - before["compile_s"],
    }
