"""model.compile / fit / evaluate / trainOnBatch train as tfjs 4.22's do.

tests/reference/training.json (written by gen_training.js) holds tfjs's fit histories
(loss, metrics and val_* per epoch, validationSplit and validationData, short last
batches), every batch's logs, the weights after fit, evaluate and trainOnBatch, for dense
models given the same weights and data here (shuffle false, so the order is fixed).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import jax
import numpy as np
import pytest

import tfjs_grad as tf

REFERENCE = json.loads((Path(__file__).parent / "reference" / "training.json").read_text())
FITS = {case["id"]: case for case in REFERENCE["fits"]}
RTOL, ATOL = 2e-5, 2e-6


def _model(case: dict):
    layers = []
    for i, spec in enumerate(case["layers"]):
        batchnorm = spec.get("type") == "batchNormalization"
        config = {} if batchnorm else {"units": spec["units"], "activation": spec["activation"]}
        if i == 0:
            config["inputShape"] = [case["input_dim"]]
        factory = tf.layers.batchNormalization if batchnorm else tf.layers.dense
        layers.append(factory(config))
    model = tf.sequential({"layers": layers})
    model.setWeights([tf.tensor(np.asarray(w, np.float32)) for w in case["init"]])
    return model


def _optimizer(spec):
    if isinstance(spec, str):
        return spec
    return getattr(tf.train, spec["factory"])(*spec["args"])


def _custom_mae(y_true, y_pred):
    return tf.mean(tf.abs(tf.sub(y_pred, y_true)), -1)


def _compile(model, case):
    c = case["compile"]
    loss = _custom_mae if c["loss"] == "custom_mae" else c["loss"]
    model.compile({"optimizer": _optimizer(c["optimizer"]), "loss": loss, "metrics": c["metrics"]})


def _close(actual, expected, what):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=RTOL, atol=ATOL, err_msg=what)  # fmt: skip


def _fit(model, case, batch_logs):
    f = case["fit"]
    epoch_now = [0]

    def on_epoch_begin(epoch, logs):
        epoch_now[0] = epoch

    def on_batch_end(batch, logs):
        batch_logs.append({"epoch": epoch_now[0], **logs})

    callbacks = [
        tf.callbacks.CustomCallback({"onEpochBegin": on_epoch_begin, "on_batch_end": on_batch_end})
    ]
    if f.get("earlyStopping"):
        callbacks.append(tf.callbacks.earlyStopping(f["earlyStopping"]))
    kwargs = {"epochs": f["epochs"], "batch_size": f["batchSize"], "shuffle": False, "verbose": 0,
              "callbacks": callbacks}  # fmt: skip
    if "validationSplit" in f:
        kwargs["validation_split"] = f["validationSplit"]
    if f.get("validationData"):
        kwargs["validationData"] = [case["val_x"], case["val_y"]]
    if f.get("classWeight"):
        kwargs["classWeight"] = {int(k): v for k, v in f["classWeight"].items()}
    if "initialEpoch" in f:
        kwargs["initialEpoch"] = f["initialEpoch"]
    return model.fit(np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32), **kwargs)


@pytest.mark.parametrize("case_id", sorted(FITS))
def test_fit_evaluate_train_on_batch_match_tfjs(case_id):
    case = FITS[case_id]
    model = _model(case)
    _compile(model, case)
    assert model.metricsNames == case["metrics_names"]
    batch_logs: list[dict] = []
    history = _fit(model, case, batch_logs)
    assert history.epoch == case["epoch"]
    assert list(history.history) == case["history_keys"]  # val_* first, 'accuracy' is 'acc'
    for key, values in case["history"].items():
        _close(history.history[key], values, f"history[{key}]")
    assert [set(b) for b in batch_logs] == [set(b) for b in case["batch_logs"]]
    for ours, ref in zip(batch_logs, case["batch_logs"]):
        assert (ours["epoch"], ours["batch"], ours["size"]) == (
            ref["epoch"],
            ref["batch"],
            ref["size"],
        )
        for key in ref:
            _close(ours[key], ref[key], f"batch {ref['batch']} of epoch {ref['epoch']}: {key}")
    for ours, ref in zip(model.getWeights(), case["weights_after"]):
        _close(ours, ref, "weights after fit")
    x, y = np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32)
    evaluated = model.evaluate(x, y, {"batchSize": 5})
    if isinstance(case["evaluate"], list):
        assert isinstance(evaluated, list) and len(evaluated) == len(case["evaluate"])
        assert all(isinstance(v, tf.Tensor) and v.shape == () for v in evaluated)
        _close([float(v) for v in evaluated], case["evaluate"], "evaluate")
    else:
        assert isinstance(evaluated, tf.Tensor) and evaluated.shape == ()  # tfjs: a Scalar
        _close(float(evaluated), case["evaluate"], "evaluate")
    on_batch = model.trainOnBatch(x[:5], y[:5])
    _close(on_batch, case["train_on_batch"], "trainOnBatch")
    for ours, ref in zip(model.getWeights(), case["weights_after_tob"]):
        _close(ours, ref, "weights after trainOnBatch")


def test_one_trace_for_every_batch_the_short_last_one_included():
    case = FITS["bce_acc_split"]  # 9 training samples in batches 4, 4, 1
    model = _model(case)
    _compile(model, case)
    _fit(model, case, [])
    step = model._compiled.train_step
    # the short batch runs in the full batch's program, padded and masked; the first trace
    # also finds the Variables the step uses (tf.jit's layout, staged by the wider program
    # without tracing again), and an epoch's fresh totals have the signature of the sums
    assert step.trace_count == 1
    model.fit(np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32),
              epochs=2, batchSize=4, shuffle=False, validationSplit=0.25, verbose=0)  # fmt: skip
    assert step.trace_count == 1


def _compiles_of_fit(model: Any, x: Any, y: Any, **config: Any) -> int:
    """XLA compiles of `_pure` programs (tf.jit's) while `model.fit` runs."""
    import logging

    class Count(logging.Handler):
        compiles = 0

        def emit(self, record: logging.LogRecord) -> None:
            if "Compiling jit(_pure)" in record.getMessage():
                Count.compiles += 1

    handler, logger = Count(), logging.getLogger("jax")
    logger.addHandler(handler)
    try:
        with jax.log_compiles(True):
            model.fit(x, y, config)
    finally:
        logger.removeHandler(handler)
    return Count.compiles


def _mlp(seed: int, normalized: bool = False) -> Any:
    layers = [tf.layers.dense({"units": 8, "inputShape": [3], "activation": "relu"})]
    if normalized:
        layers.append(tf.layers.batchNormalization())
    model = tf.sequential({"layers": [*layers, tf.layers.dense({"units": 1})]})
    rng = np.random.default_rng(seed)
    model.setWeights([rng.normal(size=w.shape).astype(np.float32) for w in model.getWeights()])
    model.compile({"optimizer": tf.train.adam(0.01), "loss": "meanSquaredError",
                   "metrics": ["mae"]})  # fmt: skip
    return model


def test_70_samples_at_batch_32_compile_one_training_program():
    x = np.random.default_rng(0).normal(size=(70, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    config = {"epochs": 2, "batchSize": 32, "verbose": 0}
    # the same model on 64 samples (two full batches) compiles as many programs: the
    # short batch of 6 adds none (a first compile finds the optimizer's slots, then one)
    assert _compiles_of_fit(_mlp(1), x, y, **config) == _compiles_of_fit(
        _mlp(1), x[:64], y[:64], **config
    )


def test_the_short_batch_trains_as_the_batch_alone():
    """Padded and masked, the last batch of 6 steps and logs as a batch of 6: the history
    and weights of `fit` are those of trainOnBatch on the same slices (a JAX-free check)."""
    x = np.random.default_rng(2).normal(size=(70, 3)).astype(np.float32)
    y = np.sin(x).sum(axis=1, keepdims=True)
    fitted, stepped = _mlp(3), _mlp(3)
    history = fitted.fit(x, y, {"epochs": 1, "batchSize": 32, "shuffle": False, "verbose": 0})
    logs = [stepped.trainOnBatch(x[i : i + 32], y[i : i + 32]) for i in (0, 32, 64)]
    sizes = np.float32([32, 32, 6])
    for key, column in (("loss", 0), ("mae", 1)):
        total = sum(np.float32(log[column]) * n for log, n in zip(logs, sizes))
        np.testing.assert_allclose(history.history[key][0], total / 70, rtol=1e-5)
    for ours, ref in zip(fitted.getWeights(), stepped.getWeights()):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=1e-5, atol=1e-6)
    assert float(fitted.evaluate(x, y, {"batchSize": 32})[0]) == pytest.approx(
        float(stepped.evaluate(x, y, {"batchSize": 70})[0]), rel=1e-5
    )


def test_batch_normalization_keeps_a_program_for_the_short_batch():
    """BatchNormalization's batch statistics would see the padding: its models compile the
    short batch apart, so the moving statistics are those of the 6 real rows."""
    x = np.random.default_rng(4).normal(size=(38, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    fitted, stepped = _mlp(5, normalized=True), _mlp(5, normalized=True)
    fitted.fit(x, y, {"epochs": 1, "batchSize": 32, "shuffle": False, "verbose": 0})
    stepped.trainOnBatch(x[:32], y[:32])
    stepped.trainOnBatch(x[32:], y[32:])
    assert fitted._compiled.train_step.trace_count == 2
    for ours, ref in zip(fitted.getWeights(), stepped.getWeights()):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=1e-5, atol=1e-6)


def test_shuffle_visits_every_sample_once_per_epoch():
    case = FITS["mse_mae_sgd_string"]
    model = _model(case)
    _compile(model, case)
    x, y = np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32)
    sizes: list[int] = []
    hooks = {"onBatchEnd": lambda b, logs: sizes.append(logs["size"])}
    history = model.fit(x, y, {"epochs": 2, "batchSize": 4, "verbose": 0, "callbacks": hooks})
    assert sizes == [4, 4, 3, 4, 4, 3]
    # The epoch loss is the size-weighted mean of batch losses in any order; with the
    # weights before each step it differs from the unshuffled run only by the order.
    assert len(history.history["loss"]) == 2 and np.isfinite(history.history["loss"]).all()


def test_history_is_awaitable_and_config_forms_agree():
    case = FITS["early_stopping"]
    x, y = np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32)
    results = []
    for form in ("dict", "camel", "snake"):
        model = _model(case)
        model.compile(optimizer=tf.train.sgd(0.1), loss="meanSquaredError")
        if form == "dict":
            h = model.fit(x, y, {"epochs": 2, "batchSize": 4, "shuffle": False, "verbose": 0})
        elif form == "camel":
            h = model.fit(x, y, epochs=2, batchSize=4, shuffle=False, verbose=0)
        else:

            async def run(model=model):
                return await model.fit(x, y, epochs=2, batch_size=4, shuffle=False, verbose=0)

            h = asyncio.run(run())
        results.append(h.history["loss"])
    assert results[0] == results[1] == results[2]


def test_async_callbacks_are_awaited():
    case = FITS["early_stopping"]
    model = _model(case)
    model.compile(optimizer="sgd", loss="meanSquaredError")
    seen = []

    async def on_epoch_end(epoch, logs):
        await asyncio.sleep(0)
        seen.append((epoch, sorted(logs)))

    model.fit(np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32),
              epochs=2, verbose=0, callbacks=[{"onEpochEnd": on_epoch_end}])  # fmt: skip
    assert seen == [(0, ["loss"]), (1, ["loss"])]


