"""Variables, variable_grads and the functional store (tfjs's rules; the seed examples)."""

from __future__ import annotations

import gc
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


# -- Variable basics (tfjs variable_test / TFJS_BEHAVIOR §2) ------------------------------
def test_auto_names_are_unique_counters():
    a, b = tf.variable(tf.scalar(1.0)), tf.variable(tf.scalar(2.0))
    assert a.name != b.name
    assert a.name.isdigit() and int(b.name) == int(a.name) + 1


def test_duplicate_name_raises_tfjs_message():
    kept = tf.variable(tf.scalar(1.0), name="dup")
    with pytest.raises(ValueError, match="^Variable with name dup was already registered$"):
        tf.variable(tf.scalar(1.0), name="dup")
    assert kept.name == "dup"


def test_dispose_frees_the_name_and_blocks_use():
    v = tf.variable(tf.tensor1d([1, 2]), name="gone")
    v.dispose()
    assert v.is_disposed and "gone" not in tf.registered_variables()
    with pytest.raises(ValueError, match="disposed"):
        v.read()
    with pytest.raises(ValueError, match="disposed"):
        v.assign(tf.tensor1d([1, 2]))
    tf.variable(tf.tensor1d([3, 4]), name="gone")


@pytest.mark.parametrize(
    "initial, new, message",
    [
        (
            [1.0, 2.0],
            jnp.array([1, 2], jnp.int32),
            "dtype of the new value (int32) and previous value (float32) must match",
        ),
        (
            [1.0, 2.0],
            [1.0, 2.0, 3.0],
            "shape of the new value (3) and previous value (2) must match",
        ),
        (
            [[1.0, 2.0, 3.0]] * 2,
            [[1.0, 2.0]] * 3,
            "shape of the new value (3,2) and previous value (2,3) must match",
        ),
        ([1.0, 2.0], 5.0, "shape of the new value () and previous value (2) must match"),
    ],
)
def test_assign_checks_dtype_and_shape(initial, new, message):
    v = tf.variable(tf.tensor(initial))
    with pytest.raises(ValueError) as info:
        v.assign(new)
    assert str(info.value) == message
    np.testing.assert_array_equal(v.value, np.asarray(initial, np.float32))


def test_duplicate_name_check_ignores_variables_nobody_references():
    tf.variable(tf.scalar(1.0), name="dropped")
    tf.variable(tf.scalar(2.0), name="dropped")


def test_dtype_argument_casts_like_tfjs():
    v = tf.variable(tf.tensor1d([-1.7, 1.7, 2.5]), True, None, "int32")
    assert v.dtype == jnp.int32
    np.testing.assert_array_equal(v.value, [-1, 1, 2])


def test_variable_is_array_like():
    v = tf.variable(tf.tensor1d([1, 2, 3]), name="arr")
    np.testing.assert_allclose(v + 1, [2, 3, 4])
    np.testing.assert_allclose(2 * v, [2, 4, 6])
    np.testing.assert_allclose(v @ v, 14.0)
    np.testing.assert_allclose(-v, [-1, -2, -3])
    assert float(v[1]) == 2.0
    np.testing.assert_allclose(np.asarray(v), [1, 2, 3])
    np.testing.assert_allclose(jnp.asarray(v), [1, 2, 3])
    np.testing.assert_allclose(jnp.sum(v), 6.0)
    np.testing.assert_allclose(jnp.square(v), [1, 4, 9])
    np.testing.assert_allclose(v.sum(), 6.0)
    np.testing.assert_allclose(jax.nn.relu(v - 2), [0, 0, 1])
    np.testing.assert_allclose(jax.jit(lambda a: a * 2)(v), [2, 4, 6])
    assert v.shape == (3,) and v.rank == 1 and v.size == 3 and v.dtype == jnp.float32
    assert "arr" in repr(v) and "[1. 2. 3.]" in repr(v)


def test_user_array_stays_theirs():
    initial = jnp.array([1.0, 2.0])
    v = tf.variable(initial, name="own")
    opt = tf.train.sgd(0.5)

    @tf.jit
    def step():
        opt.minimize(lambda: (v**2).sum())

    step()
    step()
    np.testing.assert_array_equal(initial, [1.0, 2.0])
    snapshot = v.value
    step()
    np.testing.assert_array_equal(snapshot, [0.0, 0.0])  # still readable after donation
    v.dispose()
    np.testing.assert_array_equal(initial, [1.0, 2.0])


def test_registry_is_weak():
    tf.variable(tf.scalar(1.0), name="temporary")
    gc.collect()
    assert "temporary" not in tf.registered_variables()


def test_registered_variables_key_order_is_javascript_object_order():
    kept = [tf.variable(tf.scalar(1.0), name=name) for name in ["zeta", "10", "alpha", "2"]]
    assert len(kept) == 4
    assert list(tf.registered_variables()) == ["2", "10", "zeta", "alpha"]


