"""`dropout` and `recurrentDropout` in simpleRNN/lstm/gru and their cells, as tfjs 4.22.

tfjs draws one input mask and one recurrent mask per sequence (at its first step; the
layers drop them at every call), uses mask 0 of lstm's 4 and gru's 3 for every gate, and
applies them only while training with `0 < rate < 1`. The random masks cannot match tfjs's
generator, so: inference equals the layer without dropout; under training the layer equals
a hand-written `lax.scan` program given the masks the layer drew (recorded by wrapping the
mask maker); `fit` trains, and draws new masks per batch, also inside compiled programs.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad.layers import recurrent

TOL = {"rtol": 1e-5, "atol": 1e-6}
KINDS = ("simpleRNN", "lstm", "gru")
DROP = {"dropout": 0.4, "recurrentDropout": 0.3}
X = np.random.default_rng(0).normal(size=(3, 5, 4)).astype(np.float32)


def layer(kind, **config):
    return getattr(tf.layers, kind)({"units": 2, "returnSequences": True, **config})


def cell_rnn(kind, **config):
    cell = getattr(tf.layers, kind + "Cell")({"units": 2, **config})
    return tf.layers.rnn({"cell": cell, "returnSequences": True})


def same_weights(target, source):
    target.apply(X)
    target.setWeights(source.getWeights())
    return target


@pytest.fixture
def drawn_masks(monkeypatch):
    """Every mask the recurrent layers draw, in order (None where no dropout applies)."""
    drawn = []
    original = recurrent.dropout_mask

    def recording(rate, shape, training):
        mask = original(rate, shape, training)
        drawn.append(mask)
        return mask

    monkeypatch.setattr(recurrent, "dropout_mask", recording)
    return drawn


def scan_program(kind, weights, x, in_mask, rec_mask):
    """tfjs's cells over a sequence, written out; h is masked wherever the step reads it."""
    kernel, rec, bias = (jnp.asarray(w) for w in weights)
    u = rec.shape[0]
    hard = lambda v: jnp.clip(0.2 * v + 0.5, 0, 1)  # noqa: E731

    def step(states, x_t):
        h = states[0] * rec_mask
        z = (x_t * in_mask) @ kernel + bias
        if kind == "simpleRNN":
            new = (jnp.tanh(z + h @ rec),)
        elif kind == "lstm":
            z = z + h @ rec
            i, f, g, o = (z[:, k * u : (k + 1) * u] for k in range(4))
            c = hard(f) * states[1] + hard(i) * jnp.tanh(g)
            new = (hard(o) * jnp.tanh(c), c)
        else:
            zz = hard(z[:, :u] + h @ rec[:, :u])
            r = hard(z[:, u : 2 * u] + h @ rec[:, u : 2 * u])
            hh = jnp.tanh(z[:, 2 * u :] + (r * h) @ rec[:, 2 * u :])
            new = (zz * h + (1 - zz) * hh,)
        return new, new[0]

    start = tuple(jnp.zeros((x.shape[0], u)) for _ in range(2 if kind == "lstm" else 1))
    _, outputs = jax.lax.scan(step, start, jnp.swapaxes(x, 0, 1))
    return jnp.swapaxes(outputs, 0, 1)


# -- inference is the layer without dropout ---------------------------------------------------
@pytest.mark.parametrize("make", [layer, cell_rnn], ids=["layer", "cell"])
@pytest.mark.parametrize("kind", KINDS)
def test_inference_equals_the_layer_without_dropout(kind, make, drawn_masks):
    plain = make(kind)
    plain.apply(X)
    dropped = same_weights(make(kind, **DROP), plain)
    for out in (dropped.apply(X), dropped.apply(X, {"training": False})):
        np.testing.assert_allclose(out.arraySync(), plain.apply(X).arraySync(), **TOL)
    assert all(m is None for m in drawn_masks)


# -- training: one mask per sequence, the same at every step ---------------------------------
@pytest.mark.parametrize("make", [layer, cell_rnn], ids=["layer", "cell"])
@pytest.mark.parametrize("kind", KINDS)
def test_training_uses_one_mask_at_every_step_as_a_lax_scan_program(kind, make, drawn_masks):
    rnn = make(kind, **DROP)
    rnn.apply(X)
    drawn_masks.clear()
    out = rnn.apply(X, {"training": True})
    in_mask, rec_mask = drawn_masks
    assert in_mask.shape == (3, 4) and rec_mask.shape == (3, 2)
    assert set(np.unique(np.asarray(in_mask)).tolist()) <= {0.0, np.float32(1 / 0.6)}
    assert set(np.unique(np.asarray(rec_mask)).tolist()) <= {0.0, np.float32(1 / 0.7)}
    expected = scan_program(kind, rnn.getWeights(), X, in_mask, rec_mask)
    np.testing.assert_allclose(out.arraySync(), expected, **TOL)


@pytest.mark.parametrize("make", [layer, cell_rnn], ids=["layer", "cell"])
def test_each_call_draws_new_masks(make, drawn_masks):
    rnn = make("lstm", **DROP)
    first = rnn.apply(X, {"training": True}).arraySync()
    second = rnn.apply(X, {"training": True}).arraySync()
    assert not np.allclose(first, second)
    assert not np.array_equal(np.asarray(drawn_masks[0]), np.asarray(drawn_masks[2]))


def test_stacked_cells_each_draw_masks_of_their_own_input_width(drawn_masks):
    cells = [tf.layers.gruCell({"units": 3, **DROP}), tf.layers.lstmCell({"units": 2, **DROP})]
    rnn = tf.layers.rnn({"cell": tf.layers.stackedRNNCells({"cells": cells})})
    rnn.apply(X)
    drawn_masks.clear()
    rnn.apply(X, {"training": True})
    assert [m.shape for m in drawn_masks] == [(3, 4), (3, 3), (3, 3), (3, 2)]