def test_errors_use_tfjs_phrases():
    case = FITS["bce_acc_split"]
    model = _model(case)
    x, y = np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32)
    with pytest.raises(RuntimeError, match="You must compile a model before training/testing"):
        model.fit(x, y, verbose=0)
    with pytest.raises(ValueError, match="Unknown Optimizer nope"):
        model.compile(optimizer="nope", loss="meanSquaredError")
    with pytest.raises(ValueError, match="Unknown loss nope"):
        model.compile(optimizer="sgd", loss="nope")
    with pytest.raises(ValueError, match="Unknown metric nope"):
        model.compile(optimizer="sgd", loss="meanSquaredError", metrics=["nope"])
    model.compile(optimizer="sgd", loss="binaryCrossentropy")
    with pytest.raises(ValueError, match="Found 12 input sample\\(s\\) and 3 target sample\\(s\\)"):
        model.fit(x, y[:3], verbose=0)
    with pytest.raises(
        ValueError, match="target expected a batch of elements where each example has shape \\[1\\]"
    ):
        model.fit(x, np.zeros((12, 2), np.float32), verbose=0)
    with pytest.raises(ValueError, match="batchSize is required to be a positive integer"):
        model.fit(x, y, batchSize=0, verbose=0)
    with pytest.raises(ValueError, match="unknown config key"):
        model.fit(x, y, epoch=3)


