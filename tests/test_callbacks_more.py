"""The callbacks beside earlyStopping: modelCheckpoint, csvLogger, reduceLROnPlateau and
tf.node.tensorBoard, each checked against what fit's history says, a saved model's
numbers, the files written, or a hand-written JAX loop."""

from __future__ import annotations

import csv
import struct

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


def _data(n=24, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def _model(lr=0.05, bias=True):
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 1, "inputShape": [3], "useBias": bias}))
    model.setWeights([tf.tensor2d([[0.1], [0.2], [-0.1]])] + ([tf.tensor1d([0.0])] if bias else []))
    model.compile({"optimizer": tf.train.sgd(lr), "loss": "meanSquaredError"})
    return model


# -- modelCheckpoint ---------------------------------------------------------------------
def test_model_checkpoint_saves_only_improving_epochs_with_their_weights(tmp_path):
    x, y = _data()
    vx, vy = x[:8] * 3.0, y[:8] + 1.0  # a validation set the fit does not fit well
    model = _model(lr=0.2)
    weights_at_epoch = []
    ckpt = tf.callbacks.modelCheckpoint(
        f"file://{tmp_path}/ckpt-{{epoch:02d}}", {"monitor": "val_loss", "saveBestOnly": True}
    )
    keep = {"onEpochEnd": lambda epoch, logs: weights_at_epoch.append(model.getWeights())}
    history = model.fit(
        x, y, {"epochs": 6, "batchSize": 8, "shuffle": False, "verbose": 0,
               "validationData": [vx, vy], "callbacks": [keep, ckpt]},
    )  # fmt: skip
    val = history.history["val_loss"]
    best, improving = np.inf, []
    for epoch, value in enumerate(val):
        if value < best:
            best, improving = value, [*improving, epoch]
    assert ckpt.saved == [f"file://{tmp_path}/ckpt-{e + 1:02d}" for e in improving]
    assert ckpt.best == pytest.approx(min(val))
    last = improving[-1]
    loaded = tf.loadLayersModel(f"file://{tmp_path}/ckpt-{last + 1:02d}/model.json")
    for got, want in zip(loaded.getWeights(), weights_at_epoch[last]):
        np.testing.assert_allclose(got.arraySync(), want.arraySync(), rtol=1e-6)


def test_model_checkpoint_every_epoch_formats_logs_into_the_path(tmp_path):
    x, y = _data()
    model = _model()
    ckpt = tf.callbacks.model_checkpoint(filepath=str(tmp_path / "m-{epoch}-{loss:.4f}"))
    history = model.fit(x, y, epochs=2, batch_size=12, verbose=0, callbacks=ckpt)
    names = [
        str(tmp_path / f"m-{e + 1}-{loss:.4f}") for e, loss in enumerate(history.history["loss"])
    ]
    assert ckpt.saved == names
    assert all((tmp_path / p.split("/")[-1] / "model.json").exists() for p in names)


def test_model_checkpoint_refuses_bad_config_naming_the_field(tmp_path):
    with pytest.raises(ValueError, match="'filepath'"):
        tf.callbacks.modelCheckpoint({"monitor": "loss"})
    with pytest.raises(ValueError, match="'saveFreq'"):
        tf.callbacks.modelCheckpoint(str(tmp_path), saveFreq=5)
    with pytest.raises(ValueError, match="Unknown ModelCheckpoint config key"):
        tf.callbacks.modelCheckpoint(str(tmp_path), saveBest=True)
    x, y = _data()
    model = _model()
    bad = tf.callbacks.modelCheckpoint(str(tmp_path / "{accuracy}"))
    with pytest.raises(ValueError, match="cannot format filepath"):
        model.fit(x, y, epochs=1, verbose=0, callbacks=[bad])


# -- csvLogger ---------------------------------------------------------------------------
def test_csv_logger_rows_are_the_history(tmp_path):
    x, y = _data()
    model = _model()
    model.compile({"optimizer": tf.train.sgd(0.05), "loss": "meanSquaredError",
                   "metrics": ["mae"]})  # fmt: skip
    path = tmp_path / "log.csv"
    history = model.fit(
        x, y, epochs=3, batchSize=8, verbose=0, validationSplit=0.25,
        callbacks=[tf.callbacks.csvLogger(str(path))],
    )  # fmt: skip
    rows = list(csv.reader(path.read_text().splitlines()))
    keys = sorted(history.history)
    assert rows[0] == ["epoch", *keys]
    assert [int(r[0]) for r in rows[1:]] == [0, 1, 2]
    for i, row in enumerate(rows[1:]):
        for key, text in zip(keys, row[1:]):
            assert float(text) == pytest.approx(history.history[key][i], rel=1e-6)


