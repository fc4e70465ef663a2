"""The eager tape (tfjs_grad/_tape.py): f runs in Python every call, its ops are recorded,
and a repeated structure reuses one compiled program. Checked against jax.grad of the same
program written in jax.numpy, and against the traced path (TFJS_GRAD_TAPE=0)."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfjs_grad as tf
from tfjs_grad import _tape, _trace
from tfjs_grad._tensor import TensorDisposedError

# (tf form, jnp form) of each step a random program may take
_UNARY = {
    "square": (lambda t: t.square(), jnp.square),
    "tanh": (lambda t: t.tanh(), jnp.tanh),
    "relu": (lambda t: t.relu(), jax.nn.relu),
    "sigmoid": (lambda t: t.sigmoid(), jax.nn.sigmoid),
    "neg": (lambda t: t.neg(), jnp.negative),
    "scale": (lambda t: t.mul(0.5), lambda a: a * 0.5),
    "shift": (lambda t: t.add(1.25), lambda a: a + 1.25),
    "sin": (lambda t: tf.sin(t), jnp.sin),
}
_BINARY = {
    "add": (lambda a, b: a.add(b), jnp.add),
    "mul": (lambda a, b: a.mul(b), jnp.multiply),
    "sub": (lambda a, b: a.sub(b), jnp.subtract),
}


def _run(steps, x, w, tf_side):
    """The program: x * w, a chain of steps over it (and w), then a mean."""
    a, b = _BINARY["mul"][0 if tf_side else 1](x, w), w
    for kind, name, read in steps:
        if kind == "u":
            fn = _UNARY[name][0 if tf_side else 1]
            a = fn(a)
        else:
            fn = _BINARY[name][0 if tf_side else 1]
            a = fn(a, b)
        if read and tf_side:  # a value read in the middle of f, as tfjs code does
            if float(a.mean()) > 1e9:
                a = a.mul(0.0)
    return a.mean() if tf_side else jnp.mean(a)


def _peak(steps, x0, w0) -> float:
    """The largest magnitude the program's jnp form reaches."""
    a, b = jnp.asarray(x0) * w0, jnp.asarray(w0)
    peak = float(jnp.abs(a).max())
    for kind, name, _ in steps:
        a = _UNARY[name][1](a) if kind == "u" else _BINARY[name][1](a, b)
        peak = max(peak, float(jnp.abs(a).max()))
    return peak


