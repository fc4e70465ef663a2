"""Stateful recurrent layers and `tf.layers.rnn` over cells, against tfjs 4.22.

Fixture: tests/reference/rnn_state.json (tests/reference/gen_rnn_state.js): a stateful
LSTM's predictions over consecutive batches and after `resetStates`, a stateful GRU trained
with `fit`, `stackedRNNCells` in `tf.layers.rnn`, a custom cell written as in tfjs.
"""

from __future__ import annotations

import json
import pathlib
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf

FIXTURE = json.loads((pathlib.Path(__file__).parent / "reference" / "rnn_state.json").read_text())
TOL = {"rtol": 1e-5, "atol": 1e-6}


def arr(entry):
    return np.asarray(entry["values"], np.float32).reshape(entry["shape"])


def close(actual, expected, tol=None):
    np.testing.assert_allclose(np.asarray(actual.arraySync()), arr(expected), **(tol or TOL))


# -- stateful LSTM: predictions carried across batches, resetStates ----------------------
def test_stateful_lstm_carries_states_across_predict_calls_and_resets_them_as_tfjs():
    case = FIXTURE["stateful_lstm"]
    model = tf.sequential(
        {"layers": [tf.layers.lstm({"units": 3, "stateful": True, "batchInputShape": [2, 3, 4]})]}
    )
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])
    xs = [tf.tensor(x["values"], x["shape"]) for x in case["inputs"]]
    assert model.stateful
    for x, expected in zip(xs, case["predictions"]):
        close(model.predict(x), expected)
    for state, expected in zip(model.layers[0].states, case["states"]):
        close(state, expected)

    model.resetStates()
    close(model.predict(xs[0]), case["after_reset"])

    model.layers[0].resetStates([tf.tensor(s["values"], s["shape"]) for s in case["given_states"]])
    close(model.predict(xs[0]), case["after_given"])
    close(model.layers[0].apply(xs[1]), case["apply_after"])


def test_stateful_gru_fit_carries_states_across_batches_as_tfjs():
    case = FIXTURE["stateful_gru_fit"]
    model = tf.sequential(
        {
            "layers": [
                tf.layers.gru({"units": 2, "stateful": True, "batchInputShape": [2, 4, 3]}),
                tf.layers.dense({"units": 1}),
            ]
        }
    )
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])
    model.compile({"optimizer": tf.train.sgd(0.1), "loss": "meanSquaredError"})
    history = model.fit(
        tf.tensor(case["x"]["values"], case["x"]["shape"]),
        tf.tensor(case["y"]["values"], case["y"]["shape"]),
        {"epochs": 2, "batchSize": 2, "shuffle": False, "verbose": 0},
    )
    np.testing.assert_allclose(history.history.loss, case["history"]["loss"], **TOL)
    for state, expected in zip(model.layers[0].states, case["states"]):
        close(state, expected)
    for w, expected in zip(model.getWeights(), case["final_weights"]):
        close(w, expected)


# -- tf.layers.rnn over built-in and stacked cells ---------------------------------------
def test_rnn_over_stacked_lstm_and_simple_rnn_cells_matches_tfjs():
    case = FIXTURE["stacked"]
    inp = tf.input({"shape": [4, 3]})
    rnn = tf.layers.rnn(
        {
            "cell": tf.layers.stackedRNNCells(
                {"cells": [tf.layers.lstmCell({"units": 3}), tf.layers.simpleRNNCell({"units": 2})]}
            ),
            "returnSequences": True,
            "returnState": True,
        }
    )
    outs = rnn.apply(inp)
    assert [o.shape for o in outs] == case["output_shapes"]
    model = tf.model({"inputs": inp, "outputs": outs})
    assert [list(w.shape) for w in model.getWeights()] == case["weight_shapes"]
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])
    x = tf.tensor(case["x"]["values"], case["x"]["shape"])
    for out, expected in zip(model.predict(x), case["predictions"]):
        close(out, expected)


def test_rnn_with_a_list_of_cells_going_backwards_matches_tfjs():
    case = FIXTURE["stacked"]["list_cells"]
    rnn = tf.layers.rnn(
        {
            "cell": [tf.layers.gruCell({"units": 2}), tf.layers.simpleRNNCell({"units": 3})],
            "goBackwards": True,
        }
    )
    model = tf.sequential({"layers": [tf.layers.inputLayer({"inputShape": [4, 3]}), rnn]})
    assert rnn.cell.stateSize == case["state_size"]
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])
    x = tf.tensor(FIXTURE["stacked"]["x"]["values"], FIXTURE["stacked"]["x"]["shape"])
    close(model.predict(x), case["prediction"])


