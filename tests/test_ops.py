"""The 88 tfjs ops against real tfjs 4.22 (tests/reference/ops.json, made by gen_ops.js).

Values, dtypes and shapes at rtol 1e-5; gradients of sum(op(...) * w) at rtol 1e-4; error
types and messages exactly. Where tfjs has no usable gradient (it throws, or OPS.md says it is
wrong), the gradient is checked against central finite differences in float64 instead.
"""

import asyncio
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from op_fixtures import (
    assert_matches,
    check_error,
    check_gradient,
    check_gradient_by_finite_differences,
    check_value,
    decode,
    each,
    load,
    resolve,
)
from op_fixtures import call as _call
from op_fixtures import (
    snake as snake_name,
)

import tfjs_grad as tf

_REFERENCE = load("ops.json")
_OPS = [entry["name"] for entry in _REFERENCE["ops"]]
_RTOL = 1e-5
_each = each


def _of(section, op):
    return [c for c in _REFERENCE[section] if c["op"] == op]


def _ops_with(section, predicate=lambda case: True):
    return sorted({c["op"] for c in _REFERENCE[section] if predicate(c)})


# ------------------------------------------------------------------------------------------------
# The op table


def test_reference_was_made_by_tfjs_4_22_cpu():
    assert (_REFERENCE["tfjs_version"], _REFERENCE["backend"]) == ("4.22.0", "cpu")


def test_the_op_table_has_88_ops_in_9_groups():
    groups = {}
    for entry in _REFERENCE["ops"]:
        groups.setdefault(entry["group"], []).append(entry["name"])
    counts = {group: len(names) for group, names in groups.items()}
    assert counts == {
        "creation": 18,
        "arithmetic": 18,
        "reductions": 9,
        "activations": 8,
        "shapes": 12,
        "linalg": 3,
        "logic": 10,
        "convolution": 3,
        "utilities": 7,
    }
    assert len(set(_OPS)) == 88


@pytest.mark.parametrize("name", _OPS)
def test_every_op_exists_with_its_snake_case_alias(name):
    fn = resolve(name)
    assert callable(fn)
    module, _, attr = name.rpartition(".")
    snake = snake_name(attr)
    owner = tf.util if module == "util" else tf
    assert getattr(owner, snake) is fn
    assert fn.__doc__ and ">>>" in fn.__doc__  # a runnable example (run by make test)


def test_builtin_names_are_attributes_but_not_star_exported():
    builtins_named = ["abs", "max", "min", "pow", "print", "range", "slice", "sum"]
    for name in builtins_named:
        assert callable(getattr(tf, name))
        assert name not in tf.__all__
    namespace = {}
    exec("from tfjs_grad import *", namespace)
    assert namespace.get("max") is None and namespace["add"] is tf.add


def test_every_op_is_replayed_from_the_fixture():
    sections = ["cases", "errors", "random", "behaviours", "divergences"]
    covered = {c["op"] for s in sections for c in _REFERENCE[s]}
    covered |= {"print", "buffer"}  # the prints and buffers sections
    assert set(_OPS) <= covered


# ------------------------------------------------------------------------------------------------
# Values, dtypes, shapes


@pytest.mark.parametrize("op", _ops_with("cases"))
def test_values_dtypes_and_shapes_match_tfjs(op):
    _each(check_value, _of("cases", op))


# ------------------------------------------------------------------------------------------------
# Gradients


@pytest.mark.parametrize("op", _ops_with("cases", lambda c: c["grads"] is not None))
def test_gradients_match_tfjs(op):
    _each(check_gradient, [c for c in _of("cases", op) if c["grads"]])


def test_gradients_tfjs_cannot_give_are_true_derivatives():
    cases = [c for c in _REFERENCE["cases"] if "grads_note" in c]
    assert {c["op"] for c in cases} >= {"squaredDifference", "matMul", "conv2d", "avgPool"}
    _each(check_gradient_by_finite_differences, cases)


# ------------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("op", _ops_with("errors"))
def test_errors_match_tfjs(op):
    _each(check_error, _of("errors", op))


_RANDOM = {"randomUniform", "randomNormal", "truncatedNormal", "multinomial"}


