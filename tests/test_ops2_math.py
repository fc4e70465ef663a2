"""OPS2.md's math tables against real tfjs 4.22 (tests/reference/ops2_math.json, made by
gen_ops2_math.js): unary math, binary, reductions and scans, creation, random, and math,
sparse, ragged.

Values, dtypes and shapes at rtol 1e-5; gradients of sum(op(...) * w) at rtol 1e-4; errors by
type and exact message. Where tfjs's gradient is wrong or missing the gradient is checked
against central differences in float64. int32 inputs of transcendental ops give tfjs's result
on the float32 cast (the contract), not tfjs's truncated int32. Random ops: dtype, shape,
bounds, seeds, and the law (moments) rather than tfjs's numbers.
"""

from __future__ import annotations

import inspect
import math

import jax
import jax.numpy as jnp
import numpy as np
import op_fixtures
import pytest
from op_fixtures import (
    assert_matches,
    check_error,
    check_gradient,
    check_gradient_by_finite_differences,
    check_value,
    decode,
    each,
    expected_array,
    load,
    resolve,
    snake,
)

import tfjs_grad as tf
from tfjs_grad._tensors import EagerOnlyError

_REFERENCE = load("ops2_math.json")
_OPS = [entry["name"] for entry in _REFERENCE["ops"]]
_EAGER_ONLY = set(_REFERENCE["eager_only"])
# raggedRange's values are starts + k * deltas, but how many there are depends on starts,
# limits and deltas themselves: no input can be traced, so there is nothing to differentiate.
_NOT_DIFFERENTIABLE = {"raggedRange"}


def _of(section, op):
    return [c for c in _REFERENCE[section] if c["op"] == op]


def _ops_with(section, predicate=lambda case: True):
    return sorted({c["op"] for c in _REFERENCE[section] if predicate(c)})


def test_reference_was_made_by_tfjs_4_22_cpu():
    assert (_REFERENCE["tfjs_version"], _REFERENCE["backend"]) == ("4.22.0", "cpu")


def test_the_tables_have_61_ops_in_6_groups():
    groups = {}
    for entry in _REFERENCE["ops"]:
        groups.setdefault(entry["group"], []).append(entry["name"])
    assert {g: len(n) for g, n in groups.items()} == {
        "unary": 24,
        "binary": 7,
        "scans": 6,
        "creation": 11,
        "random": 5,
        "math": 8,
    }
    sections = ["cases", "contract", "errors", "random"]
    assert set(_OPS) <= {c["op"] for s in sections for c in _REFERENCE[s]}


@pytest.mark.parametrize("name", _OPS)
def test_every_op_exists_with_its_snake_case_alias(name):
    fn = resolve(name)
    assert callable(fn)
    namespace, _, attr = name.rpartition(".")
    owner = getattr(tf, namespace) if namespace else tf
    assert getattr(owner, snake(attr)) is fn
    assert fn.__doc__ and ">>>" in fn.__doc__


def test_builtin_names_are_attributes_but_not_star_exported():
    for name in ["all", "any", "complex", "round"]:
        assert callable(getattr(tf, name)) and name not in tf.__all__
    assert tf.is_nan is tf.isNaN
    assert tf.math.confusionMatrix is tf.math.confusion_matrix
    assert tf.sparse.sparseSegmentSum is tf.sparse.sparse_segment_sum


# ------------------------------------------------------------------------------------------------
# Values, the int32 contract, gradients, errors


@pytest.mark.parametrize("op", _ops_with("cases"))
def test_values_dtypes_and_shapes_match_tfjs(op):
    each(check_value, _of("cases", op))


def _check_contract(case):
    out = op_fixtures.call(case)
    assert_matches(out, case["expected"])
    if case["tfjs"]["dtype"] == "int32":  # tfjs 4.22 truncates the float result (erf does not)
        ours = np.asarray(out, np.float64)
        finite = np.isfinite(ours)
        truncated = np.trunc(ours[finite]).astype(np.int32)
        np.testing.assert_array_equal(truncated, expected_array(case["tfjs"])[finite])


def test_int32_inputs_of_transcendental_ops_give_float32():
    each(_check_contract, _REFERENCE["contract"])


@pytest.mark.parametrize("op", _ops_with("cases", lambda c: c["grads"] is not None))
def test_gradients_match_tfjs(op):
    each(check_gradient, [c for c in _of("cases", op) if c["grads"]])


