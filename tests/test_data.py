"""tf.data and model.fitDataset against tfjs 4.22 (tests/reference/gen_data.js): seeded
shuffle orders, batching, sizes, csv parsing, training histories and weights; and the
Python side: generators (sync, async, tfjs-style), prefetch threads, JAX code on batches."""

from __future__ import annotations

import asyncio
import json
import math
import pathlib
import threading
import time

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

import tfjs_grad as tf

REF = json.loads((pathlib.Path(__file__).parent / "reference" / "data.json").read_text())


def _plain(x):
    if isinstance(x, tf.Tensor):
        return {"shape": list(x.shape), "values": np.asarray(x).ravel().tolist()}
    if isinstance(x, dict):
        return {k: _plain(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_plain(v) for v in x]
    return x


def _close(got, want):
    if isinstance(want, dict) and set(want) == {"shape", "values"}:
        assert got["shape"] == want["shape"]
        np.testing.assert_allclose(got["values"], want["values"], rtol=1e-6)
    elif isinstance(want, dict):
        assert set(got) == set(want)
        for k in want:
            _close(got[k], want[k])
    elif isinstance(want, list):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6)
    else:
        assert got == want


# -- the order, shape and size of elements, as tfjs -------------------------------------
R = list(range(20))
SHUFFLES = {
    "ten_window4_abc": (lambda: tf.data.array(R[:10]).shuffle(4, "abc"), 2),
    "ten_window4_abc_same_each": (lambda: tf.data.array(R[:10]).shuffle(4, "abc", False), 2),
    "seven_window20_42": (lambda: tf.data.array(R[:7]).shuffle(20, 42), 2),
    "twelve_window1_x": (lambda: tf.data.array(R[:12]).shuffle(1, "x"), 1),
    "twenty_window6_take5": (lambda: tf.data.array(R).shuffle(6, "s").take(5), 2),
    "five_repeat2": (lambda: tf.data.array(R[:5]).shuffle(5, "r").repeat(2), 1),
    "nine_batch2": (lambda: tf.data.array(R[:9]).shuffle(3, 7).batch(2), 1),
}


@pytest.mark.parametrize("case", REF["shuffles"], ids=lambda c: c["name"])
def test_seeded_shuffle_draws_tfjs_order_on_every_pass(case):
    make, passes = SHUFFLES[case["name"]]
    ds = make()
    _close([_plain(ds.toArray()) for _ in range(passes)], case["values"])


def test_batches_and_element_transforms_as_tfjs():
    rows = [{"a": i, "b": [i, i + 0.5]} for i in range(7)]
    want = REF["batches"]
    _close(_plain(tf.data.array(rows).batch(3).toArray()), want["dicts_small_last"])
    _close(_plain(tf.data.array(rows).batch(3, False).toArray()), want["dicts_no_small_last"])
    tensors = [tf.tensor1d([i, -i]) for i in range(4)]
    _close(_plain(tf.data.array(tensors).batch(3).toArray()), want["tensors"])
    assert tf.data.array(R[:4]).skip(-1).toArray() == want["skip_negative"]
    assert tf.data.array(R[:4]).take(-1).toArray() == want["take_negative"]
    odd = tf.data.array(R[:10]).filter(lambda x: x % 3 == 0).map(lambda x: x * 2)
    assert odd.toArray() == want["filter_map"]
    joined = tf.data.array([1, 2]).concatenate(tf.data.array([3]))
    assert joined.toArray() == want["concatenate"]
    zipped = tf.data.zip(
        {"p": [tf.data.array([1, 2, 3]), tf.data.array([4, 5])], "q": tf.data.array(list("abc"))}
    )
    assert zipped.toArray() == want["zip_nested"]


