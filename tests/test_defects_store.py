"""Issue #19's store and tf.jit items (3, 5, 10, 12, 13, 15, 18), each as the user's code."""

from __future__ import annotations

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


# -- 3: eager minimize under jax_debug_nans ------------------------------------------------
def _two_adam_steps(name: str, scale: tf.Variable, bad) -> tuple[tf.Variable, tf.train.Optimizer]:
    w = tf.variable(tf.tensor1d([1.0, 4.0]), name=name)
    opt = tf.train.adam(0.1)
    for _ in range(2):  # from the second step on, the slots' buffers are the store's own
        opt.minimize(lambda: (bad(scale) * w**2).sum())
    return w, opt


@pytest.mark.parametrize("flag", ["jax_debug_nans", "jax_debug_infs"])
def test_eager_minimize_with_debug_checks_raises_floating_point_error_and_keeps_state(flag):
    scale = tf.variable(tf.scalar(4.0), trainable=False, name="scale")
    if flag == "jax_debug_nans":
        bad, good, failing = jnp.sqrt, 4.0, -1.0
    else:
        bad, good, failing = (lambda s: 1.0 / (s - 1.0)), 3.0, 1.0
    scale.assign(tf.scalar(good))
    reference, reference_opt = _two_adam_steps("reference", scale, bad)
    w, opt = _two_adam_steps("w", scale, bad)
    scale.assign(tf.scalar(failing))
    jax.config.update(flag, True)
    try:
        with pytest.raises(FloatingPointError):
            opt.minimize(lambda: (bad(scale) * w**2).sum())
    finally:
        jax.config.update(flag, False)
    np.testing.assert_array_equal(w.value, reference.value)
    assert opt.iterations == 2
    expected = dict(reference_opt.get_weights())
    for name, value in opt.get_weights():
        np.testing.assert_array_equal(value, expected[name.replace("w/", "reference/")], name)
    scale.assign(tf.scalar(good))
    opt.minimize(lambda: (bad(scale) * w**2).sum())  # and training goes on
    reference_opt.minimize(lambda: (bad(scale) * reference**2).sum())
    np.testing.assert_allclose(w.value, reference.value, rtol=1e-6)


# -- 5: set_state with a tracer writes nothing ----------------------------------------------
def test_set_state_with_a_tracer_under_jax_jit_raises_before_writing_anything():
    a = tf.variable(tf.scalar(1.0), name="a")
    b = tf.variable(tf.scalar(2.0), name="b")

    ten = tf.scalar(10.0)  # concrete: made outside the trace

    @jax.jit
    def load(x):
        tf.set_state({"a": ten, "b": x})
        return x

    with pytest.raises(TypeError, match="traced"):
        load(jnp.float32(3.0))
    assert float(a.value) == 1.0 and float(b.value) == 2.0


# -- 10: a Variable read under plain jax.jit warns ------------------------------------------
def test_reading_a_variable_under_plain_jax_jit_warns_once_naming_tf_jit_and_functionalize():
    w = tf.variable(tf.scalar(2.0), name="w")
    f = jax.jit(lambda x: x * w)
    with pytest.warns(UserWarning, match=r"tf\.jit.*tf\.functionalize") as caught:
        assert float(f(1.0)) == 2.0
        g = jax.jit(lambda x: x * w + w)  # same line twice: one warning for the line
        g(1.0)
    assert len([c for c in caught if "baked" in str(c.message)]) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f(2.0)  # cached: no trace, no warning
        tf.jit(lambda x: x * w)(1.0)  # tf.jit threads it: no warning
        jax.grad(lambda x: x * w)(1.0)  # eager grad reads the current value: no warning
        jax.vmap(lambda x: x * w)(jnp.ones(2))


