"""Issue 34: values read inside f, list arguments, Tensors kept past the call, list ops.

Each test is the user's code, run on the eager tape and forced onto the traced path, and
checked against jax.grad of the same program on raw arrays."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import _tape


@pytest.fixture(autouse=True, params=["tape", "traced"])
def eager_path(request):
    saved = _tape.ENABLED[0], _tape._staged_from_start.copy()
    _tape.ENABLED[0] = request.param == "tape"
    _tape._staged_from_start.clear()
    yield request.param
    _tape.ENABLED[0] = saved[0]
    _tape._staged_from_start.clear()
    _tape._staged_from_start.update(saved[1])


def _close(actual, expected):
    np.testing.assert_allclose(np.asarray(actual), np.asarray(expected), rtol=1e-5, atol=1e-6)


# -- item 1: a value read used only as a constant -------------------------------------------
def test_a_float_read_used_as_a_constant_in_variable_grads():
    v = tf.variable(tf.tensor1d([1.0, 2.0]))
    w = tf.variable(tf.tensor1d([3.0, 4.0]))
    value, grads = tf.variableGrads(lambda: w.mul(float(v.sum())).sum(), [v, w])

    def raw(wv):
        return jnp.sum(wv * jax.lax.stop_gradient(jnp.sum(jnp.asarray([1.0, 2.0]))))

    want_value, want_dw = jax.value_and_grad(raw)(jnp.asarray([3.0, 4.0]))
    _close(value, want_value)
    _close(grads[w.name], want_dw)
    assert v.name not in grads  # the loss does not depend on v
    v.dispose()
    w.dispose()


def test_a_data_sync_and_an_item_branch_whose_values_only_steer():
    v = tf.variable(tf.tensor1d([1.0, -2.0]))
    w = tf.variable(tf.tensor1d([0.5, 2.0]))
    seen = []

    def loss():
        seen.append(v.mul(2).dataSync().tolist())
        if v.square().item(0) > 0:  # only decides which branch f takes
            return w.square().sum()
        return w.sum()

    value, grads = tf.variableGrads(loss, [v, w])
    assert seen == [[2.0, -4.0]]
    _close(value, 4.25)
    _close(grads[w.name], jax.grad(lambda a: jnp.sum(a**2))(jnp.asarray([0.5, 2.0])))
    opt = tf.train.sgd(0.1)
    opt.minimize(loss, False, [w])
    _close(w.value, [0.4, 1.6])
    opt.dispose()
    v.dispose()
    w.dispose()


# -- item 2: a list argument the caller changes later ----------------------------------------
def test_a_list_argument_mutated_after_the_call_does_not_change_the_cached_op():
    x = tf.tensor1d([1.0, 2.0, 3.0, 4.0])
    begin = [0]

    def f(t):
        return tf.slice(t, begin, [2]).sum()

    _close(tf.grad(f)(x), [1.0, 1.0, 0.0, 0.0])
    begin[0] = 2
    _close(tf.grad(f)(x), [0.0, 0.0, 1.0, 1.0])
    g = tf.grad(lambda t: tf.slice(t, [0], [2]).square().sum())(x)
    want = jax.grad(lambda a: jnp.sum(a[0:2] ** 2))(jnp.asarray([1.0, 2.0, 3.0, 4.0]))
    _close(g, want)
    _close(g, [2.0, 4.0, 0.0, 0.0])


def test_a_nested_list_argument_mutated_between_calls():
    x = tf.tensor2d([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    paddings = [[0, 0], [1, 0]]

    def f(t):
        return tf.pad(t, paddings).mul(tf.tensor2d([[1.0, 2.0, 3.0, 4.0]] * 2)).sum()

    _close(tf.grad(f)(x), [[2.0, 3.0, 4.0]] * 2)
    paddings[1][0], paddings[1][1] = 0, 1
    _close(tf.grad(f)(x), [[1.0, 2.0, 3.0]] * 2)
    g = tf.grad(
        lambda t: tf.pad(t, [[0, 0], [1, 0]]).mul(tf.tensor2d([[1.0, 2.0, 3.0, 4.0]] * 2)).sum()
    )(x)
    _close(g, [[2.0, 3.0, 4.0]] * 2)


# -- item 3: a Tensor made inside f and kept by the user -------------------------------------
def test_a_tensor_saved_inside_minimize_is_disposed_after_the_call(eager_path):
    from tfjs_grad._tensor import TensorDisposedError

    v = tf.variable(tf.tensor1d([1.0, 2.0]))
    opt = tf.train.sgd(0.5)
    saved = []
    cost = opt.minimize(lambda: (saved.append(v.square()), saved[-1].sum())[1], True)
    _close(cost, 5.0)  # returned by the call: a fresh Tensor, valid
    want = jnp.asarray([1.0, 2.0]) - 0.5 * jax.grad(lambda a: jnp.sum(a**2))(
        jnp.asarray([1.0, 2.0])
    )
    _close(v.value, want)
    assert saved[0].shape == (2,)
    assert saved[0].isDisposed  # on both paths (tfjs tidies f)
    for use in (
        lambda t: t.dataSync(),
        lambda t: t.add(1),
        lambda t: np.asarray(t),
        lambda t: float(t.sum()),
        lambda t: jnp.sin(t),
    ):
        with pytest.raises(TensorDisposedError, match="Tensor is disposed."):
            use(saved[0])
    v.dispose()
    with pytest.raises(TensorDisposedError, match="Tensor is disposed."):
        saved[0].dataSync()
    opt.dispose()


def test_kept_inputs_and_returned_values_stay_valid(eager_path):
    v = tf.variable(tf.tensor1d([1.0, 2.0]))
    x = tf.tensor1d([3.0, 4.0])
    opt = tf.train.sgd(0.5)
    kept, seen = [], []

    def loss():
        kept.append(tf.keep(v.mul(x)))  # tf.keep inside f: it outlives the call
        seen.append(x)
        return v.mul(x).sum()

    cost = opt.minimize(loss, True)
    _close(cost, 11.0)
    if eager_path == "tape":  # (the traced path keeps a tracer: not fixed here)
        _close(kept[0].dataSync(), [3.0, 8.0])  # the value it had in f, before the step
    _close(seen[0].dataSync(), [3.0, 4.0])  # made before the call: not the tape's
    _close(v.value, [-0.5, 0.0])
    grads = tf.grads(lambda a, b: a.mul(b).sum())([x, tf.tensor1d([5.0, 6.0])])
    _close(grads[0], [5.0, 6.0])
    opt.dispose()
    v.dispose()


# -- item 4: ops taking a list of tensors record on the tape ---------------------------------
@pytest.fixture
def stages(monkeypatch):
    count = [0]
    original = _tape.Tape.stage

    def counted(self, why):
        if self.staging is None:
            count[0] += 1
        return original(self, why)

    monkeypatch.setattr(_tape.Tape, "stage", counted)
    return count


def test_list_ops_record_without_staging(eager_path, stages):
    a0, b0 = np.asarray([1.0, 2.0], np.float32), np.asarray([3.0, -4.0], np.float32)
    m = np.asarray([[1.0, 2.0], [3.0, 4.0]], np.float32)
    cases = [
        (
            lambda a, b: tf.concat([a.square(), b], 0).mul(tf.tensor1d([1.0, 2.0, 3.0, 4.0])).sum(),
            lambda a, b: jnp.sum(jnp.concatenate([a**2, b]) * jnp.asarray([1.0, 2, 3, 4])),
        ),
        (
            lambda a, b: tf.stack([a.square(), b]).mul(tf.tensor2d(m)).sum(),
            lambda a, b: jnp.sum(jnp.stack([a**2, b]) * m),
        ),
        (
            lambda a, b: tf.stack([a, b.tanh()], 1).mul(tf.tensor2d(m)).sum(),
            lambda a, b: jnp.sum(jnp.stack([a, jnp.tanh(b)], 1) * m),
        ),
        (
            lambda a, b: tf.addN([a.square(), b, a]).mul(b).sum(),
            lambda a, b: jnp.sum((a**2 + b + a) * b),
        ),
        (
            lambda a, b: tf.concat([a, [5.0, 6.0], b.exp()]).square().sum(),
            lambda a, b: jnp.sum(jnp.concatenate([a, jnp.asarray([5.0, 6.0]), jnp.exp(b)]) ** 2),
        ),
        (
            lambda a, b: tf.concat1d([b, a.neg()]).mul(tf.range(0, 4)).sum(),
            lambda a, b: jnp.sum(jnp.concatenate([b, -a]) * jnp.arange(4.0)),
        ),
    ]
    for tf_f, jnp_f in cases:
        for _ in range(2):  # recorded, then from the cache
            value, grads = tf.valueAndGrads(tf_f)([tf.tensor1d(a0), tf.tensor1d(b0)])
            want_value = jnp_f(jnp.asarray(a0), jnp.asarray(b0))
            want = jax.grad(jnp_f, argnums=(0, 1))(jnp.asarray(a0), jnp.asarray(b0))
            _close(value, want_value)
            _close(grads[0], want[0])
            _close(grads[1], want[1])
    if eager_path == "tape":
        assert stages[0] == 0


# -- random programs: dead reads, mutated list arguments, escaping Tensors -------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("square")),
        st.tuples(st.just("tanh")),
        st.tuples(st.just("mulw")),
        st.tuples(st.just("read")),  # a value read used only as a constant
        st.tuples(st.just("dead")),  # a dataSync whose result is dropped
        st.tuples(st.just("branch")),  # `if t.item() > 0`
        st.tuples(st.just("slice"), st.integers(0, 2)),  # begin from a list mutated later
        st.tuples(st.just("concat")),
        st.tuples(st.just("addn")),
        st.tuples(st.just("stack")),
        st.tuples(st.just("jnp")),  # a jnp call on a recorded value: the tape stages
        st.tuples(st.just("escape")),  # a Tensor kept past the call
        st.tuples(st.just("keep")),  # one passed to tf.keep
    ),
    min_size=1,
    max_size=6,
)


def _program(steps, begin, a, w, tf_side, escaped, kept):
    """a: shape (4,), w: shape (4,). Each step keeps a at shape (4,)."""
    for step in steps:
        kind = step[0]
        if kind == "square":
            a = a.square() if tf_side else a**2
        elif kind == "tanh":
            a = a.tanh() if tf_side else jnp.tanh(a)
        elif kind == "mulw":
            a = a.mul(w) if tf_side else a * w
        elif kind == "read":
            if tf_side:
                c = float(a.sum())
                a = a.add(w.mul(c * 0.01))
            else:
                a = a + w * (jax.lax.stop_gradient(jnp.sum(a)) * 0.01)
        elif kind == "dead":
            if tf_side:
                w.mul(2).dataSync()
        elif kind == "branch":
            positive = a.sum().item() > 0 if tf_side else bool(jnp.sum(a) > 0)
            if tf_side:
                a = a.mul(0.5) if positive else a.neg()
            else:
                a = a * 0.5 if positive else -a
        elif kind == "slice":
            start = begin[0]
            if tf_side:
                part = tf.slice(a, begin, [2])
                a = tf.concat([part, a.slice([0], [2])], 0)
            else:
                a = jnp.concatenate([a[start : start + 2], a[0:2]])
            begin[0] = (begin[0] + step[1]) % 3  # the caller's list changes
        elif kind == "concat":
            a = (
                tf.concat([a.slice([2], [2]), w.slice([0], [2])], 0)
                if tf_side
                else (jnp.concatenate([a[2:], w[:2]]))
            )
        elif kind == "addn":
            a = tf.addN([a, w, a.square()]) if tf_side else a + w + a**2
        elif kind == "stack":
            a = tf.stack([a, w.mul(a)]).sum(0) if tf_side else jnp.sum(jnp.stack([a, w * a]), 0)
        elif kind == "jnp":
            a = tf.add(jnp.sin(a), 0.25) if tf_side else jnp.sin(a) + 0.25
        elif kind == "escape":
            escaped.append(a.mul(1) if tf_side else a)
        elif kind == "keep":
            kept.append(tf.keep(a.mul(1)) if tf_side else a)
    return a.sum() if tf_side else jnp.sum(a)


def _taped_or_traced(steps, v, w, tape_on):
    """One call of variableGrads on the program (tape_on picks the path)."""
    saved = _tape.ENABLED[0]
    _tape.ENABLED[0] = tape_on
    try:
        begin, escaped, kept = [0], [], []
        value, grads = tf.variableGrads(
            lambda: _program(steps, begin, v, w, True, escaped, kept), [v, w]
        )
        got = [np.asarray(grads[x.name]) if x.name in grads else np.zeros(4) for x in (v, w)]
        return float(value), got, escaped, kept
    finally:
        _tape.ENABLED[0] = saved


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=_STEPS, seed=st.integers(0, 2**16))
def test_random_programs_with_reads_lists_and_escapes_match_jax_grad(eager_path, steps, seed):
    """Each program against jax.grad of the same program in jnp, and the tape against
    the traced path; what escaped f is disposed, what f kept holds its value."""
    from tfjs_grad._tensor import TensorDisposedError

    rng = np.random.default_rng(seed)
    a0 = (rng.normal(size=4) * 0.5).astype(np.float32)
    w0 = (rng.normal(size=4) * 0.5).astype(np.float32)
    v = tf.variable(tf.tensor1d(a0))
    w = tf.variable(tf.tensor1d(w0))
    try:
        kept_j: list = []
        _program(steps, [0], jnp.asarray(a0), jnp.asarray(w0), False, [], kept_j)
        value_j, grads_j = jax.value_and_grad(
            lambda av, wv: _program(steps, [0], av, wv, False, [], []), argnums=(0, 1)
        )(jnp.asarray(a0), jnp.asarray(w0))
        for _ in range(2):  # the second call replays the cached structure
            value, grads, escaped, kept = _taped_or_traced(steps, v, w, eager_path == "tape")
            np.testing.assert_allclose(value, value_j, rtol=1e-4, atol=1e-5)
            for got, want in zip(grads, grads_j):  # (float32: relative to the largest entry)
                np.testing.assert_allclose(
                    got, want, rtol=1e-4, atol=1e-5 * max(1.0, float(np.max(np.abs(want))))
                )
            for t in escaped:
                with pytest.raises(TensorDisposedError, match="^Tensor is disposed.$"):
                    t.dataSync()
            for t, want in zip(kept, kept_j, strict=True):
                np.testing.assert_allclose(t.dataSync(), want, rtol=1e-4, atol=1e-5)
            if eager_path == "tape":
                traced = _taped_or_traced(steps, v, w, False)
                np.testing.assert_allclose(value, traced[0], rtol=1e-5, atol=1e-6)
                for got, want in zip(grads, traced[1]):
                    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    finally:
        v.dispose()
        w.dispose()
