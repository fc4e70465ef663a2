"""tf.Tensor: the method form of every recorded op case (tests/reference/ops*.json, recorded
from tfjs 4.22) eagerly, under tf.grads, jax.jit and jax.vmap; the non-op API against
tests/reference/tensor.json (gen_tensor.js); result types; copies of Variables; tidy."""

from __future__ import annotations

import asyncio
import copy
import pickle
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from op_fixtures import (
    GRAD_ATOL,
    GRAD_RTOL,
    REFERENCE,
    assert_matches,
    decode,
    expected_array,
    leaves,
    load,
)

import tfjs_grad as tf
from tfjs_grad._tensors import EagerOnlyError
from tfjs_grad.tensor_methods import PROTOTYPE_OPS, snake

_FIXTURE = load("tensor.json")
_OP_CASES = [
    case
    for path in sorted(REFERENCE.glob("ops*.json"))
    for case in load(path.name).get("cases", [])
]


def _method_name(op: str) -> str:
    return op.split(".")[-1]


def _method_call(case):
    """(receiver, method name, rest) for the method form of a recorded op case, or None."""
    name = _method_name(case["op"])
    if name not in PROTOTYPE_OPS or not hasattr(tf.Tensor, name) or not case["args"]:
        return None
    args = [decode(a) for a in case["args"]]
    first = args[0]
    if name in ("concat", "stack"):
        if not isinstance(first, list) or not first:
            return None
        return tf.Tensor(jnp.asarray(first[0])), name, [first[1:], *args[1:]]
    if name == "where":  # tf.where(condition, a, b) is a.where(condition, b)
        return tf.Tensor(jnp.asarray(args[1])), name, [args[0], *args[2:]]
    if not isinstance(first, jax.Array):
        return None
    return tf.Tensor(first), name, args[1:]


_METHOD_CASES = [c for c in _OP_CASES if c.get("expected") and _method_call(c) is not None]


def test_every_prototype_op_with_an_op_has_a_recorded_method_case():
    attached = {n for n in PROTOTYPE_OPS if hasattr(tf.Tensor, n)}
    recorded = {_method_name(c["op"]) for c in _METHOD_CASES}
    assert attached - recorded <= {"flatten", "all", "any", "cumsum", "cumprod", "round"}
    assert len(recorded) >= 40


@pytest.mark.parametrize("case", _METHOD_CASES, ids=lambda c: c["name"])
def test_method_form_matches_tfjs(case):
    receiver, name, rest = _method_call(case)
    assert_matches(getattr(receiver, name)(*rest), case["expected"])
    assert getattr(tf.Tensor, snake(name)) is getattr(tf.Tensor, name)


def _traceable(case):
    receiver, name, rest = _method_call(case)
    try:
        jax.eval_shape(lambda r: getattr(r, name)(*rest), receiver)
    except EagerOnlyError:
        return False
    return "random" not in case["name"].lower() and "seed" not in case["name"]


@pytest.mark.parametrize("case", _METHOD_CASES, ids=lambda c: c["name"])
def test_method_form_under_jax_jit_and_vmap(case):
    receiver, name, rest = _method_call(case)
    if not _traceable(case):
        pytest.skip("eager-only or random op")
    jitted = jax.jit(lambda r: getattr(r, name)(*rest))(receiver)
    assert_matches(jitted, case["expected"])
    assert all(isinstance(leaf, tf.Tensor) for leaf in leaves(jitted))
    stacked = tf.Tensor(jnp.stack([jnp.asarray(receiver)] * 2))
    mapped = jax.vmap(lambda r: getattr(r, name)(*rest))(stacked)
    for i in range(2):
        out = jax.tree.map(lambda x, i=i: x[i], mapped)
        assert_matches(out, case["expected"])


_GRAD_CASES = [
    c
    for c in _METHOD_CASES
    if c.get("grads")
    and c["grads"]["wrt"]
    and c["grads"]["wrt"][0] == [0]
    and _method_name(c["op"]) not in ("concat", "stack", "where")
]


