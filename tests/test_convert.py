"""The one argument conversion (tfjs's convertToTensor) and tfjs's dtype promotion, as laws."""

import hypothesis.extra.numpy as hnp
import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings

import tfjs_grad as tf
from tfjs_grad._tensors import BOOL, FLOAT, INT, convert

_fast = settings(max_examples=30, deadline=None)


@pytest.mark.parametrize(
    ("numpy_dtype", "expected"),
    [
        (np.int8, "int32"),
        (np.int16, "int32"),
        (np.int64, "int32"),
        (np.uint8, "int32"),
        (np.uint16, "int32"),
        (np.uint32, "int32"),
        (np.float16, "float32"),
        (np.float64, "float32"),
        (np.bool_, "bool"),
    ],
)
def test_numpy_arrays_and_scalars_get_tfjs_dtypes(numpy_dtype, expected):
    assert tf.tensor(np.array([1, 0], numpy_dtype)).dtype == expected
    assert (
        tf.maximum(np.array([1, 0], numpy_dtype), np.array([0, 1], numpy_dtype)).dtype == expected
    )
    assert convert(numpy_dtype(1)).dtype == expected


@_fast
@given(
    st.recursive(
        st.floats(-1e6, 1e6) | st.integers(-(2**20), 2**20),
        lambda inner: st.lists(inner, min_size=1, max_size=3),
        max_leaves=8,
    )
)
def test_python_numbers_and_lists_are_float32(values):
    try:
        expected = np.asarray(values, np.float32)
    except ValueError:  # ragged: not tensor-like
        with pytest.raises(TypeError, match="must be a Tensor or TensorLike"):
            convert(values, argument="a", fn="add")
        return
    out = convert(values, argument="a", fn="add")
    assert out.dtype == jnp.float32 and out.shape == expected.shape
    np.testing.assert_array_equal(out, expected)


def test_jax_arrays_keep_their_dtype():
    for dtype in (jnp.bfloat16, jnp.float16, jnp.int32, jnp.uint8, jnp.bool_):
        x = jnp.zeros(2, dtype)
        assert convert(x) is x


_TFJS = ["bool", "int32", "float32"]


@_fast
@given(st.sampled_from(_TFJS), st.sampled_from(_TFJS))
def test_binary_ops_upcast_bool_int32_float32(a_dtype, b_dtype):
    a, b = jnp.ones(2, a_dtype), jnp.ones(2, b_dtype)
    expected = _TFJS[max(_TFJS.index(a_dtype), _TFJS.index(b_dtype))]
    assert tf.mul(a, b).dtype == expected
    assert tf.equal(a, b).dtype == "bool"
    assert tf.where([True, False], a, b).dtype == expected


@_fast
@given(st.sampled_from(_TFJS), st.one_of(st.integers(-5, 5), st.floats(-5, 5)))
def test_a_python_number_is_a_float32_tensor(dtype, number):
    assert tf.add(jnp.ones(2, dtype), number).dtype == jnp.float32
    assert tf.sub(number, jnp.ones(2, dtype)).dtype == jnp.float32


def test_non_tfjs_floats_keep_their_dtype_with_python_numbers():
    x = jnp.ones(2, jnp.bfloat16)
    assert tf.add(x, 1).dtype == jnp.bfloat16
    assert tf.mul(2.5, x).dtype == jnp.bfloat16
    assert tf.add(x, jnp.ones(2, jnp.float32)).dtype == jnp.float32
    assert tf.relu(x).dtype == jnp.bfloat16 and tf.sqrt(x).dtype == jnp.bfloat16


@_fast
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3))
def test_broadcasting_is_numpys(shapes):
    a = np.arange(np.prod(shapes.input_shapes[0]), dtype=np.float32).reshape(shapes.input_shapes[0])
    b = np.ones(shapes.input_shapes[1], np.float32) * 2
    np.testing.assert_array_equal(tf.sub(a, b), a - b)


@_fast
@given(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4), st.integers(0, 2), st.integers(1, 3))
def test_a_broadcast_mismatch_is_tfjs_value_error(shape, axis, extra):
    axis = min(axis, len(shape) - 1)
    other = list(shape)
    other[axis] = shape[axis] + extra if shape[axis] != 1 else 1
    if other[axis] == 1 or shape[axis] == 1:
        return
    a, b = np.zeros(shape, np.float32), np.zeros(other, np.float32)
    expected = (
        "Operands could not be broadcast together with shapes "
        f"{','.join(map(str, shape))} and {','.join(map(str, other))}."
    )
    with pytest.raises(ValueError) as info:
        tf.add(a, b)
    assert str(info.value) == expected


@_fast
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=8))
def test_parsing_as_int32_truncates_toward_zero(values):
    out = convert(values, argument="indices", fn="gather", dtype=INT)
    assert out.dtype == jnp.int32
    np.testing.assert_array_equal(out, np.trunc(np.asarray(values)).astype(np.int32))


@_fast
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=8))
def test_parsing_as_bool_rounds_like_javascript(values):
    out = convert(values, argument="condition", fn="where", dtype=BOOL)
    rounded = [np.floor(v + 0.5) for v in values]  # JS Math.round of the JS number
    assert out.dtype == jnp.bool_ and out.tolist() == [r != 0 for r in rounded]


@pytest.mark.parametrize(
    ("dtype", "tensor"),
    [(FLOAT, jnp.ones(2, jnp.int32)), (INT, jnp.ones(2)), (BOOL, jnp.ones(2, jnp.int32))],
)
def test_an_array_of_the_wrong_dtype_is_a_type_error(dtype, tensor):
    with pytest.raises(TypeError, match=rf"^Argument 'x' passed to 'f' must be {dtype} tensor"):
        convert(tensor, argument="x", fn="f", dtype=dtype)


@pytest.mark.parametrize("bad", [{"a": 1}, {1, 2}, object(), "text", b"bytes", None, jnp])
def test_what_is_not_tensor_like_is_named_in_the_error(bad):
    got = "null" if bad is None else type(bad).__name__
    for call, argument, fn in [
        (lambda: tf.add(bad, 1), "a", "add"),
        (lambda: tf.add(1, bad), "b", "add"),
        (lambda: tf.where([True], [1], bad), "b", "where"),
        (lambda: tf.conv2d(jnp.ones((1, 2, 2, 1)), bad, 1, "valid"), "filter", "conv2d"),
        (lambda: tf.gather([1, 2], bad), "indices", "gather"),
        (lambda: tf.concat([[1], bad]), "tensors[1]", "concat"),
    ]:
        with pytest.raises(TypeError) as info:
            call()
        assert str(info.value) == (
            f"Argument '{argument}' passed to '{fn}' must be a Tensor or TensorLike, "
            f"but got '{got}'"
        )


def test_a_failing_op_inside_tf_jit_changes_no_variable_and_leaks_no_tracer():
    v = tf.variable(tf.tensor1d([1, 2]))

    @tf.jit
    def step(x):
        v.assign(tf.add(v, 1))
        return tf.add(v, x)  # x of the wrong shape: ValueError while tracing

    with pytest.raises(ValueError, match="Operands could not be broadcast"):
        step(jnp.ones(3))
    assert v.value.tolist() == [1.0, 2.0] and not isinstance(v.value, jax.core.Tracer)
    assert step(jnp.ones(2)).tolist() == [3.0, 4.0]
