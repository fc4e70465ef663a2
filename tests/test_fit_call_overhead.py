"""fit's per-call shortcuts (issue #36) keep what fit and evaluate compute."""

import jax
import jax.numpy as jnp
import numpy as np

import tfjs_grad as tf
from tfjs_grad.models import _training


def _model() -> tf.Sequential:
    model = tf.sequential({"layers": [tf.layers.dense({"units": 1, "inputShape": [2]})]})
    model.setWeights([tf.tensor([[1.0], [2.0]]), tf.tensor([0.5])])
    model.compile({"optimizer": tf.train.sgd(0.1), "loss": "meanSquaredError"})
    return model


X = [[1.0, 2.0], [3.0, 4.0]]
Y = [[1.0], [2.0]]
MSE = ((5.5 - 1.0) ** 2 + (11.5 - 2.0) ** 2) / 2  # predictions 5.5 and 11.5


def test_evaluate_under_an_outer_jax_jit_first_leaves_fit_its_concrete_zero():
    """The epoch totals start from one cached zero; made first under jax.jit, it is still
    a concrete array (no leaked tracer), and later eager calls give the closed form."""
    _training._zero.cache_clear()
    model = _model()
    traced = jax.jit(lambda a, b: jnp.asarray(model.evaluate(a, b)))(jnp.asarray(X), jnp.asarray(Y))
    assert not isinstance(_training._zero(), jax.core.Tracer)
    np.testing.assert_allclose(float(traced), MSE, rtol=1e-6)
    np.testing.assert_allclose(
        model.evaluate(tf.tensor(X), tf.tensor(Y)).dataSync()[0], MSE, rtol=1e-6
    )
    history = model.fit(X, Y, {"epochs": 1, "batchSize": 2, "shuffle": False, "verbose": 0})
    np.testing.assert_allclose(history.history["loss"][0], MSE, rtol=1e-6)


def test_repeated_fit_calls_log_what_one_multi_epoch_fit_logs():
    """Calls that reuse the cached batch plan (5 rows, batches of 2: a short last batch)
    log the same epoch losses as one fit over as many epochs."""
    x = tf.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [1.0, 2.0]])
    y = tf.tensor([[1.0], [2.0], [3.0], [4.0], [5.0]])
    args = {"batchSize": 2, "shuffle": False, "verbose": 0}
    once = _model().fit(x, y, {**args, "epochs": 3}).history["loss"]
    model = _model()
    repeated = [model.fit(x, y, {**args, "epochs": 1}).history["loss"][0] for _ in range(3)]
    np.testing.assert_allclose(repeated, once, rtol=1e-6)
