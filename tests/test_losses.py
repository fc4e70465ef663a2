"""tf.losses against real tfjs 4.22 (tests/reference/losses.json, made by gen_losses.js)."""

import doctest
import inspect
import json
import math
import re
from pathlib import Path

import hypothesis.extra.numpy as hnp
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tfjs_grad import losses

_REFERENCE = json.loads((Path(__file__).parent / "reference" / "losses.json").read_text())
_RTOL, _ATOL = 1e-5, 1e-6

_FNS = {
    "absoluteDifference": losses.absolute_difference,
    "computeWeightedLoss": losses.compute_weighted_loss,
    "cosineDistance": losses.cosine_distance,
    "hingeLoss": losses.hinge_loss,
    "huberLoss": losses.huber_loss,
    "logLoss": losses.log_loss,
    "meanSquaredError": losses.mean_squared_error,
    "sigmoidCrossEntropy": losses.sigmoid_cross_entropy,
    "softmaxCrossEntropy": losses.softmax_cross_entropy,
}


def _snake(name):
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def _decode(arg):
    kind = arg["kind"]
    if kind == "undefined":
        return None  # JS undefined: None in an optional slot means the default
    if kind == "tensor":
        values = [float(v) for v in arg["values"]]
        return np.asarray(values, dtype=arg["dtype"]).reshape(arg["shape"])
    value = arg["value"]
    return float(value) if kind == "number" and isinstance(value, str) else value


def _args(case):
    """The fixture's positional arguments, tfjs's `undefined` passed as None."""
    params = list(inspect.signature(_FNS[case["fn"]]).parameters.values())
    assert [p.name for p in params] == [_snake(a["name"]) for a in case["args"]]
    return [_decode(a) for a in case["args"]]


def _expected(t):
    return np.asarray([float(v) for v in t["values"]], dtype=t["dtype"]).reshape(t["shape"])


def _each(check, cases):
    """Runs check on every case; reports all failing cases at once, by name."""
    assert cases
    failures = []
    for case in cases:
        try:
            check(case)
        except AssertionError as e:
            failures.append(f"{case['name']}: {e}")
    assert not failures, "\n".join(failures)


def _of(section, fn):
    return [c for c in _REFERENCE[section] if c["fn"] == fn]


def test_reference_was_made_by_tfjs_4_22_cpu():
    assert (_REFERENCE["tfjs_version"], _REFERENCE["backend"]) == ("4.22.0", "cpu")
    assert _REFERENCE["reduction"] == {r.name: r.value for r in losses.Reduction}
    assert set(_REFERENCE["arg_names"]) == set(_FNS)


def _check_value(case):
    out = _FNS[case["fn"]](*_args(case))
    expected = _expected(case["expected"])
    assert out.shape == expected.shape
    assert out.dtype == expected.dtype
    np.testing.assert_allclose(out, expected, rtol=_RTOL, atol=_ATOL)


@pytest.mark.parametrize("fn", sorted(_FNS))
def test_values_match_tfjs(fn):
    _each(_check_value, _of("cases", fn))


def _vjp(case):
    args = _args(case)
    names = [a["name"] for a in case["args"]]
    idx = [names.index(n) for n in case["wrt"]]

    def f(*xs):
        full = list(args)
        for i, x in zip(idx, xs, strict=True):
            full[i] = x
        return jnp.asarray(_FNS[case["fn"]](*full))  # jax.vjp: an array, not a Tensor

    out, pullback = jax.vjp(f, *(jnp.asarray(args[i]) for i in idx))
    return pullback(jnp.ones_like(out)), [args[i] for i in idx]


def _true_softmax_ce(labels, logits, weights, label_smoothing, reduction):
    """softmax_cross_entropy by plain autodiff-able ops (no custom rule)."""
    labels = jnp.asarray(labels)
    if label_smoothing > 0:
        labels = labels * (1 - label_smoothing) + label_smoothing / labels.shape[1]
    logits = jnp.asarray(logits)
    # tfjs's x - lse(x), not jax.nn.log_softmax: they round differently at |x| = 1e4
    log_probs = logits - jax.nn.logsumexp(logits, axis=-1, keepdims=True)
    per_example = -jnp.sum(labels * log_probs, axis=-1)
    return jnp.sum(losses.compute_weighted_loss(per_example, weights, reduction))


