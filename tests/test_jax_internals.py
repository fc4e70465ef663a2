"""Every JAX internal the package uses is where we expect it, and every fallback works.

`tfjs_grad/_jax_internals.py` is the only module that imports `jax._src`. If a JAX
release moves one of these names, the first group of tests fails loudly (instead of the
library silently degrading); the second group runs the public fallbacks, so CI covers
both paths on every JAX version it tests.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import _jax_internals

# -- the internals are present on this JAX ---------------------------------------------


def test_the_private_trace_state_check_is_found_and_sees_transforms():
    assert _jax_internals._trace_state_clean is not None
    assert not _jax_internals.tracing()
    seen = []
    jax.jit(lambda x: seen.append(_jax_internals.tracing()) or x)(1.0)
    jax.vmap(lambda x: seen.append(_jax_internals.tracing()) or x)(jnp.ones(2))
    jax.grad(lambda x: seen.append(_jax_internals.tracing()) or x)(1.0)
    assert seen == [True, True, True]


def test_the_private_trace_context_is_found_and_names_the_transforms():
    assert _jax_internals._trace_ctx is not None
    assert _jax_internals.trace_kinds() == ["EvalTrace"]
    seen = []
    jax.jit(lambda x: seen.append(_jax_internals.trace_kinds()) or x)(1.0)
    jax.vmap(lambda x: seen.append(_jax_internals.trace_kinds()) or x)(jnp.ones(2))
    jax.jit(jax.vmap(lambda x: seen.append(_jax_internals.trace_kinds()) or x))(jnp.ones(2))
    assert seen == [
        ["DynamicJaxprTrace", "EvalTrace"],
        ["BatchTrace", "EvalTrace"],
        ["BatchTrace", "DynamicJaxprTrace", "EvalTrace"],
    ]


def test_the_private_tracer_entry_point_is_found_and_matches_make_jaxpr():
    assert _jax_internals._private_trace is not None
    avals = [jax.typeof(jnp.ones(3)), jax.typeof(jnp.float32(2))]
    fn = lambda x, y: [jnp.sin(x) * y, x.sum()]  # noqa: E731
    private = _jax_internals.trace_to_jaxpr(fn, avals)
    public = _jax_internals._public_trace_to_jaxpr(fn, avals)
    assert [e.primitive.name for e in private.jaxpr.eqns] == [
        e.primitive.name for e in public.jaxpr.eqns
    ]


def _custom_eqns(fn, *args):
    jaxpr = jax.make_jaxpr(fn)(*args).jaxpr
    return [e for e in jaxpr.eqns if e.primitive.name in ("custom_jvp_call", "custom_vjp_call")]


def test_custom_rule_functions_finds_the_users_rules():
    @jax.custom_vjp
    def f(x):
        return x

    def f_fwd(x):
        return x, None

    def f_bwd(_, dy):
        return (dy,)

    f.defvjp(f_fwd, f_bwd)

    @jax.custom_jvp
    def g(x):
        return x

    def g_rule(primals, tangents):
        return primals[0], tangents[0]

    g.defjvp(g_rule)

    @jax.custom_jvp
    def h(x):
        return x

    def h_rule(tangent, ans, x):
        return tangent

    h.defjvps(h_rule)
    (vjp_eqn,) = _custom_eqns(f, 1.0)
    (jvp_eqn,) = _custom_eqns(g, 1.0)
    (jvps_eqn,) = _custom_eqns(h, 1.0)
    assert f_bwd in _jax_internals.custom_rule_functions(vjp_eqn.params)
    assert f_fwd in _jax_internals.custom_rule_functions(vjp_eqn.params)
    assert g_rule in _jax_internals.custom_rule_functions(jvp_eqn.params)
    assert h_rule in _jax_internals.custom_rule_functions(jvps_eqn.params)


def test_jax_and_tfjs_grad_rules_count_as_pure_and_user_rules_do_not():
    from tfjs_grad._jaxpr import has_user_rules

    relu = jax.make_jaxpr(jax.nn.relu)(1.0).jaxpr
    loss = jax.make_jaxpr(lambda x: tf.losses.sigmoid_cross_entropy(jnp.ones(2), x))(
        jnp.ones(2)
    ).jaxpr
    assert not has_user_rules(relu) and not has_user_rules(loss)
    op = tf.custom_grad(lambda x, save: {"value": x, "grad_func": lambda dy, saved: dy})
    assert has_user_rules(jax.make_jaxpr(op)(jnp.ones(2)).jaxpr)


# -- the public fallbacks give the same results ---------------------------------------------


@pytest.fixture
def public_only(monkeypatch):
    monkeypatch.setattr(_jax_internals, "_private_trace", None)
    monkeypatch.setattr(_jax_internals, "_trace_state_clean", None)
    monkeypatch.setattr(_jax_internals, "_trace_ctx", None)


def test_gradients_through_the_public_tracer(public_only):
    np.testing.assert_allclose(tf.grad(lambda x: x**3)(tf.tensor1d([2, 3])), [12.0, 27.0])
    v = tf.variable(tf.tensor1d([1.0, 2.0]), name="fallback")
    np.testing.assert_allclose(tf.variable_grads(lambda: (v**2).sum()).grads["fallback"], [2, 4])


def test_tf_jit_through_the_public_tracer(public_only):
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.sgd(0.5)
    step = tf.jit(lambda: opt.minimize(lambda: (w**2).sum(), True))
    assert float(step()) == 5.0
    np.testing.assert_allclose(w.value, [0.0, 0.0])


def test_the_public_tracing_check_sees_jit(public_only):
    assert not _jax_internals.tracing()
    seen = []
    jax.jit(lambda x: seen.append(_jax_internals.tracing()) or x)(1.0)
    assert seen == [True]


def test_tidy_and_dispose_do_nothing_under_jit_through_the_fallback(public_only):
    def body(x):
        tf.dispose(x)
        return tf.tidy(lambda: x * 2)

    np.testing.assert_allclose(jax.jit(body)(jnp.ones(2)), [2.0, 2.0])


def test_importing_tfjs_grad_starts_no_backend():
    # A process that forks after `import tfjs_grad` (tests/scripts/io_crash_worker.py does)
    # would hang if the import had started XLA's threads.
    import subprocess
    import sys

    code = (
        "import tfjs_grad\n"
        "from jax._src import xla_bridge\n"
        "assert not xla_bridge._backends, 'the import started a backend'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_an_unseeded_draw_under_jax_jit_still_warns_through_the_fallback(public_only):
    from tfjs_grad import _rng

    assert _jax_internals.trace_kinds() is None
    with pytest.warns(_rng.UnseededDrawWarning, match="jax.jit"):
        jax.jit(lambda: tf.random_uniform([2]))()


def test_jax_arrays_binary_operators_are_found_and_defer_to_tensors():
    # the layout `asked_by_jax_operator` expects; if JAX moves it, `jnp_array @ t` silently
    # becomes JAX's operator again (a raw array, and the eager tape falls back): fail here
    seen = []

    class Probe:
        @property
        def __jax_array__(self):
            import inspect

            seen.append(_jax_internals.asked_by_jax_operator(inspect.currentframe().f_back))
            raise AttributeError("__jax_array__")

        def __radd__(self, other):
            return "deferred"

    assert jnp.ones(2) + Probe() == "deferred"
    assert seen == [True]
    assert not _jax_internals.asked_by_jax_operator(None)
    assert type(jnp.ones(2) + tf.ones([2])) is tf.Tensor
    assert not isinstance(jax.jit(lambda a: a + tf.ones([2]))(jnp.ones(2)), tf.Tensor)


# -- the eager tape's staging, and what JAX's own code receives --------------------------


def test_a_staging_opened_midway_gives_make_jaxprs_program_and_reads_values():
    from jax.core import ShapedArray

    values = [np.asarray([0.5, 2.0], np.float32)]
    staging = _jax_internals.Staging([ShapedArray((2,), jnp.float32)], lambda: values)
    (x,) = staging.inputs
    assert _jax_internals.tracing()
    h = jnp.sin(x) * 3
    assert float(h.sum()) == pytest.approx(float(np.sum(np.sin(values[0]) * 3)), rel=1e-6)
    assert bool(h[1] > 0) and int(h.argmax()) == 1 and np.asarray(h).shape == (2,)
    closed = staging.close([h.sum()])
    assert not _jax_internals.tracing()
    run = jax.core.eval_jaxpr(closed.jaxpr, closed.consts, jnp.asarray([1.0, 2.0]))[0]
    np.testing.assert_allclose(run, np.sum(np.sin([1.0, 2.0]) * 3), rtol=1e-6)
    with pytest.raises(jax.errors.ConcretizationTypeError):  # closed: JAX's rules again
        jax.jit(lambda a: float(a))(1.0)


def test_a_staging_aborted_on_an_error_leaves_no_trace_behind():
    from jax.core import ShapedArray

    staging = _jax_internals.Staging([ShapedArray((), jnp.float32)], lambda: [np.float32(1)])
    staging.abort()
    assert not _jax_internals.tracing()
    assert float(jnp.sin(1.0)) == pytest.approx(np.sin(1.0))


def test_jax_library_code_gets_arrays_and_user_code_keeps_tensors():
    t = tf.tensor1d([-1.0, 2.0])
    seen = []
    np.testing.assert_allclose(jax.nn.sigmoid(t), 1 / (1 + np.exp([1.0, -2.0])), rtol=1e-6)
    jax.jit(lambda a: seen.append(type(a)) or a.relu())(t)
    assert seen == [tf.Tensor]  # the user's function under jax.jit keeps Tensors
    g = tf.grad(lambda x: jnp.sum(jax.nn.relu(x) + jax.nn.sigmoid(x)))(t)
    want = jax.grad(lambda x: jnp.sum(jax.nn.relu(x) + jax.nn.sigmoid(x)))(jnp.asarray(t))
    np.testing.assert_allclose(np.asarray(g), want, rtol=1e-6)


def test_a_jax_primitive_handed_a_tensor_says_to_pass_the_array():
    t = tf.tensor1d([1.0, 2.0])
    v = tf.variable(t, name="internals_lax_v")
    for call in (
        lambda: jax.lax.add(t, t),
        lambda: jax.lax.exp(v),
        lambda: tf.grad(lambda x: jax.lax.sin(x).sum())(t),
    ):
        with pytest.raises(ValueError, match=r"jnp\.asarray\(t\).*v\.value"):
            call()
    np.testing.assert_allclose(jax.lax.add(jnp.asarray(t), v.value), [2.0, 4.0])
    v.dispose()


def test_finding_a_custom_rules_functions_leaves_no_cycle_for_the_collector():
    import gc

    @jax.custom_jvp
    def clipped(x):
        return jnp.clip(x, -1.0, 1.0)

    clipped.defjvps(lambda t, ans, x: t * (jnp.abs(x) < 1))
    params = jax.make_jaxpr(clipped)(0.5).eqns[0].params
    gc.collect()
    gc.disable()
    try:
        found = [_jax_internals.custom_rule_functions(params) for _ in range(5)]
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert all(f is not None and len(f) == len(found[0]) for f in found)
