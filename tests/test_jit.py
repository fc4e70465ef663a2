"""tf.jit and tf.jit_loop: same numbers as eager code, retracing rules, state safety."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from optimizer_fixtures import NAMES, SCENARIOS, make_variables, phase_of, run_step

import tfjs_grad as tf

FULL = sorted(cid for cid, case in SCENARIOS.items() if case["group"] == "full")


def _train(case_id: str, compiled: bool, steps: int = 20):
    case = SCENARIOS[case_id]
    v = make_variables()
    opt = getattr(tf.train, case["factory"])(*case["args"])
    phase = phase_of(case, 1)
    step = (
        tf.jit(lambda: run_step(opt, v, phase)) if compiled else (lambda: run_step(opt, v, phase))
    )
    costs = [float(step()) for _ in range(steps)]
    result = (costs, {n: np.asarray(v[n].value) for n in NAMES}, opt.get_weights(), opt.iterations)
    tf.dispose_variables()
    return result


@pytest.mark.parametrize("case_id", FULL)
def test_jit_matches_the_eager_loop_for_every_optimizer(case_id):
    eager_costs, eager_vars, eager_weights, eager_iterations = _train(case_id, compiled=False)
    costs, variables, weights, iterations = _train(case_id, compiled=True)
    np.testing.assert_allclose(costs, eager_costs, rtol=1e-5)
    for n in NAMES:
        np.testing.assert_allclose(variables[n], eager_vars[n], rtol=1e-5, atol=1e-7)
    assert iterations == eager_iterations == 20
    assert [n for n, _ in weights] == [n for n, _ in eager_weights]
    for (_, a), (_, b) in zip(weights, eager_weights):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_jit_loop_matches_the_eager_loop():
    eager_costs, eager_vars, _, _ = _train("adam_custom", compiled=False, steps=10)
    case = SCENARIOS["adam_custom"]
    v = make_variables()
    opt = tf.train.adam(*case["args"])
    loop = tf.jit_loop(lambda i: run_step(opt, v, phase_of(case, 1)))
    costs = loop(jnp.arange(10))
    np.testing.assert_allclose(costs, eager_costs, rtol=1e-5)
    for n in NAMES:
        np.testing.assert_allclose(v[n].value, eager_vars[n], rtol=1e-5, atol=1e-7)
    assert opt.iterations == 10


def test_same_shapes_do_not_retrace_and_a_new_shape_retraces_once():
    w = tf.variable(tf.ones([3, 1]), name="w")
    opt = tf.train.adam(0.1)

    @tf.jit
    def step(x):
        return opt.minimize(lambda: jnp.mean((x @ w) ** 2), True)

    step(jnp.ones((4, 3)))
    traces = step.trace_count
    for _ in range(3):
        step(jnp.ones((4, 3)))
    assert step.trace_count == traces
    step(jnp.ones((8, 3)))
    step(jnp.ones((8, 3)))
    assert step.trace_count == traces + 1
    assert opt.iterations == 6


def test_first_call_creating_optimizer_state_compiles_one_program(compiles):
    w = tf.variable(tf.ones([2]), name="w")
    opt = tf.train.adam(0.1)
    step = tf.jit(lambda: opt.minimize(lambda: (w**2).sum()))
    step()
    assert compiles.count("jit(_pure)") == 1
    step()
    assert compiles.count("jit(_pure)") == 1


def test_variables_created_inside_the_step_materialise():
    holder: dict[str, tf.Variable] = {}

    @tf.jit
    def step(x):
        if "v" not in holder:
            holder["v"] = tf.variable(x * 2, name="made_inside")
        return holder["v"] + 1

    np.testing.assert_allclose(step(jnp.ones(2)), [3.0, 3.0])
    np.testing.assert_allclose(holder["v"].value, [2.0, 2.0])
    assert "made_inside" in tf.registered_variables()


def test_an_exception_inside_the_step_leaves_variables_and_slots_as_they_were():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.adam(0.1)

    def body(x, fail):
        cost = opt.minimize(lambda: ((w * x) ** 2).sum(), True)
        if fail:
            raise RuntimeError("boom")
        return cost

    step = tf.jit(body, static_argnums=(1,))

    step(jnp.ones(2), False)
    before = tf.get_state()
    with pytest.raises(RuntimeError, match="boom"):
        step(jnp.ones(2), True)
    with pytest.raises(ValueError, match="broadcast"):
        step(jnp.ones(3), False)  # shapes do not broadcast (tf.mul's error)
    after = tf.get_state()
    assert set(before) == set(after)
    for name in before:
        np.testing.assert_array_equal(before[name], after[name])
    assert opt.iterations == 1


def test_variables_passed_as_arguments_are_the_real_variables():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")

    @tf.jit
    def double(v):
        v.assign(v * 2)
        return v + 0

    np.testing.assert_allclose(double(w), [2.0, 4.0])
    np.testing.assert_allclose(w.value, [2.0, 4.0])


def test_static_argnums_are_forwarded_to_jax_jit():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    scaled = tf.jit(lambda k: w * k, static_argnums=(0,))
    np.testing.assert_allclose(scaled(3), [3.0, 6.0])
    with pytest.raises(ValueError, match="donation"):
        tf.jit(lambda: w, donate_argnums=(0,))


def test_jit_composes_with_vmap_inside():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")

    @tf.jit
    def per_example_grads(xs):
        return jax.vmap(tf.grad(lambda x: ((x * w) ** 2).sum()))(xs)

    np.testing.assert_allclose(
        per_example_grads(jnp.ones((3, 2))), 2 * jnp.ones((3, 2)) * w.value**2
    )


def test_jit_loop_rejects_mismatched_step_axes_and_late_state():
    w = tf.variable(tf.tensor1d([1.0]), name="w")
    loop = tf.jit_loop(lambda x, y: (w * x * y).sum())
    with pytest.raises(ValueError, match="leading"):
        loop(jnp.ones((3, 1)), jnp.ones((4, 1)))
    made = []

    def late(x):
        if len(made) >= 1:
            made.append(tf.variable(x, name=f"late{len(made)}"))
        else:
            made.append(None)
        return x.sum()

    with pytest.raises(ValueError, match="created Variables"):
        tf.jit_loop(late)(jnp.ones((3, 2)))


def test_only_the_variables_the_step_uses_are_threaded():
    a = tf.variable(tf.tensor1d([1.0, 2.0]), name="a")
    unrelated = tf.variable(tf.tensor1d([5.0]), name="unrelated")
    opt = tf.train.momentum(0.1, 0.9)
    step = tf.jit(lambda: opt.minimize(lambda: (a**2).sum()))
    step()
    step()
    threaded = {v.name for v in step._written + step._read}
    assert "a" in threaded and "unrelated" not in threaded
    assert any(name.endswith("a/accumulation") for name in threaded)
    np.testing.assert_array_equal(unrelated.value, [5.0])


def test_a_new_code_path_that_reads_another_variable_widens_the_layout():
    a = tf.variable(tf.scalar(1.0), name="a")
    b = tf.variable(tf.scalar(10.0), name="b")

    @tf.jit
    def f(x):
        return a * x if x.shape == (1,) else a * x + b

    np.testing.assert_allclose(f(jnp.ones(1)), [1.0])
    b.assign(20.0)
    np.testing.assert_allclose(f(jnp.ones(2)), [21.0, 21.0])
    b.assign(30.0)
    np.testing.assert_allclose(f(jnp.ones(2)), [31.0, 31.0])  # b is an input, not a constant


def test_two_threads_train_their_own_models_under_tf_jit():
    import threading

    errors = []

    def worker(k):
        try:
            w = tf.variable(tf.tensor1d([float(k)]), name=f"thread_w{k}")
            opt = tf.train.sgd(0.01)
            step = tf.jit(lambda: opt.minimize(lambda: (w**2).sum(), True))
            expected = float(k)
            for _ in range(200):
                cost = step()
                np.testing.assert_allclose(cost, expected**2, rtol=1e-5)
                expected *= 1 - 0.02
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(k,)) for k in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_state_created_from_traced_values_on_the_first_call_starts_from_its_initial_value():
    b = tf.variable(jnp.ones(3), name="b")
    acc: dict[str, tf.Variable] = {}

    @tf.jit
    def step():
        if "m" not in acc:
            acc["m"] = tf.variable(jnp.zeros_like(b.read()), name="m", trainable=False)
        acc["m"].assign(acc["m"] + b)

    step()
    step()
    np.testing.assert_array_equal(acc["m"].value, [2.0, 2.0, 2.0])


def test_a_batch_fetched_inside_the_step_warns_once_and_arguments_do_not():
    w = tf.variable(tf.zeros([784, 10]), name="w")
    opt = tf.train.sgd(0.1)
    batches = iter([np.ones((64, 784), np.float32) * k for k in range(1, 4)])

    @tf.jit
    def step():
        xs = jnp.asarray(next(batches))  # mnist-core fetches its batch inside the step
        return opt.minimize(lambda: jnp.mean((xs @ w) ** 2), True)

    message = r"\(64, 784\) float32 array .* Pass it as an argument"
    with pytest.warns(UserWarning, match=message) as caught:
        step()
    # it points at the user's step, not at JAX's tracing machinery
    assert (caught[0].filename, caught[0].lineno) == (__file__, step._fn.__code__.co_firstlineno)
    step()  # once per function

    @tf.jit
    def step_with_argument(xs):
        return opt.minimize(lambda: jnp.mean((xs @ w) ** 2), True)

    @tf.jit(allow_constants=True)
    def step_with_table():
        return (w * jnp.ones((784, 10))).sum()

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        step_with_argument(jnp.ones((64, 784)))
        step_with_table()
        tf.jit(lambda: (w * jnp.ones(10)).sum())()  # small constants never warn


def test_static_argnums_takes_an_int_or_a_tuple_and_names():
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    by_int = tf.jit(lambda x, k: w * x * k, static_argnums=1)
    by_tuple = tf.jit(lambda x, k: w * x * k, static_argnums=(1,))
    by_name = tf.jit(lambda x, k: w * x * k, static_argnames="k")
    for step in (by_int, by_tuple):
        np.testing.assert_allclose(step(jnp.ones(2), 3), [3.0, 6.0])
        traces = step.trace_count
        np.testing.assert_allclose(step(jnp.ones(2), 4), [4.0, 8.0])
        np.testing.assert_allclose(step(jnp.ones(2), 3), [3.0, 6.0])
        assert step.trace_count == traces + 1  # a new static value traces once
    np.testing.assert_allclose(by_name(jnp.ones(2), k=5), [5.0, 10.0])


def test_jit_loop_with_zero_steps_says_so_and_changes_nothing():
    w = tf.variable(tf.tensor1d([1.0]), name="w")
    opt = tf.train.sgd(0.1)
    loop = tf.jit_loop(lambda x: opt.minimize(lambda: (w * x).sum(), True))
    with pytest.raises(ValueError, match="at least one step"):
        loop(jnp.ones((0, 1)))
    np.testing.assert_array_equal(w.value, [1.0])
    assert opt.iterations == 0


def test_jit_loop_compiles_its_step_once(compiles):
    w = tf.variable(tf.tensor1d([1.0, 2.0]), name="w")
    opt = tf.train.adam(0.1)
    loop = tf.jit_loop(lambda x: opt.minimize(lambda: ((w * x) ** 2).sum(), True))
    loop(jnp.ones((4, 2)))
    assert compiles.count("jit(_pure)") == 1
    loop(jnp.ones((4, 2)))
    assert compiles.count("jit(_pure)") == 1
    assert opt.iterations == 8


def test_tensor_and_array_arguments_of_one_shape_share_a_program_and_results_are_tensors():
    # a tfjs user passes Tensors; a JAX user passes arrays: one trace serves both
    w = tf.variable(tf.tensor1d([1.0, 2.0]))
    opt = tf.train.sgd(0.1)

    @tf.jit
    def step(x):
        return opt.minimize(lambda: w.mul(x).square().sum(), True)

    def expected(w0, x):  # the same SGD step written with jax.grad
        loss, grad = jax.value_and_grad(lambda w: jnp.sum((w * x) ** 2))(w0)
        return loss, w0 - 0.1 * grad

    w_raw = jnp.array([1.0, 2.0])
    for x in [tf.tensor1d([1.0, 1.0]), jnp.array([0.5, 2.0]), tf.tensor1d([2.0, 0.5])] * 2:
        loss = step(x)
        want_loss, w_raw = expected(w_raw, jnp.asarray(x))
        assert isinstance(loss, tf.Tensor) and not isinstance(loss, tf.Variable)
        np.testing.assert_allclose(float(loss), float(want_loss), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(w.value), np.asarray(w_raw), rtol=1e-6)
    assert step.trace_count == 1
    w.dispose()


def test_structured_results_come_back_as_tensors_in_their_containers_under_an_outer_jit():
    w = tf.variable(tf.scalar(3.0))

    @tf.jit
    def read(x):
        return {"scaled": w.mul(x), "pair": (x.add(1), w.value)}

    for _ in range(3):  # first (full) call, then the fast calls
        out = read(tf.scalar(2.0))
        assert set(out) == {"scaled", "pair"} and isinstance(out["pair"], tuple)
        assert all(
            isinstance(t, tf.Tensor)
            for t in jax.tree.leaves(out, is_leaf=lambda t: isinstance(t, tf.Tensor))
        )
        assert [float(out["scaled"]), float(out["pair"][0]), float(out["pair"][1])] == [6, 3, 3]
    # a JAX user composes the read-only step with jax.jit and gets the same numbers
    outer = jax.jit(lambda x: jnp.asarray(read(x)["scaled"]) * 2)
    assert float(outer(jnp.float32(2.0))) == 12.0
    w.dispose()


def test_under_jax_disable_jit_the_step_runs_as_python_and_returns_tensors():
    w = tf.variable(tf.scalar(2.0))

    @tf.jit
    def grow(x):
        w.assign(w.mul(x))
        return {"w": w.value, "twice": w.mul(2)}

    with jax.disable_jit():
        first, second = grow(tf.scalar(3.0)), grow(jnp.float32(0.5))
    assert isinstance(first["twice"], tf.Tensor) and isinstance(second["w"], tf.Tensor)
    assert [float(first["w"]), float(first["twice"]), float(second["w"])] == [6, 12, 3]
    assert float(w) == 3.0
    w.dispose()
