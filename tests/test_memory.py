"""tidy / keep / dispose / memory (tfjs's memory API over JAX's live arrays)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfjs_grad as tf


def test_tidy_argument_errors_carry_tfjs_messages():
    with pytest.raises(TypeError, match="^Please provide a function to tidy\\(\\)$"):
        tf.tidy(3)
    with pytest.raises(TypeError, match="the first argument to tidy\\(\\) must be a string"):
        tf.tidy(3, lambda: None)
    with pytest.raises(TypeError, match="the 2nd argument to tidy\\(\\) must be a function"):
        tf.tidy("name", 3)


def test_tidy_frees_temporaries_and_keeps_what_is_returned_or_kept():
    kept_outside = []

    def body():
        a = tf.ones([4])
        b = tf.tensor([3.0] * 4)
        kept_outside.append(tf.keep(tf.tensor([9.0] * 4)))
        temporary_refs.append(a)
        return {"result": [b]}

    temporary_refs: list[jax.Array] = []
    out = tf.tidy("named", body)
    assert temporary_refs[0].is_deleted()
    np.testing.assert_allclose(out["result"][0], [3.0] * 4)
    np.testing.assert_allclose(kept_outside[0], [9.0] * 4)


def test_tidy_frees_what_operators_on_variables_make():
    v = tf.variable(tf.tensor1d([1.0, 2.0]), name="v")
    made = []
    tf.tidy(lambda: made.append(v * 2))
    assert made[0].is_deleted()
    np.testing.assert_allclose(v.value, [1.0, 2.0])


def test_tidy_leaves_arrays_it_was_given():
    x = jnp.ones(3)
    tf.tidy(lambda: tf.tensor(x))
    assert not x.is_deleted()


def test_tidy_returns_the_same_object():
    box = {"x": tf.ones([2])}
    assert tf.tidy(lambda: box) is box


def test_nested_tidy_result_not_returned_by_outer_is_freed():
    inner_results = []

    def outer():
        inner_results.append(tf.tidy(lambda: tf.ones([3])))
        return tf.scalar(1.0) * 2

    tf.tidy(outer)
    assert inner_results[0].is_deleted()


def test_tidy_frees_even_when_fn_raises():
    refs = []

    def body():
        refs.append(tf.ones([2]))
        raise RuntimeError("inside")

    with pytest.raises(RuntimeError, match="inside"):
        tf.tidy(body)
    assert refs[0].is_deleted()


def test_tidy_never_frees_variables_or_optimizer_state():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.adam(0.1)
    tf.tidy(lambda: opt.minimize(lambda: (w**2).sum()))
    tf.tidy(lambda: opt.minimize(lambda: (w**2).sum()))
    assert opt.iterations == 2
    assert all(not np.isnan(np.asarray(t)).any() for _, t in opt.get_weights())
    created_inside = tf.tidy(lambda: tf.variable(tf.zeros([2]), name="inside"))
    np.testing.assert_allclose(created_inside.value, [0.0, 0.0])


def test_dispose_walks_containers_and_is_idempotent():
    a, b, c = tf.ones([2]), tf.ones([3]), tf.ones([4])
    v = tf.variable(tf.ones([2]), name="v")
    tf.dispose({"a": a, "rest": [b, {"c": c}], "v": v})
    assert a.is_deleted() and b.is_deleted() and c.is_deleted()
    assert v.is_disposed and "v" not in tf.registered_variables()
    tf.dispose([a, v])
    with pytest.raises(ValueError, match="Tensor is disposed."):
        np.asarray(a)
    with pytest.raises(ValueError, match="disposed"):
        v + 1


def test_memory_counts_live_arrays_and_bytes():
    before = tf.memory()
    arrays = [tf.zeros([10]), tf.zeros([10], "int32"), tf.zeros([10], "bool")]
    after = tf.memory()
    assert after.num_tensors - before.num_tensors == 3
    assert after.num_bytes - before.num_bytes == 40 + 40 + 10
    tf.dispose(arrays)
    assert tf.memory().num_tensors == before.num_tensors


def test_memory_functions_are_no_ops_under_tracing():
    @jax.jit
    def f(x):
        y = tf.tidy(lambda: x * 2)
        tf.dispose(y)
        return y + 1

    np.testing.assert_allclose(f(jnp.ones(2)), [3.0, 3.0])


def test_keep_rejects_non_arrays():
    with pytest.raises(TypeError, match="keep"):
        tf.keep([1, 2])


def test_ten_thousand_tidy_training_steps_do_not_leak():
    # The seed's linear model y = a*x + b, trained with minimize inside tidy.
    xs, ys = tf.tensor1d([1, 2, 3, 4]), tf.tensor1d([1, 3, 5, 7])
    a = tf.variable(tf.scalar(0.1), name="a")
    b = tf.variable(tf.scalar(0.1), name="b")
    opt = tf.train.sgd(0.05)
    loss = lambda: tf.losses.mean_squared_error(ys, a * xs + b)  # noqa: E731
    after_100 = None
    for step in range(10_000):
        tf.tidy(lambda: opt.minimize(loss))
        if step == 99:
            after_100 = tf.memory().num_tensors
    assert tf.memory().num_tensors == after_100
    np.testing.assert_allclose([float(a.value), float(b.value)], [2.0, -1.0], atol=1e-3)


# A random nest of tidies, checked against a model of tfjs's rule: a Tensor made in a tidy
# outlives it only if that tidy returns it (alone or in a list or dict) or it was kept;
# what an inner tidy returns belongs to the enclosing one, which frees it unless it too
# returns it.
_tidy_nests = st.recursive(
    st.fixed_dictionaries(
        {"made": st.integers(0, 3), "kept": st.integers(0, 3), "children": st.just([])}
    ),
    lambda inner: st.fixed_dictionaries(
        {
            "made": st.integers(0, 3),
            "kept": st.integers(0, 3),
            "children": st.lists(inner, max_size=2),
        }
    ),
    max_leaves=6,
)


@settings(max_examples=100, deadline=None)
@given(_tidy_nests, st.data())
def test_tidy_nests_free_exactly_what_no_tidy_returns_or_keeps(nest, data):
    tensors: dict[int, tf.Tensor] = {}
    kept_ids: set[int] = set()
    alive: dict[int, bool] = {}  # id(tensor) -> expected to outlive the outermost tidy

    def shaped(chosen):  # the shapes a tidy returns: one Tensor (its fast path), list, dict
        form = data.draw(st.sampled_from(["single", "list", "dict"]))
        if form == "single" and len(chosen) == 1:
            return chosen[0]
        return {str(i): t for i, t in enumerate(chosen)} if form == "dict" else chosen

    def unshaped(result):
        if isinstance(result, tf.Tensor):
            return [result]
        return list(result.values()) if isinstance(result, dict) else result

    def run(node):
        made = [tf.ones([1]) for _ in range(node["made"])]
        for t in made[: node["kept"]]:
            kept_ids.add(id(tf.keep(t)))
        escaped = [
            t for child in node["children"] for t in unshaped(tf.tidy(lambda c=child: run(c)))
        ]
        candidates = made + escaped
        chosen = []
        if candidates:
            chosen = data.draw(st.lists(st.sampled_from(candidates), unique_by=id))
        for t in candidates:  # this tidy frees what it does not return, kept ones aside
            tensors[id(t)] = t
            alive[id(t)] = id(t) in kept_ids
        for t in chosen:
            alive[id(t)] = True
        return shaped(chosen)

    tf.tidy(lambda: run(nest))
    for key, tensor in tensors.items():
        assert tensor.isDisposed is not alive[key]