def test_gradients_tfjs_gets_wrong_or_lacks_are_true_derivatives():
    # divNoNan's divisor has zeros, where a central difference crosses the pole: below
    skip = _NOT_DIFFERENTIABLE | {"divNoNan"}
    cases = [c for c in _REFERENCE["cases"] if "grads_note" in c and c["op"] not in skip]
    expected = {"cumsum", "cumprod", "diag", "sparse.sparseSegmentSum"}
    expected |= {"sparse.sparseSegmentMean", "raggedTensorToTensor", "raggedGather"}
    expected |= {"sparse.sparseFillEmptyRows"}
    assert {c["op"] for c in cases} == expected
    each(check_gradient_by_finite_differences, cases)


def test_div_no_nan_gradient_is_the_derivative_where_b_is_not_zero_and_zero_where_it_is():
    (case, *_) = _of("cases", "divNoNan")
    a, b = (decode(x) for x in case["args"])
    ga, gb = jax.grad(lambda x, y: jnp.asarray(tf.div_no_nan(x, y).sum()), (0, 1))(a, b)
    nonzero = np.asarray(b) != 0
    safe = np.where(nonzero, np.asarray(b), 1.0)
    np.testing.assert_allclose(ga, np.where(nonzero, 1 / safe, 0), rtol=1e-5)
    np.testing.assert_allclose(gb, np.where(nonzero, -np.asarray(a) / safe**2, 0), rtol=1e-5)
    assert (~nonzero).any() and np.isfinite(np.asarray(gb)).all()


@pytest.mark.parametrize("op", _ops_with("errors"))
def test_errors_match_tfjs(op):
    each(check_error, _of("errors", op))


def _check_none_means_default(case):
    fn = resolve(case["op"])
    params = list(inspect.signature(fn).parameters.values())
    required = sum(p.default is inspect.Parameter.empty for p in params)
    args = [decode(a) for a in case["args"]]
    base = args[:required]
    try:
        expected = fn(*base)
    except ValueError:  # the optional slots this case fills are needed (tensor5d's shape)
        base = args
        expected = fn(*base)
    for extra in range(1, len(params) - len(base) + 1):
        out = fn(*base, *([None] * extra))
        assert jax.tree.structure(out) == jax.tree.structure(expected)
        for a, b in zip(jax.tree.leaves(out), jax.tree.leaves(expected)):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", _ops_with("cases"))
def test_none_in_every_optional_slot_means_the_default(op):
    each(_check_none_means_default, _of("cases", op)[:1])


# ------------------------------------------------------------------------------------------------
# Behaviours OPS2.md states


def test_floor_ceil_round_step_have_zero_gradients():
    x = tf.tensor1d([0.3, 1.7, -1.2])
    for fn in (tf.floor, tf.ceil, tf.round, tf.step):
        np.testing.assert_array_equal(tf.grad(lambda v, fn=fn: fn(v).sum())(x), [0, 0, 0])


def test_cumsum_runs_along_axis_0_and_keeps_int32():
    x = tf.tensor2d([[1, 2], [3, 4]], None, "int32")
    out = tf.cumsum(x)
    assert out.dtype == jnp.int32 and out.tolist() == [[1, 2], [4, 6]]
    assert tf.cumprod(x, 1, True).tolist() == [[1, 1], [1, 3]]


def test_norm_rejects_other_ords_and_axes():
    with pytest.raises(ValueError, match=r"^Error in norm: invalid ord value: 3$"):
        tf.norm([1.0, 2.0], 3)
    with pytest.raises(ValueError, match=r"^Error in norm: invalid axis: 0,1,2$"):
        tf.norm(tf.ones([2, 2, 2]), "euclidean", [0, 1, 2])
    np.testing.assert_allclose(tf.norm(tf.ones([2, 3]), math.inf, [1, 0]), 2.0)


def test_rand_calls_its_function_once_per_element_in_row_major_order():
    calls = iter(range(6))
    out = tf.rand([2, 3], lambda: next(calls) + 0.7, "int32")
    assert out.dtype == jnp.int32 and out.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert tf.rand([2], lambda: 0.4, "bool").tolist() == [False, False]
    with pytest.raises(ValueError, match="^Unknown data type complex64$"):
        tf.rand([2], lambda: 1, "complex64")


def test_meshgrid_edge_cases_follow_tfjs():
    assert tf.meshgrid() == []
    (x,) = tf.meshgrid([1, 2])
    assert x.tolist() == [1.0, 2.0]
    with pytest.raises(TypeError, match="^yx is not a valid third argument to meshgrid$"):
        tf.meshgrid([1], [2], {"indexing": "yx"})