# -- 12: tf.jit traces the Python body once --------------------------------------------------
def test_tf_jit_runs_the_python_body_once_on_the_first_call():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    b = tf.variable(tf.scalar(0.5), trainable=False, name="b")
    opt = tf.train.adam(0.1)
    runs = []

    @tf.jit
    def step(x):
        runs.append(1)
        return opt.minimize(lambda: (((w + b) * x) ** 2).sum(), True)

    cost = step(jnp.ones(2))
    assert len(runs) == 1 and step.trace_count == 1
    np.testing.assert_allclose(cost, 1.5**2 + 2.5**2, rtol=1e-6)
    step(jnp.ones(2))
    step(jnp.ones(2))
    assert len(runs) == 1  # the compiled program is reused
    reference = tf.variable(tf.tensor1d([1.0, 2.0]), name="reference")
    ref_opt = tf.train.adam(0.1)
    for _ in range(3):
        ref_opt.minimize(lambda: (((reference + b) * jnp.ones(2)) ** 2).sum())
    np.testing.assert_allclose(w.value, reference.value, rtol=1e-6)
    assert opt.iterations == 3


# -- 13: argument errors name the argument ----------------------------------------------------
class _Opaque:
    pass


def test_a_bad_argument_is_named_as_jax_jit_names_it():
    def f(x, y, z):
        return x + y

    with pytest.raises(TypeError) as caught:
        tf.jit(f)(1.0, 2.0, _Opaque())
    message = str(caught.value)
    assert "at path z" in message and "_pure" not in message and "Layout" not in message

    def g(x, *, scale):
        return x * scale

    with pytest.raises(TypeError, match="at path scale"):
        tf.jit(g)(1.0, scale=_Opaque())


# -- 15: no JAX deprecation warning on the baked-constant path -------------------------------
def test_the_baked_constant_warning_comes_without_a_jax_deprecation_warning():
    big = jnp.ones(300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tf.jit(lambda x: x + big)(1.0)
    kinds = [type(c.message) for c in caught]
    assert UserWarning in kinds and DeprecationWarning not in kinds, [
        str(c.message) for c in caught
    ]


# -- 18: float() and np.asarray() of a computed value in f -----------------------------------
@pytest.mark.parametrize(
    "read",
    [
        lambda p: float(tf.mean(p)),
        lambda p: float(p[0]),
        lambda p: float(jnp.mean(p)),
        lambda p: float(np.asarray(p)[1]),
    ],
    ids=["float(tf.mean(p))", "float(p[0])", "float(jnp.mean(p))", "np.asarray(p)"],
)
def test_float_of_a_computed_value_inside_f_works_eagerly(read):
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    seen = []

    def f():
        p = w * 2
        seen.append(read(p))
        scale = 3.0 if seen[-1] > 1.0 else 0.0  # cart-pole style: a Python branch
        return (scale * p**2).sum()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "reads the values ... eagerly"
        value, grads = tf.variable_grads(f)
        np.testing.assert_allclose(value, 3.0 * (4 + 16), rtol=1e-6)
        np.testing.assert_allclose(grads["w"], 3.0 * 8 * np.array([1.0, 2.0]), rtol=1e-6)
        opt = tf.train.sgd(0.01)
        opt.minimize(f)
    np.testing.assert_allclose(w.value, [1.0 - 0.24, 2.0 - 0.48], rtol=1e-6)


def test_a_variable_first_read_inside_lax_scan_becomes_an_input_not_a_constant():
    v = tf.variable(tf.scalar(3.0), trainable=False, name="v")

    @tf.jit
    def total(x):
        return jax.lax.scan(lambda c, xi: (c + xi * v, None), 0.0, x)[0]

    assert float(total(jnp.ones(3))) == 9.0
    v.assign(tf.scalar(5.0))
    assert float(total(jnp.ones(3))) == 15.0
    assert total.trace_count == 1


def test_jit_loop_traces_once_and_reads_the_current_value_of_a_read_only_variable():
    w = tf.variable(tf.tensor1d([1.0, 1.0]), name="w")
    scale = tf.variable(tf.scalar(1.0), trainable=False, name="scale")
    opt = tf.train.sgd(0.1)

    @tf.jit_loop
    def train(x):
        return opt.minimize(lambda: ((w * x * scale) ** 2).sum(), return_cost=True)

    np.testing.assert_allclose(train(tf.ones([2, 2])), [2.0, 1.28], rtol=1e-6)  # w: 1, 0.8
    scale.assign(tf.scalar(2.0))  # cost 2 * 4 w^2 for w = 0.64, then w <- 0.2 w
    np.testing.assert_allclose(train(tf.ones([2, 2])), [8 * 0.64**2, 8 * 0.128**2], rtol=1e-5)
    assert train.trace_count == 1
