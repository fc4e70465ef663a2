"""Every op, one parametrized test: array-likes and Variables as inputs, eagerly, inside
`tf.grad`, `variable_grads` and `minimize` (which trace f), under `tf.jit`, `jax.jit`,
`jax.vmap` and `jax.grad`, always giving tfjs's values (every tests/reference/ops*.json).

One fixture case per op, tiny shapes, and `jax.jit`, `jax.vmap` and `jax.grad` share one
compiled program per op, so the whole table costs a few compiles per op.
"""

import asyncio
import inspect

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from op_fixtures import REFERENCE, assert_matches, decode, expected_array, load, resolve

import tfjs_grad as tf
from tfjs_grad._tensors import EagerOnlyError

_FIXTURES = [load(path.name) for path in sorted(REFERENCE.glob("ops*.json"))]
_CASES = [case for fixture in _FIXTURES for case in fixture["cases"]]

# Host-side helpers: no array goes in or out, so there is nothing to trace (their behaviour
# is checked in test_ops.py).
_HOST_ONLY = {"dispose", "nextFrame", "util.createShuffledIndices", "util.shuffle"}
_HOST_ONLY |= {"enclosingPowerOfTwo"}  # ops2_math.json: a Python number in and out

# Ops whose result's shape depends on their inputs' values (a fixture's "eager_only" list):
# eagerly (array-likes, Variables) they give tfjs's values; traced, they raise EagerOnlyError.
_EAGER_ONLY = {name for fixture in _FIXTURES for name in fixture.get("eager_only", [])}

# Ops without a value case in the fixture (their numbers are not tfjs's): seeded calls.
_EXTRA = {
    "randomUniform": [[2, 3], -1.0, 2.0, "float32", 1],
    "randomNormal": [[2, 3], 0.5, 2.0, "float32", 2],
    "truncatedNormal": [[4], 0.0, 1.0, "int32", 3],
    "multinomial": [jnp.asarray([[0.0, 1.0, 2.0]]), 3, 4],
    "print": [jnp.asarray([1.0, 2.0])],
    "buffer": [[2], "float32", [1.0, 2.0]],
    # ops2_math.json's random ops
    "randomGamma": [[2, 3], 2.0, 0.5, "float32", 5],
    "randomStandardNormal": [[2, 3], "float32", 6],
    "randomUniformInt": [[2, 3], 0, 10, 7],
}


def _spec(op):
    """(args, expected encoding or None, fixture gradients or None) for one op."""
    if op in _EXTRA:
        return list(_EXTRA[op]), None, None
    cases = [c for c in _CASES if c["op"] == op]
    with_grads = [c for c in cases if c["grads"]]
    case = (with_grads or cases)[0]
    return [decode(a) for a in case["args"]], case["expected"], case["grads"]


def _paths(args):
    """Where the tensor arguments are: [i] or [i, j] (an element of a list argument)."""
    paths = []
    for i, a in enumerate(args):
        if isinstance(a, jax.Array):
            paths.append((i,))
        elif isinstance(a, list):
            paths += [(i, j) for j, b in enumerate(a) if isinstance(b, jax.Array)]
    return paths


def _with(args, paths, values):
    full = [list(a) if isinstance(a, list) else a for a in args]
    for path, value in zip(paths, values):
        if len(path) == 1:
            full[path[0]] = value
        else:
            full[path[0]][path[1]] = value
    return full


async def _wait(awaitable):
    return await awaitable


def _call(op, args):
    out = resolve(op)(*args)
    if inspect.isawaitable(out):  # an async op (eager only): what it resolves to
        out = asyncio.run(_wait(out))
    return out.to_tensor() if isinstance(out, tf.TensorBuffer) else out


def _leaves(out):
    if out is None:
        return []
    if isinstance(out, (jax.Array, tf.Tensor)):
        return [out]
    return [leaf for item in out for leaf in _leaves(item)]


def _total(out, weights):
    """A float32 scalar of every output: sum(leaf * w) for float leaves, plain sums else."""
    total = jnp.zeros((), jnp.float32)
    floats = iter(weights)
    for leaf in _leaves(out):
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            w = next(floats, None)
            total = total + jnp.sum(leaf * (1.0 if w is None else w))
        elif jnp.issubdtype(leaf.dtype, jnp.complexfloating):  # complex, real: both parts
            total = total + jnp.sum(jnp.real(leaf) + jnp.imag(leaf))
        else:
            total = total + jnp.sum(leaf.astype(jnp.float32))
    return total


def _close(a, b):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-5)


_TABLE = [entry["name"] for fixture in _FIXTURES for entry in fixture["ops"]]
# Eager-only ops (async, or results shaped by values) are marked in their fixture's table;
# their test module checks them eagerly and that they refuse to trace, naming themselves.
_EAGER = {entry["name"] for fixture in _FIXTURES for entry in fixture["ops"] if entry.get("eager")}
_OPS = [name for name in _TABLE if name not in _HOST_ONLY | _EAGER]