def test_early_stopping_modes_and_baseline():
    stop = tf.callbacks.earlyStopping({"monitor": "val_acc", "patience": 2})
    assert stop.mode == "auto" and stop.minDelta == 0 and stop.best is None
    stop.onTrainBegin()
    for epoch, value in enumerate([0.5, 0.6, 0.6, 0.55]):
        stop.onEpochEnd(epoch, {"val_acc": value})
    assert stop.stoppedEpoch == 3 and stop.best == 0.6
    base = tf.callbacks.earlyStopping(monitor="loss", baseline=0.1, patience=1)
    base.onTrainBegin()
    base.onEpochEnd(0, {"loss": 0.2})
    assert base.wait == 1 and base.stoppedEpoch == 0
    with pytest.raises(NotImplementedError):
        tf.callbacks.earlyStopping(restoreBestWeights=True)


def test_verbose_shows_a_progress_bar_with_the_loss(capsys):
    case = FITS["early_stopping"]
    model = _model(case)
    model.compile(optimizer="sgd", loss="meanSquaredError")
    model.fit(
        np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32), epochs=1, batchSize=4
    )
    err = capsys.readouterr().err
    assert "Epoch 1/1" in err and "loss=" in err


@pytest.mark.parametrize(
    ("n", "split", "message"),
    [
        (0, None, "model.fit() has no training samples"),
        (1, 0.5, "no training samples once validationSplit 0.5 is taken"),
        (2, 0.9, "no training samples once validationSplit 0.9 is taken"),
    ],
)
def test_fit_without_training_samples_is_refused_weights_unchanged(n, split, message):
    model = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[2])])
    model.compile(optimizer="sgd", loss="meanSquaredError")
    before = [np.asarray(w.read()) for w in model.weights]
    with pytest.raises(ValueError, match=re.escape(message)):
        model.fit(tf.ones([n, 2]), tf.ones([n, 1]), validationSplit=split)
    for old, w in zip(before, model.weights):
        np.testing.assert_array_equal(old, np.asarray(w.read()))