def _check_gradient(case):
    grads, _ = _vjp(case)
    for name, grad, expected in zip(case["wrt"], grads, case["expected"], strict=True):
        if name == "onehotLabels":
            continue  # tfjs's label gradient is not a derivative: see the next test
        np.testing.assert_allclose(grad, _expected(expected), rtol=_RTOL, atol=_ATOL)


@pytest.mark.parametrize("fn", sorted(_FNS))
def test_gradients_match_tfjs(fn):
    _each(_check_gradient, _of("grads", fn))


def _check_softmax_label_gradient(case):
    (label_grad, logits_grad), (labels, logits) = _vjp(case)
    _, weights, label_smoothing, reduction = _args(case)[1:]
    label_smoothing = 0.0 if label_smoothing is None else label_smoothing
    reduction = losses.Reduction.SUM_BY_NONZERO_WEIGHTS if reduction is None else reduction
    true_grad = jax.grad(_true_softmax_ce)(labels, logits, weights, label_smoothing, reduction)
    np.testing.assert_allclose(label_grad, true_grad, rtol=_RTOL, atol=_ATOL)
    # tfjs gives the smoothed labels -(logits gradient) instead, i.e. y - softmax(x).
    tfjs_label_grad = _expected(case["expected"][0])
    assert not np.allclose(label_grad, tfjs_label_grad, atol=1e-3)
    smoothing_factor = 1 - label_smoothing if label_smoothing > 0 else 1
    np.testing.assert_allclose(
        tfjs_label_grad, -smoothing_factor * np.asarray(logits_grad), rtol=_RTOL, atol=_ATOL
    )


def test_softmax_label_gradient_is_the_true_derivative_not_tfjs():
    _each(_check_softmax_label_gradient, _of("grads", "softmaxCrossEntropy"))


def _check_error(case):
    with pytest.raises(ValueError) as info:
        _FNS[case["fn"]](*_args(case))
    assert str(info.value) == case["message"]


@pytest.mark.parametrize("fn", sorted(_FNS))
def test_errors_match_tfjs(fn):
    _each(_check_error, _of("errors", fn))


def test_message_has_two_spaces_and_comma_joined_shapes():
    with pytest.raises(ValueError, match=r"^Error in huberLoss:  Shapes 2,3 and 3,2 must match$"):
        losses.huber_loss(jnp.zeros((2, 3)), jnp.zeros((3, 2)))


@pytest.mark.parametrize("bad", [True, "SUM", 4, 2.5, [1]])
def test_unknown_reduction_raises_value_error(bad):
    with pytest.raises(ValueError, match=f"^Unknown reduction: {re.escape(str(bad))}$"):
        losses.mean_squared_error([1.0, 2.0], [1.0, 3.0], None, bad)


# tfjs's names for each loss's tensor arguments, in positional order
_TENSOR_ARGS = {
    "absoluteDifference": ["labels", "predictions", "weights"],
    "computeWeightedLoss": ["losses", "weights"],
    "cosineDistance": ["labels", "predictions", None, "weights"],
    "hingeLoss": ["labels", "predictions", "weights"],
    "huberLoss": ["labels", "predictions", "weights"],
    "logLoss": ["labels", "predictions", "weights"],
    "meanSquaredError": ["labels", "predictions", "weights"],
    "sigmoidCrossEntropy": ["multiClassLabels", "logits", "weights"],
    "softmaxCrossEntropy": ["onehotLabels", "logits", "weights"],
}


@pytest.mark.parametrize("fn", sorted(_FNS))
@pytest.mark.parametrize("bad", [{"x": 1}, "text", object()])
def test_a_non_tensor_argument_is_named_with_the_loss(fn, bad):
    good = [[[0.0, 1.0], [1.0, 0.0]], [[0.25, 0.75], [0.5, 0.5]], 1, [1.0, 2.0]]
    for position, name in enumerate(_TENSOR_ARGS[fn]):
        if name is None:
            continue
        args = good[: len(_TENSOR_ARGS[fn])]
        args[position] = bad
        expected = (
            f"Argument '{name}' passed to '{fn}' must be a Tensor or TensorLike, "
            f"but got '{type(bad).__name__}'"
        )
        with pytest.raises(TypeError) as info:
            _FNS[fn](*args)
        assert str(info.value) == expected