# -- variable_grads (tfjs's rules, §1.3 and §6 #20-#24) -----------------------------------
def test_seed_example_sum_of_squares():
    x = tf.variable(tf.tensor1d([1, 2, 3]))
    y = tf.variable(tf.tensor1d([0.5, 0.5, 0.5]))
    value, grads = tf.variable_grads(lambda: (x**2).sum() + (y**2).sum())
    assert float(value) == 14.75
    np.testing.assert_allclose(grads[x.name], [2, 4, 6])
    np.testing.assert_allclose(grads[y.name], [1, 1, 1])


def test_seed_example_relu_branches():
    z = tf.variable(tf.tensor1d([1, -1, 2]))
    value, grads = tf.variable_grads(
        lambda: tf.tidy(lambda: z.relu().sum().add(z.neg().relu().sum()))
    )
    assert float(value) == 4.0
    np.testing.assert_allclose(grads[z.name], [1, -1, 1])


def test_seed_example_two_variables_and_sgd_steps_lower_the_loss():
    a = tf.variable(tf.tensor1d([1, 2]))
    b = tf.variable(tf.tensor1d([3, 4]))
    loss = lambda: (a**2).sum() + (b * a).sum()  # noqa: E731
    value, grads = tf.variable_grads(loss)
    np.testing.assert_allclose(grads[a.name], 2 * np.array([1, 2]) + [3, 4])
    np.testing.assert_allclose(grads[b.name], [1, 2])
    optimizer = tf.train.sgd(0.1)
    losses = []
    for _ in range(5):
        value, grads = tf.variable_grads(loss)
        optimizer.apply_gradients(grads)
        losses.append(float(value))
    assert all(later < earlier for earlier, later in zip(losses, losses[1:]))


def test_seed_custom_layer_example():
    weights = tf.variable(tf.random_normal([2, 2], seed=0))
    bias = tf.variable(tf.zeros([2]))
    inputs, target = tf.tensor2d([[1, 2]]), tf.tensor2d([[0.5, 1]])

    def loss():
        pred = inputs.matMul(weights).add(bias).relu()
        return pred.sub(target).square().mean()

    _, grads = tf.variable_grads(loss)
    w, b = weights.value, bias.value
    x, t = jnp.asarray(inputs), jnp.asarray(target)
    expected = jax.grad(lambda w, b: jnp.mean(jnp.square(jax.nn.relu(x @ w + b) - t)), (0, 1))(w, b)
    np.testing.assert_allclose(grads[weights.name], expected[0], rtol=1e-6)
    np.testing.assert_allclose(grads[bias.name], expected[1], rtol=1e-6)


def test_unconnected_variables_are_left_out_and_non_trainables_map_to_none():
    a, b = tf.variable(tf.scalar(1.0), name="a"), tf.variable(tf.scalar(2.0), name="b")
    frozen = tf.variable(tf.scalar(3.0), trainable=False, name="frozen")
    c = tf.variable(tf.scalar(4.0), name="c")
    assert c.trainable
    _, default = tf.variable_grads(lambda: a * b * frozen)
    assert list(default) == ["a", "b"]
    _, explicit = tf.variable_grads(lambda: a * frozen, [a, b, frozen])
    assert list(explicit) == ["a", "frozen"] and explicit["frozen"] is None
    np.testing.assert_allclose(explicit["a"], 3.0)


def test_variable_grads_errors():
    n = tf.variable(tf.scalar(1.0), trainable=False)
    a = tf.variable(tf.tensor1d([1.0, 2.0]))
    with pytest.raises(ValueError, match="none of the 1 variables is trainable"):
        tf.variable_grads(lambda: n**2, [n])
    with pytest.raises(ValueError, match="none of the 0 variables is trainable"):
        tf.variable_grads(lambda: n**2, [])
    with pytest.raises(ValueError, match="Cannot find a connection between any variable"):
        tf.variable_grads(lambda: tf.scalar(1.0) * 2, [a])
    with pytest.raises(ValueError, match="must return a scalar, but it returned a rank-1 tensor"):
        tf.variable_grads(lambda: a**2, [a])
    with pytest.raises(TypeError, match="must be an array of variables"):
        tf.variable_grads(lambda: (a**2).sum(), [a.value])


def test_trainable_is_read_at_each_call():
    a = tf.variable(tf.scalar(1.0), name="a")
    b = tf.variable(tf.scalar(1.0), name="b")
    assert set(tf.variable_grads(lambda: a * b).grads) == {"a", "b"}
    b.trainable = False
    assert set(tf.variable_grads(lambda: a * b).grads) == {"a"}


def test_assign_inside_the_loss_is_written_back():
    a = tf.variable(tf.scalar(2.0), name="a")
    counter = tf.variable(tf.scalar(0.0), trainable=False, name="counter")

    def loss():
        counter.assign(counter + 1)
        return a**2

    for _ in range(3):
        tf.variable_grads(loss, [a])
    assert float(counter.value) == 3.0


