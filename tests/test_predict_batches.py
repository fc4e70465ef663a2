"""predict on more rows than one batch: one program per sample count (the rows padded to
whole batches and run with lax.map), the outputs those of each row on its own; models whose
rows may not be independent (user layers, stateful RNNs) keep tfjs's batch-by-batch calls."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

import tfjs_grad as tf


def _mlp():
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 8, "inputShape": [4], "activation": "relu"}))
    model.add(tf.layers.batchNormalization())
    model.add(tf.layers.dropout({"rate": 0.5}))
    model.add(tf.layers.dense({"units": 2, "activation": "softmax"}))
    return model


def _by_hand(model, x):
    """The MLP's inference in numpy from its weights (batch norm on its moving stats)."""
    dense1, norm, _, dense2 = model.layers
    k1, b1 = (w.arraySync() for w in dense1.getWeights())
    gamma, beta, mean, var = (np.asarray(w.arraySync()) for w in norm.getWeights())
    k2, b2 = (w.arraySync() for w in dense2.getWeights())
    h = np.maximum(x @ k1 + b1, 0)
    h = (h - mean) / np.sqrt(var + 1e-3) * gamma + beta
    z = h @ k2 + b2
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def test_predict_over_several_batches_is_each_rows_output_tfjs_style(compiles):
    model = _mlp()
    rng = np.random.default_rng(0)
    for n in (70, 64, 33, 5):
        x = rng.standard_normal((n, 4)).astype(np.float32)
        y = model.predict(tf.tensor2d(x), {"batchSize": 32})
        assert list(y.shape) == [n, 2]
        np.testing.assert_allclose(y.arraySync(), _by_hand(model, x), rtol=1e-5, atol=1e-6)
    del compiles[:]
    model.predict(rng.standard_normal((70, 4)).astype(np.float32), {"batchSize": 32})
    assert compiles == []  # the sample count seen before: its program is reused
    model.predict(rng.standard_normal((90, 4)).astype(np.float32), {"batchSize": 32})
    assert len(compiles) == 1, compiles  # a new sample count: one program, no joins


def test_predict_of_a_multi_io_model_in_batches():
    a, b = tf.input({"shape": [3]}), tf.input({"shape": [2]})
    joined = tf.layers.concatenate().apply([a, b])
    head1 = tf.layers.dense({"units": 1}).apply(joined)
    head2 = tf.layers.dense({"units": 2, "activation": "softmax"}).apply(joined)
    model = tf.model({"inputs": [a, b], "outputs": [head1, head2]})
    rng = np.random.default_rng(1)
    xa, xb = rng.random((41, 3), np.float32), rng.random((41, 2), np.float32)
    out1, out2 = model.predict([xa, xb], {"batchSize": 16})
    whole1, whole2 = model.predictOnBatch([xa, xb])
    np.testing.assert_allclose(out1.arraySync(), whole1.arraySync(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out2.arraySync(), whole2.arraySync(), rtol=1e-5, atol=1e-6)


class BatchCentering(tf.layers.Layer):
    """A user layer that mixes rows: it subtracts the batch mean (and logs batch sizes)."""

    className = "BatchCenteringForPredictTest"
    sizes: list[int] = []

    def call(self, inputs, kwargs):
        x = inputs[0] if isinstance(inputs, list) else inputs
        BatchCentering.sizes.append(int(x.shape[0]))
        return x.sub(x.mean(0, True))

    def computeOutputShape(self, input_shape):
        return input_shape


def test_a_user_layer_sees_tfjs_batches_unpadded():
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 3, "inputShape": [2], "kernelInitializer": "ones"}))
    model.add(BatchCentering({}))
    x = np.arange(140, dtype=np.float32).reshape(70, 2)
    BatchCentering.sizes.clear()
    y = model.predict(x, {"batchSize": 32}).arraySync()
    assert sorted(set(BatchCentering.sizes)) == [6, 32]  # each batch as tfjs slices them
    h = x.sum(1, keepdims=True) * np.ones((1, 3))
    want = np.concatenate([h[s : s + 32] - h[s : s + 32].mean(0) for s in (0, 32, 64)])
    np.testing.assert_allclose(y, want, rtol=1e-5, atol=1e-4)


def test_a_stateful_rnn_carries_state_from_batch_to_batch():
    model = tf.sequential()
    model.add(tf.layers.simpleRNN({
        "units": 2, "stateful": True, "batchInputShape": [4, 3, 1], "kernelInitializer": "ones",
        "recurrentInitializer": "ones", "activation": "linear", "useBias": False,
    }))  # fmt: skip
    x = np.ones((8, 3, 1), np.float32)
    y = model.predict(x, {"batchSize": 4}).arraySync()
    # h_t = x_t + 2 h_{t-1} per unit: 1, 3, 7 over the first batch; the second batch starts
    # from 7: 15, 31, 63.
    np.testing.assert_allclose(np.asarray(y)[:, 0], [7] * 4 + [63] * 4)


def test_predict_in_batches_under_outer_jax_transforms_jax_style():
    model = _mlp()
    x = np.random.default_rng(2).standard_normal((70, 4)).astype(np.float32)
    eager = np.asarray(model.predict(x))
    jitted = jax.jit(lambda v: jnp.asarray(model.predict(v)))(x)
    np.testing.assert_allclose(jitted, eager, rtol=1e-6, atol=1e-7)
    grads = jax.grad(lambda v: jnp.asarray(model.predict(v))[:, 0].sum())(x)
    per_row = jax.vmap(jax.grad(lambda row: jnp.asarray(model.predictOnBatch(row[None]))[0, 0]))(x)
    np.testing.assert_allclose(grads, per_row, rtol=1e-5, atol=1e-6)
