"""tf.metrics.* give tfjs 4.22's values (tests/reference/training.json, gen_training.js)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import tfjs_grad as tf

CASES = json.loads((Path(__file__).parent / "reference" / "training.json").read_text())["metrics"]


@pytest.mark.parametrize("case", CASES, ids=[c["fn"] for c in CASES])
def test_metric_matches_tfjs(case):
    fn = getattr(tf.metrics, case["fn"])
    y_true = np.asarray(case["y_true"], np.float32)
    y_pred = np.asarray(case["y_pred"], np.float32)
    result = fn(y_true, y_pred)
    assert np.shape(result) == np.shape(case["result"])
    np.testing.assert_allclose(np.asarray(result), case["result"], rtol=2e-6, atol=1e-6)


def test_public_names_are_tfjs_s():
    tfjs = {c["fn"] for c in CASES} | {"mape", "MAPE"}
    assert tfjs <= set(tf.metrics.__all__)
    assert tf.metrics.mse is tf.metrics.meanSquaredError is tf.metrics.MSE


def test_accuracies_under_jit_and_grad_of_losses():
    import jax
    import jax.numpy as jnp

    y = np.asarray([[0.0, 1.0], [1.0, 0.0]], np.float32)
    p = np.asarray([[0.3, 0.7], [0.4, 0.6]], np.float32)
    jitted = jax.jit(lambda a, b: tf.metrics.categoricalAccuracy(a, b))
    assert np.asarray(jitted(y, p)).tolist() == [1.0, 0.0]
    # tf functions return tf.Tensor: jax.grad needs the array (jnp.asarray)
    g = jax.grad(lambda q: jnp.asarray(tf.metrics.categoricalCrossentropy(y, q).sum()))(p)
    # d/dq of -sum(y log(q / sum q)) at rows summing to 1: -y/q + 1
    np.testing.assert_allclose(np.asarray(g), -y / p + 1, rtol=1e-5)