@pytest.mark.parametrize("case", _GRAD_CASES, ids=lambda c: c["name"])
def test_method_form_inside_tf_grads_matches_tfjs(case):
    """tf.grads of sum(x.op(...) * w) with the receiver x a traced Tensor."""
    weights = [tf.Tensor(jnp.asarray(expected_array(w))) for w in case["grads"]["weights"]]
    args = [decode(a) for a in case["args"]]
    paths = case["grads"]["wrt"]
    name = _method_name(case["op"])

    def f(*xs):
        full = [list(a) if isinstance(a, list) else a for a in args]
        for path, x in zip(paths, xs):
            if len(path) == 1:
                full[path[0]] = x
            else:
                full[path[0]][path[1]] = x
        assert isinstance(full[0], tf.Tensor)  # what user code inside f sees
        out = leaves(getattr(full[0], name)(*full[1:]))
        floats = [leaf for leaf in out if jnp.issubdtype(leaf.dtype, jnp.floating)]
        total = tf.scalar(0)
        for leaf, w in zip(floats, weights):
            total = total.add(leaf.mul(w).sum())
        return total

    xs = [args[p[0]] if len(p) == 1 else args[p[0]][p[1]] for p in paths]
    grads = tf.grads(f)(xs)
    for grad, enc in zip(grads, case["grads"]["expected"]):
        assert isinstance(grad, tf.Tensor)
        assert_matches(grad, enc, GRAD_RTOL, GRAD_ATOL)


# -- the non-op API, against tfjs ---------------------------------------------------------


@pytest.mark.parametrize("entry", _FIXTURE["entries"], ids=lambda e: e["name"])
def test_non_op_api_matches_tfjs(entry):
    t = tf.Tensor(jnp.asarray(expected_array(entry["tensor"])))
    data = t.dataSync()
    assert data.ndim == 1
    expected_dtype = {"Float32Array": np.float32, "Int32Array": np.int32, "Uint8Array": np.bool_}
    assert data.dtype == expected_dtype[entry["dataSync"]["ctor"]]
    np.testing.assert_allclose(data.astype(np.float64), entry["dataSync"]["values"], rtol=1e-7)
    assert asyncio.run(_awaited(t.data())).tolist() == data.tolist()
    assert _same_nesting(t.arraySync(), entry["arraySync"])
    assert _same_nesting(asyncio.run(_awaited(t.array())), entry["array"])
    assert t.toString() == str(t) == entry["toString"]
    assert t.toString(True) == entry["toStringVerbose"]
    assert list(t.shape) == entry["shape"] and isinstance(t.shape, tuple)
    assert (t.rank, t.size) == (entry["rank"], entry["size"])
    assert t.dtype == entry["dtype"] and entry["dtype"] == t.dtype
    assert len(asyncio.run(_awaited(t.bytes()))) == entry["bytes"]
    buffer = t.bufferSync()
    assert list(buffer.shape) == entry["buffer"]["shape"]
    assert buffer.dtype == entry["buffer"]["dtype"]
    np.testing.assert_allclose(
        np.asarray(buffer.values, np.float64), entry["buffer"]["values"], rtol=1e-7
    )
    assert asyncio.run(_awaited(t.buffer())).dtype == buffer.dtype


async def _awaited(awaitable):
    return await awaitable


def _same_nesting(actual, expected):
    if isinstance(expected, list):
        return (
            isinstance(actual, list)
            and len(actual) == len(expected)
            and all(_same_nesting(a, e) for a, e in zip(actual, expected))
        )
    if isinstance(expected, bool):
        return actual is expected
    return isinstance(actual, (int, float)) and actual == pytest.approx(expected, rel=1e-7)


def test_print_writes_to_string(capsys):
    t = tf.tensor2d([[1, 2.5, -3], [4, 5, 6]])
    assert t.print() is None
    t.print(True)
    entry = next(e for e in _FIXTURE["entries"] if e["name"] == "matrix")
    assert capsys.readouterr().out == entry["toString"] + "\n" + entry["toStringVerbose"] + "\n"


