"""fit without observers (no callbacks, verbose 0) leaves its epoch logs on the device
until `History.history` is read (issue #36): the next epoch or fit call is dispatched
without waiting. What is read is what a fit that waited each epoch logs."""

import asyncio
import threading

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tfjs_grad as tf
from tfjs_grad.models import _training

X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [1.0, 2.0]], np.float32)
Y = np.array([[1.0], [2.0], [3.0], [4.0], [5.0]], np.float32)
W0, B0 = np.array([[1.0], [2.0]], np.float32), np.array([0.5], np.float32)
ARGS = {"batchSize": 2, "shuffle": False, "verbose": 0}


def _model(lr: float = 0.05) -> tf.Sequential:
    model = tf.sequential({"layers": [tf.layers.dense({"units": 1, "inputShape": [2]})]})
    model.setWeights([tf.tensor(W0), tf.tensor(B0)])
    model.compile({"optimizer": tf.train.sgd(lr), "loss": "meanSquaredError"})
    return model


class _Watcher(tf.callbacks.Callback):
    """A user callback that reads every epoch's logs (so fit must wait each epoch)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[dict] = []

    def onEpochEnd(self, epoch, logs=None):  # noqa: N802
        self.seen.append(dict(logs or {}))


def _raw_sgd_losses(epochs: int, lr: float = 0.05) -> list[float]:
    """The same training written in plain JAX with optax: batches of 2 (the last of 1),
    each epoch's loss the size-weighted mean of its batch losses."""
    params = {"w": jnp.asarray(W0), "b": jnp.asarray(B0)}
    tx = optax.sgd(lr)
    state = tx.init(params)

    def loss_fn(p, x, y):
        return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

    losses = []
    for _ in range(epochs):
        total = 0.0
        for start in range(0, len(X), 2):
            xb, yb = X[start : start + 2], Y[start : start + 2]
            loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
            updates, state = tx.update(grads, state, params)
            params = optax.apply_updates(params, updates)
            total += float(loss) * len(xb)
        losses.append(total / len(X))
    return losses


def test_a_tfjs_users_history_reads_floats_equal_to_plain_jax_training():
    history = _model().fit(tf.tensor(X), tf.tensor(Y), {**ARGS, "epochs": 4})
    losses = history.history["loss"]
    assert all(type(v) is float for v in losses)
    np.testing.assert_allclose(losses, _raw_sgd_losses(4), rtol=1e-5)
    assert history.history.loss == losses and history.epoch == [0, 1, 2, 3]


def test_fit_with_nothing_watching_does_not_wait_for_its_epochs():
    """The epoch means are computed (a device wait) only when `history` is read."""
    calls = []
    real = _training._float32_scaled

    def counted(total, count):
        calls.append(count)
        return real(total, count)

    model = _model()
    _training._float32_scaled, saved = counted, _training._float32_scaled
    try:
        history = model.fit(X, Y, {**ARGS, "epochs": 3})
        assert calls == []
        assert len(history.history["loss"]) == 3
        assert calls == [5, 5, 5]
        assert len(history.history["loss"]) == 3  # read again: nothing more to wait for
        assert calls == [5, 5, 5]
        watched = model.fit(X, Y, {**ARGS, "epochs": 2, "callbacks": [_Watcher()]})
        assert calls == [5] * 5  # a callback reads the logs: fit waits each epoch
        assert all(type(v) is float for v in watched.history["loss"])
    finally:
        _training._float32_scaled = saved


def test_a_user_callback_sees_floats_and_the_same_numbers_as_history():
    watcher = _Watcher()
    history = _model().fit(X, Y, {**ARGS, "epochs": 3, "callbacks": watcher})
    assert [type(logs["loss"]) for logs in watcher.seen] == [float] * 3
    assert [logs["loss"] for logs in watcher.seen] == history.history["loss"]
    unwatched = _model().fit(X, Y, {**ARGS, "epochs": 3}).history["loss"]
    np.testing.assert_allclose(unwatched, history.history["loss"], rtol=1e-6)


