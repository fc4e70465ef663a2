"""Tensor methods shared with numpy's ndarray: tfjs's positional forms and numpy's keywords.

Every expected number comes from numpy or jnp applied to the raw array.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfjs_grad as tf

A = np.array([[-2.0, 1.5, 3.0], [0.0, -1.0, 2.5]], dtype=np.float32)
MASK = np.array([[True, False, True], [False, True, True]])


def close(got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.fixture(params=["tensor", "variable"])
def x(request):
    t = tf.tensor(A)
    if request.param == "variable":
        v = tf.variable(t)
        yield v
        v.dispose()
    else:
        yield t


# -- as a tfjs user writes them ---------------------------------------------------------


def test_tfjs_positional_forms_keep_their_meaning():
    t = tf.tensor(A)
    close(t.sum(0, True), A.sum(axis=0, keepdims=True))  # (axis, keepDims)
    close(t.mean(-1, True), A.mean(axis=-1, keepdims=True))
    close(t.max([0, 1]), A.max())
    close(t.reshape([3, 2]), A.reshape(3, 2))
    close(t.transpose([1, 0]), A.T)
    close(t.cumsum(), np.cumsum(A, axis=0))  # tfjs: axis 0 by default
    ex = np.concatenate([np.zeros((2, 1), np.float32), np.cumsum(A, axis=1)[:, :-1]], axis=1)
    close(t.cumsum(1, True), ex)  # (axis, exclusive)
    close(t.argMax(), np.argmax(A, axis=0))  # tfjs's argMax: axis 0
    assert t.sum(0, True).dtype == "float32" and isinstance(t.sum(0, True), tf.Tensor)


def test_tfjs_dtype_rules_and_errors_unchanged():
    b = tf.tensor([True, False, True], None, "bool")
    assert b.sum().dtype == "int32" and int(b.sum()) == 2
    with pytest.raises(TypeError, match="'x' passed to 'all' must be bool"):
        tf.tensor(A).all()
    with pytest.raises(TypeError, match="'x' passed to 'all' must be bool"):
        tf.tensor(A).all(0)  # axis alone stays tfjs's call
    with pytest.raises(ValueError):
        tf.tensor(A).reshape([4, 2])


# -- as a JAX / numpy user writes them ----------------------------------------------------


def test_numpy_keywords_on_methods(x):
    close(x.sum(axis=0, keepdims=True), A.sum(axis=0, keepdims=True))
    close(x.sum(axis=(0, 1)), A.sum(axis=(0, 1)))
    close(x.mean(axis=1, keepdims=True), A.mean(axis=1, keepdims=True))
    close(x.sum(axis=0, where=MASK, initial=1.0), A.sum(axis=0, where=MASK, initial=1.0))
    close(x.max(axis=1, initial=2.0), A.max(axis=1, initial=2.0))
    close(x.min(axis=0, where=MASK, initial=9.0), A.min(axis=0, where=MASK, initial=9.0))
    close(x.mean(axis=1, where=MASK), A.mean(axis=1, where=MASK))
    close(x.prod(axis=0, dtype="float32"), A.prod(axis=0, dtype=np.float32))
    close(x.all(axis=0, keepdims=True), A.all(axis=0, keepdims=True))  # numpy: x != 0
    close(x.any(axis=1, out=None), A.any(axis=1))
    close(x.cumsum(axis=None), np.cumsum(A))  # numpy's keyword: flattened
    close(x.cumprod(axis=1, dtype="float32"), np.cumprod(A, axis=1))
    close(x.argmax(), np.argmax(A))
    close(x.argmin(axis=1, keepdims=True), np.argmin(A, axis=1, keepdims=True))
    close(x.clip(-1, 2), np.clip(A, -1, 2))
    close(x.clip(min=0.0), np.clip(A, 0.0, None))
    close(x.clip(a_min=-1.0, a_max=1.0), np.clip(A, -1.0, 1.0))
    close(x.round(decimals=1), jnp.round(jnp.asarray(A) / 1, 1))
    close(x.round(), np.round(A))
    close(x.reshape((-1,), order="C"), A.reshape(-1))
    close(x.reshape(3, 2, order="F"), A.reshape(3, 2, order="F"))
    close(x.ravel(), A.ravel())
    close(x.ravel(order="F"), A.ravel(order="F"))
    close(x.flatten(order="K"), A.flatten())
    close(x.transpose(1, 0), A.transpose(1, 0))
    close(x.take(np.array([0, -1]), axis=1), A.take([0, -1], axis=1))
    close(x.repeat(2, axis=0), A.repeat(2, axis=0))
    close(x.astype("int32", copy=False), A.astype(np.int32))
    close(x.dot(tf.tensor(A.T), out=None), A.dot(A.T))
    for got in (x.sum(axis=0, where=MASK), x.clip(0, 1), x.argmax(), x.ravel()):
        assert isinstance(got, tf.Tensor)


def test_numpy_functions_call_the_methods():
    t = tf.tensor(A)
    close(np.sum(t, axis=0, where=MASK, initial=1.0), np.sum(A, axis=0, where=MASK, initial=1))
    close(np.max(t, axis=0, initial=2.5), np.max(A, axis=0, initial=2.5))
    close(np.mean(t, axis=1, where=MASK), np.mean(A, axis=1, where=MASK))
    close(np.prod(t, axis=0, dtype=np.float32), np.prod(A, axis=0))
    close(np.all(t, axis=0), np.all(A, axis=0))
    close(np.cumsum(t), np.cumsum(A))
    close(np.reshape(t, (3, 2), order="F"), np.reshape(A, (3, 2), order="F"))
    assert isinstance(np.sum(t, axis=0, where=MASK), tf.Tensor)


JNP_CASES = {
    "reshape": lambda a: jnp.reshape(a, (-1,)),
    "reshape_3x2": lambda a: jnp.reshape(a, (3, 2)),
    "ravel": jnp.ravel,
    "transpose": jnp.transpose,
    "squeeze": lambda a: jnp.squeeze(jnp.reshape(a, (1, 6))),
    "sum": lambda a: jnp.sum(a, axis=0, keepdims=True),
    "sum_where": lambda a: jnp.sum(a, axis=0, where=MASK, initial=0.0),
    "mean_where": lambda a: jnp.mean(a, axis=1, where=MASK),
    "max": lambda a: jnp.max(a, axis=0, initial=0.5),
    "min": lambda a: jnp.min(a, axis=1, keepdims=True),
    "prod": lambda a: jnp.prod(a, axis=0, dtype=jnp.float32),
    "all": lambda a: jnp.all(a, axis=0),
    "any": lambda a: jnp.any(a, axis=1, keepdims=True),
    "argmax": lambda a: jnp.argmax(a, axis=1),
    "argmin": lambda a: jnp.argmin(a, axis=0, keepdims=True),
    "cumsum": lambda a: jnp.cumsum(a, axis=1),
    "cumprod": jnp.cumprod,
    "clip": lambda a: jnp.clip(a, min=-1.0, max=2.0),
    "round": lambda a: jnp.round(a / 3, 2),
}


@pytest.mark.parametrize("name", sorted(JNP_CASES))
@pytest.mark.parametrize("mode", ["eager", "jit"])
def test_jnp_functions_on_tensors_and_variables(name, mode, x):
    fn = JNP_CASES[name]
    want = fn(jnp.asarray(A))
    run = jax.jit(fn) if mode == "jit" else fn
    close(run(x), want)


@pytest.mark.parametrize("name", ["reshape", "ravel", "sum", "sum_where", "argmax", "clip"])
def test_jnp_functions_under_vmap(name):
    fn = JNP_CASES[name]
    batch = np.stack([A, A * 2])
    close(jax.vmap(fn)(tf.tensor(batch)), jax.vmap(fn)(jnp.asarray(batch)))


def test_jit_keeps_tensors_and_gradients_match_jax():
    out = jax.jit(lambda t: jnp.reshape(t, (-1,)))(tf.tensor(A))
    assert isinstance(out, tf.Tensor)
    close(out, A.reshape(-1))

    def loss(a):
        return jnp.sum(a, where=MASK) + (a * a).sum(axis=0, where=MASK, initial=1.0).sum()

    want = jax.grad(loss)(jnp.asarray(A))
    close(tf.grad(loss)(tf.tensor(A)), want)

    def fortran(a):
        return a.reshape((3, 2), order="F").sum(axis=0)[0]

    close(tf.grad(fortran)(tf.tensor(A)), jax.grad(fortran)(jnp.asarray(A)))


# -- adversarial -----------------------------------------------------------------------


def test_positional_and_keyword_conflicts_raise():
    t = tf.tensor(A)
    with pytest.raises(TypeError, match="multiple values for argument 'axis'"):
        t.sum(0, axis=1)
    with pytest.raises(TypeError, match="multiple values for argument 'keepdims'"):
        t.sum(0, True, keepdims=False)
    with pytest.raises(TypeError, match="multiple values for argument 'axis'"):
        t.cumsum(0, axis=1)
    with pytest.raises(TypeError, match="multiple values for argument 'min'"):
        t.clip(0, min=1)
    with pytest.raises(TypeError, match="multiple values for argument 'min'"):
        t.clip(0, a_min=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'dtype'"):
        t.max(dtype="float32")  # ndarray.max has no dtype
    with pytest.raises(TypeError, match="unexpected keyword argument 'initial'"):
        t.mean(initial=0.0)


@pytest.mark.parametrize(
    "call",
    [
        lambda t, o: t.sum(out=o),
        lambda t, o: t.max(axis=0, out=o),
        lambda t, o: t.cumsum(axis=0, out=o),
        lambda t, o: t.round(out=o),
        lambda t, o: t.clip(0, 1, out=o),
        lambda t, o: t.argmax(out=o),
        lambda t, o: t.take([0], out=o),
        lambda t, o: t.dot(t, out=o),
        lambda t, o: np.sum(t, out=o),
    ],
)
def test_out_is_refused(call):
    t = tf.tensor(A)
    with pytest.raises(TypeError, match="out="):
        call(t, np.empty((), np.float32))


def test_bad_order_and_casting():
    t = tf.tensor(A)
    with pytest.raises(ValueError, match="order"):
        t.reshape((-1,), order="K")  # numpy refuses 'K' for reshape too
    with pytest.raises(ValueError, match="order"):
        t.reshape((-1,), order="Z")
    with pytest.raises(ValueError, match="order"):
        jnp.reshape(t, (-1,), order="X")
    with pytest.raises(ValueError, match="order"):
        t.ravel(order=3)
    with pytest.raises(ValueError, match="order"):
        t.astype("int32", order="Q")
    assert not np.can_cast(np.float32, np.int32, "safe")
    with pytest.raises(TypeError, match="'safe'"):
        t.astype("int32", casting="safe")
    close(t.astype("float32", casting="no"), A)


def test_take_raise_mode_checks_bounds():
    t = tf.tensor(A)
    close(t.take([0, -1], mode="raise"), A.take([0, -1], mode="raise"))
    with pytest.raises(IndexError):
        t.take([6], mode="raise")


def test_disposed_tensor_still_raises():
    t = tf.tensor(A)
    t.dispose()
    with pytest.raises(ValueError, match="disposed"):
        t.sum(axis=0, where=MASK)
    with pytest.raises(ValueError, match="disposed"):
        jnp.reshape(t, (-1,))


# -- property test -------------------------------------------------------------------------


@st.composite
def _case(draw):
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    ndim = len(shape)
    axis = draw(
        st.one_of(
            st.none(),
            st.integers(-ndim, ndim - 1),
            st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True).map(tuple),
        )
    )
    keepdims = draw(st.booleans())
    seed = draw(st.integers(0, 2**16))
    return shape, axis, keepdims, seed


@settings(max_examples=40, deadline=None)
@given(case=_case(), method=st.sampled_from(["sum", "mean", "max", "min", "prod"]))
def test_reductions_match_numpy(case, method):
    shape, axis, keepdims, seed = case
    a = np.random.default_rng(seed).uniform(-2, 2, shape).astype(np.float32)
    want = getattr(a, method)(axis=axis, keepdims=keepdims)
    got = getattr(tf.tensor(a), method)(axis=axis, keepdims=keepdims)
    assert isinstance(got, tf.Tensor)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-5, atol=1e-6)
    assert np.asarray(got).shape == want.shape