@pytest.mark.parametrize("fn", sorted(_FNS))
def test_none_in_every_optional_slot_means_the_default(fn):
    loss = _FNS[fn]
    params = list(inspect.signature(loss).parameters.values())
    required = [p for p in params if p.default is inspect.Parameter.empty]
    optional = [p for p in params if p.default is not inspect.Parameter.empty]
    labels, predictions = [[0.0, 1.0], [1.0, 0.0]], [[0.25, 0.75], [0.5, 0.5]]
    args = [labels, predictions, 1][: len(required)]
    np.testing.assert_array_equal(loss(*args, *([None] * len(optional))), loss(*args))
    for p in optional:  # and by keyword
        np.testing.assert_array_equal(loss(*args, **{p.name: None}), loss(*args))


def test_reduction_is_int_enum_and_plain_ints_are_accepted():
    assert [int(r) for r in losses.Reduction] == [0, 1, 2, 3]
    assert losses.Reduction.SUM_BY_NONZERO_WEIGHTS == 3
    for r in losses.Reduction:
        np.testing.assert_array_equal(
            losses.absolute_difference([1.0, 2.0], [0.0, 4.0], [1.0, 0.0], int(r)),
            losses.absolute_difference([1.0, 2.0], [0.0, 4.0], [1.0, 0.0], r),
        )


def test_defaults_are_tfjs_defaults():
    defaults = {
        name: {
            p.name: p.default
            for p in inspect.signature(fn).parameters.values()
            if p.default is not inspect.Parameter.empty
        }
        for name, fn in _FNS.items()
    }
    sbnz = losses.Reduction.SUM_BY_NONZERO_WEIGHTS
    assert all(d["reduction"] is sbnz and d["weights"] is None for d in defaults.values())
    assert defaults["huberLoss"]["delta"] == 1.0
    assert defaults["logLoss"]["epsilon"] == 1e-7
    assert defaults["sigmoidCrossEntropy"]["label_smoothing"] == 0
    assert defaults["softmaxCrossEntropy"]["label_smoothing"] == 0
    assert "axis" not in defaults["cosineDistance"]


def test_camel_case_aliases_are_the_same_functions():
    for camel, fn in _FNS.items():
        assert getattr(losses, camel) is fn


def test_keyword_arguments_use_snake_case_names():
    out = losses.softmax_cross_entropy(
        onehot_labels=[[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        logits=[[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]],
        weights=[2.0, 0.0],
        label_smoothing=0.0,
        reduction=losses.Reduction.SUM_BY_NONZERO_WEIGHTS,
    )
    np.testing.assert_allclose(out, 2.815212, rtol=_RTOL)


def test_inputs_may_be_lists_numpy_or_jax_arrays():
    expected = losses.mean_squared_error(jnp.array([1.0, 2.0, 3.0]), jnp.array([2.0, 2.0, 5.0]))
    for labels in ([1, 2, 3], np.array([1.0, 2.0, 3.0]), np.array([1, 2, 3], np.int32)):
        out = losses.mean_squared_error(labels, [2.0, 2.0, 5.0])
        assert out.dtype == jnp.float32
        np.testing.assert_allclose(out, expected, rtol=_RTOL)
    assert losses.huber_loss(0.0, 3.0).dtype == jnp.float32


def test_all_zero_weights_give_nan_with_sum_by_nonzero_weights():
    assert math.isnan(losses.absolute_difference([1.0, 2.0], [0.0, 0.0], [0.0, 0.0]))
    assert math.isnan(losses.absolute_difference([1.0, 2.0], [0.0, 0.0], 0.0))


def test_sigmoid_gradient_at_zero_logit_is_sigmoid_minus_label():
    # zero-initialised output layers start exactly here
    grad = jax.grad(lambda x: jnp.asarray(losses.sigmoid_cross_entropy([1.0, 0.0, 0.3], x)))(
        jnp.zeros(3)
    )
    np.testing.assert_allclose(grad, (0.5 - np.array([1.0, 0.0, 0.3])) / 3, rtol=_RTOL)


# ------------------------------------------------------------------------------------------------
# Stability, jit, finite differences

_BIG = jnp.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 1e4]], jnp.float32)
_ONEHOT = jnp.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], jnp.float32)