def test_logs_and_history_read_as_fields_as_in_tfjs():
    # tfjs: callbacks: {onEpochEnd: (epoch, logs) => losses.push(logs.loss),
    #                   onBatchEnd: (batch, logs) => sizes.push(logs.size)}
    #       history.history.loss[0], history.history.val_acc
    case = FITS["bce_acc_split"]
    model = _model(case)
    _compile(model, case)
    losses, val_accs, sizes = [], [], []
    history = model.fit(np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32), {
        "epochs": 3, "batchSize": 4, "validationSplit": 0.25, "shuffle": False, "verbose": 0,
        "callbacks": {
            "onEpochEnd": lambda epoch, logs: (losses.append(logs.loss),
                                               val_accs.append(logs.val_acc)),
            "onBatchEnd": lambda batch, logs: sizes.append(logs.size),
        },
    })  # fmt: skip
    _close(losses, case["history"]["loss"], "logs.loss")
    _close(val_accs, case["history"]["val_acc"], "logs.val_acc")
    assert history.history.loss == losses and history.history.loss[0] == losses[0]
    assert history.history.val_acc == history.history["val_acc"]
    assert sizes[0] == 4
    # still a dict: equality with a plain dict, item access, and a missing name is named
    assert history.history == {k: list(v) for k, v in history.history.items()}
    with pytest.raises(AttributeError, match="'mae'"):
        _ = history.history.mae
    seen = []
    model.fit(np.asarray(case["x"], np.float32), np.asarray(case["y"], np.float32), epochs=1,
              verbose=0, callbacks={"onEpochEnd": lambda e, logs: seen.append(logs)})  # fmt: skip
    with pytest.raises(AttributeError, match="'val_loss'"):
        _ = seen[0].val_loss
    assert seen[0] == {"loss": seen[0]["loss"], "acc": seen[0]["acc"]}


