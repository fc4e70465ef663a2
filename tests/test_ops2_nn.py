"""OPS2.md's convolution and pooling, normalization, fused, spectral, signal and image ops
against real tfjs 4.22 (tests/reference/ops2_nn.json, made by gen_ops2_nn.js).

Values, dtypes and shapes at rtol 1e-5; gradients of sum(op(...) * w) at rtol 1e-4 against
tfjs's; where tfjs has no gradient or a wrong one (`grads_note`), and for the fused ops (whose
tensors sit in one dict), against central finite differences in float64. Errors: tfjs's type
and message. The awaitable ops resolve to tfjs's values; the eager-only ones refuse to trace.
"""

import asyncio
import inspect

import pytest
from op_fixtures import (
    FUNCTIONS,
    assert_matches,
    check_error,
    check_gradient,
    check_gradient_by_finite_differences,
    decode,
    each,
    load,
    resolve,
    snake,
)

import tfjs_grad as tf

_REFERENCE = load("ops2_nn.json")
_OPS = [entry["name"] for entry in _REFERENCE["ops"]]
FUNCTIONS["ones"] = lambda n: tf.ones([n])

_EAGER_ONLY: list[str] = []


def _of(section, op):
    return [c for c in _REFERENCE[section] if c["op"] == op]


def _ops_with(section, predicate=lambda case: True):
    return sorted({c["op"] for c in _REFERENCE[section] if predicate(c)})


def _call(case):
    out = resolve(case["op"])(*(decode(a) for a in case["args"]))
    if inspect.isawaitable(out):
        assert case.get("awaitable"), case["name"]
        out = asyncio.run(_wait(out))
    return out


async def _wait(awaitable):
    return await awaitable


def test_reference_was_made_by_tfjs_4_22_cpu():
    assert (_REFERENCE["tfjs_version"], _REFERENCE["backend"]) == ("4.22.0", "cpu")
    assert len(_OPS) == len(set(_OPS)) == 17


@pytest.mark.parametrize("name", _OPS)
def test_every_op_exists_with_its_snake_case_alias(name):
    fn = resolve(name)
    assert callable(fn)
    namespace, _, attr = name.rpartition(".")
    owner = resolve(namespace) if namespace else tf
    assert getattr(owner, snake(attr)) is fn
    assert fn.__doc__ and ">>>" in fn.__doc__


@pytest.mark.parametrize("op", _ops_with("cases"))
def test_values_dtypes_and_shapes_match_tfjs(op):
    each(lambda case: assert_matches(_call(case), case["expected"]), _of("cases", op))


@pytest.mark.parametrize("op", _ops_with("cases", lambda c: c["grads"] is not None))
def test_gradients_match_tfjs(op):
    each(check_gradient, [c for c in _of("cases", op) if c["grads"]])


def test_gradients_tfjs_cannot_give_are_true_derivatives():
    cases = [
        c
        for c in _REFERENCE["cases"]
        if "grads_note" in c and c["op"] not in _EAGER_ONLY and c["expected"]["t"] != "array"
    ]
    assert {c["op"] for c in cases} >= {
        "conv3dTranspose",
        "depthwiseConv2d",
        "batchNorm",
        "avgPool3d",
    }
    each(check_gradient_by_finite_differences, cases)


@pytest.mark.parametrize("op", _ops_with("errors"))
def test_errors_match_tfjs(op):
    each(check_error, _of("errors", op))