@pytest.mark.parametrize("fn", [losses.sigmoid_cross_entropy, losses.softmax_cross_entropy])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_cross_entropies_are_finite_at_logits_1e4(fn, sign):
    value, (label_grad, logit_grad) = jax.value_and_grad(
        lambda *xs: jnp.asarray(fn(*xs)), argnums=(0, 1)
    )(_ONEHOT, sign * _BIG)
    assert np.isfinite(value)
    assert np.all(np.isfinite(label_grad)) and np.all(np.isfinite(logit_grad))


# one example call per loss: its positional arguments
_EXAMPLES = {
    "absoluteDifference": (jnp.arange(6.0).reshape(2, 3), jnp.ones((2, 3)) * 0.5),
    "computeWeightedLoss": (jnp.arange(6.0).reshape(2, 3), jnp.array([[1.0], [0.0]])),
    "cosineDistance": (jnp.arange(6.0).reshape(2, 3) / 10, jnp.ones((2, 3)) * 0.5, 1),
    "hingeLoss": (jnp.array([[1.0, 0.0, 1.0]]), jnp.array([[0.2, 0.4, 2.0]])),
    "huberLoss": (jnp.zeros(3), jnp.array([0.5, 1.5, -3.0]), None, 1.5),
    "logLoss": (jnp.array([1.0, 0.0, 1.0]), jnp.array([0.8, 0.3, 0.4])),
    "meanSquaredError": (jnp.arange(3.0), jnp.ones(3)),
    "sigmoidCrossEntropy": (_ONEHOT, _BIG / 1e3, None, 0.1),
    "softmaxCrossEntropy": (_ONEHOT, _BIG / 1e3, jnp.array([1.0, 2.0]), 0.2),
}


@pytest.mark.parametrize("name", sorted(_EXAMPLES))
@pytest.mark.parametrize("reduction", list(losses.Reduction))
def test_works_under_jit(name, reduction):
    fn, args = _FNS[name], _EXAMPLES[name]
    arrays = [a for a in args if isinstance(a, jax.Array)]

    @jax.jit
    def jitted(*xs):
        it = iter(xs)
        return fn(*(next(it) if isinstance(a, jax.Array) else a for a in args), reduction=reduction)

    np.testing.assert_allclose(jitted(*arrays), fn(*args, reduction=reduction), rtol=_RTOL)
    grads = jax.jit(jax.grad(lambda *xs: jnp.sum(jitted(*xs)), argnums=0))(*arrays)
    assert np.all(np.isfinite(grads))


def test_doc_examples_run():
    assert doctest.testmod(losses, raise_on_error=False).failed == 0


_SHAPE = (3, 4)


def _floats(lo, hi):
    return hnp.arrays(np.float64, _SHAPE, elements=st.floats(lo, hi, allow_subnormal=False))


def _directional_check(f, xs, seed):
    """<grad f(xs), v> against a central difference along a random direction v (float64)."""
    rng = np.random.default_rng(seed)
    vs = [rng.standard_normal(np.shape(x)) for x in xs]
    loss = f
    f = lambda *xs: jnp.asarray(loss(*xs))  # noqa: E731  (jax.grad needs an array result)
    with jax.enable_x64(True):
        xs = [jnp.asarray(x, jnp.float64) for x in xs]
        grads = jax.grad(f, argnums=tuple(range(len(xs))))(*xs)
        analytic = sum(float(jnp.vdot(g, v)) for g, v in zip(grads, vs, strict=True))
        eps = 1e-6
        plus = f(*(x + eps * v for x, v in zip(xs, vs, strict=True)))
        minus = f(*(x - eps * v for x, v in zip(xs, vs, strict=True)))
        numeric = float(plus - minus) / (2 * eps)
    assert analytic == pytest.approx(numeric, rel=1e-5, abs=1e-7)


