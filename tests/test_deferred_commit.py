"""A `tf.jit` step's fast calls leave their results pending (`variables.commit_later`)
until something reads or writes a Variable: every public way of reading, writing,
disposing or compiling must see the latest values. Checked against closed forms and a
plain-Python model of the same interleavings (`hypothesis.stateful`), with the steps on
the fast path (no Variable arguments, nothing read between calls)."""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule

import tfjs_grad as tf


@pytest.fixture(autouse=True)
def _clean():
    yield
    tf.dispose_variables()


def _affine_steps(n: int, start: float) -> float:
    value = start
    for _ in range(n):
        value = value * 2 + 1
    return value


def _doubling():
    u = tf.variable(tf.tensor1d([0.0, 1.0]), name="u")

    @tf.jit
    def step():
        u.assign(u.mul(2).add(1))
        return u.sum()

    return u, step


@pytest.mark.parametrize(
    "read",
    [
        lambda u: u.value,
        lambda u: u.read(),
        lambda u: u.dataSync(),
        lambda u: np.asarray(u),
        lambda u: jnp.asarray(u),
        lambda u: tf.get_state([u])[u.name],
        lambda u: u + 0,
        lambda u: jax.jit(lambda x: x * 1)(u),
        lambda u: jax.vmap(lambda x: x * 1)(u),
    ],
    ids=["value", "read", "dataSync", "np", "jnp", "get_state", "op", "jax.jit", "vmap"],
)
def test_every_read_after_fast_calls_sees_the_last_call(read):
    u, step = _doubling()
    outs = [float(step()) for _ in range(6)]  # the returned sums do not read u
    expected = np.array([_affine_steps(6, 0.0), _affine_steps(6, 1.0)], np.float32)
    np.testing.assert_array_equal(np.asarray(read(u)).reshape(-1), expected)
    assert outs[-1] == expected.sum()


def test_writes_after_fast_calls_are_not_overwritten_by_the_pending_results():
    """An eager assign, a direct eager op and an optimizer step, each after fast calls:
    the pending results land first, the write after them."""
    u, step = _doubling()
    for _ in range(3):
        step()
    u.assign(tf.tensor1d([10.0, 20.0]))
    step()
    np.testing.assert_array_equal(np.asarray(u.value), [21.0, 41.0])
    for _ in range(2):
        step()
    tf.train.sgd(0.25).minimize(lambda: u.square().sum())  # u -= 0.25 * 2u: u / 2
    np.testing.assert_array_equal(np.asarray(u.value), [_affine_steps(2, 21) / 2, 83.5])


def test_dispose_after_fast_calls_frees_the_latest_buffer():
    u, step = _doubling()
    keep = tf.variable(tf.zeros([2]), name="keep")
    for _ in range(4):
        step()
    before = len(jax.live_arrays())
    u.dispose()
    assert len(jax.live_arrays()) < before
    with pytest.raises(ValueError, match="disposed"):
        step()
    np.testing.assert_array_equal(np.asarray(keep.value), [0.0, 0.0])


def test_two_steps_alternating_on_the_fast_path_and_a_jax_user_reading_between():
    """Step A writes u; step B reads u and writes w (B's call lands A's pending results
    first). A JAX user reads both through jnp at the end: equal to numpy."""
    u = tf.variable(tf.tensor1d([1.0, 2.0]), name="u")
    w = tf.variable(tf.tensor1d([0.0, 0.0]), name="w")
    a = tf.jit(lambda: u.assign(u.value * 2) or u.value.sum())
    b = tf.jit(lambda: w.assign(w.value + u.value) or w.value.sum())
    nu, nw = np.array([1.0, 2.0], np.float32), np.zeros(2, np.float32)
    for i in range(6):
        a()
        nu = nu * 2
        if i % 2:
            b()
            nw = nw + nu
    np.testing.assert_array_equal(np.asarray(jnp.stack([u.value, w.value])), [nu, nw])