def test_complex_real_imag_round_trip():
    z = tf.complex([1, -2], [0.5, 3])
    assert z.dtype == jnp.complex64
    assert tf.real(z).dtype == jnp.float32
    assert tf.real(z).tolist() == [1.0, -2.0] and tf.imag(z).tolist() == [0.5, 3.0]


def test_enclosing_power_of_two_is_a_python_int():
    assert [tf.enclosing_power_of_two(v) for v in (1, 2, 3, 1000, 1024)] == [1, 2, 4, 1024, 1024]
    assert type(tf.enclosing_power_of_two(5)) is int


def test_eye_batch_shapes_and_their_limit():
    assert tf.eye(2, None, [1, 2, 3]).shape == (1, 2, 3, 2, 2)
    with pytest.raises(ValueError, match="received 4D"):
        tf.eye(2, None, [1, 1, 1, 1])


def test_dropout_rate_zero_is_exact_and_bad_arguments_raise():
    x = tf.tensor1d([1.5, -2.0])
    assert tf.dropout(x, 0).tolist() == [1.5, -2.0]
    with pytest.raises(ValueError, match=r"^rate must be a float in the range \[0, 1\)"):
        tf.dropout(x, 1)
    with pytest.raises(ValueError, match="^x has to be a floating point tensor"):
        tf.dropout(tf.tensor1d([1, 2], "int32"), 0.5)


def test_dropout_noise_shape_shares_the_mask_and_scales_kept_values():
    y = np.asarray(tf.dropout(tf.ones([50, 8]), 0.5, [50, 1], 3))
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert (y == y[:, :1]).all()  # one draw per row
    g = tf.grad(lambda v: tf.dropout(v, 0.5, None, 4).sum())(tf.ones([100]))
    np.testing.assert_array_equal(g, np.asarray(tf.dropout(tf.ones([100]), 0.5, None, 4)))


# ------------------------------------------------------------------------------------------------
# Random ops: dtype, shape, bounds, seeds, the law


def _law(case):
    """(low, high, open_above, mean, variance) of the distribution the case draws from."""
    op, args = case["op"], [decode(a) for a in case["args"]]
    if op == "randomGamma":
        alpha = args[1]
        beta = 1 if args[2] is None else args[2]
        return 0, math.inf, True, alpha * beta, alpha * beta**2
    if op == "randomStandardNormal":
        return -math.inf, math.inf, True, 0.0, 1.0
    if op == "randomUniformInt":
        low, high = args[1], args[2]
        if low < 0:  # truncation toward zero: only the bounds are the contract
            return low + 1, high - 1, False, None, None
        n = high - low
        return low, high, True, (low + high - 1) / 2, (n * n - 1) / 12
    assert op == "dropout"
    keep = 1 - args[1]
    return 0, 1 / keep, False, 1.0, (1 - keep) / keep


def _check_random(case):
    out = op_fixtures.call(case)
    assert np.dtype(out.dtype) == np.dtype(case["dtype"]) and list(out.shape) == case["shape"]
    values = np.asarray(out, np.float64)
    low, high, open_above, mean, variance = _law(case)
    top = values.max()
    assert values.min() >= low and (top < high if open_above else top <= high * (1 + 1e-6))
    if mean is not None:
        n = values.size
        tolerance = 5 * math.sqrt(variance / n) + (
            0.5 / math.sqrt(n) if case["dtype"] == "int32" else 0
        )
        assert abs(values.mean() - mean) < tolerance, (values.mean(), mean)
        assert abs(case["mean"] - mean) < tolerance  # tfjs draws from the same law
        assert values.var() == pytest.approx(variance, rel=0.15)
    np.testing.assert_array_equal(out, op_fixtures.call(case))  # the fixture's seed


def test_random_ops_have_tfjs_dtypes_shapes_bounds_and_laws():
    each(_check_random, _REFERENCE["random"])


@pytest.mark.parametrize(
    "draw",
    [
        lambda seed: tf.random_gamma([4000], 2, 1, "float32", seed),
        lambda seed: tf.random_standard_normal([50], None, seed),
        lambda seed: tf.random_uniform_int([50], 0, 1000, seed),
        lambda seed: tf.dropout(tf.ones([50]), 0.5, None, seed),
    ],
)
def test_seeds_reproduce_and_differ(draw):
    np.testing.assert_array_equal(draw(1), draw(1))
    assert not np.array_equal(draw(1), draw(2))
    assert not np.array_equal(draw(None), draw(None))