def test_rnn_over_a_simple_rnn_cell_equals_the_simple_rnn_layer():
    x = np.random.default_rng(0).normal(size=(2, 5, 3)).astype(np.float32)
    layer = tf.layers.simpleRNN({"units": 4, "returnSequences": True})
    expected = layer.apply(x)
    rnn = tf.layers.rnn({"cell": tf.layers.simpleRNNCell({"units": 4}), "returnSequences": True})
    rnn.apply(x)
    rnn.setWeights(layer.getWeights())
    np.testing.assert_allclose(rnn.apply(x).arraySync(), expected.arraySync(), **TOL)


# -- a custom cell written as in tfjs ------------------------------------------------------
class MinimalRNNCell(tf.layers.Layer):
    className = "MinimalRNNCell"

    def __init__(self, config):
        super().__init__(config)
        self.units = config["units"]
        self.stateSize = config["units"]

    def build(self, inputShape):
        self.kernel = self.addWeight(
            "kernel", [inputShape[-1], self.units], "float32", tf.initializers.glorotUniform({})
        )
        self.recurrentKernel = self.addWeight(
            "recurrent_kernel",
            [self.units, self.units],
            "float32",
            tf.initializers.glorotUniform({}),
        )
        self.built = True

    def call(self, inputs, kwargs):
        x, h = inputs
        output = x.matMul(self.kernel.read()).add(h.matMul(self.recurrentKernel.read())).tanh()
        return [output, output]


def custom_cell_model(case):
    model = tf.sequential(
        {
            "layers": [
                tf.layers.rnn({"cell": MinimalRNNCell({"units": 3}), "inputShape": [4, 2]}),
                tf.layers.dense({"units": 1}),
            ]
        }
    )
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])
    return model


def test_a_custom_cell_in_rnn_predicts_and_fits_as_tfjs():
    case = FIXTURE["custom_cell"]
    model = custom_cell_model(case)
    x = tf.tensor(case["x"]["values"], case["x"]["shape"])
    y = tf.tensor(case["y"]["values"], case["y"]["shape"])
    close(model.predict(x), case["prediction"])

    seq = tf.layers.rnn(
        {"cell": MinimalRNNCell({"units": 3}), "returnSequences": True, "returnState": True}
    )
    seq.apply(x)
    seq.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"][:2]])
    for out, expected in zip(seq.apply(x), case["sequences"]):
        close(out, expected)
    h0 = tf.tensor(case["initial_state"]["values"], case["initial_state"]["shape"])
    for out, expected in zip(seq.apply(x, {"initialState": [h0]}), case["from_initial_state"]):
        close(out, expected)

    model.compile({"optimizer": tf.train.sgd(0.2), "loss": "meanSquaredError"})
    history = model.fit(x, y, {"epochs": 3, "batchSize": 4, "shuffle": False, "verbose": 0})
    np.testing.assert_allclose(history.history.loss, case["history"]["loss"], **TOL)
    for w, expected in zip(model.getWeights(), case["final_weights"]):
        close(w, expected)


def test_a_custom_cells_recurrence_written_with_lax_scan_gives_the_same_outputs_and_gradient():
    case = FIXTURE["custom_cell"]
    kernel, recurrent = (jnp.asarray(arr(w)) for w in case["weights"][:2])
    x = jnp.asarray(arr(case["x"]))

    def last_output(kernel, recurrent, x):
        def step(h, x_t):
            h = jnp.tanh(x_t @ kernel + h @ recurrent)
            return h, h

        h, _ = jax.lax.scan(step, jnp.zeros((x.shape[0], 3)), jnp.swapaxes(x, 0, 1))
        return h

    rnn = tf.layers.rnn({"cell": MinimalRNNCell({"units": 3})})
    rnn.apply(x)
    rnn.setWeights([kernel, recurrent])
    np.testing.assert_allclose(
        rnn.apply(x).arraySync(), jax.jit(last_output)(kernel, recurrent, x), **TOL
    )

    loss = lambda k, r: jnp.sum(jnp.square(last_output(k, r, x)))  # noqa: E731
    expected = jax.grad(loss, argnums=(0, 1))(kernel, recurrent)
    k_var, r_var = rnn.weights
    _, got = tf.variableGrads(lambda: rnn.apply(x).square().sum(), [k_var, r_var])
    for g, e in zip((got[k_var.name], got[r_var.name]), expected):
        np.testing.assert_allclose(np.asarray(g.arraySync()), np.asarray(e), **TOL)