def test_sizes_follow_tfjs_rules():
    ten = tf.data.array(R[:10])
    got = {
        "batch3": ten.batch(3).size, "batch3_no_small": ten.batch(3, False).size,
        "repeat": ten.repeat().size, "repeat2": ten.repeat(2).size, "repeat0": ten.repeat(0).size,
        "take20": ten.take(20).size, "take4": ten.take(4).size, "skip3": ten.skip(3).size,
        "skip20": ten.skip(20).size, "skip_negative": ten.skip(-1).size,
        "filter": ten.filter(lambda x: True).size,
        "repeat_filter": ten.repeat().filter(lambda x: True).size,
        "concat": ten.concatenate(ten).size, "concat_inf": ten.concatenate(ten.repeat()).size,
        "shuffle": ten.shuffle(3).size, "zip": tf.data.zip([ten, ten.take(4)]).size,
        "generator": tf.data.generator(lambda: iter([1])).size,
    }  # fmt: skip
    want = {k: (math.inf if v == "Infinity" else v) for k, v in REF["sizes"].items()}
    assert got == want
    with pytest.raises(ValueError, match="infinite data stream"):
        ten.repeat().toArray()


# -- csv --------------------------------------------------------------------------------
def _csv_value(v):
    return math.inf if v is None else v  # JSON wrote tfjs's Infinity as null


@pytest.mark.parametrize("case", REF["csv"], ids=lambda c: c["name"])
def test_csv_parses_as_tfjs(case, tmp_path):
    path = tmp_path / f"{case['name']}.csv"
    path.write_bytes(case["text"].encode())
    ds = tf.data.csv(f"file://{path}", case["config"])
    if "error" in case:
        with pytest.raises(ValueError) as raised:
            ds.toArray()
        assert str(raised.value) == case["error"]
        return
    elements = ds.toArray()
    if case["name"] == "semicolon_strings":
        assert elements[0]["k"] == math.inf
        elements[0]["k"] = None
    assert elements == case["elements"]
    assert ds.columnNames() == case["columnNames"]


def test_csv_refuses_other_urls_and_missing_files(tmp_path):
    with pytest.raises(ValueError, match="only local files"):
        tf.data.csv("https://example.com/x.csv")
    with pytest.raises(FileNotFoundError, match="no such file"):
        tf.data.csv(str(tmp_path / "missing.csv"))
    path = tmp_path / "x.csv"
    path.write_text("a\n1\n")
    with pytest.raises(ValueError, match="unknown config key"):
        tf.data.csv(str(path), {"header": False})


# -- fitDataset and evaluateDataset, as tfjs -----------------------------------------------
def _model():
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 4, "activation": "relu", "inputShape": [3]}))
    model.add(tf.layers.dense({"units": 1}))
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in REF["weights"]])
    model.compile({"optimizer": tf.train.sgd(0.05), "loss": "meanSquaredError",
                   "metrics": ["mae"]})  # fmt: skip
    return model


def _train():
    return tf.data.zip({"xs": tf.data.array(REF["x"]), "ys": tf.data.array(REF["y"])})


def _val():
    val = tf.data.zip({"xs": tf.data.array(REF["val_x"]), "ys": tf.data.array(REF["val_y"])})
    return val.batch(3)


def _check_fit(history, weights, case):
    for key, values in case["history"].items():
        np.testing.assert_allclose(history.history[key], values, rtol=2e-5, err_msg=key)
    assert sorted(history.history) == sorted(case["history"])
    for got, want in zip(weights, case["weights_after"]):
        np.testing.assert_allclose(np.asarray(got).ravel(), want["values"], rtol=2e-5, atol=1e-6)


def test_fit_dataset_shuffled_batches_with_dataset_validation_as_tfjs():
    case = REF["fit"][0]
    model = _model()
    batch_logs = []
    history = model.fitDataset(
        _train().shuffle(22, "fit").batch(5),
        {"epochs": 3, "validationData": _val(), "verbose": 0,
         "callbacks": {"onBatchEnd": lambda b, logs: batch_logs.append([b, logs.size, logs.loss])}},
    )  # fmt: skip
    _check_fit(history, model.getWeights(), case)
    assert [b[:2] for b in batch_logs] == [b[:2] for b in case["batch_logs"]]
    np.testing.assert_allclose([b[2] for b in batch_logs], [b[2] for b in case["batch_logs"]],
                               rtol=2e-5)  # fmt: skip
    evaluated = model.evaluateDataset(_val(), {"batches": 2})
    want = [v["values"][0] for v in case["evaluate"]]
    np.testing.assert_allclose([float(v) for v in evaluated], want, rtol=2e-5)


