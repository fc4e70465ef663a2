"""The eager tape evaluates an op's shapes once per signature, not once per position.

Issue #36: a signature is the op, its static arguments and its inputs' shapes and dtypes;
where in f the op is called (which slots it reads) is the wiring, kept per node. A long
f, or a varying-length loop whose every new length is a new structure, evaluates each
signature's shapes once; the compiled program still depends on the wiring.
"""

from __future__ import annotations

import gc
import weakref

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import _tape


@pytest.fixture
def shape_evaluations(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times `jax.eval_shape` runs (the tape's per-signature cost) while a test
    runs."""
    count = [0]
    real = jax.eval_shape

    def counting(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(jax, "eval_shape", counting)
    return count


class _Stop(Exception):
    """Ends f after recording (no program is compiled for the 5000-op tape)."""


def test_5000_ops_of_one_signature_evaluate_its_shapes_once(shape_evaluations):
    w = tf.variable(tf.ones([3, 7, 2]))
    recorded = []

    def long_f(lead: int):
        def f():
            x = w
            for _ in range(lead):  # a new structure: every op at a new position
                x = x.add(x)
            for _ in range(5000):
                x = x.mul(2.5)
            recorded.append(list(x.shape))
            raise _Stop

        return f

    with pytest.raises(_Stop):
        tf.variableGrads(long_f(0))
    assert shape_evaluations[0] <= 1  # (none if an earlier test recorded this signature)
    with pytest.raises(_Stop):
        tf.variableGrads(long_f(0))
    assert shape_evaluations[0] <= 1  # more than 4096 positions: nothing evaluated again
    with pytest.raises(_Stop):
        tf.variableGrads(long_f(3))
    assert shape_evaluations[0] <= 2  # the add; no mul again, at any position
    assert recorded == [[3, 7, 2]] * 3


def test_a_varying_length_loop_evaluates_each_signature_once_and_matches_tfjs_math(
    shape_evaluations,
):
    w = tf.variable(tf.tensor2d([[0.5, -0.25], [0.125, 1.0]]), True, "w_loop")
    xs = np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, -2.0], [3.0, 1.0], [0.0, 1.0]], np.float32)

    def loss_for(n: int):
        def loss():
            h = tf.tensor2d(xs[:1])
            for t in range(n):  # as an RNN over a sequence of length n
                h = tf.tanh(h.matMul(w).add(tf.tensor2d(xs[t : t + 1])))
            return h.square().sum()

        return loss

    def reference(w_value, n):
        h = jnp.asarray(xs[:1])
        for t in range(n):
            h = jnp.tanh(h @ w_value + xs[t : t + 1])
        return jnp.sum(h**2)

    after_first = None
    for n in (2, 3, 5, 3):
        grads = tf.variableGrads(loss_for(n)).grads["w_loop"]
        expected = jax.grad(reference)(jnp.asarray(w.arraySync()), n)
        np.testing.assert_allclose(grads.arraySync(), expected, rtol=1e-5, atol=1e-6)
        if after_first is None:
            after_first = shape_evaluations[0]
    assert shape_evaluations[0] == after_first  # new lengths: new positions, no new shapes


def test_the_same_ops_wired_differently_are_different_programs():
    # The same signatures in the same order; only which value feeds the second mul differs.
    chained = [True]

    def f(x):
        a = x.mul(2)
        b = a.mul(3) if chained[0] else x.mul(3)
        return a.add(b).sum()

    g = tf.grad(f)
    x = tf.tensor1d([1.0, -1.0])
    np.testing.assert_allclose(g(x).arraySync(), [8.0, 8.0])
    chained[0] = False
    np.testing.assert_allclose(g(x).arraySync(), [5.0, 5.0])
    chained[0] = True
    np.testing.assert_allclose(g(x).arraySync(), [8.0, 8.0])


def test_jax_user_ops_on_tensors_at_new_positions_match_jax_grad(shape_evaluations):
    # A JAX user's loss: jnp and jax.nn on Tensors inside f, after tf ops at positions
    # that move with the lead count; f still runs once per call.
    v = tf.variable(jnp.array([0.3, -0.7, 1.1], jnp.float32))
    runs = []

    def loss_for(lead: int):
        def loss():
            runs.append(lead)
            h = v
            for _ in range(lead):
                h = h.mul(0.9)
            return jnp.sum(jax.nn.softplus(h.mul(h)))

        return loss

    def reference(value, lead):
        return jnp.sum(jax.nn.softplus((value * 0.9**lead) ** 2))

    for lead in (1, 4, 2):
        value = v.value
        grads = list(tf.variableGrads(loss_for(lead)).grads.values())[0]
        expected = jax.grad(reference)(value, lead)
        np.testing.assert_allclose(np.asarray(grads), expected, rtol=1e-5, atol=1e-6)
    assert runs == [1, 4, 2]
    assert shape_evaluations[0] <= 2  # mul by 0.9 and h * h, whatever the lead


def _cyclic_garbage_of(step) -> list[object]:
    """The objects only Python's cyclic collector would free after `step()` (run with
    automatic collection off)."""
    step()  # warm: compiled programs and caches are not garbage
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        step()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if enabled:
            gc.enable()


def _held(garbage: list[object]) -> list[str]:
    kinds = (_tape.Tape, _tape.Lazy, tf.Tensor, jax.Array)
    return [type(o).__qualname__ for o in garbage if isinstance(o, kinds)]


def test_an_eager_training_step_leaves_no_tape_or_array_for_the_cyclic_collector():
    w = [tf.variable(tf.randomNormal([8, 16], 0, 0.3, "float32", 1)), tf.variable(tf.zeros([16]))]
    v = [tf.variable(tf.randomNormal([16, 1], 0, 0.3, "float32", 2)), tf.variable(tf.zeros([1]))]
    x, y = tf.randomNormal([4, 8], 0, 1, "float32", 3), tf.randomNormal([4, 1], 0, 1, "float32", 4)
    optimizer = tf.train.adam(0.01)

    def loss():
        h = x.matMul(w[0]).add(w[1]).relu()
        if h.mean().dataSync()[0] > 1e9:  # a value read inside f
            return h.sum()
        return tf.losses.meanSquaredError(y, h.matMul(v[0]).add(v[1]))

    def grad_step():
        tf.grad(lambda t: t.square().sum())(x).dispose()

    assert _held(_cyclic_garbage_of(lambda: tf.tidy(lambda: optimizer.minimize(loss, True)))) == []
    assert _held(_cyclic_garbage_of(grad_step)) == []


def test_a_staged_step_jax_style_leaves_no_tape_or_array_for_the_cyclic_collector():
    # jnp and jax.nn on Tensors inside f (and `v.value`) stage the tape on a JAX trace;
    # the trace and its tracers let go of the tape when the call returns.
    v = tf.variable(jnp.linspace(-1.0, 1.0, 6, dtype=jnp.float32).reshape(2, 3))
    x = jnp.ones((4, 2), jnp.float32)

    def loss():
        return jnp.mean(jax.nn.gelu(tf.matMul(x, v)) ** 2) + jnp.sum(v.value) * 0.0

    before = np.asarray(v.value)
    garbage = _cyclic_garbage_of(lambda: tf.tidy(lambda: tf.variableGrads(loss)))
    assert _held(garbage) == []
    grads = list(tf.variableGrads(loss).grads.values())[0]
    expected = jax.grad(lambda w: jnp.mean(jax.nn.gelu(x @ w) ** 2))(before)
    np.testing.assert_allclose(np.asarray(grads), expected, rtol=1e-5, atol=1e-6)


def test_random_ops_of_one_signature_draw_a_key_per_call_site():
    # Two dropouts of one signature share its evaluated shapes, not their random keys.
    x = tf.ones([4000])
    grads = tf.grad(lambda t: tf.dropout(t, 0.5).add(tf.dropout(t, 0.5)).sum())(x)
    values = set(np.unique(grads.dataSync()).tolist())
    assert values == {0.0, 2.0, 4.0}  # 2: kept by exactly one of them


def test_a_cached_signature_keeps_no_tape_of_the_call_that_made_it():
    # `tf.stack([loss, 3])`: a list argument holding a recorded value and a plain int;
    # the signature cached for it outlives the call, the call's tape and arrays do not.
    tapes = []

    def f(t):
        tapes.append(weakref.ref(_tape.active()))
        return tf.stack([t.square().sum(), 3]).sum()

    x = tf.tensor1d([1.0, -2.0, 0.5])
    np.testing.assert_allclose(tf.grad(f)(x).arraySync(), [2.0, -4.0, 1.0])
    gc.collect()
    assert tapes[0]() is None
