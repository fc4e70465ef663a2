"""tf.jit never loses or corrupts state: failing steps, outer transforms, flags, threads.

Each test is user code from issue #12, checked against closed forms or an eager run.
"""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


def _state_snapshot() -> dict[str, np.ndarray]:
    return {name: np.asarray(v.value).copy() for name, v in tf.registered_variables().items()}


def _assert_same_state(before: dict[str, np.ndarray]) -> None:
    after = _state_snapshot()
    assert set(after) == set(before)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)


# -- a step that fails at run time changes nothing ------------------------------------------


def _eager_adam_state(steps: int) -> dict[str, np.ndarray]:
    """Values and optimizer weights after `steps` eager Adam steps on sum(w**2)."""
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="reference_w")
    opt = tf.train.adam(0.1)
    for _ in range(steps):
        opt.minimize(lambda: (w**2).sum())
    state = {"w": np.asarray(w.value), "iter": np.asarray(opt.iterations)}
    state.update((name, np.asarray(t)) for name, t in opt.get_weights()[1:])
    w.dispose()
    opt.dispose()
    return state


def test_a_host_callback_that_raises_leaves_every_variable_slot_and_counter():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.adam(0.1)
    fail = [False]

    def check(cost):
        if fail[0]:
            raise RuntimeError("callback says no")

    @tf.jit
    def step():
        cost = opt.minimize(lambda: (w**2).sum(), True)
        jax.debug.callback(check, cost)
        return cost

    step()
    step()
    fail[0] = True  # nothing is read between the good steps and the failing one
    with pytest.raises(Exception, match="callback says no"):
        jax.block_until_ready(step())
    fail[0] = False
    for steps in (2, 3):
        expected = _eager_adam_state(steps)
        np.testing.assert_allclose(w.value, expected["w"], rtol=1e-6)
        assert opt.iterations == steps
        for name, t in opt.get_weights()[1:]:
            np.testing.assert_allclose(t, expected[name.replace("w/", "reference_w/")], rtol=1e-6)
        if steps == 2:
            step()


def test_a_nan_under_debug_nans_leaves_state_and_the_next_step_works():
    w = tf.variable(tf.tensor1d([1.0, 4.0]), name="w")
    opt = tf.train.momentum(0.1, 0.5)
    scale = tf.variable(tf.scalar(1.0), trainable=False, name="scale")

    @tf.jit
    def step():
        return opt.minimize(lambda: (jnp.sqrt(scale) * w**2).sum(), True)

    step()  # w = 0.8 w0, velocity = 2 w0
    scale.assign(tf.scalar(-1.0))
    jax.config.update("jax_debug_nans", True)
    try:
        with pytest.raises(FloatingPointError):
            step()
    finally:
        jax.config.update("jax_debug_nans", False)
    np.testing.assert_allclose(w.value, [0.8, 3.2], rtol=1e-6)
    assert opt.iterations == 1
    scale.assign(tf.scalar(1.0))
    step()  # velocity = 0.5 * 2 w0 + 1.6 w0 = 2.6 w0; w = 0.8 w0 - 0.26 w0
    np.testing.assert_allclose(w.value, [0.54, 2.16], rtol=1e-6)
    assert opt.iterations == 2


# -- under an outer JAX transform: a clear error, nothing written ----------------------------


def _stateful_step():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.sgd(0.1)
    step = tf.jit(lambda x: opt.minimize(lambda: ((w * x) ** 2).sum(), True))
    step(jnp.ones(2))
    return w, opt, step


OUTER = {
    "jax.jit": lambda step: jax.jit(step)(jnp.ones(2)),
    "jax.vmap": lambda step: jax.vmap(step)(jnp.ones((3, 2))),
    "jax.grad": lambda step: jax.grad(step)(jnp.ones(2)),
    "lax.scan": lambda step: jax.lax.scan(lambda c, x: (c, step(x)), 0.0, jnp.ones((3, 2))),
}


@pytest.mark.parametrize("outer", sorted(OUTER))
def test_a_tf_jit_step_under_an_outer_transform_raises_and_writes_nothing(outer):
    w, opt, step = _stateful_step()
    before = _state_snapshot()
    with pytest.raises(TypeError, match="tf.functionalize"):
        OUTER[outer](step)
    _assert_same_state(before)
    step(jnp.ones(2))  # still works
    assert opt.iterations == 2
    np.testing.assert_allclose(w.value, [0.8**2, 2 * 0.8**2], rtol=1e-6)


# -- what a step computes follows the current state ------------------------------------------