def test_threads_calling_one_step_and_reading_while_it_runs():
    """Four threads call the step (the lock serialises the calls and their commits), one
    reads u meanwhile: every read is a state the doubling passes through, none lost."""
    u = tf.variable(tf.scalar(0.0), name="u")
    step = tf.jit(lambda: u.assign(u.value + 1) or u.value)
    reads: list[float] = []
    stop = threading.Event()

    def caller():
        for _ in range(40):
            step()

    def reader():
        while not stop.is_set():
            reads.append(float(u.value))

    watcher = threading.Thread(target=reader)
    watcher.start()
    callers = [threading.Thread(target=caller) for _ in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    stop.set()
    watcher.join()
    assert float(u.value) == 160.0
    assert all(float(r).is_integer() and 0 <= r <= 160 for r in reads)
    assert reads == sorted(reads)


@settings(
    max_examples=25,
    stateful_step_count=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
class DeferredModel(RuleBasedStateMachine):
    """Fast-path steps (no Variable arguments), eager writes, reads, disposal of
    unrelated Variables, new Variables and tidy/memory calls in random orders; every read
    must equal the model, and the final state too."""

    def __init__(self):
        super().__init__()
        tf.dispose_variables()
        self.u = tf.variable(tf.tensor1d([1.0, -1.0]), name="mu")
        self.w = tf.variable(tf.tensor1d([0.0, 0.5]), name="mw")
        self.model = {
            "mu": np.array([1.0, -1.0], np.float32),
            "mw": np.array([0.0, 0.5], np.float32),
        }
        self.extra: list[tf.Variable] = []
        self.opt = tf.train.sgd(0.25)
        u, w = self.u, self.w

        @tf.jit
        def grow():
            u.assign(u.mul(0.5).add(1))
            return u.sum()

        @tf.jit
        def mix():
            w.assign(w.add(u))
            return {"w": w.sum(), "u": u.sum()}

        @tf.jit
        def train():
            return self.opt.minimize(lambda: w.square().sum(), True, [w])

        self.grow, self.mix, self.train_step = grow, mix, train

    def _check(self, name, got):
        np.testing.assert_array_equal(np.asarray(got), self.model[name], err_msg=name)

    @rule(times=st.integers(1, 4))
    def call_grow(self, times):
        for _ in range(times):
            out = self.grow()
            self.model["mu"] = self.model["mu"] * np.float32(0.5) + np.float32(1)
            assert float(out) == pytest.approx(float(self.model["mu"].sum()), rel=1e-6)

    @rule()
    def call_mix(self):
        out = self.mix()
        self.model["mw"] = self.model["mw"] + self.model["mu"]
        assert float(out["u"]) == pytest.approx(float(self.model["mu"].sum()), rel=1e-6)

    @rule()
    def call_train(self):
        self.train_step()
        self.model["mw"] = self.model["mw"] - np.float32(0.25) * 2 * self.model["mw"]

    @rule(name=st.sampled_from(["mu", "mw"]), how=st.sampled_from(["value", "np", "state"]))
    def read(self, name, how):
        var = self.u if name == "mu" else self.w
        got = {"value": lambda: var.value, "np": lambda: np.asarray(var),
               "state": lambda: tf.get_state([var])[name]}[how]()  # fmt: skip
        self._check(name, got)

    @rule(name=st.sampled_from(["mu", "mw"]), value=st.integers(-3, 3))
    def assign(self, name, value):
        (self.u if name == "mu" else self.w).assign(tf.fill([2], float(value)))
        self.model[name] = np.full(2, value, np.float32)

    @rule()
    def new_extra(self):
        self.extra.append(tf.variable(tf.ones([3])))

    @rule()
    def dispose_extra(self):
        if self.extra:
            self.extra.pop().dispose()

    @rule()
    def tidy_and_memory(self):
        tf.tidy(lambda: self.u.add(1))
        assert tf.memory().numTensors >= 2

    def teardown(self):
        self._check("mu", self.u.value)
        self._check("mw", self.w.value)
        tf.dispose_variables()


test_deferred_model = DeferredModel.TestCase