@pytest.mark.parametrize("name", sorted(_FIXTURE["conversions"]))
def test_conversions_match_tfjs(name):
    x = tf.tensor2d([[1.7, -1.7, 0], [2.5, -0.5, 3]])
    calls = {
        "toInt": lambda: x.toInt(),
        "toBool": lambda: x.toBool(),
        "toFloat": lambda: tf.tensor1d([1, 2], "int32").toFloat(),
        "asType_int32": lambda: x.asType("int32"),
        "cast_bool": lambda: x.cast("bool"),
        "as1D": lambda: x.as1D(),
        "as2D": lambda: x.as2D(3, 2),
        "as3D": lambda: x.as3D(1, 3, 2),
        "as4D": lambda: x.as4D(1, 1, 3, 2),
        "as5D": lambda: x.as5D(1, 1, 1, 3, 2),
        "as2D_implicit": lambda: x.as2D(-1, 2),
        "as4D_implicit": lambda: x.as4D(-1, 1, 3, 2),
        "flatten": lambda: x.flatten(),
        "asScalar": lambda: tf.tensor1d([7]).asScalar(),
        "reshapeAs": lambda: x.reshapeAs(tf.zeros([3, 2])),
    }
    out = calls[name]()
    assert isinstance(out, tf.Tensor)
    assert_matches(out, _FIXTURE["conversions"][name])


@pytest.mark.parametrize("case", _FIXTURE["numbers"], ids=lambda c: c["dtype"])
def test_numbers_parse_straight_into_the_dtype_as_tfjs(case):
    """JS numbers are float64: int32 keeps 16777217 (not float32's 16777216), wraps modulo
    2**32 and takes NaN/infinities to 0; bool is Math.round(v) != 0."""
    values = [decode(v) for v in case["values"]]
    dtype = case["dtype"]
    assert_matches(tf.tensor1d(values, dtype), case["tensor1d"], rtol=0, atol=0)
    assert_matches(tf.tensor(values, [len(values)], dtype), case["tensor1d"], rtol=0, atol=0)
    for value, expected in zip(values, case["scalars"]):
        assert_matches(tf.scalar(value, dtype), expected, rtol=0, atol=0)
        assert_matches(tf.tensor(value, None, dtype), expected, rtol=0, atol=0)