def _check_none_means_default(case):
    fn = resolve(case["op"])
    params = list(inspect.signature(fn).parameters.values())
    required = sum(p.default is inspect.Parameter.empty for p in params)
    base = [decode(a) for a in case["args"]][:required]
    expected = fn(*base)
    for extra in range(1, len(params) - required + 1):
        assert_matches_value(fn(*base, *([None] * extra)), expected)


def assert_matches_value(out, expected):
    assert jax.tree.structure(out) == jax.tree.structure(expected)
    for a, b in zip(jax.tree.leaves(out), jax.tree.leaves(expected)):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", [op for op in _ops_with("cases") if op not in _RANDOM])
def test_none_in_every_optional_slot_means_the_default(op):
    _each(_check_none_means_default, _of("cases", op)[:1])


def test_snake_case_keywords_and_none_for_defaults():
    x = tf.tensor2d([[1, 2], [3, 4]])
    np.testing.assert_array_equal(tf.sum(x, None, None), 10.0)
    np.testing.assert_array_equal(tf.sum(x, axis=1, keep_dims=True), [[3.0], [7.0]])
    np.testing.assert_array_equal(tf.one_hot([1], 2, None, None, None), [[0, 1]])
    np.testing.assert_allclose(tf.leaky_relu([-1.0], None), [-0.2], rtol=1e-6)
    assert tf.mat_mul(x, x, transpose_b=True).tolist() == [[5.0, 11.0], [11.0, 25.0]]
    with pytest.raises(TypeError, match="multiple values for argument 'x'"):
        tf.relu([1.0], x=[2.0])
    with pytest.raises(TypeError, match="takes 2 positional arguments but 3 were given"):
        tf.leaky_relu([1.0], 0.1, 3)


# ------------------------------------------------------------------------------------------------
# Random ops: tfjs's dtypes and shapes, values in the range OPS.md gives, seeded reproducibility


def _random_bounds(case):
    op, args = case["op"], [decode(a) for a in case["args"]]
    if op == "randomUniform":
        low = 0 if args[1] is None else args[1]
        high = 1 if args[2] is None else args[2]
        return low, high, True
    if op == "truncatedNormal":
        mean = 0 if args[1] is None else args[1]
        stddev = 1 if args[2] is None else args[2]
        return mean - 2 * stddev, mean + 2 * stddev, False
    if op == "multinomial":
        return 0, args[0].shape[-1] - 1, False
    return -np.inf, np.inf, False


def _check_random(case):
    out = _call(case)
    assert out.dtype == np.dtype(case["dtype"]) and list(out.shape) == case["shape"]
    low, high, open_above = _random_bounds(case)
    values = np.asarray(out, dtype=np.float64)
    assert values.min() >= low and (values.max() < high if open_above else values.max() <= high)
    # the seed in the fixture makes ours reproducible too
    np.testing.assert_array_equal(out, _call(case))


def test_random_ops_have_tfjs_dtypes_shapes_and_ranges():
    _each(_check_random, _REFERENCE["random"])


# ------------------------------------------------------------------------------------------------
# print, buffer, and the utilities' behaviour


def _check_print(case, capsys):
    x, verbose = (decode(a) for a in case["args"])
    assert tf.print(x, verbose) is None
    assert capsys.readouterr().out == case["text"] + "\n"


def test_print_writes_tfjs_text(capsys):
    _each(lambda case: _check_print(case, capsys), _REFERENCE["prints"])


def _check_buffer(case):
    b = tf.buffer(*(decode(a) for a in case["args"]))
    assert (list(b.shape), b.dtype, b.size, b.rank) == (
        case["shape"],
        case["dtype"],
        case["size"],
        case["rank"],
    )
    assert b.values.dtype == np.dtype(case["dtype"]) and b.values.ndim == 1
    for kind, *rest in case["steps"]:
        if kind == "set":
            b.set(*rest)
        else:
            *locs, expected = rest
            assert b.get(*locs) == expected
    assert_matches(b.to_tensor(), case["expected"])
    assert b.toTensor is not None


def test_buffers_match_tfjs():
    _each(_check_buffer, _REFERENCE["buffers"])