# -- guard against leaking tracers ---------------------------------------------------
def test_assign_under_plain_jit_raises_and_leaves_variable_unchanged():
    v = tf.variable(tf.tensor1d([1.0, 2.0]), name="v")
    # reading v under plain jax.jit warns first (issue #19 item 10), then the assign raises
    with pytest.raises(ValueError, match="tf.jit") as info, pytest.warns(UserWarning):
        jax.jit(lambda: v.assign(v * 2))()
    assert "tf.functionalize" in str(info.value)
    np.testing.assert_array_equal(v.value, [1.0, 2.0])
    with pytest.raises(ValueError, match="tf.jit"):
        jax.vmap(lambda x: v.assign(x))(jnp.ones((3, 2)))
    np.testing.assert_array_equal(v.value, [1.0, 2.0])


# -- functionalize / get_state / set_state ----------------------------------------------
def _mlp_vars():
    return (
        tf.variable(tf.random_normal([3, 4], seed=1), name="w"),
        tf.variable(tf.zeros([4]), name="b"),
    )


def _mlp_loss(w, b, x):
    return jnp.mean(jnp.tanh(x @ w + b) ** 2)


def test_functionalize_jit_grad_equals_eager():
    w, b = _mlp_vars()
    x = tf.random_normal([5, 3], seed=2)
    eager_value, eager_grads = tf.variable_grads(lambda: _mlp_loss(w, b, x))

    pure = tf.functionalize(lambda x: _mlp_loss(w, b, x), [w, b])
    state = tf.get_state([w, b])
    value_fn = lambda s: pure(s, x)[0]  # noqa: E731
    value, grads = jax.jit(jax.value_and_grad(value_fn))(state)
    np.testing.assert_allclose(value, eager_value, rtol=1e-6)
    for name in ("w", "b"):
        np.testing.assert_allclose(grads[name], eager_grads[name], rtol=1e-5, atol=1e-7)


def test_functionalized_training_step_under_vmap_trains_an_ensemble():
    w, b = _mlp_vars()
    opt = tf.train.sgd(0.5)
    x = tf.random_normal([5, 3], seed=2)

    def step():
        return opt.minimize(lambda: _mlp_loss(w, b, x), True, [w, b])

    step()  # creates the optimizer's state once, eagerly
    names = ["w", "b", opt._iterations.name]
    pure = tf.functionalize(step)
    members = [tf.get_state(opt_vars := [w, b, opt._iterations]) for _ in range(3)]
    for k, member in enumerate(members):
        member["w"] = member["w"] * (k + 1)
    batch = jax.tree.map(lambda *xs: jnp.stack(xs), *members)
    costs, new_states = jax.vmap(pure)(batch)
    for k, member in enumerate(members):
        tf.set_state(member)
        expected_cost = step()
        np.testing.assert_allclose(costs[k], expected_cost, rtol=1e-6)
        for name in names:
            np.testing.assert_allclose(
                new_states[name][k], opt_vars[names.index(name)].value, rtol=1e-5
            )


def test_get_state_covers_every_live_variable_and_set_state_accepts_partial_dicts():
    a = tf.variable(tf.scalar(1.0), name="a")
    frozen = tf.variable(tf.scalar(2.0), trainable=False, name="frozen")
    assert not frozen.trainable
    assert set(tf.get_state()) == {"a", "frozen", "<random generator>"}
    tf.set_state({"a": 5.0})
    assert float(a.value) == 5.0
    with pytest.raises(ValueError, match="nope"):
        tf.set_state({"a": 1.0, "nope": 1.0})
    assert float(a.value) == 5.0
    with pytest.raises(ValueError, match="shape"):
        tf.set_state({"a": tf.tensor1d([1, 2])})


def test_bindings_nest_variable_grads_inside_jit_inside_functionalize():
    a = tf.variable(tf.scalar(3.0), name="a")

    @tf.jit
    def inner():
        return tf.variable_grads(lambda: a**2).grads["a"]

    np.testing.assert_allclose(inner(), 6.0)
    pure = tf.functionalize(lambda: tf.variable_grads(lambda: a**3).grads["a"], [a])
    out, _ = jax.jit(pure)({"a": jnp.float32(2.0)})
    np.testing.assert_allclose(out, 12.0)
    assert float(a.value) == 3.0


# -- threads ------------------------------------------------------------------------
def test_threads_see_only_their_own_bindings():
    errors = []

    def worker(k):
        try:
            v = tf.variable(tf.tensor1d([float(k), 2.0 * k]), name=f"thread{k}")
            for _ in range(200):
                grads = tf.variable_grads(lambda: (v**2).sum(), [v]).grads
                np.testing.assert_allclose(grads[v.name], [2.0 * k, 4.0 * k])
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