def test_a_cell_called_alone_draws_masks_for_its_step(drawn_masks):
    cell = tf.layers.simpleRNNCell({"units": 2, "dropout": 0.5})
    x, h = X[:, 0], np.zeros((3, 2), np.float32)
    cell.apply([x, h])
    out, _ = cell.apply([x, h], {"training": True})
    kernel, _, bias = cell.getWeights()
    expected = np.tanh((x * np.asarray(drawn_masks[-2])) @ kernel.arraySync() + bias.arraySync())
    np.testing.assert_allclose(out.arraySync(), expected, **TOL)


# -- rates 0 and 1: no dropout, as tfjs (`0 < rate < 1`) ----------------------------------------
@pytest.mark.parametrize("rate", [0, 1, 1.5, -0.5])
@pytest.mark.parametrize("make", [layer, cell_rnn], ids=["layer", "cell"])
def test_rates_outside_zero_to_one_apply_no_dropout_even_while_training(rate, make):
    plain = make("gru")
    plain.apply(X)
    dropped = same_weights(make("gru", dropout=rate, recurrentDropout=rate), plain)
    np.testing.assert_allclose(
        dropped.apply(X, {"training": True}).arraySync(), plain.apply(X).arraySync(), **TOL
    )
    assert dropped.getConfig()["dropout"] == min(1, max(0, rate))


def test_the_config_round_trips_the_rates():
    cell = tf.layers.lstmCell({"units": 2, **DROP})
    again = tf.layers.lstmCell(cell.getConfig())
    assert (again.dropout, again.recurrentDropout) == (0.4, 0.3)


# -- fit: trains, new masks per batch, one compiled program ------------------------------------
def lstm_model(**config):
    model = tf.sequential()
    model.add(tf.layers.lstm({"units": 4, "inputShape": [5, 4], **config}))
    model.add(tf.layers.dense({"units": 1}))
    return model


def test_fit_with_recurrent_dropout_trains():
    # Judged by evaluate (no dropout) before and after: the epoch losses fit reports are
    # noisy with dropout on 3 samples, and halving them held for only some keys. Over 12
    # keys the evaluated loss fell to 0.3-6% of its start; the generator's key is fixed.
    tf.set_state({"<random generator>": jax.random.key_data(jax.random.key(7))})
    model = lstm_model(**DROP)
    model.compile({"optimizer": tf.train.adam(0.05), "loss": "meanSquaredError"})
    x, y = tf.tensor(X), tf.tensor(np.tanh(X.sum(axis=(1, 2)))[:, None])
    before = float(model.evaluate(x, y))
    model.fit(x, y, {"epochs": 40, "verbose": 0})
    assert float(model.evaluate(x, y)) < 0.25 * before


@pytest.mark.parametrize(("config", "differ"), [(DROP, True), ({}, False)])
def test_train_on_batch_draws_new_masks_per_batch(config, differ):
    model = lstm_model(**config)
    model.compile({"optimizer": tf.train.sgd(0), "loss": "meanSquaredError"})
    y = tf.ones([3, 1])
    losses = [model.trainOnBatch(tf.tensor(X), y) for _ in range(3)]
    assert (len(set(losses)) > 1) == differ
    assert np.isfinite(losses).all()


def test_under_tf_jit_each_call_draws_new_masks():
    rnn = layer("simpleRNN", **DROP)
    rnn.apply(X)
    step = tf.jit(lambda x: rnn.apply(x, {"training": True}).sum())
    values = {float(step(X).arraySync()) for _ in range(3)}
    assert len(values) > 1


# -- as a JAX user writes it ------------------------------------------------------------------
def test_jax_user_jit_value_and_grad_and_optax_through_a_dropped_lstm():
    import optax

    rnn = layer("lstm", **DROP)
    rnn.apply(X)
    y = jnp.tanh(jnp.asarray(X).sum(axis=2))[:, :, None]
    pure = tf.functionalize(
        lambda x: jnp.mean(jnp.square(rnn.apply(x, training=True) - y)), rnn.weights
    )
    generator = "<random generator>"  # threaded: new masks on every step

    def loss(state, key, x):
        value, new_state = pure({**state, generator: key}, x)
        return value, new_state[generator]

    loss_and_grad = jax.jit(jax.value_and_grad(loss, has_aux=True))
    state, key = tf.get_state(rnn.weights), tf.get_state()[generator]
    opt = optax.adam(0.05)
    opt_state = opt.init(state)
    losses = []
    for _ in range(30):
        (value, key), grads = loss_and_grad(state, key, jnp.asarray(X))
        updates, opt_state = opt.update(grads, opt_state)
        state = optax.apply_updates(state, updates)
        losses.append(float(value))
    assert np.mean(losses[-5:]) < 0.8 * np.mean(losses[:5])  # (new masks: noisy losses)

    infer = tf.functionalize(lambda x: jnp.asarray(rnn.apply(x)), rnn.weights)
    inference, _ = jax.jit(infer)(state, jnp.asarray(X))  # no masks outside training
    plain = scan_program("lstm", [state[w.name] for w in rnn.weights], X, 1.0, 1.0)
    np.testing.assert_allclose(inference, plain, **TOL)


@pytest.mark.filterwarnings("ignore:Variable .* is read under a plain JAX transform")
def test_under_plain_jax_jit_the_masks_are_fixed_at_trace_time_and_it_warns():
    rnn = layer("gru", **DROP)
    rnn.apply(X)
    with pytest.warns(UserWarning, match="without a seed.*tf.jit"):
        jax.jit(lambda x: jnp.sum(rnn.apply(x, training=True)))(jnp.asarray(X))