def test_only_host_side_helpers_and_eager_only_ops_are_left_out():
    assert len(_OPS) + len(_HOST_ONLY) + len(_EAGER) == len(set(_TABLE))


def _check_eager_only(op, pure, tensors, weights, expected_total):
    _close(_total(pure(*(np.asarray(t) for t in tensors)), weights), expected_total)
    variables = [tf.variable(t, trainable=False) for t in tensors]
    _close(_total(pure(*variables), weights), expected_total)
    with pytest.raises(EagerOnlyError, match=f"tf.{op} runs eagerly only"):
        jax.jit(pure)(*tensors)
    with pytest.raises(EagerOnlyError, match=f"tf.{op} runs eagerly only"):
        tf.jit(lambda: pure(*variables))()


@pytest.mark.parametrize("op", _OPS)
def test_op_works_everywhere_with_tfjs_values(op):
    args, expected_enc, grads = _spec(op)
    paths = _paths(args)
    tensors = [args[p[0]] if len(p) == 1 else args[p[0]][p[1]] for p in paths]
    weights = [jnp.asarray(expected_array(w)) for w in grads["weights"]] if grads else []
    expected = _call(op, args)
    if expected_enc is not None:  # else a seeded random op, print or buffer: eager is the reference
        assert_matches(expected, expected_enc)
    expected_total = _total(expected, weights)

    def pure(*xs):
        return _call(op, _with(args, paths, xs))

    if op in _EAGER_ONLY:
        _check_eager_only(op, pure, tensors, weights, expected_total)
        return

    # array-likes: numpy arrays of the same dtypes
    _close(_total(pure(*(np.asarray(t) for t in tensors)), weights), expected_total)

    # Variables, eagerly (int and bool ones are not trainable: nothing to differentiate)
    variables = [
        tf.variable(t, trainable=bool(jnp.issubdtype(t.dtype, jnp.floating))) for t in tensors
    ]
    scale = tf.variable(tf.scalar(1.0))
    _close(_total(pure(*variables), weights), expected_total)

    def loss():
        return scale * _total(pure(*variables), weights)

    try:
        jax.eval_shape(pure, *tensors)
    except EagerOnlyError as error:
        # an op whose result's shape comes from its values: eager only, and it says so
        # wherever JAX traces (the values above were its eager ones)
        assert f"tf.{op} runs eagerly only" in str(error)
        return

    # inside tf.grad's f (traced before it is differentiated)
    _close(tf.grad(lambda s: s * _total(pure(*tensors), weights))(1.0), expected_total)

    # jax.jit, jax.vmap (a batch of two) and jax.grad, in one compiled program
    float_index = [i for i, t in enumerate(tensors) if t.dtype == jnp.float32]

    def batched(*row):
        return pure(*row) if tensors else pure()  # no tensor input: vmap over a dummy

    def of_floats(xs, *floats):
        full = list(xs)
        for i, f in zip(float_index, floats):
            full[i] = f
        return _total(pure(*full), weights)

    @jax.jit
    def transformed(xs, batch):
        by_scale = jax.grad(lambda s: s * _total(pure(*xs), weights))(1.0)
        by_inputs = ()
        if grads:
            argnums = tuple(range(1, len(float_index) + 1))
            by_inputs = jax.grad(of_floats, argnums)(xs, *(xs[i] for i in float_index))
        return pure(*xs), jax.vmap(batched)(*batch), by_scale, by_inputs

    batch = [jnp.stack([t, t]) for t in tensors] or [jnp.zeros(2)]
    jitted, vmapped, by_scale, by_inputs = transformed(tensors, batch)
    _close(_total(jitted, weights), expected_total)
    _close(by_scale, expected_total)
    for leaf, reference in zip(_leaves(vmapped), _leaves(expected), strict=True):
        assert leaf.shape == (2, *reference.shape)
        _close(leaf[0], reference)
        _close(leaf[1], reference)
    if grads:
        for g, enc in zip(by_inputs, grads["expected"], strict=True):
            assert_matches(g, enc, 1e-4, 1e-5)

    # variable_grads, eagerly and under tf.jit together with minimize.
    trainable = [scale] + [v for v in variables if v.trainable]
    value, found = tf.variable_grads(loss, trainable)
    _close(value, expected_total)
    _close(found[scale.name], expected_total)
    optimizer = tf.train.sgd(0.0)
    step = tf.jit(lambda: (tf.variable_grads(loss, trainable), optimizer.minimize(loss, True)))
    (jit_value, jit_found), cost = step()
    _close(jit_value, expected_total)
    _close(cost, expected_total)
    if grads:
        floats = [v for v, t in zip(variables, tensors) if t.dtype == jnp.float32]
        for v, g in zip(floats, grads["expected"], strict=True):
            assert_matches(found[v.name], g, 1e-4, 1e-5)
            assert_matches(jit_found[v.name], g, 1e-4, 1e-5)
