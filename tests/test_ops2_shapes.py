"""OPS2.md's shapes/indexing, sorting/sets, async and linear-algebra/RNN ops against real tfjs
4.22 (tests/reference/ops2_shapes.json, made by gen_ops2_shapes.js).

Values, dtypes and shapes at rtol 1e-5; gradients of sum(op(...) * w) at rtol 1e-4; where
tfjs's gradient is missing or wrong, central finite differences in float64; error types and
messages exactly; async ops awaited; eager-only ops refuse to trace, naming themselves.
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
    snake,
)

import tfjs_grad as tf
from tfjs_grad._tensors import EagerOnlyError

_REFERENCE = load("ops2_shapes.json")
_OPS = [entry["name"] for entry in _REFERENCE["ops"]]
_EAGER = {entry["name"] for entry in _REFERENCE["ops"] if entry.get("eager")}


def _of(section, op):
    return [c for c in _REFERENCE[section] if c["op"] == op]


def _ops_with(section, predicate=lambda case: True):
    return sorted({c["op"] for c in _REFERENCE[section] if predicate(c)})


def _owner(name):
    module, _, attr = name.rpartition(".")
    return (resolve(module) if module else tf), attr


def test_reference_was_made_by_tfjs_4_22_cpu():
    assert (_REFERENCE["tfjs_version"], _REFERENCE["backend"]) == ("4.22.0", "cpu")
    assert len(_OPS) == len(set(_OPS)) == 48


@pytest.mark.parametrize("name", _OPS)
def test_every_op_exists_with_its_snake_case_alias_and_an_example(name):
    owner, attr = _owner(name)
    fn = getattr(owner, attr)
    assert callable(fn) and getattr(owner, snake(attr)) is fn
    assert fn.__doc__ and ">>>" in fn.__doc__


def test_every_op_is_replayed_from_the_fixture():
    covered = {c["op"] for s in ("cases", "errors", "async") for c in _REFERENCE[s]}
    assert set(_OPS) == covered


# ------------------------------------------------------------------------------------------------
# Values, gradients, errors


@pytest.mark.parametrize("op", _ops_with("cases"))
def test_values_dtypes_and_shapes_match_tfjs(op):
    each(check_value, _of("cases", op))


@pytest.mark.parametrize("op", _ops_with("cases", lambda c: c["grads"] is not None))
def test_gradients_match_tfjs(op):
    each(check_gradient, [c for c in _of("cases", op) if c["grads"]])


_NO_TFJS_GRADIENT = _ops_with("cases", lambda c: "grads_note" in c and c["op"] not in _EAGER)


def test_ops_tfjs_has_no_usable_gradient_for_are_the_ones_ops2_names():
    assert set(_NO_TFJS_GRADIENT) == {
        "bincount",
        "denseBincount",
        "depthToSpace",
        "einsum",
        "gatherND",
        "linalg.bandPart",
        "linalg.qr",
        "mirrorPad",
        "scatterND",
        "sparseToDense",
        "stridedSlice",
        "tensorScatterUpdate",
        "topk",
    }


@pytest.mark.parametrize("op", _NO_TFJS_GRADIENT)
def test_gradients_tfjs_cannot_give_are_true_derivatives(op):
    each(check_gradient_by_finite_differences, [c for c in _of("cases", op) if "grads_note" in c])


@pytest.mark.parametrize("op", _ops_with("errors"))
def test_errors_match_tfjs(op):
    each(check_error, _of("errors", op))


def _check_none_means_default(case):
    fn = resolve(case["op"])
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return  # einsum(equation, *tensors)
    args = [decode(a) for a in case["args"]]
    required = sum(p.default is inspect.Parameter.empty for p in params)
    base = args[: max(required, 1)]
    expected = jax.tree.leaves(fn(*base))
    for extra in range(1, len(params) - len(base) + 1):
        out = jax.tree.leaves(fn(*base, *([None] * extra)))
        for a, b in zip(out, expected, strict=True):
            assert a.dtype == b.dtype and a.shape == b.shape
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("op", _ops_with("cases"))
def test_none_in_every_optional_slot_means_the_default(op):
    each(_check_none_means_default, _of("cases", op)[:1])


# ------------------------------------------------------------------------------------------------
# Async ops: awaitables giving tfjs's result; eager only


def _awaited(case):
    async def port():
        return await resolve(case["op"])(*(decode(a) for a in case["args"]))

    return asyncio.run(port())


def _check_async(case):
    if "error" in case:
        error = {"TypeError": TypeError, "ValueError": ValueError}[case["error"]]
        with pytest.raises(error) as info:
            _awaited(case)
        assert str(info.value) == case["message"]
    else:
        assert_matches(_awaited(case), case["expected"])


@pytest.mark.parametrize("op", _ops_with("async"))
def test_async_ops_are_awaitables_giving_tfjs_results(op):
    cases = _of("async", op)
    assert inspect.isawaitable(resolve(op)(*(decode(a) for a in cases[0]["args"])))
    each(_check_async, cases)


def test_an_async_result_is_tracked_by_tidy():
    kept = []

    def f():
        awaitable = tf.whereAsync([True, False, True])
        kept.append(asyncio.run(_await(awaitable)))
        return None

    tf.tidy(f)
    assert kept[0].is_deleted()


async def _await(awaitable):
    return await awaitable


def _first_args(op):
    section = "async" if _of("async", op) else "cases"
    return [decode(a) for a in _of(section, op)[0]["args"]]


@pytest.mark.parametrize("op", sorted(_EAGER))
def test_eager_only_ops_refuse_to_trace_naming_themselves(op):
    args = _first_args(op)
    fn = resolve(op)
    message = rf"^tf\.{op} runs eagerly only: the shape of its result depends on the values"
    with pytest.raises(EagerOnlyError, match=message):
        jax.jit(lambda *xs: jax.tree.leaves(fn(*xs)))(*args)
    with pytest.raises(EagerOnlyError, match=message):
        tf.jit(lambda *xs: jax.tree.leaves(fn(*xs)))(*args)
    # and eagerly they accept numpy arrays and Variables alike
    numpy_args = [np.asarray(a) if isinstance(a, jax.Array) else a for a in args]
    variables = [tf.variable(a) if isinstance(a, jax.Array) else a for a in args]
    out = fn(*args)
    for other in (fn(*numpy_args), fn(*variables)):
        if inspect.isawaitable(out):
            first, second = asyncio.run(_await(out)), asyncio.run(_await(other))
        else:
            first, second = out, other
        for a, b in zip(jax.tree.leaves(first), jax.tree.leaves(second), strict=True):
            np.testing.assert_array_equal(a, b)
        out = fn(*args)


# ------------------------------------------------------------------------------------------------
# Details the tables state


def test_search_sorted_of_vectors_has_shape_1_n():
    assert tf.searchSorted([1.0, 2.0, 3.0], [2.5]).shape == (1, 1)
    assert tf.lowerBound([1.0, 2.0], [0.0, 5.0]).tolist() == [[0, 2]]


def test_topk_result_reads_by_key_attribute_and_position():
    r = tf.topk([[1.0, 4.0, 2.0]], 2)
    assert r["values"] is r.values and r[1] is r.indices
    assert r.values.tolist() == [[4.0, 2.0]] and r.indices.dtype == jnp.int32


def test_strided_slice_matches_numpy_indexing():
    x = jnp.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(
        tf.stridedSlice(x, [1, -1, 3], [0, 0, 0], [-1, -1, -2]), x[1:0:-1, -1:0:-1, 3:0:-2]
    )
    np.testing.assert_array_equal(tf.stridedSlice(x, [0, 1], [0, 2], [1, 1], 0, 0, 1), x[..., 1:2])


def test_qr_factors_reconstruct_with_orthonormal_q():
    x = jnp.asarray(np.random.default_rng(1).standard_normal((2, 4, 3)), jnp.float32)
    q, r = tf.linalg.qr(x)
    assert q.shape == (2, 4, 3) and r.shape == (2, 3, 3)
    np.testing.assert_allclose(q @ r, x, atol=1e-5)
    np.testing.assert_allclose(
        jnp.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(3), (2, 3, 3)), atol=1e-5
    )
    np.testing.assert_allclose(jnp.tril(r, -1), 0, atol=1e-6)


def test_unsorted_segment_sum_and_scatter_nd_agree_with_numpy():
    x = np.arange(6.0, dtype=np.float32)
    ids = np.asarray([2, 0, 2, 1, 0, 2])
    expected = np.zeros(3, np.float32)
    np.add.at(expected, ids, x)
    np.testing.assert_allclose(tf.unsortedSegmentSum(x, ids, 3), expected)
    np.testing.assert_allclose(tf.scatterND(ids[:, None], x, [3]), expected)


# ------------------------------------------------------------------------------------------------
# Method forms: tfjs's Tensor prototype


@pytest.mark.skipif(
    not hasattr(tf, "Tensor"), reason="tf.Tensor (helper 'tensor') has not landed on main yet"
)
@pytest.mark.parametrize("case", _REFERENCE["methods"], ids=lambda c: c["name"])
def test_method_forms_match_tfjs(case):
    args = [decode(a) for a in case["args"]]
    receiver = tf.tensor(np.asarray(args[0]))
    assert_matches(getattr(receiver, case["method"])(*args[1:]), case["expected"])


def test_dense_bincount_binary_output_clips_a_vector_too():
    (case,) = _REFERENCE["divergences"]
    assert case["name"] == "denseBincount/binary_rank1_counts"
    args = [decode(a) for a in case["args"]]
    assert case["tfjs"]["expected"]["values"] == [1, 2, 0, 1]  # tfjs ignores the flag here
    assert tf.denseBincount(*args).tolist() == [1.0, 1.0, 0.0, 1.0]