_reductions = st.sampled_from(
    [losses.Reduction.SUM, losses.Reduction.MEAN, losses.Reduction.SUM_BY_NONZERO_WEIGHTS]
)
_weights = st.one_of(st.none(), _floats(0.1, 3.0))
_seeds = st.integers(0, 2**32 - 1)
_fd = settings(max_examples=20, deadline=None)


def _away_from_kinks(*kinks):
    """Floats in (-3, 3) at least 0.01 away from each kink."""
    edges = sorted({-3.0, 3.0, *(k + d for k in kinks for d in (-0.01, 0.01))})
    pieces = [st.floats(lo, hi) for lo, hi in zip(edges[::2], edges[1::2], strict=True)]
    return hnp.arrays(np.float64, _SHAPE, elements=st.one_of(*pieces))


@_fd
@given(_floats(-3, 3), _away_from_kinks(-1.0, 0.0, 1.0), _weights, _reductions, _seeds)
def test_regression_gradients_match_finite_differences(y, error, w, reduction, seed):
    p = y + error  # abs and huber(delta=1) have kinks at error 0 and ±1
    for fn in (losses.absolute_difference, losses.mean_squared_error, losses.huber_loss):
        _directional_check(lambda a, b, fn=fn: fn(a, b, w, reduction=reduction), [y, p], seed)
    for axis in (0, 1, -1):
        _directional_check(
            lambda a, b, axis=axis: losses.cosine_distance(a, b, axis, w, reduction), [y, p], seed
        )


@_fd
@given(
    hnp.arrays(np.float64, _SHAPE, elements=st.sampled_from([0.0, 1.0])),
    _away_from_kinks(1.0),
    _weights,
    _reductions,
    _seeds,
)
def test_hinge_gradient_matches_finite_differences(labels, margin, w, reduction, seed):
    p = (2 * labels - 1) * margin  # the kink is at margin 1
    _directional_check(lambda b: losses.hinge_loss(labels, b, w, reduction), [p], seed)


@_fd
@given(_floats(0, 1), _floats(0.01, 0.99), _weights, _reductions, _seeds)
def test_log_loss_gradient_matches_finite_differences(y, p, w, reduction, seed):
    _directional_check(lambda a, b: losses.log_loss(a, b, w, 1e-7, reduction), [y, p], seed)


@_fd
@given(_floats(0, 1), _floats(-20, 20), _weights, st.sampled_from([0.0, 0.2]), _reductions, _seeds)
def test_sigmoid_cross_entropy_gradient_matches_finite_differences(z, x, w, ls, reduction, seed):
    _directional_check(
        lambda a, b: losses.sigmoid_cross_entropy(a, b, w, ls, reduction), [z, x], seed
    )


@_fd
@given(
    _floats(-5, 5),
    _floats(-20, 20),
    st.one_of(st.none(), hnp.arrays(np.float64, _SHAPE[0], elements=st.floats(0.1, 3))),
    st.sampled_from([0.0, 0.3]),
    _reductions,
    _seeds,
)
def test_softmax_cross_entropy_gradient_matches_finite_differences(u, x, w, ls, reduction, seed):
    # labels summing to 1 per row, where tfjs's logits gradient softmax - y is the derivative
    e = np.exp(u - u.max(axis=-1, keepdims=True))
    labels = e / e.sum(axis=-1, keepdims=True)
    _directional_check(
        lambda a, b: losses.softmax_cross_entropy(a, b, w, ls, reduction), [labels, x], seed
    )


@_fd
@given(_floats(0, 5), _floats(0.1, 3.0), _reductions, _seeds)
def test_compute_weighted_loss_gradient_matches_finite_differences(losses_, w, reduction, seed):
    _directional_check(
        lambda a, b: losses.compute_weighted_loss(a, b, reduction), [losses_, w], seed
    )
