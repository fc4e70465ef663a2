"""dtypes: what the library cannot honour is refused by name; with `jax_enable_x64` on,
float32 stays tfjs's default and tf ops never widen on their own (README, "dtypes")."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float64", np.float64, "string"])
def test_a_layer_dtype_tfjs_layers_do_not_have_is_refused_by_name(dtype):
    name = np.dtype(dtype).name if not isinstance(dtype, str) else dtype
    with pytest.raises(ValueError, match=f"dtype '{name}' is not supported"):
        tf.layers.dense({"units": 2, "dtype": dtype, "inputShape": [3]})
    with pytest.raises(ValueError, match=f"inputDType '{name}' is not supported"):
        tf.layers.embedding(inputDim=4, outputDim=2, inputDType=dtype)


def test_layer_dtypes_tfjs_has_are_kept_as_names():
    assert tf.layers.dense({"units": 2, "dtype": np.float32}).dtype == "float32"
    assert tf.layers.dense(units=2, dtype=jnp.int32).dtype == "int32"
    assert tf.input({"shape": [2], "dtype": "int32"}).dtype == "int32"


@pytest.mark.parametrize("dtype", ["float64", "bfloat16", "uint8"])
def test_tensor_dtypes_outside_tfjs_are_refused_by_name(dtype):
    with pytest.raises(ValueError, match=f"must be one of .* but got '{dtype}'"):
        tf.tensor([1.0, 2.0], None, dtype)
    with pytest.raises(ValueError, match=f"but got '{dtype}'"):
        tf.zeros([2], dtype)


def test_with_x64_enabled_float32_stays_the_default_and_tf_ops_do_not_widen():
    # A fresh interpreter: x64 must be switched on before JAX makes its first array.
    script = textwrap.dedent(
        """
        import jax
        jax.config.update("jax_enable_x64", True)
        import numpy as np, jax.numpy as jnp
        import tfjs_grad as tf
        x = tf.tensor([1.0, 2.0])
        v = tf.variable(tf.tensor([1.0, 2.0]))
        tf.train.adam(0.1).minimize(lambda: v.square().sum())
        m = tf.sequential(layers=[tf.layers.dense(units=1, inputShape=[2])])
        m.compile(optimizer="sgd", loss="meanSquaredError")
        m.fit(np.ones((4, 2)), np.ones((4, 1)), epochs=1, verbose=0)
        print(x.dtype, tf.tensor(np.arange(3.0)).dtype, tf.scalar(3).dtype, (x * 2.5).dtype,
              tf.grad(lambda t: t.square().sum())(x).dtype, v.dtype,
              m.getWeights()[0].dtype, tf.randomNormal([2]).dtype,
              (x + jnp.ones(2)).dtype)
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True
    ).stdout.split()
    # every tf value stays float32; a float64 jnp array the user adds keeps JAX's promotion
    assert out == ["float32"] * 8 + ["float64"]