_STEP = st.one_of(
    st.tuples(st.just("u"), st.sampled_from(sorted(_UNARY)), st.booleans()),
    st.tuples(st.just("b"), st.sampled_from(sorted(_BINARY)), st.booleans()),
)


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(_STEP, min_size=1, max_size=6), seed=st.integers(0, 2**16))
def test_random_programs_match_jax_grad(steps, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.normal(size=(3,)).astype(np.float32)
    w0 = rng.normal(size=(3,)).astype(np.float32)
    w = tf.variable(tf.tensor1d(w0))
    try:
        out = tf.variableGrads(lambda: _run(steps, tf.tensor1d(x0), w, True), [w])
        value, grad = jax.value_and_grad(lambda wv: _run(steps, jnp.asarray(x0), wv, False))(
            jnp.asarray(w0)
        )
        # float32 rounding of a large intermediate (sin(69.48): its ulp is 8e-6) differs
        # with how XLA fuses each program: the tolerance grows with the largest value.
        peak = max(1.0, _peak(steps, x0, w0))
        np.testing.assert_allclose(np.asarray(out.value), value, rtol=1e-5, atol=1e-6 * peak)
        np.testing.assert_allclose(np.asarray(out.grads[w.name]), grad, rtol=1e-4, atol=1e-5 * peak)
        dx = tf.grad(lambda x: _run(steps, x, tf.tensor1d(w0), True))(tf.tensor1d(x0))
        want = jax.grad(lambda xv: _run(steps, xv, jnp.asarray(w0), False))(jnp.asarray(x0))
        np.testing.assert_allclose(np.asarray(dx), want, rtol=1e-4, atol=1e-5 * peak)
    finally:
        w.dispose()


def test_a_repeated_structure_compiles_once_and_f_runs_every_call():
    w = tf.variable(tf.tensor1d([1.0, 2.0]))
    opt = tf.train.adam(0.1)
    calls = []

    def loss():
        calls.append(1)
        return w.sub(tf.tensor1d([3.0, 3.0])).square().mean()

    opt.minimize(loss)
    opt.minimize(loss)
    plans, compiles = len(_tape._plans), _trace.stats["compiles"]
    for _ in range(10):
        opt.minimize(loss)
    assert len(calls) == 12
    assert len(_tape._plans) == plans
    assert _trace.stats["compiles"] == compiles
    w.dispose()
    opt.dispose()


def test_new_python_floats_are_the_same_program():
    x = tf.tensor1d([1.0, 2.0])
    plans = None
    for step in range(5):
        g = tf.grad(lambda t, k=1.0 + 0.1 * step: t.mul(k).square().sum())(x)
        np.testing.assert_allclose(
            np.asarray(g), 2 * (1.0 + 0.1 * step) ** 2 * np.array([1, 2]), rtol=1e-6
        )
        if step == 1:
            plans = len(_tape._plans)
    assert len(_tape._plans) == plans


def test_a_static_float_keeps_its_sign_of_zero():
    # 0.0 == -0.0 in Python, so a signature cache keyed by value alone replayed the first
    x = tf.tensor1d([-1.0, 2.0])
    signs = []

    def f(x, alpha):
        y = x.leakyRelu(alpha)  # -1 * alpha: -0.0 for alpha 0.0, 0.0 for alpha -0.0
        signs.append(bool(np.signbit(y.dataSync()[0])))
        return y.sum()

    for alpha in (0.0, -0.0, 0.0):
        tf.grad(lambda x, a=alpha: f(x, a))(x)
    assert signs == [True, False, True]


def test_a_value_read_in_f_sees_the_value_and_the_gradient_covers_the_whole_tape():
    seen = []

    def f(x):
        y = x.square()
        seen.append(y.dataSync().tolist())
        if y.sum().arraySync() > 3:  # 1 + 4 = 5
            return y.mul(x).sum()  # x ** 3
        return y.sum()

    g = tf.grad(f)(tf.tensor1d([1.0, 2.0]))
    assert seen == [[1.0, 4.0]]
    np.testing.assert_allclose(np.asarray(g), [3.0, 12.0])


def test_a_jnp_call_on_a_recorded_value_goes_on_staged_running_f_once():
    runs = []

    def f(x):
        runs.append(1)
        h = jnp.sin(x.square())  # the tape stages here; f goes on, on JAX tracers
        if float(h.sum()) > 0:  # a value read after staging: from the program so far
            h = h * 2
        return tf.sum(h).add(x.mean())

    def raw(a):
        return jnp.sum(jnp.sin(a**2) * 2) + jnp.mean(a)

    for values in ([0.5, 1.5], [0.25, 1.0], [1.0, 2.0]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            value, g = tf.valueAndGrad(f)(tf.tensor1d(values))
        want_value, want = jax.value_and_grad(raw)(jnp.asarray(values))
        np.testing.assert_allclose(float(value), float(want_value), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)
    assert len(runs) == 3  # once per call, the first included


def test_unseeded_draws_are_fresh_on_every_call():
    w = tf.variable(tf.ones([64]))
    grads = [
        np.asarray(tf.variableGrads(lambda: tf.dropout(w, 0.5).sum(), [w]).grads[w.name])
        for _ in range(3)
    ]
    assert not np.array_equal(grads[0], grads[1])
    assert not np.array_equal(grads[1], grads[2])
    for g in grads:  # dropout's gradient: 0 where dropped, 1 / keep where kept
        assert set(np.unique(g)) <= {0.0, 2.0}
    w.dispose()


def test_print_inside_f_prints_on_every_call(capsys):
    x = tf.tensor1d([1.0, 2.0])
    for _ in range(2):
        tf.grad(lambda t: tf.print(t.square()) or t.square().sum())(x)
    assert capsys.readouterr().out.count("[1, 4]") == 2


def test_writes_inside_f_are_applied_with_the_step():
    w = tf.variable(tf.tensor1d([1.0, 2.0]))
    counter = tf.variable(tf.scalar(0.0), False)

    def loss():
        counter.assign(counter.add(1))
        return w.square().sum()

    for _ in range(3):
        tf.variableGrads(loss, [w])
    assert float(counter.value) == 3.0
    w.dispose()
    counter.dispose()


def test_an_error_in_f_leaves_nothing_behind():
    w = tf.variable(tf.tensor1d([1.0, 2.0]))
    before = set(tf.registered_variables())

    def loss():
        tf.variable(tf.zeros([2]), True, "tape_scratch_variable")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        tf.variableGrads(loss, [w])
    assert set(tf.registered_variables()) == before
    w.dispose()


def test_no_recorded_value_escapes_f():
    """f's intermediates are disposed when the call returns (tfjs tidies f); its input, the
    caller's Tensor, and what `tf.keep` kept inside f stay valid."""
    kept, inputs, held = [], [], []

    def f(x):
        inputs.append(x)
        held.append(tf.keep(x.mul(2)))
        kept.append(x.square())
        return kept[-1].sum()

    g = tf.grad(f)(tf.tensor1d([1.0, 3.0]))
    np.testing.assert_allclose(np.asarray(g), [2.0, 6.0])
    assert kept[0].shape == (2,) and kept[0].isDisposed
    with pytest.raises(TensorDisposedError, match="Tensor is disposed."):
        kept[0].dataSync()
    np.testing.assert_allclose(inputs[0].dataSync(), [1.0, 3.0])
    np.testing.assert_allclose(held[0].dataSync(), [2.0, 6.0])


def test_a_value_read_in_f_leaves_the_variables_owned():
    """The forward program of a read takes the Variables' buffers without sharing them, so
    the step after it still donates them (no copy per step), and what the user reads of a
    Variable itself stays valid."""
    from tfjs_grad import variables

    w = tf.variable(tf.tensor1d([1.0, -2.0]), name="tape_read_owned_w")
    opt = tf.train.sgd(0.1)
    seen = []

    def loss():
        hidden = w.square()
        seen.append(float(hidden.sum()))
        return hidden.sum()

    for _ in range(3):  # compile, then steady state
        opt.minimize(loss)
    before = variables.peek(w)
    opt.minimize(loss)
    assert before.is_deleted()  # donated to the step, not copied
    held = []
    opt.minimize(lambda: (held.append(w.dataSync()), w.square().sum())[1])
    opt.minimize(loss)
    np.testing.assert_allclose(held[0], np.asarray([1.0, -2.0]) * 0.8**4, rtol=1e-6)
    np.testing.assert_allclose(
        seen[-1], float(np.sum((np.asarray([1.0, -2.0]) * 0.8**5) ** 2)), rtol=1e-5
    )
    w.dispose()


def _ema_run(tape_on: bool) -> list[tuple[float, list[float], list[float]]]:
    w = tf.variable(tf.tensor1d([1.0, 2.0]))
    ema = tf.variable(tf.tensor1d([0.0, 0.0]), False)

    def loss():
        ema.assign(ema.mul(0.5).add(w.mul(0.5)))  # the new value depends on w: recorded
        return w.square().sum().add(ema.sum())

    saved = _tape.ENABLED[0]
    _tape.ENABLED[0] = tape_on
    try:
        out = []
        for _ in range(3):
            value, grads = tf.variableGrads(loss, [w])
            out.append((float(value), grads[w.name].tolist(), ema.value.tolist()))
    finally:
        _tape.ENABLED[0] = saved
    assert (loss in _tape._staged_from_start) is False
    w.dispose()
    ema.dispose()
    return out


def test_assigning_a_recorded_value_is_recorded_on_the_tape():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "cannot record" warning: it stayed on the tape
        taped = _ema_run(True)
    # ema_k = (1 - 2^-k) w; loss = |w|^2 + sum(ema_k); d/dw = 2w: as in tfjs 4.22, the
    # value assigned to ema has no gradient path back to w (tests/test_variables_in_f.py,
    # case assign_from_other of tests/reference/variables_in_f.json)
    for k, (value, grad, ema) in enumerate(taped, 1):
        expected = [(1 - 2.0**-k) * x for x in (1.0, 2.0)]
        np.testing.assert_allclose(ema, expected, rtol=1e-6)
        np.testing.assert_allclose(value, 5.0 + sum(expected), rtol=1e-6)
        np.testing.assert_allclose(grad, [2.0, 4.0], rtol=1e-6)
    traced = _ema_run(False)
    for a, b in zip(taped, traced):
        np.testing.assert_allclose(a[0], b[0], rtol=1e-6)
        np.testing.assert_allclose(a[1], b[1], rtol=1e-6)
        np.testing.assert_allclose(a[2], b[2], rtol=1e-6)


def test_assigning_a_recorded_value_to_a_trainable_variable_in_minimize():
    results = []
    for tape_on in (True, False):
        w = tf.variable(tf.tensor1d([1.0, 2.0]))
        opt = tf.train.sgd(0.1)
        saved = _tape.ENABLED[0]
        _tape.ENABLED[0] = tape_on
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                cost = opt.minimize(lambda w=w: w.assign(w.mul(0.5)) or w.square().sum(), True)
        finally:
            _tape.ENABLED[0] = saved
        results.append((float(cost), w.value.tolist()))
        w.dispose()
        opt.dispose()
    # w is halved inside f (cost |w/2|^2 = 1.25); as in tfjs 4.22 the gradient is that of
    # the reads of w (2 * w/2 = w, the assign has no gradient path), and the step applies
    # to the halved value: 0.5 w - 0.1 w (tests/reference/variables_in_f.json)
    np.testing.assert_allclose(results[0][0], 1.25, rtol=1e-6)
    np.testing.assert_allclose(results[0][1], [0.4, 0.8], rtol=1e-6)
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_a_recorded_value_assigned_after_f_returned_is_disposed():
    kept = []
    tf.grad(lambda x: kept.append(x.square()) or kept[-1].sum())(tf.tensor1d([1.0, 3.0]))
    v = tf.variable(tf.zeros([2]))
    with pytest.raises(TensorDisposedError, match="Tensor is disposed."):
        v.assign(kept[0])
    np.testing.assert_allclose(v.value.tolist(), [0.0, 0.0])
    v.dispose()