def _check_buffer_error(case):
    b = tf.buffer(*(decode(a) for a in case["args"]))
    kind, *rest = case["step"]
    with pytest.raises(ValueError) as info:
        b.set(*rest) if kind == "set" else b.get(*rest)
    assert str(info.value) == case["message"]


def test_buffer_errors_match_tfjs():
    _each(_check_buffer_error, _REFERENCE["buffer_errors"])


def _behaviour(name):
    (case,) = [c for c in _REFERENCE["behaviours"] if c["name"] == name]
    return case["result"]


def test_dispose_frees_arrays_inside_dicts_and_lists():
    a, b, c = tf.tensor1d([1, 2]), tf.tensor1d([3]), tf.tensor1d([4])
    tf.dispose({"a": a, "list": [b, {"c": c}]})
    assert [a.is_deleted(), b.is_deleted(), c.is_deleted()] == _behaviour("dispose/nested")


def test_next_frame_is_awaitable_and_resolves_to_none():
    frame = tf.next_frame()
    assert inspect.isawaitable(frame) and _behaviour("nextFrame/awaitable")["is_promise"]

    async def port():
        return await frame

    assert asyncio.run(port()) is decode(_behaviour("nextFrame/awaitable")["resolves_to"])


def test_create_shuffled_indices_is_a_uint32_permutation():
    expected = _behaviour("util.createShuffledIndices/ten")
    assert expected["type"] == "Uint32Array"
    indices = tf.util.createShuffledIndices(10)
    assert isinstance(indices, np.ndarray) and indices.dtype == np.uint32
    assert sorted(indices.tolist()) == expected["sorted"]


def test_shuffle_shuffles_in_place_and_returns_none():
    expected = _behaviour("util.shuffle/in_place")
    items = [1, 2, 3, 4, 5]
    assert tf.util.shuffle(items) is decode(expected["returns"])
    assert sorted(items) == expected["sorted"]


# ------------------------------------------------------------------------------------------------
# Where OPS.md chooses differently from tfjs


def _divergence(name):
    (case,) = [c for c in _REFERENCE["divergences"] if c["name"] == name]
    return [decode(a) for a in case["args"]], case["tfjs"]


def test_concat_and_stack_promote_mixed_dtypes():
    args, tfjs = _divergence("concat/mixed_dtypes_promote")
    assert tfjs["expected"]["dtype"] == "int32"  # tfjs silently truncates to the first dtype
    out = tf.concat(*args)
    assert out.dtype == jnp.float32 and out.tolist() == [1.0, 2.0, 1.5, 2.5]
    args, tfjs = _divergence("stack/mixed_dtypes_promote")
    assert "matching dtypes" in tfjs["message"]
    assert tf.stack(*args).tolist() == [[1.0, 2.0], [1.5, 2.5]]


@pytest.mark.parametrize("name", ["softmax", "logSoftmax"])
def test_softmax_works_on_any_axis(name):
    (x, axis), tfjs = _divergence(f"{name}/non_last_axis")
    assert "non-last dimension is not yet supported" in tfjs["message"]
    reference = jax.nn.softmax if name == "softmax" else jax.nn.log_softmax
    np.testing.assert_allclose(resolve(name)(x, axis), reference(x, axis=axis), rtol=_RTOL)


def test_softplus_of_int32_is_float32():
    (x,), tfjs = _divergence("softplus/int32_is_float32")
    assert tfjs["expected"]["dtype"] == "int32"
    out = tf.softplus(x)
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(out, np.log1p(np.exp(np.asarray(x, np.float64))), rtol=_RTOL)


def test_mat_mul_of_a_vector_names_mat_mul_and_the_ranks():
    args, tfjs = _divergence("matMul/rank1_message")
    assert "matMul" not in tfjs["message"]  # tfjs fails in a reshape
    with pytest.raises(ValueError, match=r"^Error in matMul: .* ranks 1 and 2\.$"):
        tf.mat_mul(*args)


def test_truncated_normal_bool_message_names_the_dtype():
    args, tfjs = _divergence("truncatedNormal/bool_message")
    assert tfjs["message"] == "Unsupported data type $ { dtype }"  # a tfjs template typo
    with pytest.raises(ValueError, match=r"^Unsupported data type bool$"):
        tf.truncated_normal(*args)
