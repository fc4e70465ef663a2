"""Models with several inputs and outputs compile, fit, evaluate and trainOnBatch as tfjs 4.22.

tests/reference/multi_output.json (written by gen_multi_output.js) holds tfjs's run of a
two-input, two-output functional model (mnist-acgan's discriminator shape: a shared trunk,
a sigmoid head with binaryCrossentropy, a softmax head with categoricalCrossentropy):
metricsNames for several compile configs, the fit history (validationSplit, a short last
batch), evaluate, trainOnBatch and the weights after each, from the same weights and data.

tfjs 4.22's test function of a multi-output model returns shifted values (the running sum
of the losses where each output's loss belongs; tfjs_grad/models/_training.py's docstring),
so its `evaluate` and `val_*` logs are not what its names say; here they are
`[total, loss_1, loss_2, ...metrics]`, the order of `metricsNames` and of tfjs's own
`trainOnBatch`. The fixture's evaluate lists are tfjs's raw
`[L1, L1+L2, L1, L2, ...metrics]`, read back into that order.
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf

REFERENCE = json.loads((Path(__file__).parent / "reference" / "multi_output.json").read_text())
RTOL, ATOL = 2e-5, 2e-6


def _close(actual, expected, what):
    np.testing.assert_allclose(np.asarray(actual, np.float64), np.asarray(expected, np.float64),
                               rtol=RTOL, atol=ATOL, err_msg=what)  # fmt: skip


def _from_tfjs_evaluate(raw: list[float]) -> list[float]:
    """tfjs's two-output test values `[L1, L1+L2, L1, L2, ...metrics]` as
    `[total, L1, L2, ...metrics]`."""
    return [raw[1], raw[2], raw[3], *raw[4:]]


def _model():
    xa = tf.input({"shape": [3], "name": "xa"})
    xb = tf.input({"shape": [2], "name": "xb"})
    joined = tf.layers.concatenate({"name": "joined"}).apply([xa, xb])
    trunk = tf.layers.dense({"units": 6, "activation": "relu", "name": "trunk"}).apply(joined)
    real = tf.layers.dense({"units": 1, "activation": "sigmoid", "name": "real"}).apply(trunk)
    cls = tf.layers.dense({"units": 3, "activation": "softmax", "name": "cls"}).apply(trunk)
    model = tf.model({"inputs": [xa, xb], "outputs": [real, cls]})
    model.setWeights([tf.tensor(w) for w in REFERENCE["init"]])
    return model


def _data(n=None):
    x = [tf.tensor(REFERENCE[k][:n]) for k in ("xa", "xb")]
    y = [tf.tensor(REFERENCE[k][:n]) for k in ("real", "cls")]
    return x, y


def _compiled(**extra):
    model = _model()
    model.compile({
        "optimizer": tf.train.sgd(0.3),
        "loss": ["binaryCrossentropy", "categoricalCrossentropy"],
        "metrics": ["accuracy"],
        **extra,
    })  # fmt: skip
    return model


def test_names_of_inputs_outputs_and_metrics_as_tfjs():
    model = _model()
    assert model.inputNames == REFERENCE["input_names"]
    assert model.outputNames == REFERENCE["output_names"]
    variants = {
        "list_loss_list_metrics": {
            "loss": ["binaryCrossentropy", "categoricalCrossentropy"], "metrics": ["accuracy"],
        },
        "dict_loss_dict_metrics": {
            "loss": {"cls": "categoricalCrossentropy", "real": "binaryCrossentropy"},
            "metrics": {"cls": ["accuracy", "mse"], "real": "mae"},
        },
        "one_loss_no_metrics": {"loss": "meanSquaredError"},
        "one_loss_two_metrics": {"loss": "meanSquaredError", "metrics": ["mse", "acc"]},
    }  # fmt: skip
    for key, config in variants.items():
        model.compile({"optimizer": "sgd", **config})
        assert model.metricsNames == REFERENCE["metrics_names"][key], key


def test_fit_evaluate_train_on_batch_as_tfjs():
    model = _compiled()
    x, y = _data()
    fit = REFERENCE["fit"]
    history = model.fit(x, y, fit["args"])
    assert list(history.history) == fit["history_keys"]
    assert history.epoch == fit["epoch"]
    labels = model.metricsNames
    for key in labels:
        _close(history.history[key], fit["history"][key], key)
    for i, key in enumerate(labels):
        expected = [_from_tfjs_evaluate(raw)[i] for raw in fit["val_evaluate"]]
        _close(history.history[f"val_{key}"], expected, f"val_{key}")
    for w, expected in zip(model.getWeights(), REFERENCE["weights_after_fit"]):
        _close(w.arraySync(), expected, "weights after fit")

    evaluated = model.evaluate(x, y, {"batchSize": 4})
    _close([v.dataSync()[0] for v in evaluated], _from_tfjs_evaluate(REFERENCE["evaluate"]), "ev")

    x5, y5 = _data(5)
    _close(model.trainOnBatch(x5, y5), REFERENCE["train_on_batch"], "trainOnBatch")
    for w, expected in zip(model.getWeights(), REFERENCE["weights_after_tob"]):
        _close(w.arraySync(), expected, "weights after trainOnBatch")


def test_data_and_losses_by_name_train_as_lists_do():
    x, y = _data(5)
    by_list = _compiled().trainOnBatch(x, y)
    model = _model()
    model.compile(
        optimizer=tf.train.sgd(0.3),
        loss={"cls": "categoricalCrossentropy", "real": "binaryCrossentropy"},
        metrics={"real": ["accuracy"], "cls": "accuracy"},
    )
    by_name = model.trainOnBatch({"xb": x[1], "xa": x[0]}, {"cls": y[1], "real": y[0]})
    _close(by_name, by_list, "trainOnBatch with dicts")
    _close(model.getWeights()[0].arraySync(), _compiled_step_weights0(x, y), "kernel after")
    result = model.evaluate({"xa": x[0], "xb": x[1]}, {"real": y[0], "cls": y[1]})
    assert len(result) == len(model.metricsNames) == 5


def _compiled_step_weights0(x, y):
    model = _compiled()
    model.trainOnBatch(x, y)
    return model.getWeights()[0].arraySync()


def test_loss_weights_scale_the_total_as_jax_computes_it():
    """One trainOnBatch step with lossWeights [1, 0.5]: the returned [total, L_real, L_cls,
    acc_real, acc_cls] and the SGD update, against the same program written in jnp."""
    model = _compiled(lossWeights={"real": 1, "cls": 0.5})
    params = [jnp.asarray(w, jnp.float32) for w in REFERENCE["init"]]
    xa, xb = (jnp.asarray(REFERENCE[k][:5], jnp.float32) for k in ("xa", "xb"))
    real, cls = (jnp.asarray(REFERENCE[k][:5], jnp.float32) for k in ("real", "cls"))
    eps = 1e-7

    def losses(params):
        k0, b0, k1, b1, k2, b2 = params
        trunk = jax.nn.relu(jnp.concatenate([xa, xb], axis=1) @ k0 + b0)
        p = jnp.clip(jax.nn.sigmoid(trunk @ k1 + b1), eps, 1 - eps)
        q = jnp.clip(jax.nn.softmax(trunk @ k2 + b2), eps, 1 - eps)
        bce = -jnp.mean(real * jnp.log(p) + (1 - real) * jnp.log(1 - p), axis=-1)
        cce = -jnp.sum(cls * jnp.log(q), axis=-1)
        total = jnp.mean(bce + 0.5 * cce)
        acc_real = jnp.mean(jnp.equal(real, jnp.round(p)))
        acc_cls = jnp.mean(jnp.argmax(cls, -1) == jnp.argmax(q, -1))
        return total, (jnp.mean(bce), jnp.mean(cce), acc_real, acc_cls)

    (total, aux), grads = jax.value_and_grad(losses, has_aux=True)(params)
    x, y = _data(5)
    _close(model.trainOnBatch(x, y), [total, *aux], "trainOnBatch values")
    for w, p, g in zip(model.trainableWeights, params, grads):
        _close(w.value, p - 0.3 * g, "SGD update")


def test_evaluate_and_fit_logs_read_the_same_program():
    model = _compiled(lossWeights=[1, 0.5])
    x, y = _data()
    total, l_real, l_cls, *_ = [float(v) for v in model.evaluate(x, y, batchSize=11)]
    assert total == pytest.approx(l_real + 0.5 * l_cls, rel=1e-6)
    history = model.fit(x, y, epochs=1, batchSize=11, shuffle=False, verbose=0)
    assert history.history["loss"][0] == pytest.approx(total, rel=1e-6)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"loss": ["binaryCrossentropy"]}, "When passing an Array as loss, it should have one "
         "entry per model output. The model has 2 output(s), but you passed loss="
         "binaryCrossentropy."),
        ({"loss": {"real": "mse", "fake": "mse"}}, 'Unknown entry in loss dictionary: "fake". '
         "Only expected the following keys: real,cls"),
        ({"loss": {"real": "mse"}}, 'Output "cls" is missing from the loss dictionary'),
        ({"loss": "meanSquaredError", "lossWeights": [1, 2, 3]},
         "When passing an Array as lossWeights"),
        ({"loss": "meanSquaredError", "lossWeights": {"other": 1}},
         "Unknown entry in lossWeights dictionary"),
    ],
)  # fmt: skip
def test_compile_errors_name_the_argument(config, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _model().compile(optimizer="sgd", **config)


def test_data_errors_as_tfjs():
    model = _compiled()
    x, y = _data(4)
    with pytest.raises(ValueError, match="Expected to see 2 Tensor\\(s\\), but instead got 1"):
        model.trainOnBatch(x, [y[0]])
    with pytest.raises(ValueError, match="expects 2 Tensor\\(s\\), but only received one"):
        model.fit(x, y[0], verbose=0)
    with pytest.raises(ValueError, match='No data provided for "cls"'):
        model.evaluate(x, {"real": y[0]})
    with pytest.raises(ValueError, match='No data provided for "xb"'):
        model.trainOnBatch({"xa": x[0]}, y)
    with pytest.raises(ValueError, match="so classWeight must be either an array with 2"):
        model.fit(x, y, classWeight={0: 1, 1: 2}, verbose=0)
    with pytest.raises(ValueError, match="classWeight is an array of 1 element"):
        model.fit(x, y, classWeight=[{0: 1, 1: 2}], verbose=0)


def test_acgan_discriminator_with_sparse_ids_and_class_weights_as_tfjs():
    case = REFERENCE["acgan"]
    model = _model()
    model.compile(
        optimizer=tf.train.sgd(0.2),
        loss=["binaryCrossentropy", "sparseCategoricalCrossentropy"],
        metrics=["accuracy"],
    )
    assert model.metricsNames == case["metrics_names"]
    x, y = _data()
    ids = tf.tensor(np.argmax(np.asarray(REFERENCE["cls"]), axis=1).reshape(-1, 1), None, "float32")
    history = model.fit(x, [y[0], ids], epochs=2, batchSize=4, shuffle=False, verbose=0,
                        classWeight=case["class_weight"])  # fmt: skip
    assert list(history.history) == case["history_keys"]
    for key in case["history_keys"]:
        _close(history.history[key], case["history"][key], key)
    for w, expected in zip(model.getWeights(), case["weights_after_fit"]):
        _close(w.arraySync(), expected, "weights after fit with classWeight")


def test_validation_data_and_batch_logs_carry_every_output():
    model = _compiled()
    x, y = _data()
    val_x = {"xa": x[0][:4], "xb": x[1][:4]}
    val_y = {"real": y[0][:4], "cls": y[1][:4]}
    batch_keys = []
    history = model.fit(
        x, y, epochs=1, batchSize=4, shuffle=False, verbose=0, validationData=[val_x, val_y],
        callbacks={"onBatchEnd": lambda batch, logs: batch_keys.append(list(logs))},
    )  # fmt: skip
    labels = model.metricsNames
    assert batch_keys == [["batch", "size", *labels]] * 3
    assert list(history.history) == [f"val_{k}" for k in labels] + labels
    evaluated = [float(v) for v in model.evaluate(val_x, val_y, batchSize=4)]
    _close([history.history[f"val_{k}"][0] for k in labels], evaluated, "val logs")