# -- errors as tfjs's ------------------------------------------------------------------------
def test_a_stateful_rnn_without_a_batch_size_fails_with_tfjs_message():
    with pytest.raises(ValueError) as err:
        tf.sequential(
            {"layers": [tf.layers.lstm({"units": 2, "stateful": True, "inputShape": [3, 4]})]}
        )
    assert str(err.value) == FIXTURE["errors"]["no_batch_size"]


def test_reset_states_on_a_layer_that_is_not_stateful_fails_as_tfjs():
    with pytest.raises(AttributeError, match="^" + re.escape(FIXTURE["errors"]["not_stateful"])):
        tf.layers.lstm({"units": 2}).resetStates()


def test_reset_states_with_a_state_of_the_wrong_shape_names_the_layer_and_shapes():
    layer = tf.layers.simpleRNN(
        {
            "units": 2,
            "stateful": True,
            "batchInputShape": [2, 3, 4],
            "name": "simple_rnn_SimpleRNN1",
        }
    )
    tf.sequential({"layers": [layer]})
    with pytest.raises(ValueError) as err:
        layer.resetStates([tf.zeros([3, 2])])
    assert str(err.value) == FIXTURE["errors"]["bad_state_shape"]


def test_rnn_without_a_cell_or_a_cell_without_state_size_fails_as_tfjs():
    with pytest.raises(ValueError, match="cell property is missing"):
        tf.layers.rnn({})
    with pytest.raises(ValueError, match="should have an attribute `stateSize`"):
        tf.layers.rnn({"cell": tf.layers.dense({"units": 2})})


def test_a_stateful_fit_needs_a_sample_count_divisible_by_the_batch_size_as_tfjs():
    model = tf.sequential(
        {"layers": [tf.layers.gru({"units": 2, "stateful": True, "batchInputShape": [2, 4, 3]})]}
    )
    model.compile({"optimizer": "sgd", "loss": "meanSquaredError"})
    with pytest.raises(ValueError) as err:
        model.fit(tf.zeros([5, 4, 3]), tf.zeros([5, 2]), {"batchSize": 2, "verbose": 0})
    assert str(err.value) == FIXTURE["errors"]["fit_not_divisible"]
    with pytest.raises(ValueError) as err:  # tfjs checks in standardizeUserData: evaluate too
        model.evaluate(tf.zeros([5, 4, 3]), tf.zeros([5, 2]), {"batchSize": 2})
    assert str(err.value) == FIXTURE["errors"]["fit_not_divisible"]
    assert model.evaluate(tf.zeros([4, 4, 3]), tf.zeros([4, 2]), {"batchSize": 2}).shape == ()
    with pytest.raises(ValueError) as err:
        model.predict(tf.zeros([5, 4, 3]))
    expected = FIXTURE["errors"]["predict_wrong_batch"].replace("gru_GRU2", model.layers[0].name)
    assert str(err.value) == expected


# -- saved config and masks ----------------------------------------------------------------
def test_an_rnn_over_stacked_cells_saves_the_config_tfjs_saves_and_loads_back():
    model = tf.sequential(
        {
            "name": "named_model",
            "layers": [
                tf.layers.rnn(
                    {
                        "name": "named_rnn",
                        "inputShape": [4, 3],
                        "returnSequences": True,
                        "cell": tf.layers.stackedRNNCells(
                            {
                                "name": "named_stack",
                                "cells": [
                                    tf.layers.lstmCell({"name": "named_lstm_cell", "units": 3}),
                                    tf.layers.gruCell({"name": "named_gru_cell", "units": 2}),
                                ],
                            }
                        ),
                    }
                )
            ],
        }
    )
    assert [w.name for w in model.weights] == FIXTURE["weight_names"]["stacked"]
    single = tf.layers.rnn({"name": "single_rnn", "cell": tf.layers.gruCell({"units": 2})})
    single.apply(tf.input({"shape": [4, 3]}))
    assert [w.name for w in single.weights] == FIXTURE["weight_names"]["single"]
    saved = model.toJSON(None, False)
    assert saved["config"]["layers"][0] == FIXTURE["saved_config"]
    loaded = tf.models.modelFromJSON(saved)
    loaded.setWeights(model.getWeights())
    x = tf.randomNormal([2, 4, 3], 0, 1, "float32", 1)
    np.testing.assert_allclose(loaded.predict(x).arraySync(), model.predict(x).arraySync())


