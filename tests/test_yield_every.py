"""fit's `yieldEvery` and the onYield hook, as tfjs-layers' CustomCallback runs them: after
a batch, at most once every `yieldEvery` ms ('auto' = 125), never for 'batch', 'epoch' or
'never'."""

from __future__ import annotations

import types

import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import callbacks as callbacks_module


def _model():
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 1, "inputShape": [2], "kernelInitializer": "ones"}))
    model.compile({"optimizer": "sgd", "loss": "meanSquaredError"})
    return model


def _data(n=10):
    xs = np.arange(2 * n, dtype=np.float32).reshape(n, 2) / 10
    return tf.tensor2d(xs), tf.tensor2d(xs.sum(1, keepdims=True) * 0.5)


def _fake_clock(monkeypatch, step_s):
    """callbacks' clock advances step_s on each reading, so debouncing is deterministic."""
    state = {"now": 0.0}

    def monotonic():
        state["now"] += step_s
        return state["now"]

    monkeypatch.setattr(callbacks_module, "time", types.SimpleNamespace(monotonic=monotonic))


def test_on_yield_every_batch_gets_the_batch_logs_tfjs_style():
    xs, ys = _data()
    yields, ends = [], []
    _model().fit(xs, ys, {
        "epochs": 2, "batchSize": 4, "shuffle": False, "verbose": 0, "yieldEvery": 0,
        "callbacks": {
            "onYield": lambda epoch, batch, logs: yields.append((epoch, batch, logs.loss)),
            "onBatchEnd": lambda batch, logs: ends.append(logs.loss),
        },
    })  # fmt: skip
    # 10 samples at batch 4: batches 0, 1, 2 in each epoch, one yield after each.
    assert [(e, b) for e, b, _ in yields] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    np.testing.assert_allclose([loss for *_, loss in yields], ends)


def test_on_yield_alone_still_runs_per_batch_and_matches_the_epoch_losses():
    xs, ys = _data()
    yields = []
    plain = _model()
    watched = _model()
    watched.setWeights(plain.getWeights())
    h_plain = plain.fit(xs, ys, {"epochs": 3, "batchSize": 4, "shuffle": False, "verbose": 0})
    h_watched = watched.fit(xs, ys, {
        "epochs": 3, "batchSize": 4, "shuffle": False, "verbose": 0, "yieldEvery": 0,
        "callbacks": {"onYield": lambda epoch, batch, logs: yields.append(logs["loss"])},
    })  # fmt: skip
    assert len(yields) == 9
    np.testing.assert_allclose(h_watched.history["loss"], h_plain.history["loss"], rtol=1e-6)
    # A batch's yield loss is that batch's: the epoch loss is their size-weighted mean.
    first_epoch = np.average(yields[:3], weights=[4, 4, 2])
    np.testing.assert_allclose(first_epoch, h_plain.history["loss"][0], rtol=1e-5)


def test_yield_every_debounces_in_milliseconds(monkeypatch):
    _fake_clock(monkeypatch, 0.040)  # 40 ms per clock reading: one reading per batch
    xs, ys = _data(16)
    yields = []
    _model().fit(xs, ys, {
        "epochs": 1, "batchSize": 2, "shuffle": False, "verbose": 0, "yieldEvery": 100,
        "callbacks": {"onYield": lambda epoch, batch, logs: yields.append(batch)},
    })  # fmt: skip
    # Clock: 40 ms at fit start; batch 0 at 80, 1 at 120, 2 at 160 (120 ms since: yield),
    # 3 at 200, 4 at 240, 5 at 280 (yield), 6 at 320, 7 at 360 (80 ms since: none).
    assert yields == [2, 5]


@pytest.mark.parametrize("every", ["batch", "epoch", 10**9])
def test_yield_every_that_never_comes_calls_no_hook(every):
    xs, ys = _data()
    yields = []
    _model().fit(xs, ys, {
        "epochs": 2, "batchSize": 4, "verbose": 0, "yieldEvery": every,
        "callbacks": {"onYield": lambda *args: yields.append(args)},
    })  # fmt: skip
    assert yields == []


def test_yield_every_never_with_an_on_yield_hook_is_tfjs_error():
    xs, ys = _data()
    with pytest.raises(ValueError, match="yieldEvery is `never` but you provided an `onYield`"):
        _model().fit(xs, ys, {
            "verbose": 0, "yieldEvery": "never", "callbacks": {"onYield": lambda *a: None},
        })  # fmt: skip


@pytest.mark.parametrize("bad", ["sometimes", True, [1]])
def test_bad_yield_every_names_the_argument(bad):
    xs, ys = _data()
    model = _model()
    before = [w.tolist() for w in model.getWeights()]
    with pytest.raises(ValueError, match="yieldEvery must be"):
        model.fit(xs, ys, {"verbose": 0, "yieldEvery": bad})
    assert [w.tolist() for w in model.getWeights()] == before


def test_fit_dataset_calls_on_yield_after_its_batches():
    xs, ys = _data(8)
    ds = tf.data.zip({"xs": tf.data.array(xs.arraySync()), "ys": tf.data.array(ys.arraySync())})
    yields = []
    _model().fitDataset(ds.batch(4), {
        "epochs": 2, "verbose": 0, "yieldEvery": 0,
        "callbacks": {"on_yield": lambda epoch, batch, logs: yields.append((epoch, batch))},
    })  # fmt: skip
    assert yields == [(0, 0), (0, 1), (1, 0), (1, 1)]


def test_on_yield_sees_the_weights_of_that_batch_jax_style():
    """A JAX user's hook reads the live weights with jnp: after batch b, they are the
    weights a manual SGD on batches 0..b gives."""
    xs, ys = _data(6)
    model = _model()
    kernel0, bias0 = (jnp.asarray(w.value) for w in model.weights)
    seen = []

    def on_yield(epoch, batch, logs):
        seen.append(jnp.array(model.weights[0].value))

    model.fit(xs, ys, {
        "epochs": 1, "batchSize": 3, "shuffle": False, "verbose": 0, "yieldEvery": 0,
        "callbacks": {"onYield": on_yield},
    })  # fmt: skip
    k, b = kernel0, bias0
    x, y = jnp.asarray(xs), jnp.asarray(ys)
    for i, start in enumerate((0, 3)):
        xb, yb = x[start : start + 3], y[start : start + 3]
        gk, gb = jax_grad_mse(k, b, xb, yb)
        k, b = k - 0.01 * gk, b - 0.01 * gb
        np.testing.assert_allclose(seen[i], k, rtol=1e-5, atol=1e-6)


def jax_grad_mse(k, b, x, y):
    import jax

    return jax.grad(lambda k, b: jnp.mean((x @ k + b - y) ** 2), argnums=(0, 1))(k, b)
