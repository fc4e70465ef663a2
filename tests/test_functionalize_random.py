"""Random draws inside `tf.functionalize`: the generator's key is part of the state.

`tf.get_state()` holds it under "<random generator>", so a pure fn given that state draws
from it and returns it advanced: threading the state through `jax.jit` calls or a
`lax.scan` carry gives new numbers per call/step, and passing the same state twice gives
the same numbers (the JAX way). Without it (an explicit var_list), under `jax.jit` the draws
are fixed at trace time, and that warns as plain `jax.jit` does.
"""

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.core import Tracer

import tfjs_grad as tf
from tfjs_grad import _rng

GEN = "<random generator>"
X = np.random.default_rng(0).normal(size=(6, 4)).astype(np.float32)
TOL = {"rtol": 1e-5, "atol": 1e-6}


def dropout_model(rate=0.5):
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 8, "inputShape": [4]}))
    model.add(tf.layers.dropout({"rate": rate}))
    return model


def assert_nothing_traced():
    """No Variable, and not the process's generator, holds a tracer; draws still work."""
    for v in tf.registered_variables().values():
        assert not isinstance(v.value, Tracer), v.name
    raw = _rng.generator().raw()
    assert not isinstance(raw, Tracer)
    assert np.asarray(raw).dtype == np.uint32
    assert tf.randomUniform([2]).shape == (2,)


def keep_masks(outputs):
    return [np.asarray(o) != 0 for o in outputs]


# -- as a tfjs user writes it -----------------------------------------------------------------
def test_a_jitted_model_with_dropout_draws_new_masks_per_call_when_the_state_is_threaded():
    model = dropout_model()
    inference = np.asarray(model.predict(tf.tensor(X)).arraySync())
    train_call = tf.functionalize(lambda x: model.apply(x, {"training": True}))
    call = jax.jit(train_call)

    state = tf.getState()
    process_key = np.asarray(state[GEN])
    outputs = []
    for _ in range(4):
        out, state = call(state, X)
        outputs.append(np.asarray(out))
    masks = keep_masks(outputs)
    assert len({m.tobytes() for m in masks}) == 4  # a new mask on every call
    for out, kept in zip(outputs, masks):  # kept units scaled by 1 / (1 - rate), as tfjs
        np.testing.assert_allclose(out[kept], 2 * inference[kept], **TOL)
        np.testing.assert_array_equal(out[~kept], 0)
    # the process generator is the caller's to update: set_state writes it back
    np.testing.assert_array_equal(tf.getState()[GEN], process_key)
    tf.setState(state)
    np.testing.assert_array_equal(tf.getState()[GEN], state[GEN])
    assert_nothing_traced()


def test_the_same_state_replayed_draws_the_same_masks():
    model = dropout_model()
    call = jax.jit(tf.functionalize(lambda x: model.apply(x, {"training": True})))
    start = tf.getState()
    first, after = call(start, X)
    again, after_again = call(start, X)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(after[GEN], after_again[GEN])
    assert not np.array_equal(after[GEN], start[GEN])
    following, _ = call(after, X)
    assert not np.array_equal(keep_masks([first])[0], keep_masks([following])[0])
    assert_nothing_traced()


def test_a_training_step_with_dropout_inside_pure_draws_from_the_state():
    model = dropout_model(rate=0.3)
    optimizer = tf.train.sgd(0.1)
    y = tf.ones([6, 8])

    def step(x):
        return optimizer.minimize(
            lambda: tf.losses.meanSquaredError(y, model.apply(x, {"training": True})), True
        )

    call = jax.jit(tf.functionalize(step))
    start = tf.getState()
    cost, after = call(start, X)
    replayed, replayed_after = call(start, X)
    assert float(cost) == float(replayed)
    for name in start:
        np.testing.assert_array_equal(after[name], replayed_after[name])
    # the same weights with the advanced key: other masks, another cost
    other, _ = call({**start, GEN: after[GEN]}, X)
    assert float(other) != float(cost)
    assert_nothing_traced()


def test_rnn_dropout_masks_follow_the_threaded_state():
    rnn = tf.layers.lstm({"units": 3, "dropout": 0.4, "recurrentDropout": 0.3})
    xs = np.random.default_rng(1).normal(size=(2, 5, 4)).astype(np.float32)
    rnn.apply(xs)
    call = jax.jit(tf.functionalize(lambda x: rnn.apply(x, {"training": True})))
    state, outputs = tf.getState(), []
    for _ in range(3):
        out, state = call(state, xs)
        outputs.append(np.asarray(out).tobytes())
    assert len(set(outputs)) == 3
    assert_nothing_traced()