def test_turning_trainable_off_between_compiled_calls_freezes_the_variable():
    a = tf.variable(tf.tensor1d([1.0]), name="a")
    b = tf.variable(tf.tensor1d([1.0]), name="b")
    opt = tf.train.sgd(0.5)
    step = tf.jit(lambda: opt.minimize(lambda: (a**2 + b**2).sum()))
    step()
    np.testing.assert_allclose([a.value[0], b.value[0]], [0.0, 0.0])
    a.assign(tf.tensor1d([1.0]))
    b.assign(tf.tensor1d([1.0]))
    b.trainable = False
    step()
    np.testing.assert_allclose([a.value[0], b.value[0]], [0.0, 1.0])
    b.trainable = True
    step()
    np.testing.assert_allclose([a.value[0], b.value[0]], [0.0, 0.0])


def test_a_variable_assigned_outside_the_step_is_what_the_step_reads():
    w = tf.variable(tf.scalar(1.0), name="w")
    step = tf.jit(lambda x: w * x)
    assert float(step(2.0)) == 2.0
    w.assign(tf.scalar(5.0))
    assert float(step(2.0)) == 10.0


def test_unrelated_variables_created_and_disposed_each_step_cost_no_trace():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.sgd(0.1)
    step = tf.jit(lambda: opt.minimize(lambda: (w**2).sum(), True))
    step()
    step()
    traces = step.trace_count
    for i in range(20):
        other = tf.variable(tf.zeros([3]), name=f"unrelated{i}")
        step()
        other.dispose()
    assert step.trace_count == traces
    np.testing.assert_allclose(w.value, np.array([1.0, 2.0]) * 0.8**22, rtol=1e-5)


def test_a_disposed_variable_read_by_the_step_gives_a_clear_error():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    step = tf.jit(lambda: w * 2)
    step()
    w.dispose()
    with pytest.raises(ValueError, match="'w' is disposed"):
        step()


def test_a_disposed_variable_passed_to_a_step_gives_a_clear_error():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    step = tf.jit(lambda v: v * 2)
    step(w)
    w.dispose()
    with pytest.raises(ValueError, match="'w' is disposed"):
        step(w)


# -- threads -----------------------------------------------------------------------------------


def _run_threads(target, count: int = 2) -> None:
    errors: list[BaseException] = []

    def guarded():
        try:
            target()
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    threads = [threading.Thread(target=guarded) for _ in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def test_two_threads_stepping_one_model_under_tf_jit_lose_no_update():
    w = tf.variable(tf.zeros([4]), name="w")
    opt = tf.train.sgd(1.0)

    @tf.jit
    def step():
        # the gradient of sum(-w) is -1 everywhere: each step adds exactly 1
        opt.minimize(lambda: -(w.read()).sum())

    step()
    _run_threads(lambda: [step() for _ in range(150)])
    np.testing.assert_array_equal(w.value, [301.0] * 4)
    assert opt.iterations == 301


def test_two_threads_stepping_one_model_eagerly_lose_no_update():
    w = tf.variable(tf.zeros([4]), name="w")
    opt = tf.train.sgd(1.0)
    _run_threads(lambda: [opt.minimize(lambda: -(w.read()).sum()) for _ in range(60)])
    np.testing.assert_array_equal(w.value, [120.0] * 4)
    assert opt.iterations == 120


def test_a_thread_reading_values_while_another_steps_never_sees_a_deleted_array():
    w = tf.variable(tf.zeros([64]), name="w")
    step = tf.jit(lambda: w.assign(w + 1))
    step()
    done = threading.Event()
    seen: list[float] = []

    def reader():
        while not done.is_set():
            value = w.value
            seen.append(float(value[0]))  # would raise if the buffer had been donated

    def stepper():
        for _ in range(200):
            step()
        done.set()

    errors: list[BaseException] = []

    def guarded(fn):
        try:
            fn()
        except BaseException as error:
            errors.append(error)
            done.set()

    threads = [threading.Thread(target=guarded, args=(fn,)) for fn in (reader, stepper)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]
    assert seen == sorted(seen)
    np.testing.assert_array_equal(w.value, [201.0] * 64)


def test_tidy_in_one_thread_does_not_free_another_threads_arrays():
    go, created = threading.Event(), threading.Event()
    held: list[jax.Array] = []

    def other_thread():
        go.wait(10)
        held.append(tf.ones([8]))
        held.append(tf.tensor([1.0, 2.0]))
        created.set()

    def body():
        go.set()
        created.wait(10)  # the other thread makes its arrays while this tidy is open
        return tf.ones([3])

    t = threading.Thread(target=other_thread)
    t.start()
    tf.tidy(body)
    t.join()
    assert not any(a.is_deleted() for a in held)
    np.testing.assert_array_equal(held[0], np.ones(8))