def test_random_uniform_int_with_negative_minval_truncates_like_tfjs():
    values = np.asarray(tf.random_uniform_int([8000], -3, 5, 0))
    counts = {v: int((values == v).sum()) for v in range(-3, 5)}
    assert counts[-3] == 0 and 0.22 < counts[0] / 8000 < 0.28  # 0 twice as often
    assert all(0.10 < counts[v] / 8000 < 0.15 for v in (-2, -1, 1, 2, 3, 4))


def test_random_gamma_and_standard_normal_reject_other_dtypes():
    with pytest.raises(ValueError, match="^Unsupported data type bool$"):
        tf.random_standard_normal([2], "bool")
    with pytest.raises(ValueError, match="^Unsupported data type bool$"):
        tf.random_gamma([2], 1, 1, "bool")


# ------------------------------------------------------------------------------------------------
# Sparse and ragged ops: eager in their indices, differentiable in their values


def _traced_indices_raise(case):
    args = [decode(a) for a in case["args"]]
    ints = [i for i, a in enumerate(args) if isinstance(a, jax.Array)]
    assert ints, case["name"]

    def f(*xs):
        full = list(args)
        for i, x in zip(ints, xs):
            full[i] = x
        return resolve(case["op"])(*full)

    with pytest.raises(EagerOnlyError, match=f"tf.{case['op']} runs eagerly only"):
        jax.jit(f)(*(args[i] for i in ints))


def test_sparse_and_ragged_ops_raise_naming_themselves_when_their_indices_are_traced():
    cases = [c for c in _REFERENCE["cases"] if c["op"] in _EAGER_ONLY]
    each(_traced_indices_raise, [c for c in cases if c["op"] != "raggedTensorToTensor"])
    case = _of("cases", "raggedTensorToTensor")[0]
    shape, values, default, (splits,), types = [decode(a) for a in case["args"]]
    with pytest.raises(EagerOnlyError, match="tf.raggedTensorToTensor runs eagerly only"):
        jax.jit(lambda s: tf.ragged_tensor_to_tensor(shape, values, default, [s], types))(splits)


def test_ragged_tensor_to_tensor_value_rowids_and_inferred_shape():
    out = tf.ragged_tensor_to_tensor(
        [-1, -1], [1, 2, 3, 4], 9, [3, [0, 0, 2, 2]], ["FIRST_DIM_SIZE", "VALUE_ROWIDS"]
    )
    assert out.tolist() == [[1.0, 2.0], [9.0, 9.0], [3.0, 4.0]]


def test_ragged_gather_two_ragged_dimensions():
    # rows: [[[0, 1], [2]], [], [[3, 4, 5]]]
    r = tf.ragged_gather([[0, 2, 2, 3], [0, 2, 3, 6]], [0, 1, 2, 3, 4, 5], [2, 0], 2)
    assert [s.tolist() for s in r.outputNestedSplits] == [[0, 1, 3], [0, 3, 5, 6]]
    assert r.outputDenseValues.tolist() == [3.0, 4.0, 5.0, 0.0, 1.0, 2.0]


# ------------------------------------------------------------------------------------------------
# Method forms (tf.Tensor's methods, as tfjs chains them)


def _tensor_methods():
    return hasattr(tf.tensor1d([1.0]), "acos")


@pytest.mark.skipif(not _tensor_methods(), reason="tf.Tensor's methods have not landed yet")
def test_method_forms_match_tfjs():
    def check(case):
        x, *rest = (decode(a) for a in case["args"])
        out = getattr(tf.tensor(x), case["method"])(*rest)
        assert_matches(out, case["expected"])

    each(check, _REFERENCE["methods"])


def test_methods_were_recorded_for_every_tensor_prototype_op_of_these_tables():
    recorded = {c["method"] for c in _REFERENCE["methods"]}
    prototype = {"abs", "acos", "acosh", "all", "any", "asin", "asinh", "atan", "atan2"}
    prototype |= {"atanh", "ceil", "cosh", "cumprod", "cumsum", "divNoNan", "erf"}
    prototype |= {"euclideanNorm", "expm1", "floor", "floorDiv", "isFinite", "isInf"}
    prototype |= {"isNaN", "log1p", "logSigmoid", "logicalXor", "mod", "norm", "prelu"}
    prototype |= {"reciprocal", "relu6", "round", "rsqrt", "selu", "sinh", "step", "tan"}
    assert prototype & set(_OPS) <= recorded