def test_an_rnn_over_a_cell_skips_masked_steps_as_tfjs():
    case = FIXTURE["masked"]
    model = tf.sequential(
        {
            "layers": [
                tf.layers.masking({"maskValue": 0, "inputShape": [4, 3]}),
                tf.layers.rnn(
                    {"cell": tf.layers.simpleRNNCell({"units": 2}), "returnSequences": True}
                ),
            ]
        }
    )
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])
    close(model.predict(tf.tensor(case["x"]["values"], case["x"]["shape"])), case["prediction"])


def test_a_cell_written_with_jnp_and_keras_state_size_runs_in_rnn_like_lax_scan():
    class LeakyCell(tf.layers.Layer):
        state_size = 2

        def build(self, input_shape):
            self.k = self.add_weight("k", [input_shape[-1], 2], initializer="glorotUniform")

        def call(self, inputs, training=False):
            x, h = inputs
            out = jnp.tanh(jnp.asarray(x) @ self.k.value + 0.5 * jnp.asarray(h))
            return [out, out]

    x = jnp.asarray(np.random.default_rng(1).normal(size=(3, 5, 4)), jnp.float32)
    rnn = tf.layers.rnn({"cell": LeakyCell(), "returnSequences": True})
    got = rnn.apply(x)
    k = rnn.weights[0].value

    @jax.jit
    def expected(x):
        def step(h, x_t):
            h = jnp.tanh(x_t @ k + 0.5 * h)
            return h, h

        _, hs = jax.lax.scan(step, jnp.zeros((3, 2)), jnp.swapaxes(x, 0, 1))
        return jnp.swapaxes(hs, 0, 1)

    np.testing.assert_allclose(np.asarray(got.arraySync()), expected(x), **TOL)


# -- the `weights` config entry and `unroll` ------------------------------------------------
def test_rnn_over_a_cell_takes_initial_weights_from_its_config_as_tfjs():
    kernel = np.arange(8, dtype=np.float32).reshape(4, 2) / 10
    recurrent, bias = np.eye(2, dtype=np.float32), np.ones(2, np.float32)
    rnn = tf.layers.rnn(
        {"cell": tf.layers.simpleRNNCell({"units": 2}), "weights": [kernel, recurrent, bias]}
    )
    x = np.ones((1, 3, 4), np.float32)
    h = np.zeros((1, 2), np.float32)
    for x_t in np.swapaxes(x, 0, 1):
        h = np.tanh(x_t @ kernel + h @ recurrent + bias)
    # tfjs 4.22 gives [[0.9966592788696289, 0.9985033869743347]] for this program
    np.testing.assert_allclose(rnn.apply(x).arraySync(), h, **TOL)
    np.testing.assert_allclose(rnn.apply(x).arraySync(), [[0.99665928, 0.99850339]], **TOL)
    for got, given in zip(rnn.getWeights(), (kernel, recurrent, bias)):
        np.testing.assert_array_equal(got.arraySync(), given)


@pytest.mark.parametrize(
    "make",
    [
        lambda: tf.layers.lstm({"units": 2, "unroll": True}),
        lambda: tf.layers.rnn({"cell": tf.layers.gruCell({"units": 2}), "unroll": True}),
    ],
    ids=["lstm", "rnn"],
)
def test_unroll_is_accepted_and_warns_as_tfjs_with_the_same_outputs(make):
    x = np.random.default_rng(1).normal(size=(2, 3, 4)).astype(np.float32)
    unrolled = make()
    with pytest.warns(UserWarning, match=r"^Ignoring unroll = true for RNN layer"):
        unrolled.apply(x)
    assert unrolled.getConfig()["unroll"] is True
    rolled = type(unrolled).fromConfig({**unrolled.getConfig(), "unroll": False})
    rolled.apply(x)
    rolled.setWeights(unrolled.getWeights())
    with pytest.warns(UserWarning, match="unroll"):
        expected = unrolled.apply(x).arraySync()
    np.testing.assert_allclose(rolled.apply(x).arraySync(), expected, **TOL)