def test_fit_dataset_batches_per_epoch_with_tensor_validation_as_tfjs():
    case = REF["fit"][1]
    model = _model()
    history = model.fit_dataset(
        _train().batch(4).repeat(), epochs=2, batches_per_epoch=4, verbose=0,
        validation_data=[tf.tensor2d(REF["val_x"]), tf.tensor2d(REF["val_y"])],
        validation_batch_size=5,
    )  # fmt: skip
    _check_fit(history, model.getWeights(), case)


def test_fit_dataset_errors_name_what_is_wrong():
    model = _model()
    with pytest.raises(ValueError, match="config.epochs is expected to be a positive integer"):
        model.fitDataset(_train().batch(4), {"epochs": 0})
    with pytest.raises(ValueError, match="the 2nd argument \\(config\\) is required"):
        model.fitDataset(_train().batch(4))
    with pytest.raises(ValueError, match="validationSplit"):
        model.fitDataset(_train().batch(4), epochs=1, validationSplit=0.2)
    with pytest.raises(ValueError, match="expected to generate objects of the form"):
        model.fitDataset(tf.data.array([[1.0, 2.0, 3.0]]).batch(1), epochs=1, verbose=0)
    with pytest.raises(ValueError, match="lacks the required input key"):
        bad = tf.data.array([{"xs": {"other": [[1.0, 2.0, 3.0]]}, "ys": [[1.0]]}])
        model.fitDataset(bad, epochs=1, verbose=0)
    with pytest.warns(UserWarning, match="ran out of data") as caught:
        history = model.fitDataset(_train().batch(11), epochs=2, batchesPerEpoch=3, verbose=0)
    # as tfjs: the first epoch stops after the 2 batches there are, the second gets none
    assert ["after 2 batches" in str(w.message) for w in caught] == [True, False]
    assert history.epoch == [0, 1] and len(history.history["loss"]) == 1
    with pytest.raises(TypeError, match="expects a tf.data.Dataset"):
        model.fitDataset([1, 2], epochs=1)
    assert not model.isTraining


# -- generators, prefetch, async ---------------------------------------------------------
def test_generator_forms_sync_async_and_tfjs_style():
    def sync():
        yield from range(3)

    async def agen():
        for i in range(3):
            await asyncio.sleep(0)
            yield i

    class JsIterator:
        def __init__(self):
            self.i = 0

        def next(self):
            self.i += 1
            return {"value": self.i - 1, "done": self.i > 3}

    for source in (sync, agen, JsIterator, lambda: [0, 1, 2], [0, 1, 2]):
        ds = tf.data.generator(source)
        assert ds.toArray() == [0, 1, 2]
        assert ds.toArray() == [0, 1, 2]  # each pass calls the generator again
    once = tf.data.generator(iter([0, 1, 2]))
    assert once.toArray() == [0, 1, 2]
    with pytest.raises(ValueError, match="can be read once"):
        once.toArray()
    with pytest.raises(TypeError, match="generator function"):
        tf.data.generator(3)


def test_prefetch_overlaps_the_producer_and_keeps_order_and_errors():
    def slow():
        for i in range(6):
            time.sleep(0.02)
            yield i
        raise RuntimeError("source broke at 6")

    ds = tf.data.generator(slow).prefetch(3)
    got = []
    with pytest.raises(RuntimeError, match="source broke at 6"):
        for element in ds:
            time.sleep(0.02)  # consuming takes as long as producing: they overlap
            got.append(element)
    assert got == list(range(6))
    before = threading.active_count()
    assert tf.data.generator(lambda: iter(range(1000))).prefetch(2).take(3).toArray() == [0, 1, 2]
    deadline = time.time() + 2
    while threading.active_count() > before and time.time() < deadline:
        time.sleep(0.01)
    assert threading.active_count() <= before  # a consumer that stops stops the thread


def test_iterator_next_and_awaitable_results():
    ds = tf.data.array([5, 6])

    async def read():
        it = ds.iterator()
        first = await it.next()
        rest = await ds.skip(1).toArray()
        seen = []
        await ds.forEachAsync(lambda e: seen.append(e))
        return first, rest, seen

    first, rest, seen = asyncio.run(read())
    assert first.value == 5 and not first.done
    assert rest == [6] and seen == [5, 6]
    logged = []

    async def log(e):
        logged.append(e)

    ds.forEachAsync(log)
    assert logged == [5, 6]


