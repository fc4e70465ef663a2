"""OPS2.md's convolution and pooling, normalization, fused, spectral, signal and image ops
against real tfjs 4.22 (tests/reference/ops2_nn.json, made by gen_ops2_nn.js).

Values, dtypes and shapes at rtol 1e-5; gradients of sum(op(...) * w) at rtol 1e-4 against
tfjs's; where tfjs has no gradient or a wrong one (`grads_note`), and for the fused ops (whose
tensors sit in one dict), against central finite differences in float64. Errors: tfjs's type
and message. The awaitable ops resolve to tfjs's values; the eager-only ones refuse to trace.
"""

import asyncio
import inspect

import jax
import jax.numpy as jnp
import numpy as np
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
from tfjs_grad._tensors import EagerOnlyError

_REFERENCE = load("ops2_nn.json")
_OPS = [entry["name"] for entry in _REFERENCE["ops"]]
FUNCTIONS["ones"] = lambda n: tf.ones([n])

_EAGER_ONLY = [
    "image.nonMaxSuppression",
    "image.nonMaxSuppressionAsync",
    "image.nonMaxSuppressionWithScore",
    "image.nonMaxSuppressionWithScoreAsync",
    "image.nonMaxSuppressionPadded",
    "image.nonMaxSuppressionPaddedAsync",
    "image.threshold",
]


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
    assert len(_OPS) == len(set(_OPS)) == 47


@pytest.mark.parametrize("name", _OPS)
def test_every_op_exists_with_its_snake_case_alias(name):
    fn = resolve(name)
    assert callable(fn)
    namespace, _, attr = name.rpartition(".")
    owner = resolve(namespace) if namespace else tf
    assert getattr(owner, snake(attr)) is fn
    assert fn.__doc__ and ">>>" in fn.__doc__


def test_spectral_ops_are_the_top_level_ones():
    for name in ["fft", "ifft", "rfft", "irfft"]:
        assert getattr(tf.spectral, name) is getattr(tf, name)


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
        "image.resizeBilinear",
        "image.resizeNearestNeighbor",
        "image.cropAndResize",
        "image.transform",
    }
    each(check_gradient_by_finite_differences, cases)


def _check_fused_gradient(case):
    """Finite differences of sum(op(config) * w) along a random direction of every float
    tensor of the config dict (float64)."""
    rng = np.random.default_rng(1)
    (config,) = (decode(a) for a in case["args"])
    keys = [k for k, v in config.items() if isinstance(v, jax.Array)]
    with jax.enable_x64(True):
        xs = [jnp.asarray(config[k], jnp.float64) for k in keys]
        out = resolve(case["op"])(config)
        w = jnp.asarray(rng.uniform(0.5, 2.0, out.shape))

        def f(*values):
            return jnp.sum(resolve(case["op"])({**config, **dict(zip(keys, values))}) * w)

        vs = [jnp.asarray(rng.standard_normal(x.shape)) for x in xs]
        grads = jax.jit(jax.grad(f, argnums=tuple(range(len(xs)))))(*xs)
        analytic = sum(float(jnp.vdot(g, v)) for g, v in zip(grads, vs))
        eps = 1e-6
        along = jax.jit(lambda t: f(*(x + t * v for x, v in zip(xs, vs))))
        numeric = float(along(eps) - along(-eps)) / (2 * eps)
    assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def test_fused_gradients_are_true_derivatives():
    cases = [c for c in _REFERENCE["cases"] if c["op"].startswith("fused.")]
    assert len({c["op"] for c in cases}) == 3
    each(_check_fused_gradient, cases)


@pytest.mark.parametrize("op", _ops_with("errors"))
def test_errors_match_tfjs(op):
    each(check_error, _of("errors", op))


@pytest.mark.parametrize("op", _EAGER_ONLY)
def test_data_dependent_ops_are_eager_only(op):
    (case, *_) = _of("cases", op)
    args = [decode(a) for a in case["args"]]
    with pytest.raises(EagerOnlyError, match=op):
        jax.jit(lambda *xs: resolve(op)(*xs[:2], *args[2:]))(*args[:2])


@pytest.mark.parametrize("op", [op for op in _OPS if op.endswith("Async")])
def test_async_ops_return_awaitables(op):
    (case,) = _of("cases", op)
    out = resolve(op)(*(decode(a) for a in case["args"]))
    assert inspect.isawaitable(out)
    assert_matches(asyncio.run(_wait(out)), case["expected"])
