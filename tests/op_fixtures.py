"""Replaying op fixtures recorded from tfjs 4.22 (tests/reference/opcases.js wrote them).

Shared by the op test modules: decoding arguments, comparing results (any array-like with
`shape` and `dtype`: a tf.Tensor, a jax.Array), gradients of sum(op(...) * w) against tfjs's,
true derivatives by central differences where tfjs's gradient is wrong or missing, and errors.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf

REFERENCE = Path(__file__).parent / "reference"
RTOL, ATOL = 1e-5, 1e-6
GRAD_RTOL, GRAD_ATOL = 1e-4, 1e-5

# JS callbacks in fixtures ({t: "function", name}) are looked up here by name; a test module
# adds the callables its generator passes.
FUNCTIONS: dict[str, Callable[..., Any]] = {}


def load(name: str) -> dict[str, Any]:
    """A fixture file of tests/reference/ as a dict. Its `functions` section (JS callbacks
    that are `tf[op]` with leading arguments bound) is registered in FUNCTIONS."""
    fixture = json.loads((REFERENCE / name).read_text())
    for fn_name, spec in fixture.get("functions", {}).items():
        FUNCTIONS[fn_name] = _bound(spec["op"], spec["bound"])
    return fixture


def _bound(op: str, bound: list[dict[str, Any]]) -> Callable[..., Any]:
    def call(*rest: Any) -> Any:
        return resolve(op)(*(decode(a) for a in bound), *rest)

    return call


def snake(name: str) -> str:
    """OPS2.md's snake_case alias of a tfjs name (`isNaN` -> `is_nan`, `batchToSpaceND` ->
    `batch_to_space_nd`)."""
    if name == "isNaN":
        return "is_nan"
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    name = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return name.lower()


def resolve(name: str) -> Any:
    """The tfjs_grad function for a tfjs name: 'add' is tf.add, 'image.resizeBilinear' is
    tf.image.resizeBilinear, 'util.shuffle' is tf.util.shuffle."""
    owner: Any = tf
    for part in name.split("."):
        owner = getattr(owner, part)
    return owner


def decode(arg: dict[str, Any]) -> Any:
    """A fixture argument as the Python value a port would pass (JS undefined -> None)."""
    kind = arg["t"]
    if kind == "tensor":
        return jnp.asarray(expected_array(arg))
    if kind == "number":
        v = arg["v"]
        return float(v) if isinstance(v, str) else v
    if kind in ("bool", "string"):
        return arg["v"]
    if kind in ("null", "undefined"):
        return None
    if kind == "array":
        return [decode(item) for item in arg["items"]]
    if kind == "typed":
        return np.asarray(arg["values"], dtype=arg["dtype"])
    if kind == "object":
        return {k: decode(v) for k, v in arg["fields"].items()}
    if kind == "function":
        return FUNCTIONS[arg["name"]]
    raise AssertionError(f"unknown argument kind {kind}")


def expected_array(enc: dict[str, Any]) -> np.ndarray:
    """An encoded tfjs tensor as a numpy array of its dtype and shape."""
    dtype = enc["dtype"]
    if dtype == "bool":
        return np.asarray(enc["values"], dtype=bool).reshape(enc["shape"])
    values = np.asarray([float(v) for v in enc["values"]], dtype=np.float64)
    if dtype == "complex64":
        values = values[0::2] + 1j * values[1::2]
    return values.astype(dtype).reshape(enc["shape"])


def _fields(out: Any) -> tuple[str, ...] | None:
    if isinstance(out, dict):
        return tuple(out)
    return getattr(out, "_fields", None)


def assert_matches(out: Any, enc: dict[str, Any], rtol: float = RTOL, atol: float = ATOL) -> None:
    """out equals the encoded tfjs result: dtype, shape and values (any array-like with
    `shape` and `dtype`; lists for JS arrays; a dict or NamedTuple with tfjs's fields for
    JS objects)."""
    if enc["t"] == "array":
        assert isinstance(out, list) and len(out) == len(enc["items"]), type(out)
        for o, e in zip(out, enc["items"]):
            assert_matches(o, e, rtol, atol)
        return
    if enc["t"] == "object":
        assert _fields(out) == tuple(enc["fields"]), _fields(out)
        for field, e in enc["fields"].items():
            value = out[field] if isinstance(out, dict) else getattr(out, field)
            assert_matches(value, e, rtol, atol)
        return
    if enc["t"] == "number":
        assert isinstance(out, (int, float)) and not isinstance(out, bool), type(out)
        assert out == pytest.approx(decode(enc), rel=rtol, abs=atol)
        return
    assert hasattr(out, "shape") and hasattr(out, "dtype"), type(out)
    expected = expected_array(enc)
    actual = np.asarray(out)
    assert np.dtype(out.dtype) == expected.dtype, f"dtype {out.dtype}, tfjs {expected.dtype}"
    assert tuple(out.shape) == expected.shape, f"shape {tuple(out.shape)}, tfjs {expected.shape}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(actual, expected)


def each(check: Callable[[dict[str, Any]], None], cases: list[dict[str, Any]]) -> None:
    """Runs check on every case; reports all failing cases at once, by name."""
    assert cases
    failures = []
    for case in cases:
        try:
            check(case)
        except Exception as e:  # collected, then reported together below
            failures.append(f"{case['name']}: {type(e).__name__}: {e}")
    assert not failures, "\n".join(failures)


def call(case: dict[str, Any]) -> Any:
    return resolve(case["op"])(*(decode(a) for a in case["args"]))


def check_value(case: dict[str, Any]) -> None:
    assert_matches(call(case), case["expected"])


def leaves(out: Any) -> list[Any]:
    """The array leaves of an op's result (lists, dicts and NamedTuples walked)."""
    if isinstance(out, dict):
        return [leaf for item in out.values() for leaf in leaves(item)]
    if isinstance(out, (list, tuple)):
        return [leaf for item in out for leaf in leaves(item)]
    return [out] if hasattr(out, "dtype") else []