def test_conversion_errors_have_tfjs_messages():
    x = tf.tensor2d([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError) as info:
        x.as2D(4, 2)
    assert str(info.value) == _FIXTURE["errors"]["as2D_size"]
    with pytest.raises(ValueError) as info:
        x.as2D(-1, 4)
    assert str(info.value) == _FIXTURE["errors"]["as2D_fractional"]
    with pytest.raises(ValueError) as info:
        x.asScalar()
    assert str(info.value) == _FIXTURE["errors"]["asScalar_size"]


def test_clone_and_dispose_as_tfjs():
    behaviours = _FIXTURE["behaviours"]
    original = tf.tensor1d([1, 2, 3])
    clone = original.clone()
    original.dispose()
    assert original.isDisposed is behaviours["isDisposed_after"]
    assert clone.isDisposed is behaviours["isDisposed_before"]
    assert_matches(clone, behaviours["clone_after_dispose"])
    for read in (original.dataSync, original.square, lambda: tf.add(original, 1), original.print):
        with pytest.raises(ValueError) as info:
            read()
        assert str(info.value) == behaviours["disposed_read"]
    with pytest.raises(ValueError, match="Tensor is disposed."):
        original.throwIfDisposed()
    clone.throwIfDisposed()


def test_buffer_is_a_copy_and_truncates_for_int32():
    expected = _FIXTURE["behaviours"]["int_buffer_set"]
    t = tf.tensor2d([[1, 2], [3, 4]], [2, 2], "int32")
    buffer = t.bufferSync()
    buffer.set(9.7, 0, 1)
    assert buffer.get(0, 1) == expected["get"]
    assert_matches(buffer.toTensor(), expected["toTensor"])
    assert isinstance(buffer.toTensor(), tf.Tensor)
    assert t.arraySync() == [[1, 2], [3, 4]]  # the tensor stays immutable


def test_variable_method():
    expected = _FIXTURE["behaviours"]["variable"]
    v = tf.tensor1d([1, 2]).variable(False, expected["name"], "float32")
    assert isinstance(v, tf.Variable) and isinstance(v, tf.Tensor)
    assert (v.name, v.trainable) == (expected["name"], expected["trainable"])
    assert_matches(v, expected["value"])
    v.dispose()


# -- methods, operators, errors --------------------------------------------------------


def test_keep_dims_is_positional_and_numpy_keywords_work():
    t = tf.tensor2d([[1, 2, 3], [4, 5, 6]])
    assert t.mean(0, True).shape == (1, 3)
    assert t.sum(-1, True).arraySync() == [[6], [15]]
    assert t.sum(axis=0, keepdims=True).arraySync() == t.sum(0, True).arraySync()
    assert float(np.sum(t)) == 21 and float(np.mean(t)) == 3.5
    assert t.transpose().shape == (3, 2) and t.T.shape == (3, 2)
    assert t.argMax().arraySync() == [1, 1, 1]  # axis 0 by default
    assert t.cumsum().arraySync() == [[1, 2, 3], [5, 7, 9]]


def test_chains_of_any_length():
    x = tf.tensor1d([1, 2, 3, 4, 5, 6])
    w = tf.ones([2, 1])
    out = x.reshape([2, 3]).transpose().matMul(w).relu().sum().add(1)
    assert out.arraySync() == 22
    z = tf.tensor1d([1, -1, 2])
    assert z.relu().sum().add(z.neg().relu().sum()).arraySync() == 4
    assert x.concat([x], 0).shape == (12,) and x.stack(x).shape == (2, 6)
    assert x.where(x.greater(3), x.neg()).arraySync() == [-1, -2, -3, 4, 5, 6]


def test_operators_are_the_tf_ops():
    i = tf.tensor1d([1, 2], "int32")
    assert (i + 1).dtype == "float32"  # tf.add: the JS number 1 is float32
    assert (i + 1).dtype == tf.add(i, 1).dtype
    x = tf.tensor1d([1, 2, 3])
    assert (x * 2 - 1).arraySync() == [1, 3, 5]
    assert (2 / x).arraySync() == pytest.approx([2, 1, 2 / 3])
    assert (x**2).arraySync() == [1, 4, 9] and (-x).arraySync() == [-1, -2, -3]
    assert abs(tf.tensor1d([-1, 2])).arraySync() == [1, 2]
    assert (x > 1).arraySync() == [False, True, True]
    assert (x == 2).arraySync() == [False, True, False]
    assert (x @ x).arraySync() == 14  # vectors: tf.dot
    m = tf.tensor2d([[1, 2], [3, 4]])
    assert (m @ m).arraySync() == [[7, 10], [15, 22]]
    assert all(isinstance(r, tf.Tensor) for r in (x + 1, 1 + x, x @ x, m @ m, x < 2, -x))


def test_a_jax_or_numpy_array_on_the_left_gives_the_tf_op():
    x = tf.tensor1d([1, 2, 3])
    m = tf.tensor2d([[1, 2], [3, 4]])
    for left in (jnp.asarray([2.0, 4.0, 8.0]), np.asarray([2.0, 4.0, 8.0], np.float32)):
        cases = {
            "+": (left + x, tf.add(left, x)),
            "-": (left - x, tf.sub(left, x)),
            "*": (left * x, tf.mul(left, x)),
            "/": (left / x, tf.div(left, x)),
            "**": (left**x, tf.pow(left, x)),
            "@": (left @ x, tf.dot(left, x)),
            ">": (left > x, tf.greater(left, x)),
            "==": (left == x, tf.equal(left, x)),
        }
        for name, (got, expected) in cases.items():
            assert type(got) is tf.Tensor, (type(left), name)
            assert got.arraySync() == expected.arraySync() and got.dtype == expected.dtype
    rows = jnp.asarray([[1.0, 0.0]]) @ m
    assert type(rows) is tf.Tensor and rows.arraySync() == [[1, 2]]
    # so a method chain after one works, eagerly, on the tape and under jax.jit
    w = tf.variable(tf.tensor2d([[1.0, -1.0], [2.0, 0.5]]), name="left_operand_w")
    batch = jnp.asarray([[1.0, 2.0], [-1.0, 1.0]])
    assert (batch @ w).relu().sum().arraySync() == 7.5  # relu([[5, 0], [1, 1.5]])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value, grads = tf.variableGrads(lambda: (batch @ w).relu().sum())
    assert not [c for c in caught if "cannot record" in str(c.message)]  # stayed on the tape
    expected = jax.grad(lambda a: jnp.sum(jax.nn.relu(batch @ a)))(jnp.asarray(w))
    np.testing.assert_allclose(np.asarray(grads[w.name]), expected)
    assert float(value) == 7.5
    # a tracer on the left (the user's own transform) keeps JAX's operator and its array
    data = jnp.ones(2)  # a concrete array closed over is still an array: the tf op
    assert type(jax.jit(lambda a: data * a)(tf.ones([2]))) is tf.Tensor
    assert not isinstance(jax.jit(lambda a, b: a * b)(jnp.ones(2), tf.ones([2])), tf.Tensor)
    assert float(jax.grad(lambda s: s * tf.scalar(3.0))(1.0)) == 3.0
    assert type(jnp.sin(x)) is not tf.Tensor  # jnp functions still give jax Arrays
    w.dispose()


def test_python_protocols_behave_as_on_a_jax_array():
    x = tf.tensor1d([1, 2, 3])
    assert len(x) == 3 and [float(r) for r in x] == [1, 2, 3]
    assert isinstance(x[0], tf.Tensor) and float(x[1]) == 2 and int(x[2]) == 3
    assert x[tf.tensor1d([0, 2], "int32")].arraySync() == [1, 3]
    assert bool(x.sum() > 5) and x.sum().item() == 6
    assert x.tolist() == [1, 2, 3] and x.ndim == 1 and x.nbytes == 12 and x.itemsize == 4
    assert x.astype("int32").dtype == "int32" and isinstance(x.astype("int32"), tf.Tensor)
    assert x.at[0].set(9).arraySync() == [9, 2, 3] and x.arraySync() == [1, 2, 3]
    assert not x.is_deleted() and x.block_until_ready() is x
    assert x.devices() == jnp.asarray(x).devices() and x.sharding is not None
    assert isinstance(x.id, int) and x.id != x.clone().id
    assert "shape=(3,)" in repr(x) and "float32" in repr(x) and "1." in repr(x)
    with pytest.raises(TypeError):
        x[0] = 1


def test_unknown_and_not_yet_implemented_attributes():
    x = tf.ones([2])
    with pytest.raises(AttributeError, match="'tf.Tensor' object has no attribute 'fooBar'"):
        x.fooBar  # noqa: B018
    missing = [n for n in PROTOTYPE_OPS if not hasattr(tf.Tensor, n)]
    for name in missing[:3]:
        with pytest.raises(NotImplementedError, match=f"tf.Tensor.{name}"):
            getattr(x, name)


def test_no_message_names_a_jax_tracer_type():
    def f(x):
        x.fooBar  # noqa: B018
        return x

    for run in (lambda: tf.grad(f)(tf.ones([2])), lambda: jax.jit(f)(tf.ones([2]))):
        with pytest.raises(AttributeError) as info:
            run()
        assert "Tracer" not in str(info.value) and "tf.Tensor" in str(info.value)


def test_jnp_numpy_and_lax_composition():
    x = tf.tensor1d([1, 2, 3])
    assert isinstance(jnp.sin(x), jax.Array) and not isinstance(jnp.sin(x), tf.Tensor)
    assert isinstance(np.asarray(x), np.ndarray)
    assert float(jax.lax.add(jnp.asarray(x), 1.0)[0]) == 2  # lax takes the array
    g = jax.grad(lambda x: jnp.asarray(tf.sum(tf.square(x))))(jnp.asarray(x))
    np.testing.assert_allclose(g, [2, 4, 6])
    assert tf.grad(lambda x: x.square())(jnp.asarray(x)).arraySync() == [2, 4, 6]


def test_tensors_pass_through_jax_transforms_and_tree_utilities():
    t = tf.tensor2d([[1, -2], [3, 4]])
    w = tf.tensor2d([[1, 0], [0, 1]])
    out = jax.jit(lambda x, w: x.matMul(w).relu())(t, w)
    assert isinstance(out, tf.Tensor) and out.arraySync() == [[1, 0], [3, 4]]
    rows = jax.vmap(lambda r: r.square().sum())(t)
    assert isinstance(rows, tf.Tensor) and rows.arraySync() == [5, 25]
    _, scanned = jax.lax.scan(lambda c, r: (c, r.sum()), 0.0, t)
    assert isinstance(scanned, tf.Tensor) and scanned.arraySync() == [-1, 7]
    assert isinstance(jax.tree.map(lambda a: a * 2, t), tf.Tensor)
    assert len(jax.tree.leaves({"a": t})) == 1


# -- every public result is a Tensor -----------------------------------------------------


def test_every_public_function_returns_tensors():
    x = tf.tensor1d([1, 2, 3])
    v = tf.variable(tf.tensor1d([1, 2]), name="result_types_v")
    opt = tf.train.sgd(0.1)
    results = {
        "tensor": tf.tensor([1, 2]),
        "scalar": tf.scalar(1),
        "zeros": tf.zeros([2]),
        "randomNormal": tf.randomNormal([2]),
        "op": tf.add(x, 1),
        "loss": tf.losses.meanSquaredError(x, x),
        "grad": tf.grad(lambda x: x.square())(x),
        "stopGradient": tf.stopGradient(x),
        "tidy": tf.tidy(lambda: x.square()),
        "minimize": opt.minimize(lambda: v.square().sum(), True),
        "toTensor": tf.buffer([2]).toTensor(),
    }
    results["grads"] = tf.grads(lambda a, b: a.mul(b))([x, x])
    results["valueAndGrad"] = list(tf.valueAndGrad(lambda x: x.sum())(x))
    results["valueAndGrads"] = tf.valueAndGrads(lambda a: a.sum())([x])
    value, grads = tf.variableGrads(lambda: v.square().sum())
    results["variableGrads"] = [value, *grads.values()]
    square = tf.customGrad(lambda x, save: {"value": x.square(), "gradFunc": lambda dy, s: dy})
    results["customGrad"] = square(x)
    results["jit"] = tf.jit(lambda x: x.square())(x)
    results["moments"] = list(tf.moments(x))
    for name, result in results.items():
        found = leaves(result) if isinstance(result, (list, tuple)) else [result]
        assert found and all(type(r) is tf.Tensor for r in found), (name, result)
    v.dispose()


def test_every_async_op_awaits_to_tensors():
    boxes, scores = [[0, 0, 1, 1], [0, 5, 1, 6]], [0.5, 0.9]
    awaitables = {
        "whereAsync": tf.whereAsync(tf.tensor1d([True, False], "bool")),
        "setdiff1dAsync": tf.setdiff1dAsync([4, 1, 3], [3]),
        "booleanMaskAsync": tf.booleanMaskAsync([1, 2], tf.tensor1d([True, False], "bool")),
        "inTopKAsync": tf.inTopKAsync([[0.1, 0.9]], [1], 1),
        "nonMaxSuppressionAsync": tf.image.nonMaxSuppressionAsync(boxes, scores, 2),
        "nonMaxSuppressionWithScoreAsync": tf.image.nonMaxSuppressionWithScoreAsync(
            boxes, scores, 2
        ),
        "nonMaxSuppressionPaddedAsync": tf.image.nonMaxSuppressionPaddedAsync(boxes, scores, 2),
    }
    for name, awaitable in awaitables.items():
        result = asyncio.run(_awaited(awaitable))
        found = leaves(result) if isinstance(result, (list, tuple)) else [result]
        assert found and all(type(r) is tf.Tensor for r in found), (name, result)


def test_values_inside_f_are_tensors():
    seen = []
    v = tf.variable(tf.tensor1d([1, 2]), name="inside_f_v")
    opt = tf.train.sgd(0.1)

    def note(t):
        seen.append(type(t))
        return t

    tf.grad(lambda x: note(x).square())(tf.ones([2]))
    tf.grads(lambda a, b: note(a).mul(note(b)))([tf.ones([2]), tf.ones([2])])
    tf.variableGrads(lambda: note(v.square()).sum())
    opt.minimize(lambda: note(v.square()).sum())
    tf.jit(lambda x: note(x).sum())(jnp.ones(2))
    tf.jit(lambda: opt.minimize(lambda: note(v.square()).sum(), True))()
    tf.customGrad(lambda x, save: {"value": note(x).square(), "gradFunc": lambda dy, s: note(dy)})(
        tf.ones([2])
    )
    assert seen and all(issubclass(t, tf.Tensor) for t in seen)
    v.dispose()


def test_variable_grads_and_minimize_with_methods_under_tf_jit():
    w = tf.variable(tf.tensor1d([1, -2]), name="jit_methods_w")
    opt = tf.train.sgd(0.1)

    @tf.jit
    def step():
        value, grads = tf.variableGrads(lambda: w.square().sum())
        assert isinstance(value, tf.Tensor) and isinstance(grads[w.name], tf.Tensor)
        return opt.minimize(lambda: w.square().sum(), True)

    costs = [step().arraySync() for _ in range(3)]
    np.testing.assert_allclose(costs, [5, 3.2, 2.048], rtol=1e-6)
    assert isinstance(step(), tf.Tensor)
    w.dispose()


# -- Variables: a Tensor subclass; copies are independent (issue 19 items 1, 2) -----------


def test_variable_is_a_tensor_with_identity_equality():
    v = tf.variable(tf.tensor1d([1, 2]), name="identity_v")
    assert isinstance(v, tf.Tensor) and isinstance(v.value, jax.Array)
    assert v.square().sum().arraySync() == 5 and (v + 1).arraySync() == [2, 3]
    assert {v: 1}[v] == 1 and v == v and v != tf.variable(v, name="identity_w")
    tf.dispose_variables()


def test_copy_of_a_variable_is_independent_after_a_jit_step():
    v = tf.variable(tf.tensor1d([1, 2]), name="copied_v")
    c = copy.copy(v)
    assert c is not v and c.name != v.name and c.id != v.id
    opt = tf.train.sgd(0.5)
    step = tf.jit(lambda: opt.minimize(lambda: v.square().sum()))
    step()
    step()
    assert c.arraySync() == [1, 2]  # the copy's own buffer: not deleted, not trained
    assert v.arraySync() == [0, 0]


def test_deepcopy_target_network_does_not_train_with_the_online_one():
    online = {"w": tf.variable(tf.tensor1d([1, 2]), name="online_w")}
    target = copy.deepcopy(online)
    assert target["w"] is not online["w"] and target["w"].name != "online_w"
    opt = tf.train.sgd(0.5)
    step = tf.jit(lambda: opt.minimize(lambda: online["w"].square().sum()))
    step()
    assert target["w"].arraySync() == [1, 2] and online["w"].arraySync() == [0, 0]
    target["w"].assign(tf.tensor1d([5, 5]))
    assert online["w"].arraySync() == [0, 0]
    model = [online["w"], online["w"]]
    copied = copy.deepcopy(model)
    assert copied[0] is copied[1] and copied[0] is not online["w"]
    tf.dispose_variables()


def test_variables_refuse_pickling_and_tensors_pickle():
    v = tf.variable(tf.tensor1d([1, 2]), name="pickled_v")
    with pytest.raises(TypeError, match="cannot be pickled"):
        pickle.dumps(v)
    t = pickle.loads(pickle.dumps(tf.tensor1d([1, 2])))
    assert isinstance(t, tf.Tensor) and t.arraySync() == [1, 2]
    v.dispose()


# -- tidy (issue 19 items 4, 17) ------------------------------------------------------------


def test_nested_tidy_returns_a_tensor_created_outside():
    x = tf.scalar(1)
    y = tf.tidy(lambda: tf.tidy(lambda: x))
    assert y is x and not x.isDisposed and x.arraySync() == 1
    inner = []
    z = tf.tidy(lambda: tf.tidy(lambda: inner.append(tf.ones([2])) or inner[0]))
    assert z is inner[0] and not z.isDisposed


def test_tidy_never_frees_an_array_the_user_made_outside():
    mine = jnp.ones(3)
    v = tf.variable(mine, name="tidy_alias_v")
    for make in (lambda: tf.tensor(v), lambda: tf.tensor1d(v), lambda: tf.concat([v])):
        tf.tidy(lambda make=make: [make()] and None)
        opt = tf.train.sgd(0.1)
        tf.jit(lambda opt=opt: opt.minimize(lambda: v.square().sum()))()
        np.testing.assert_array_equal(mine, [1, 1, 1])
    v.dispose()
    assert not mine.is_deleted()


def test_tidy_disposes_what_it_made_and_keeps_what_it_returns():
    made = []

    def body():
        a = tf.ones([2])
        kept = tf.keep(tf.zeros([2]))
        made.extend([a, kept])
        return a.add(1)

    out = tf.tidy(body)
    assert made[0].isDisposed and not made[1].isDisposed and not out.isDisposed
    before = tf.memory().numTensors
    for _ in range(5):
        tf.tidy(lambda: tf.ones([8]).square().sum())
    assert tf.memory().numTensors == before
