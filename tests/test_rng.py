"""Random ops: seeded draws reproduce, unseeded ones differ per call and per process, and the
numbers have the distributions OPS.md gives (JAX's numbers, tfjs's dtypes and ranges)."""

import subprocess
import sys
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import _rng

_DRAWS = {
    "random_uniform": lambda seed=None: tf.random_uniform([64], 0, 1, "float32", seed),
    "random_normal": lambda seed=None: tf.random_normal([64], 0, 1, "float32", seed),
    "truncated_normal": lambda seed=None: tf.truncated_normal([64], 0, 1, "float32", seed),
    "multinomial": lambda seed=None: tf.multinomial(jnp.zeros((2, 50)), 32, seed),
}


@pytest.mark.parametrize("name", sorted(_DRAWS))
def test_seeded_draws_reproduce_and_seeds_differ(name):
    draw = _DRAWS[name]
    np.testing.assert_array_equal(draw(seed=5), draw(seed=5))
    assert not np.array_equal(draw(seed=5), draw(seed=6))


@pytest.mark.parametrize("name", sorted(_DRAWS))
def test_unseeded_draws_differ_per_call(name):
    draw = _DRAWS[name]
    assert not np.array_equal(draw(), draw())


def test_unseeded_draws_differ_per_process():
    script = "import tfjs_grad as tf; print(tf.random_uniform([8]).tolist())"
    runs = [
        subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
        for _ in range(2)
    ]
    first, second = (r.stdout for r in runs)
    assert first and first != second


def test_unseeded_draws_inside_gradient_functions_differ_per_call():
    v = tf.variable(tf.ones([16]))
    draws = [
        tf.variable_grads(lambda: (v * tf.random_uniform([16])).sum()).grads[v.name] for _ in "ab"
    ]
    assert not np.array_equal(*draws)


def test_keys_from_many_threads_are_all_different():
    keys, lock = [], threading.Lock()

    def draw():
        for _ in range(50):
            key = jax.random.key_data(_rng.next_key(None))
            with lock:
                keys.append(tuple(np.asarray(key).tolist()))

    threads = [threading.Thread(target=draw) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(keys)) == 200


def test_a_draw_while_tracing_leaves_no_tracer_in_the_generator():
    with pytest.warns(_rng.UnseededDrawWarning):
        jax.jit(lambda x: x + tf.random_normal([3]))(jnp.zeros(3))
    with pytest.warns(_rng.UnseededDrawWarning):
        jax.make_jaxpr(lambda: tf.random_uniform([2]))()
    assert tf.random_uniform([2]).shape == (2,)  # the state is still a concrete key


def test_under_plain_jax_jit_an_unseeded_draw_is_fixed_at_trace_time():
    draw = jax.jit(lambda x: x + tf.random_uniform([4]))
    with pytest.warns(_rng.UnseededDrawWarning, match="seed=.*"):
        first = draw(jnp.zeros(4))
    np.testing.assert_array_equal(first, draw(jnp.zeros(4)))


def test_unseeded_draws_differ_on_every_tf_jit_call():
    step = tf.jit(lambda: tf.random_uniform([4]))
    draws = [np.asarray(step()) for _ in range(4)]
    traces = step.trace_count
    draws += [np.asarray(step()) for _ in range(4)]
    assert step.trace_count == traces  # new numbers without retracing
    assert len({d.tobytes() for d in draws}) == len(draws)


def test_the_generator_state_is_not_a_variable():
    tf.random_uniform([2])
    assert tf.registered_variables() == {}
    tf.dispose_variables()
    assert tf.random_uniform([2]).shape == (2,)


@pytest.mark.parametrize("seed", [1.5, "1", True, [1]])
def test_a_seed_must_be_an_int(seed):
    with pytest.raises(TypeError, match="seed"):
        tf.random_uniform([2], seed=seed)


# ------------------------------------------------------------------------------------------------
# Distributions (fixed seeds: the checks are deterministic)

_N = 20000


def test_uniform_range_and_moments():
    x = np.asarray(tf.random_uniform([_N], -2, 6, seed=0))
    assert x.dtype == np.float32 and x.min() >= -2 and x.max() < 6
    assert abs(x.mean() - 2) < 0.05 and abs(x.var() - 64 / 12) < 0.1


def test_uniform_int32_truncates_toward_zero():
    x = np.asarray(tf.random_uniform([_N], 0, 4, "int32", seed=1))
    counts = np.bincount(x, minlength=4)
    assert x.dtype == np.int32 and counts.size == 4 and (abs(counts / _N - 0.25) < 0.02).all()
    signed = np.asarray(tf.random_uniform([_N], -2, 2, "int32", seed=2))
    values, counts = np.unique(signed, return_counts=True)
    assert values.tolist() == [-1, 0, 1]  # tfjs: truncation makes 0 twice as likely
    assert abs(counts[1] / _N - 0.5) < 0.02


def test_uniform_bool_is_the_truncated_draw_nonzero():
    assert not np.asarray(tf.random_uniform([100], 0, 1, "bool", seed=3)).any()
    assert np.asarray(tf.random_uniform([100], 1, 2, "bool", seed=3)).all()


def test_normal_moments_and_int32_rounding():
    x = np.asarray(tf.random_normal([_N], 3, 0.5, seed=4))
    assert abs(x.mean() - 3) < 0.02 and abs(x.std() - 0.5) < 0.02
    rounded = np.asarray(tf.random_normal([_N], 0, 1, "int32", seed=5))
    # tfjs rounds (Math.round): P(0) = P(|z| < 0.5) = 0.383 (truncation would give 0.683)
    assert rounded.dtype == np.int32 and abs((rounded == 0).mean() - 0.383) < 0.02


def test_truncated_normal_stays_within_two_stddev():
    x = np.asarray(tf.truncated_normal([_N], -1, 2, seed=6))
    assert x.min() >= -5 and x.max() <= 3
    assert abs(x.mean() + 1) < 0.05 and abs(x.std() - 2 * 0.8796) < 0.05


def test_multinomial_frequencies_follow_the_probabilities():
    probs = jnp.array([0.1, 0.2, 0.7])
    draws = np.asarray(tf.multinomial(probs, _N, 7, True))
    assert draws.dtype == np.int32 and draws.shape == (_N,)
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / _N, probs, atol=0.015)
    logits = jnp.log(jnp.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]]))
    batch = np.asarray(tf.multinomial(logits, 1000, 8))
    assert batch.shape == (2, 1000) and set(batch[1]) == {2} and set(batch[0]) == {0, 1}