def test_an_explicit_var_list_without_the_generator_warns_and_its_draws_stay_fixed():
    model = dropout_model()
    train_call = tf.functionalize(lambda x: model.apply(x, {"training": True}), model.weights)
    state = tf.getState(model.weights)
    eager = [np.asarray(train_call(state, X)[0]) for _ in range(2)]
    assert not np.array_equal(*eager)  # eager calls draw anew (no warning)

    call = jax.jit(train_call)
    with pytest.warns(_rng.UnseededDrawWarning, match="under jax.jit.*<random generator>"):
        first, new_state = call(state, X)
    second, _ = call(new_state, X)
    np.testing.assert_array_equal(first, second)  # fixed when traced: what the warning says
    assert GEN not in new_state
    assert_nothing_traced()


# -- as a JAX user writes it ------------------------------------------------------------------
def test_lax_scan_over_pure_with_the_state_as_carry_draws_new_numbers_per_step():
    pure = tf.functionalize(lambda: jnp.asarray(tf.random_normal([5])))

    def body(state, _):
        out, state = pure(state)
        return state, out

    start = tf.get_state()
    final, draws = jax.jit(lambda s: lax.scan(body, s, None, length=6))(start)
    assert len({row.tobytes() for row in np.asarray(draws)}) == 6

    # the same numbers as a loop of jax.jit calls threading the state from the same start
    state, looped = start, []
    for _ in range(6):
        out, state = jax.jit(pure)(state)
        looped.append(out)
    np.testing.assert_allclose(draws, np.stack(looped), **TOL)
    np.testing.assert_array_equal(final[GEN], state[GEN])
    assert_nothing_traced()


def test_jax_grad_through_pure_uses_the_mask_its_key_draws():
    model = dropout_model()
    kernel, bias = model.weights
    pure = tf.functionalize(lambda x: model.apply(x, training=True))
    params, key = tf.get_state(model.weights), tf.get_state()[GEN]

    def loss(params):
        out, _ = pure({**params, GEN: key}, X)
        return jnp.sum(out)

    grads = jax.grad(loss)(params)
    jitted = jax.jit(jax.grad(loss))(params)
    kept = (np.asarray(pure({**params, GEN: key}, X)[0]) != 0).astype(np.float32)
    # out = (X @ W + b) * kept / (1 - rate): closed-form gradients of its sum
    np.testing.assert_allclose(grads[kernel.name], X.T @ (2 * kept), **TOL)
    np.testing.assert_allclose(grads[bias.name], (2 * kept).sum(0), **TOL)
    for name in params:
        np.testing.assert_allclose(jitted[name], grads[name], **TOL)
    assert_nothing_traced()


def test_set_state_with_the_generator_makes_eager_draws_reproducible_and_keeps_the_array():
    saved = tf.get_state()
    held = np.asarray(saved[GEN]).copy()
    first = np.asarray(tf.random_uniform([4]))
    tf.set_state(saved)
    np.testing.assert_array_equal(tf.random_uniform([4]), first)
    assert not np.array_equal(tf.random_uniform([4]), first)
    step = tf.jit(lambda: tf.random_uniform([4]))  # (a compiled step may donate buffers)
    tf.set_state(saved)
    np.testing.assert_array_equal(step(), first)
    step()
    np.testing.assert_array_equal(saved[GEN], held)  # the array handed out never changes


def test_a_jax_user_donating_the_state_leaves_the_process_generator_working():
    w = tf.variable(tf.ones([3]), name="w")
    pure = tf.functionalize(lambda x: (w * x).sum() + tf.random_uniform([1]).sum(), [w])
    state = {GEN: tf.get_state()[GEN], "w": jnp.ones(3)}
    call = jax.jit(pure, donate_argnums=0)
    for _ in range(2):
        _, state = call(state, 2.0)
    assert tf.random_uniform([2]).shape == (2,)
    assert_nothing_traced()


# -- bad input --------------------------------------------------------------------------------
def test_the_generator_name_is_reserved_and_its_state_is_checked():
    with pytest.raises(ValueError, match="'name'.*reserved"):
        tf.variable(tf.scalar(1.0), name=GEN)
    with pytest.raises(ValueError, match="<random generator>.*shape"):
        tf.set_state({GEN: jnp.zeros(3, jnp.uint32)})
    pure = tf.functionalize(lambda: tf.random_uniform([2]))
    with pytest.raises(ValueError, match="<random generator>.*key data"):
        pure({GEN: jnp.zeros(2, jnp.float32)})


def test_the_generator_made_by_a_first_draw_under_jax_jit_is_concrete():
    script = (
        "import warnings, jax, tfjs_grad as tf\n"
        "warnings.simplefilter('ignore')\n"
        "pure = tf.functionalize(lambda: tf.random_uniform([2]), [])\n"
        "jax.jit(pure)({})\n"  # the process's first draw, while jax.jit traces
        "print(tf.random_uniform([2]).shape, tf.get_state()['<random generator>'].dtype)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["(2,)", "uint32"]