def test_an_epoch_in_one_dispatch_logs_as_batch_by_batch():
    """Without batch hooks an epoch's 3 batches run in one call; with an onBatchEnd hook,
    one call per batch: the histories and weights agree."""
    x = np.random.default_rng(6).normal(size=(70, 3)).astype(np.float32)
    y = np.cos(x).sum(axis=1, keepdims=True)
    config = {"epochs": 3, "batchSize": 32, "shuffle": False, "verbose": 0}
    whole, hooked = _mlp(7), _mlp(7)
    whole.fit(x, y, {**config, "epochs": 1})
    step, calls = whole._compiled.train_step, []

    def counted(*args: Any) -> Any:
        calls.append(args[6])  # the batch count of the dispatch
        return step(*args)

    whole._compiled.train_step = counted
    h_whole = whole.fit(x, y, config)
    assert calls == [3, 3, 3]
    hooked.fit(x, y, {**config, "epochs": 1})
    seen: list[int] = []
    hooks = {"onBatchEnd": lambda batch, logs: seen.append(logs["size"])}
    h_hooked = hooked.fit(x, y, {**config, "callbacks": hooks})
    assert seen == [32, 32, 6] * 3
    for key in ("loss", "mae"):
        np.testing.assert_allclose(h_whole.history[key], h_hooked.history[key], rtol=1e-5)
    for ours, ref in zip(whole.getWeights(), hooked.getWeights()):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=1e-5, atol=1e-6)


def test_stop_training_before_an_epoch_steps_once():
    """tfjs checks `stopTraining` after each batch: set in onEpochBegin, one batch runs."""
    x = np.random.default_rng(8).normal(size=(70, 3)).astype(np.float32)
    y = x.sum(axis=1, keepdims=True)
    fitted, stepped = _mlp(9), _mlp(9)
    stop = {"onEpochBegin": lambda epoch, logs: setattr(fitted, "stopTraining", True)}
    history = fitted.fit(x, y, {"epochs": 4, "batchSize": 32, "verbose": 0, "shuffle": False,
                                "callbacks": stop})  # fmt: skip
    loss, mae = stepped.trainOnBatch(x[:32], y[:32])
    assert history.epoch == [0]
    np.testing.assert_allclose([history.history["loss"][0], history.history["mae"][0]],
                               [loss, mae], rtol=1e-5)  # fmt: skip
    for ours, ref in zip(fitted.getWeights(), stepped.getWeights()):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=1e-5, atol=1e-6)


def test_fit_matches_a_jax_sgd_loop_over_the_same_batches():
    """A JAX user's loop: jax.grad of the mean squared error on each batch (the last one
    of 6 rows), plain SGD; `fit` in one dispatch per epoch gives its losses and weights."""
    import jax.numpy as jnp

    x = np.random.default_rng(10).normal(size=(70, 3)).astype(np.float32)
    y = np.tanh(x).sum(axis=1, keepdims=True)
    model = _mlp(11)
    model.compile({"optimizer": tf.train.sgd(0.05), "loss": "meanSquaredError"})
    params = [w.value for w in model.trainableWeights]  # kernel, bias, kernel, bias

    def loss_fn(p, xb, yb):
        h = jax.nn.relu(xb @ p[0] + p[1])
        return jnp.mean((h @ p[2] + p[3] - yb) ** 2)

    @jax.jit
    def step(p, xb, yb):
        loss, grads = jax.value_and_grad(loss_fn)(p, xb, yb)
        return [w - 0.05 * g for w, g in zip(p, grads)], loss

    expected = []
    for _ in range(2):
        total = np.float32(0)
        for start in (0, 32, 64):
            params, loss = step(params, x[start : start + 32], y[start : start + 32])
            total += np.float32(loss) * np.float32(min(32, 70 - start))
        expected.append(total / 70)
    history = model.fit(x, y, epochs=2, batchSize=32, shuffle=False, verbose=0)
    np.testing.assert_allclose(history.history["loss"], expected, rtol=1e-5)
    for ours, ref in zip(model.getWeights(), params):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(ref), rtol=1e-5, atol=1e-6)
