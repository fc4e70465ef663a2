"""What a `tf.jit` step returns, on its first (tracing) call and on the calls after it
(the fast path that donates the buffers it committed): the same structure, with Tensors
where the step returned Tensors or arrays, values equal to the raw program's, and no
Tensor rebuilt through its pytree unflatten (which inspects the calling frame) per call.
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from call_counting import calls_into

import tfjs_grad as tf
from tfjs_grad import _tensor


class Pair(NamedTuple):
    loss: Any
    scale: Any


def _tensor_unflattens(call: Any) -> int:
    """How many times `call()` rebuilds a Tensor through the Tensor pytree's unflatten."""
    return calls_into(_tensor._unflatten.__code__, call)


def test_tfjs_user_gets_tensors_on_every_call():
    w = tf.variable(tf.tensor([1.0, 2.0]))
    optimizer = tf.train.sgd(0.1)

    @tf.jit
    def step(x):
        loss = optimizer.minimize(lambda: w.mul(x).square().sum(), True)
        return {"loss": loss, "parts": [loss.mul(2), x.sum()], "pair": Pair(loss, x.mean())}

    x = tf.tensor([0.5, -1.0])
    expected_w = np.array([1.0, 2.0], np.float32)
    for _ in range(4):  # the first call traces; the later ones take the fast path
        loss_expected = float(np.sum((expected_w * [0.5, -1.0]) ** 2))
        out = step(x)
        assert type(out) is dict and list(out) == ["loss", "parts", "pair"]  # its order
        assert isinstance(out["pair"], Pair)
        leaves = [out["loss"], *out["parts"], *out["pair"]]
        assert all(type(t) is tf.Tensor for t in leaves)
        np.testing.assert_allclose(out["loss"].dataSync(), [loss_expected], rtol=1e-6)
        np.testing.assert_allclose(out["parts"][0].arraySync(), 2 * loss_expected, rtol=1e-6)
        np.testing.assert_allclose(out["pair"].scale.arraySync(), -0.25)
        expected_w = expected_w - 0.1 * 2 * expected_w * np.array([0.25, 1.0], np.float32)
        np.testing.assert_allclose(w.dataSync(), expected_w, rtol=1e-6)


def test_jax_user_arrays_come_back_as_tensors_and_compose_with_jnp():
    params = tf.variable(jnp.array([0.3, -0.7], jnp.float32))
    optimizer = tf.train.adam(0.01)

    def raw_loss(p, x):
        return jnp.sum(jax.nn.softplus(p * x))

    @tf.jit
    def step(x):
        loss = optimizer.minimize(lambda: raw_loss(params.value, x), True)
        return jnp.asarray(loss), jax.nn.sigmoid(params.value)

    x = jnp.array([1.0, 2.0], jnp.float32)
    reference = jnp.array([0.3, -0.7], jnp.float32)
    opt = optax.adam(0.01, eps=1e-7)
    state = opt.init(reference)
    for _ in range(3):
        loss, squashed = step(x)
        assert type(loss) is tf.Tensor and type(squashed) is tf.Tensor
        value, grads = jax.value_and_grad(raw_loss)(reference, x)
        updates, state = opt.update(grads, state)
        reference = optax.apply_updates(reference, updates)
        np.testing.assert_allclose(jnp.asarray(loss), value, rtol=1e-6)
        np.testing.assert_allclose(jnp.asarray(squashed), jax.nn.sigmoid(reference), rtol=1e-6)
        both = jnp.sum(loss * squashed)  # jnp on the returned Tensors
        assert float(both) == pytest.approx(float(value * jnp.sum(jax.nn.sigmoid(reference))))


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class Stats:
    total: Any
    mean: Any


def test_a_custom_pytree_result_comes_back_with_the_values_the_step_returned():
    w = tf.variable(tf.tensor([1.0, 3.0]))

    @tf.jit
    def step(x):
        w.assign(w.add(x))
        return [Stats(w.sum(), w.value.mean())]

    for i in range(1, 4):
        (stats,) = step(tf.tensor([1.0, 1.0]))
        assert isinstance(stats, Stats)
        assert float(np.asarray(stats.total)) == 4.0 + 2 * i
        assert float(np.asarray(stats.mean)) == 2.0 + i


def test_the_fast_call_builds_no_tensor_through_the_pytree_unflatten():
    w = tf.variable(tf.ones([3]))
    optimizer = tf.train.adam(0.1)
    step = tf.jit(lambda x: optimizer.minimize(lambda: w.mul(x).sum(), True))
    x = jnp.ones(3)
    step(x)
    step(x)  # now on the fast path
    assert _tensor_unflattens(lambda: step(x)) == 0
    assert type(step(x)) is tf.Tensor


def test_debug_nans_rerun_still_returns_tensors():
    w = tf.variable(tf.tensor([1.0, 2.0]))
    step = tf.jit(lambda x: w.mul(x).sum())
    with jax.debug_nans(True):
        out = step(tf.tensor([2.0, 3.0]))
    assert type(out) is tf.Tensor and float(out.arraySync()) == 8.0


def test_result_dicts_keep_the_order_the_step_built_them_in_as_eager_code_does():
    """JAX hands dicts back with sorted keys; a step's caller sees the step's own order
    (a JS object's, and eager code's), nested too, on traced and fast calls alike."""
    w = tf.variable(tf.scalar(1.0))
    optimizer = tf.train.adam(0.1)

    def body(x):
        loss = optimizer.minimize(lambda: w.mul(x).sub(3).square(), True)
        return {"val_loss": loss, "loss": loss, "metrics": {"mse": loss, "acc": x, "b": x}}

    eager = body(tf.scalar(2.0))
    step = tf.jit(body)
    for _ in range(3):
        out = step(tf.scalar(2.0))
        assert list(out) == list(eager) == ["val_loss", "loss", "metrics"]
        assert list(out["metrics"]) == list(eager["metrics"]) == ["mse", "acc", "b"]
    assert step.trace_count == 1
    w.dispose()


def test_a_jax_users_dict_and_jit_loop_results_keep_their_order():
    params = {"w": jnp.ones(3), "b": jnp.zeros(())}
    tx = optax.sgd(0.1)
    state = {"params": params, "opt": tx.init(params)}

    @tf.jit
    def step(x):
        def loss_fn(p):
            return jnp.mean((x @ p["w"] + p["b"]) ** 2)

        loss, grads = jax.value_and_grad(loss_fn)(state["params"])
        return {"zeta": loss, "alpha": jax.tree.map(jnp.linalg.norm, grads)}

    out = step(jnp.ones((2, 3)))
    assert list(out) == ["zeta", "alpha"]
    assert list(out["alpha"]) == ["b", "w"]  # grads of a dict: JAX made it sorted, as eagerly
    np.testing.assert_allclose(out["zeta"].arraySync(), 9.0)
    looped = tf.jit_loop(lambda x: {"z": x * 2, "a": x.sum()})(jnp.arange(6.0).reshape(3, 2))
    assert list(looped) == ["z", "a"]
    np.testing.assert_allclose(looped["a"].arraySync(), [1.0, 5.0, 9.0])
