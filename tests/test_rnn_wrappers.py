"""A stateful RNN inside `bidirectional` and `timeDistributed`, against tfjs 4.22.

Fixture: tests/reference/rnn_wrappers.json (tests/reference/gen_rnn_wrappers.js). tfjs's
bidirectional is stateful when its layer is (both directions carry their states;
`resetStates` zeroes both); timeDistributed runs its layer once per outer step (a stateful
layer's states carry from step to step) and is not itself stateful.
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

FIXTURE = json.loads(
    (pathlib.Path(__file__).parent / "reference" / "rnn_wrappers.json").read_text()
)
TOL = {"rtol": 1e-5, "atol": 1e-6}


def arr(entry):
    return np.asarray(entry["values"], np.float32).reshape(entry["shape"])


def close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual.arraySync()), arr(expected), **TOL)


def set_fixture_weights(model, case):
    model.setWeights([tf.tensor(w["values"], w["shape"]) for w in case["weights"]])


def test_a_stateful_lstm_in_bidirectional_carries_and_resets_both_directions_as_tfjs():
    case = FIXTURE["bidirectional"]
    wrapper = tf.layers.bidirectional(
        {"layer": tf.layers.lstm({"units": 2, "stateful": True}), "batchInputShape": [2, 3, 4]}
    )
    model = tf.sequential({"layers": [wrapper]})
    set_fixture_weights(model, case)
    xs = [tf.tensor(x["values"], x["shape"]) for x in case["inputs"]]
    assert (model.stateful, wrapper.stateful) == (
        case["model_stateful"],
        case["wrapper_stateful"],
    )
    for x, expected in zip(xs, case["predictions"]):
        close(model.predict(x), expected)
    states = [*wrapper.forwardLayer.states, *wrapper.backwardLayer.states]
    for state, expected in zip(states, case["states"]):
        close(state, expected)
    model.resetStates()
    close(model.predict(xs[0]), case["after_reset"])
    wrapper.resetStates()
    close(model.predict(xs[1]), case["after_wrapper_reset"])


def test_a_stateful_lstm_in_time_distributed_carries_states_across_outer_steps_as_tfjs():
    case = FIXTURE["time_distributed"]
    model = tf.sequential(
        {
            "layers": [
                tf.layers.timeDistributed(
                    {
                        "layer": tf.layers.lstm({"units": 2, "stateful": True}),
                        "batchInputShape": [2, 3, 2, 4],
                    }
                )
            ]
        }
    )
    set_fixture_weights(model, case)
    x = tf.tensor(case["x"]["values"], case["x"]["shape"])
    assert (model.stateful, model.layers[0].stateful) == (
        case["model_stateful"],
        case["wrapper_stateful"],
    )
    for expected in case["predictions"]:
        close(model.predict(x), expected)
    model.resetStates()  # the wrapper is not stateful: the lstm keeps its states
    close(model.predict(x), case["after_model_reset"])
    model.layers[0].layer.resetStates()
    close(model.predict(x), case["after_layer_reset"])


def test_reset_states_of_a_time_distributed_wrapper_fails_as_tfjs():
    td = tf.layers.timeDistributed({"layer": tf.layers.lstm({"units": 2, "stateful": True})})
    with pytest.raises(
        AttributeError, match=re.escape(FIXTURE["errors"]["wrapper_reset_not_stateful"])
    ):
        td.resetStates()


def test_jax_user_a_stateful_bidirectional_under_tf_jit_matches_a_lax_scan_program():
    case = FIXTURE["bidirectional"]
    wrapper = tf.layers.bidirectional(
        {"layer": tf.layers.simpleRNN({"units": 2, "stateful": True}), "batchInputShape": [2, 3, 4]}
    )
    model = tf.sequential({"layers": [wrapper]})
    kf, rf, bf, kb, rb, bb = (w.value for w in model.weights)
    x = jnp.asarray(arr(case["inputs"][0]))

    def run(kernel, rec, bias, h, x):
        def step(h, x_t):
            h = jnp.tanh(x_t @ kernel + h @ rec + bias)
            return h, h

        return jax.lax.scan(step, h, jnp.swapaxes(x, 0, 1))[0]

    predict = tf.jit(lambda x: model.apply(x))
    hf = hb = jnp.zeros((2, 2))
    for _ in range(2):
        hf, hb = run(kf, rf, bf, hf, x), run(kb, rb, bb, hb, x[:, ::-1])
        np.testing.assert_allclose(
            np.asarray(predict(x).arraySync()), jnp.concatenate([hf, hb], -1), **TOL
        )