def _float_paths(args: list[Any]) -> list[list[int]]:
    paths = []
    for i, a in enumerate(args):
        if isinstance(a, jax.Array) and a.dtype == jnp.float32:
            paths.append([i])
        elif isinstance(a, list):
            paths += [
                [i, j]
                for j, b in enumerate(a)
                if isinstance(b, jax.Array) and b.dtype == jnp.float32
            ]
    return paths


def weighted_sum_fn(
    case: dict[str, Any], weights: list[Any]
) -> tuple[Callable[..., Any], list[Any]]:
    """f(*floats) = sum_k sum(leaf_k * weights[k]) over the float leaves of op(args)."""
    args = [decode(a) for a in case["args"]]
    paths = case["grads"]["wrt"] if case.get("grads") else _float_paths(args)

    def f(*xs: Any) -> Any:
        full = [list(a) if isinstance(a, list) else a for a in args]
        for path, x in zip(paths, xs):
            if len(path) == 1:
                full[path[0]] = x
            else:
                full[path[0]][path[1]] = x
        out = leaves(resolve(case["op"])(*full))
        floats = [jnp.asarray(leaf) for leaf in out if jnp.issubdtype(leaf.dtype, jnp.floating)]
        return sum(jnp.sum(leaf * w) for leaf, w in zip(floats, weights))

    xs = [args[p[0]] if len(p) == 1 else args[p[0]][p[1]] for p in paths]
    return f, xs


def check_gradient(case: dict[str, Any]) -> None:
    """jax.grad of sum(op(...) * w) against tfjs's tf.grads of the same loss."""
    weights = [jnp.asarray(expected_array(w)) for w in case["grads"]["weights"]]
    f, xs = weighted_sum_fn(case, weights)
    # one compiled program per case: far cheaper than differentiating op by op
    grads = jax.jit(jax.grad(f, argnums=tuple(range(len(xs)))))(*xs)
    for grad, enc in zip(grads, case["grads"]["expected"]):
        assert_matches(grad, enc, GRAD_RTOL, GRAD_ATOL)


def check_gradient_by_finite_differences(case: dict[str, Any]) -> None:
    """<grad f, v> against a central difference along a random direction v, in float64."""
    rng = np.random.default_rng(0)
    with jax.enable_x64(True):
        outputs = leaves(call(case))
        weights = [jnp.asarray(rng.uniform(0.5, 2.0, leaf.shape)) for leaf in outputs]
        f, xs = weighted_sum_fn(case, weights)
        xs = [jnp.asarray(x, jnp.float64) for x in xs]
        vs = [jnp.asarray(rng.standard_normal(x.shape)) for x in xs]
        grads = jax.jit(jax.grad(f, argnums=tuple(range(len(xs)))))(*xs)
        analytic = sum(float(jnp.vdot(g, v)) for g, v in zip(grads, vs))
        eps = 1e-6
        along = jax.jit(lambda t: f(*(x + t * v for x, v in zip(xs, vs))))
        numeric = float(along(eps) - along(-eps)) / (2 * eps)
    assert analytic == pytest.approx(numeric, rel=1e-6, abs=1e-8)


def check_error(case: dict[str, Any]) -> None:
    """The op raises the Python type the fixture names, with tfjs's message."""
    error = {"TypeError": TypeError, "ValueError": ValueError}[case["error"]]
    with pytest.raises(error) as info:
        call(case)
    # Python's type name where tfjs prints the JS one: a JS object literal is a Python dict
    assert str(info.value) == case["message"].replace("but got 'Object'", "but got 'dict'")