def test_jax_user_trains_from_a_numpy_generator_as_jax_grad_does():
    # A JAX user's pipeline: numpy batches from a generator, fitDataset on a linear model,
    # checked against full-batch SGD written with jax.grad over the same batches.
    rng = np.random.default_rng(3)
    x = rng.normal(size=(12, 2)).astype(np.float32)
    y = (x @ np.array([[1.5], [-0.5]], np.float32)).astype(np.float32)

    def batches():
        for start in range(0, 12, 4):
            yield {"xs": jnp.asarray(x[start : start + 4]), "ys": y[start : start + 4]}

    model = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[2], useBias=False)])
    model.setWeights([tf.zeros([2, 1])])
    model.compile(optimizer=tf.train.sgd(0.1), loss="meanSquaredError")
    model.fitDataset(tf.data.generator(batches), epochs=2, verbose=0)

    def loss(w, bx, by):
        return jnp.mean((bx @ w - by) ** 2)

    w = jnp.zeros((2, 1))
    opt = optax.sgd(0.1)
    state = opt.init(w)
    for _ in range(2):
        for start in range(0, 12, 4):
            grads = jax.grad(loss)(w, x[start : start + 4], y[start : start + 4])
            updates, state = opt.update(grads, state)
            w = optax.apply_updates(w, updates)
    np.testing.assert_allclose(model.getWeights()[0].arraySync(), w, rtol=1e-5, atol=1e-7)
    # the same batches read in a plain loop feed jnp code directly
    total = sum(float(jnp.sum(b["xs"])) for b in tf.data.generator(batches))
    assert total == pytest.approx(float(x.sum()), rel=1e-5)


def test_map_runs_in_tidy_and_batches_tensors_made_there():
    before = tf.memory().numTensors
    ds = tf.data.array([1.0, 2.0, 3.0]).map(lambda v: {"x": tf.scalar(v).square().add(1)})
    (batch,) = ds.batch(3).toArray()
    assert batch["x"].arraySync() == [2.0, 5.0, 10.0]
    batch["x"].dispose()
    assert tf.memory().numTensors <= before + 0  # map's intermediates were freed


def test_fit_dataset_validates_only_epochs_that_reached_their_end_as_tfjs():
    # tfjs runs validation when an epoch reaches batchesPerEpoch or the iterator's end;
    # an epoch cut short (stopTraining, or data running out) gets no val_ values.
    model = _model()

    def stop_after_first(batch, logs):
        model.stopTraining = True

    history = model.fitDataset(
        _train().batch(5),
        {"epochs": 1, "validationData": _val(), "verbose": 0,
         "callbacks": {"onBatchEnd": stop_after_first}},
    )  # fmt: skip
    assert sorted(history.history) == ["loss", "mae"]
    model = _model()
    history = model.fitDataset(
        _train().batch(5).repeat(), epochs=1, batchesPerEpoch=2, verbose=0,
        validationData=_val(),
    )  # fmt: skip
    assert sorted(history.history) == ["loss", "mae", "val_loss", "val_mae"]
    model = _model()
    with pytest.warns(UserWarning, match="ran out of data after 2 batches"):
        history = model.fitDataset(
            _train().batch(11), epochs=1, batchesPerEpoch=3, verbose=0, validationData=_val()
        )
    assert sorted(history.history) == ["loss", "mae"]


def test_an_async_generator_runs_inside_a_running_event_loop_as_in_a_notebook():
    # a notebook cell runs inside an event loop: reading an async generator there must
    # work, and a consumer that stops early lets the generator clean up
    cleaned = []

    async def agen():
        try:
            for i in range(5):
                await asyncio.sleep(0)
                yield {"xs": [float(i)], "ys": [2.0 * i]}
        finally:
            cleaned.append(True)

    async def cell():
        ds = tf.data.generator(agen)
        first_two = ds.take(2).toArray()
        batch = ds.batch(5).toArray()[0]
        return first_two, batch

    first_two, batch = asyncio.run(cell())
    assert [e["xs"] for e in first_two] == [[0.0], [1.0]]
    assert batch["ys"].arraySync() == [[0.0], [2.0], [4.0], [6.0], [8.0]]
    assert cleaned == [True, True]
