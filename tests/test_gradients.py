"""The gradient functions: tfjs's documented examples and numbers, connection rules,
errors, composition with JAX transforms, and finite differences."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import tfjs_grad as tf
from tfjs_grad import _trace

NO_PATH = (
    "Cannot compute gradient of y=f(x) with respect to x. Make sure that the f you passed "
    "encloses all operations that lead from x to y."
)


# -- tfjs's documentation examples (numbers from the tfjs docs and TFJS_BEHAVIOR §6) ----
def test_grad_doc_example_second_derivative_of_cube():
    # tfjs docs: f(x) = x ^ 3, g = grad(grad(f)) -> 6x
    g = tf.grad(tf.grad(lambda x: x**3))
    np.testing.assert_allclose(g(tf.tensor1d([2, 3])), [12.0, 18.0])
    np.testing.assert_allclose(tf.grad(g)(tf.tensor1d([2, 3])), [6.0, 6.0])


def test_grads_doc_example_product():
    # tfjs docs: f(a, b) = a * b -> da = b, db = a
    da, db = tf.grads(lambda a, b: a * b)([tf.tensor1d([2, 3]), tf.tensor1d([-2, -3])])
    np.testing.assert_allclose(da, [-2.0, -3.0])
    np.testing.assert_allclose(db, [2.0, 3.0])


def test_value_and_grad_doc_example():
    value, grad = tf.value_and_grad(lambda x: x * x)(tf.tensor1d([2, 3]))
    np.testing.assert_allclose(value, [4.0, 9.0])
    np.testing.assert_allclose(grad, [4.0, 6.0])


def test_value_and_grads_doc_example():
    value, (da, db) = tf.value_and_grads(lambda a, b: a * b)(
        [tf.tensor1d([2, 3]), tf.tensor1d([-2, -3])]
    )
    np.testing.assert_allclose(value, [-4.0, -9.0])
    np.testing.assert_allclose(da, [-2.0, -3.0])
    np.testing.assert_allclose(db, [2.0, 3.0])


def test_custom_grad_doc_example_and_second_order():
    # tfjs docs: value = x^2, gradFunc = dy * abs(saved[0]); §6 #30: 2nd order sign(x).
    def forward(x, save):
        save([x])
        return {"value": x**2, "gradFunc": lambda dy, saved: [dy * jnp.abs(saved[0])]}

    f = tf.custom_grad(forward)
    x = tf.tensor1d([-1, -2, 3])
    np.testing.assert_allclose(f(x), [1.0, 4.0, 9.0])
    np.testing.assert_allclose(tf.grad(f)(x), [1.0, 2.0, 3.0])
    np.testing.assert_allclose(tf.grad(tf.grad(f))(x), [-1.0, -1.0, 1.0])


def test_custom_grad_single_tensor_result_and_no_save():
    seen = []

    def forward(x, save):
        return {"value": x * 2, "grad_func": lambda dy, saved: seen.append(saved) or dy * 7}

    np.testing.assert_allclose(tf.grad(tf.custom_grad(forward))(tf.tensor1d([1, 2, 3])), [7.0] * 3)
    assert seen == [[]]


def test_custom_grad_as_straight_through_estimator_under_jit():
    def forward(x, save):
        return {"value": jnp.round(x), "grad_func": lambda dy, saved: dy}

    ste = tf.custom_grad(forward)
    g = jax.jit(tf.grad(lambda x: (ste(x) * 3).sum()))
    np.testing.assert_allclose(g(jnp.array([0.2, 1.7])), [3.0, 3.0])


# -- non-scalar outputs and dy ----------------------------------------------------------
def test_non_scalar_output_is_vjp_with_ones():
    np.testing.assert_allclose(tf.grad(lambda x: x**2)(tf.tensor1d([2, 3])), [4.0, 6.0])


def test_dy_weights_the_vjp():
    square = tf.grad(lambda x: x**2)
    np.testing.assert_allclose(square(tf.tensor1d([2, 3]), tf.tensor1d([10, 100])), [40, 600])
    np.testing.assert_allclose(square(tf.tensor1d([2, 3]), [1, 2]), [4.0, 12.0])


@pytest.mark.parametrize("dy, shown", [(tf.scalar(2.0), ""), (tf.tensor1d([2.0]), "1")])
def test_dy_of_wrong_shape_raises_tfjs_message(dy, shown):
    with pytest.raises(ValueError) as info:
        tf.grad(lambda x: x**2)(tf.tensor1d([2, 3]), dy)
    assert str(info.value) == (
        "The shape of dy passed in grad(f)(x, dy) must match the shape returned by f(x) "
        f"Shapes 2 and {shown} must match"
    )


def test_int_dy_raises():
    with pytest.raises(TypeError, match="dy must have 'float32' dtype, but has 'int32'"):
        tf.grad(lambda x: x**2)(tf.tensor1d([2, 3]), jnp.array([1, 1], jnp.int32))


# -- connection rules -----------------------------------------------------------------
def test_stop_gradient_gives_zeros_not_an_error():
    x = tf.tensor1d([1, 2, 3])
    np.testing.assert_allclose(tf.grad(lambda x: x**2)(x), [2.0, 4.0, 6.0])
    np.testing.assert_allclose(tf.grad(lambda x: tf.stop_gradient(x) ** 2)(x), [0.0] * 3)


def test_stop_gradient_in_a_chain_seed_example():
    # seed: b = a*2; c = stopGradient(b) + 1 -> dc/da = 0
    np.testing.assert_allclose(
        tf.grad(lambda a: tf.stop_gradient(a * 2) + 1)(tf.tensor1d([1, 2, 3])), [0.0] * 3
    )


def test_stop_gradient_keeps_values_and_partial_paths():
    x = tf.tensor1d([1.0, 2.0])
    np.testing.assert_array_equal(tf.stop_gradient(x), x)
    # d/dx [x * stop(x)] = stop(x)
    np.testing.assert_allclose(tf.grad(lambda x: x * tf.stop_gradient(x))(x), [1.0, 2.0])


def test_identity_is_connected_and_gives_ones():
    np.testing.assert_allclose(tf.grad(lambda x: x)(tf.tensor1d([1, 2])), [1.0, 1.0])


def test_constant_output_is_unconnected():
    with pytest.raises(ValueError) as info:
        tf.grad(lambda x: tf.scalar(3.0))(tf.tensor1d([1, 2]))
    assert str(info.value) == NO_PATH


def test_some_unconnected_args_raise_check_grads_message():
    with pytest.raises(ValueError) as info:
        tf.grads(lambda a, b: a**2)([tf.tensor1d([1.0]), tf.tensor1d([2.0])])
    assert "Make sure that\n    the f you passed" in str(info.value)


def test_zero_gradient_is_still_connected():
    np.testing.assert_allclose(tf.grad(lambda x: x * 0.0)(tf.tensor1d([1, 2])), [0.0, 0.0])


def test_connection_is_decided_per_output_of_nested_jit():
    @jax.jit
    def pair(a, b):
        return a * 2, b * 3

    np.testing.assert_allclose(tf.grads(lambda a, b: pair(a, b)[0] + b)([1.0, 2.0]), [2.0, 1.0])
    with pytest.raises(ValueError):
        tf.grads(lambda a, b: pair(a, b)[0])([tf.scalar(1.0), tf.scalar(2.0)])


def test_same_array_twice_gets_partial_derivatives():
    x = tf.tensor1d([2, 3])
    da, db = tf.grads(lambda a, b: a * b)([x, x])
    np.testing.assert_allclose(da, [2.0, 3.0])
    np.testing.assert_allclose(db, [2.0, 3.0])


# -- errors -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: tf.grad(3), "The f passed in grad(f) must be a function"),
        (lambda: tf.grads(3), "The f passed in grads(f) must be a function"),
        (lambda: tf.value_and_grad(3), "The f passed in valueAndGrad(f) must be a function"),
        (lambda: tf.value_and_grads(3), "The f passed in valueAndGrads(f) must be a function"),
        (lambda: tf.custom_grad(3), "The f passed in customGrad(f) must be a function."),
        (lambda: tf.variable_grads(3), "The f passed in variableGrads(f) must be a function"),
        (
            lambda: tf.grads(lambda a: a)(tf.scalar(1.0)),
            "The args passed in grads(f)(args) must be an array of `Tensor`s or `TensorLike`s",
        ),
        (
            lambda: tf.value_and_grads(lambda a: a)(tf.scalar(1.0)),
            "The args passed in valueAndGrads(f)(args) must be array of tensors",
        ),
        (
            lambda: tf.grad(lambda x: x)("a"),
            "Argument 'x' passed to 'tf.grad' must be a Tensor or TensorLike, but got 'str'",
        ),
        (
            lambda: tf.value_and_grad(lambda x: x)("a"),
            "The x passed in valueAndGrad(f)(x) must be a tensor",
        ),
        (
            lambda: tf.grad(lambda x: 3)(tf.scalar(1.0)),
            "The result y returned by f() must be a tensor.",
        ),
        (lambda: tf.grad(lambda x: x**2)(jnp.array([1, 2])), "must be a float tensor"),
        (lambda: tf.grad(lambda x: x)(jnp.array([True])), "must be a float tensor"),
    ],
)
def test_type_errors_carry_tfjs_messages(make, message):
    with pytest.raises(TypeError) as info:
        make()
    assert message in str(info.value)


def test_empty_args_raise():
    with pytest.raises(ValueError, match="gradients\\(\\) received an empty list of xs."):
        tf.grads(lambda: tf.scalar(1.0))([])


@pytest.mark.parametrize(
    "forward, message",
    [
        (lambda x, save: {"value": 3, "grad_func": lambda dy, s: dy}, "`obj.value` is a tensor"),
        (lambda x, save: {"value": x, "grad_func": 3}, "`obj.gradFunc` is a function."),
    ],
)
def test_custom_grad_forward_checks(forward, message):
    with pytest.raises(TypeError, match=message.replace("(", "\\(").replace(".", "\\.")):
        tf.custom_grad(forward)(tf.tensor1d([1.0]))


def test_custom_grad_backward_checks():
    wrong_count = tf.custom_grad(lambda x, save: {"value": x, "grad_func": lambda dy, s: [dy, dy]})
    wrong_count(tf.tensor1d([1.0]))  # harmless until differentiated, as in tfjs
    with pytest.raises(ValueError, match="same number of tensors"):
        tf.grad(wrong_count)(tf.tensor1d([1.0]))
    not_tensor = tf.custom_grad(lambda x, save: {"value": x, "grad_func": lambda dy, s: [None]})
    with pytest.raises(TypeError, match="list of only tensors"):
        tf.grad(not_tensor)(tf.tensor1d([1.0]))
    wrong_shape = tf.custom_grad(
        lambda x, save: {"value": x, "grad_func": lambda dy, s: jnp.sum(dy)}
    )
    with pytest.raises(
        ValueError, match="has shape '', which does not match the shape of the input '2'"
    ):
        tf.grad(wrong_shape)(tf.tensor1d([1.0, 2.0]))
    with pytest.raises(TypeError, match="must all be tensors"):
        wrong_shape("x")


# -- f runs once; eager calls reuse compiled programs ------------------------------------
def test_f_runs_once_per_call_and_programs_are_reused():
    calls = []

    def f(x):
        calls.append(1)
        return (x**2).sum()

    g = tf.grad(f)
    before = dict(_trace.stats)
    for _ in range(5):
        np.testing.assert_allclose(g(tf.tensor1d([1, 2])), [2.0, 4.0])
    assert len(calls) == 5
    assert _trace.stats["compiles"] - before["compiles"] <= 1
    assert _trace.stats["hits"] - before["hits"] >= 4


def test_different_closed_over_values_are_not_confused_by_the_cache():
    g = [tf.grad(lambda x, c=c: (x * c).sum())(tf.tensor1d([1.0, 1.0])) for c in (2.0, 5.0)]
    np.testing.assert_allclose(g[0], [2.0, 2.0])
    np.testing.assert_allclose(g[1], [5.0, 5.0])
    arrays = [jnp.array([1.0, 2.0]), jnp.array([3.0, 4.0])]
    for a in arrays:
        np.testing.assert_allclose(tf.grad(lambda x, a=a: (x * a).sum())(tf.tensor1d([0, 0])), a)


# -- composition with JAX transforms ---------------------------------------------------
def test_works_under_jit_vmap_and_as_per_example_gradients():
    g = tf.grad(lambda x: (x**3).sum())
    xs = jnp.arange(6.0).reshape(3, 2)
    np.testing.assert_allclose(jax.jit(g)(xs[0]), 3 * xs[0] ** 2)
    np.testing.assert_allclose(jax.vmap(g)(xs), 3 * xs**2)
    np.testing.assert_allclose(
        jax.jit(jax.vmap(tf.grad(lambda x: x.sum() ** 2)))(xs),
        2 * xs.sum(1, keepdims=True) * jnp.ones_like(xs),
    )


def test_jax_grad_of_tf_grad():
    # jax.grad needs an array result: jnp.asarray of the Tensor tf.grad returns
    np.testing.assert_allclose(
        jax.grad(lambda x: jnp.asarray(tf.grad(lambda x: x**3)(x)))(2.0), 12.0
    )


# -- hypothesis: every gradient function agrees with central differences ------------------
# (JAX function, the same function in float64 numpy for the reference differences)
_UNARY = [
    (jnp.sin, np.sin),
    (jnp.tanh, np.tanh),
    (jnp.exp, np.exp),
    (lambda x: x**2, lambda x: x**2),
    (lambda x: jnp.log1p(x**2), lambda x: np.log1p(x**2)),
    (lambda x: jax.nn.sigmoid(jnp.asarray(x)), lambda x: 1 / (1 + np.exp(-x))),  # lax inside
]


@st.composite
def compositions(draw):
    ops = draw(st.lists(st.sampled_from(range(len(_UNARY))), min_size=1, max_size=4))
    values = draw(st.lists(st.floats(-1.5, 1.5, allow_nan=False, width=32), min_size=2, max_size=4))
    return ops, np.asarray(values, np.float64)


def _compose(ops, which=0):
    def f(x):
        for i in ops:
            x = _UNARY[i][which](x)
        return x

    return f


def _central_difference(f, x, eps=1e-6):
    """d/dx_i of sum(f(x)), in float64."""
    steps = np.eye(x.size) * eps
    return np.array([(f(x + s).sum() - f(x - s).sum()) / (2 * eps) for s in steps])


@settings(max_examples=30, deadline=None)
@given(compositions())
def test_grad_family_matches_finite_differences(case):
    ops, values = case
    x64 = values
    for i in ops:  # keep every intermediate where float32 still resolves the next op
        with np.errstate(over="ignore"):
            x64 = _UNARY[i][1](x64)
        assume(bool(np.all(np.abs(x64) < 20)))
    f = _compose(ops)
    expected = _central_difference(_compose(ops, which=1), values)
    x = jnp.asarray(values, jnp.float32)
    np.testing.assert_allclose(tf.grad(f)(x), expected, rtol=2e-3, atol=2e-4)
    np.testing.assert_allclose(tf.value_and_grad(f)(x).grad, expected, rtol=2e-3, atol=2e-4)
    (g,) = tf.grads(f)([x])
    np.testing.assert_allclose(g, expected, rtol=2e-3, atol=2e-4)
    np.testing.assert_allclose(tf.value_and_grads(f)([x]).grads[0], expected, rtol=2e-3, atol=2e-4)
    v = tf.variable(x, name="hyp")
    vg = tf.variable_grads(lambda: f(v).sum(), [v]).grads["hyp"]
    v.dispose()
    np.testing.assert_allclose(vg, expected, rtol=2e-3, atol=2e-4)


def test_custom_grad_per_example_under_vmap_and_jit_and_with_variables():
    def forward(x, save):
        save([x])
        return {"value": (x**2).sum(), "grad_func": lambda dy, saved: dy * jnp.abs(saved[0])}

    f = tf.custom_grad(forward)
    xs = jnp.array([[-1.0, 2.0], [3.0, -4.0]])
    np.testing.assert_allclose(jax.vmap(tf.grad(f))(xs), jnp.abs(xs))
    np.testing.assert_allclose(jax.jit(jax.vmap(tf.grad(f)))(xs), jnp.abs(xs))
    v = tf.variable(tf.tensor1d([1.0, -2.0]), name="v")
    np.testing.assert_allclose(tf.variable_grads(lambda: f(v)).grads["v"], [1.0, 2.0])