def test_csv_logger_append_writes_one_header(tmp_path):
    x, y = _data()
    path = tmp_path / "log.csv"
    logger = tf.callbacks.csvLogger(path, {"append": True, "separator": ";"})
    model = _model()
    model.fit(x, y, epochs=2, verbose=0, callbacks=[logger])
    model.fit(x, y, epochs=1, verbose=0, callbacks=[logger])
    rows = [line.split(";") for line in path.read_text().splitlines()]
    assert rows[0] == ["epoch", "loss"]
    assert [r[0] for r in rows[1:]] == ["0", "1", "0"]
    with pytest.raises(ValueError, match="'separator'"):
        tf.callbacks.csvLogger(path, separator=";;")


# -- reduceLROnPlateau -------------------------------------------------------------------
class _Holder:
    def __init__(self, lr):
        self.optimizer = tf.train.sgd(lr)


@pytest.mark.parametrize(
    ("cooldown", "expected"),
    [(0, [0.1, 0.05, 0.025, 0.025, 0.0125]), (1, [0.1, 0.05, 0.05, 0.05, 0.025])],
)
def test_reduce_lr_on_plateau_follows_patience_and_cooldown(cooldown, expected):
    holder = _Holder(0.1)
    cb = tf.callbacks.reduceLROnPlateau(
        {"monitor": "loss", "factor": 0.5, "patience": 1, "minDelta": 0, "cooldown": cooldown}
    )
    cb.setModel(holder)
    cb.onTrainBegin()
    rates = []
    for epoch, loss in enumerate([1.0, 1.0, 1.0, 0.5, 0.5]):
        cb.onEpochEnd(epoch, {"loss": loss})
        rates.append(holder.optimizer.learning_rate)
    assert rates == pytest.approx(expected)


def test_reduce_lr_on_plateau_stops_at_min_lr_and_checks_factor():
    holder = _Holder(0.1)
    cb = tf.callbacks.reduce_lr_on_plateau(monitor="loss", factor=0.1, patience=0, min_lr=0.005)
    cb.setModel(holder)
    cb.onTrainBegin()
    for epoch in range(4):
        cb.onEpochEnd(epoch, {"loss": 1.0})
    assert holder.optimizer.learning_rate == pytest.approx(0.005)
    with pytest.raises(ValueError, match="'factor'"):
        tf.callbacks.reduceLROnPlateau(factor=1.5)
    with pytest.warns(UserWarning, match="val_loss is not available"):
        cb2 = tf.callbacks.reduceLROnPlateau()
        cb2.setModel(holder)
        cb2.onEpochEnd(0, {"loss": 1.0})


def test_reduce_lr_on_plateau_changes_the_compiled_fit_step_like_a_jax_schedule():
    # A JAX user's check: full-batch SGD on a linear model with the rate halved after
    # every epoch but the first, written with jax.grad, ends at the same weights.
    x, y = _data(16)
    model = _model(lr=0.1, bias=False)
    w0 = np.asarray(model.getWeights()[0].arraySync(), np.float32)
    cb = tf.callbacks.reduceLROnPlateau(monitor="loss", factor=0.5, patience=0, minDelta=1e9)
    model.fit(x, y, epochs=4, batchSize=16, shuffle=False, verbose=0, callbacks=[cb])

    def loss(w):
        return jnp.mean((jnp.asarray(x) @ w - jnp.asarray(y)) ** 2)

    w = jnp.asarray(w0)
    for lr in [0.1, 0.1, 0.05, 0.025]:  # epoch 0 improves; each later epoch halves after it
        w = w - lr * jax.grad(loss)(w)
    np.testing.assert_allclose(model.getWeights()[0].arraySync(), w, rtol=1e-5, atol=1e-6)
    assert model.optimizer.learning_rate == pytest.approx(0.1 * 0.5**3)