def test_an_old_history_read_after_later_fits_and_disposal_keeps_its_numbers():
    """Later calls donate the weights' buffers; the first call's logs are not among them."""
    model = _model()
    first = model.fit(X, Y, {**ARGS, "epochs": 1})
    later = [model.fit(X, Y, {**ARGS, "epochs": 1}) for _ in range(3)]
    model.dispose()
    expected = _raw_sgd_losses(4)
    np.testing.assert_allclose(first.history["loss"], expected[:1], rtol=1e-5)
    np.testing.assert_allclose([h.history["loss"][0] for h in later], expected[1:], rtol=1e-5)


def test_validation_logs_wait_too_and_match_a_watched_fit():
    config = {**ARGS, "epochs": 2, "validationSplit": 0.4}
    pending = _model().fit(X, Y, config)
    watched = _model().fit(X, Y, {**config, "callbacks": [_Watcher()]})
    assert set(pending.history) == {"loss", "val_loss"}
    for key in ("loss", "val_loss"):
        assert all(type(v) is float for v in pending.history[key])
        np.testing.assert_allclose(pending.history[key], watched.history[key], rtol=1e-6)


def test_model_history_repr_and_await_give_floats():
    model = _model()

    async def train():
        return await model.fit(X, Y, {**ARGS, "epochs": 2})

    history = asyncio.run(train())
    assert model.history is history
    assert "PendingNumber" not in repr(history)
    assert all(type(v) is float for v in model.history.history["loss"])


def test_threads_reading_one_history_at_once_all_see_floats():
    history = _model().fit(X, Y, {**ARGS, "epochs": 20})
    seen: list[list[float]] = []

    def read():
        seen.append(list(history.history["loss"]))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(seen) == 8 and all(s == seen[0] for s in seen)
    assert all(type(v) is float for v in seen[0])


def test_a_jax_user_reads_the_pending_loss_inside_jax_code():
    """A JAX user feeds a logged loss to jnp and to a jitted function: plain floats."""
    history = _model().fit(X, Y, {**ARGS, "epochs": 2})
    losses = jnp.asarray(history.history["loss"])
    assert losses.dtype == jnp.float32
    halved = jax.jit(lambda v: v / 2)(history.history["loss"][0])
    np.testing.assert_allclose(float(halved), _raw_sgd_losses(1)[0] / 2, rtol=1e-5)


def test_a_failing_fit_leaves_no_pending_number_behind():
    model = _model()
    with pytest.raises(ValueError):
        model.fit(X, Y[:3], {**ARGS, "epochs": 1})
    history = model.fit(X, Y, {**ARGS, "epochs": 1})
    np.testing.assert_allclose(history.history["loss"], _raw_sgd_losses(1), rtol=1e-5)


def test_pending_number_is_a_number_once_asked():
    pending = tf.callbacks.PendingNumber(lambda: np.float32(0.5))
    assert float(pending) == 0.5
    history = tf.callbacks.History()
    history.onTrainBegin()
    history.onEpochEnd(0, {"loss": pending, "acc": 1.0})
    assert history.history == {"loss": [0.5], "acc": [1.0]}


def test_a_history_copies_and_its_copy_reads_the_same_floats():
    import copy

    history = _model().fit(X, Y, {**ARGS, "epochs": 2})
    twin = copy.deepcopy(history)
    assert twin.history["loss"] == history.history["loss"]
    assert all(type(v) is float for v in twin.history["loss"])


def test_a_fit_inside_tidy_reads_its_validation_numbers_after_the_tidy_ended():
    """tf.tidy disposes the Tensors made inside it; the pending numbers do not need them."""
    config = {**ARGS, "epochs": 2, "validationSplit": 0.4}
    histories = []
    tf.tidy(lambda: histories.append(_model().fit(X, Y, config)))
    watched = _model().fit(X, Y, {**config, "callbacks": [_Watcher()]})
    for key in ("loss", "val_loss"):
        np.testing.assert_allclose(histories[0].history[key], watched.history[key], rtol=1e-6)