# -- tf.node.tensorBoard ----------------------------------------------------------------
def _events(folder):
    """(tag, step, value) of every scalar in a folder's TFRecord event files."""
    from tensorboardX.proto import event_pb2

    found = []
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        at = 0
        while at < len(data):
            (length,) = struct.unpack("<Q", data[at : at + 8])
            record = data[at + 12 : at + 12 + length]
            at += 12 + length + 4
            event = event_pb2.Event.FromString(record)
            for value in event.summary.value:
                found.append((value.tag, event.step, value.simple_value))
    return found


def test_tensorboard_writes_train_and_val_scalars_as_tfjs_node_names_them(tmp_path):
    pytest.importorskip("tensorboardX")
    x, y = _data()
    model = _model()
    history = model.fit(
        x, y, epochs=2, batchSize=8, verbose=0, validationSplit=0.25,
        callbacks=tf.node.tensorBoard(str(tmp_path), {"updateFreq": "batch"}),
    )  # fmt: skip
    train, val = _events(tmp_path / "train"), _events(tmp_path / "val")
    epochs = [(s, v) for t, s, v in train if t == "epoch_loss"]
    assert [s for s, _ in epochs] == [1, 2]
    np.testing.assert_allclose([v for _, v in epochs], history.history["loss"], rtol=1e-6)
    batches = [s for t, s, _ in train if t == "batch_loss"]
    assert batches == list(range(1, 2 * 3 + 1))  # 18 samples at batch 8: 3 batches an epoch
    val_epochs = [v for t, _, v in val if t == "epoch_loss"]
    np.testing.assert_allclose(val_epochs, history.history["val_loss"], rtol=1e-6)


def test_summary_file_writer_scalars_and_bad_update_freq(tmp_path):
    pytest.importorskip("tensorboardX")
    writer = tf.node.summaryFileWriter(str(tmp_path))
    assert writer is tf.node.summary_file_writer(str(tmp_path))
    for step in range(3):
        writer.scalar("loss", tf.scalar(step * 0.5), step)
    writer.flush()
    assert _events(tmp_path) == [("loss", 0, 0.0), ("loss", 1, 0.5), ("loss", 2, 1.0)]
    with pytest.raises(ValueError, match="value must be a number"):
        writer.scalar("loss", "high", 4)
    with pytest.raises(ValueError, match="updateFreq"):
        tf.node.tensorBoard(str(tmp_path), {"updateFreq": "step"})


def test_summary_file_writer_histogram_reads_back_with_tensorboards_schema(tmp_path):
    pytest.importorskip("tensorboardX")
    from tensorboardX.proto import event_pb2

    values = np.random.default_rng(1).normal(size=500)
    writer = tf.node.summaryFileWriter(str(tmp_path / "h"))
    writer.histogram("weights", tf.tensor(values), 7, 10)
    writer.flush()
    (path,) = (tmp_path / "h").iterdir()
    data, at, histos = path.read_bytes(), 0, []
    while at < len(data):
        (length,) = struct.unpack("<Q", data[at : at + 8])
        event = event_pb2.Event.FromString(data[at + 12 : at + 12 + length])
        at += 16 + length
        histos += [(event.step, v.histo) for v in event.summary.value]
    ((step, histo),) = histos
    counts, edges = np.histogram(values.astype(np.float32), bins=10)
    assert step == 7 and histo.num == 500
    np.testing.assert_allclose(histo.sum, values.astype(np.float32).sum(), rtol=1e-5)
    np.testing.assert_array_equal(histo.bucket, counts)
    np.testing.assert_allclose(histo.bucket_limit, edges[1:], rtol=1e-6)


def test_reduce_lr_on_plateau_refuses_a_schedule_by_name():
    holder = _Holder(0.1)
    holder.optimizer = tf.train.sgd(lambda count: 0.1 / (1 + count))
    cb = tf.callbacks.reduceLROnPlateau(monitor="loss", patience=0)
    cb.setModel(holder)
    cb.onTrainBegin()
    cb.onEpochEnd(0, {"loss": 1.0})
    with pytest.raises(ValueError, match="learning rate is a schedule"):
        cb.onEpochEnd(1, {"loss": 1.0})
