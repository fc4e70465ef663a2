"""tfjs's globals (tf.ready, tf.getBackend, tf.env, tf.time, tf.profile, tf.util helpers) and
public namespaces that list only their public names."""

import asyncio
import doctest
import types

import jax
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import environment, util


def run(coro_fn):
    return asyncio.run(coro_fn())


# -- ported tfjs: the first lines of a program


def test_ready_resolves_to_none():
    async def main():
        return await tf.ready()

    assert run(main) is None


def test_get_backend_names_jax_default_platform():
    assert tf.getBackend() == jax.default_backend()
    assert tf.get_backend() == tf.getBackend()


def test_set_backend_to_the_current_backend_resolves_true_and_keeps_it():
    async def main():
        return await tf.setBackend(tf.getBackend())

    before = tf.getBackend()
    assert run(main) is True
    assert tf.getBackend() == before
    assert tf.ones([2]).dataSync().tolist() == [1.0, 1.0]


@pytest.mark.skipif(jax.default_backend() != "cpu", reason="needs a machine without a TPU")
def test_set_backend_to_a_platform_without_devices_resolves_false():
    async def main():
        return await tf.setBackend("tpu")

    assert run(main) is False
    assert tf.getBackend() == "cpu"


def test_set_backend_unknown_name_raises_tfjs_message():
    with pytest.raises(ValueError, match="Cannot initialize backend webgl, no registration found."):
        tf.setBackend("webgl")


def test_version_names_tfjs_release_and_this_package():
    assert tf.version["tfjs-core"] == "4.22.0"
    assert tf.version["tfjs"] == "4.22.0"
    assert isinstance(tf.version["tfjs_grad"], str)


def test_env_flags_describe_neither_browser_nor_node():
    assert tf.env().get("IS_BROWSER") is False
    assert tf.env().get("IS_NODE") is False
    assert tf.env().getBool("PROD") is False
    assert tf.env().getNumber("DEBUG") == 0
    assert "IS_BROWSER" in tf.env().flags
    assert tf.env().features is tf.env().flags


def test_env_unknown_flag_raises_tfjs_messages():
    message = "Cannot evaluate flag 'WEBGL_VERSION': no evaluation function found."
    with pytest.raises(ValueError, match=message):
        tf.env().get("WEBGL_VERSION")
    message = "Cannot set flag WEBGL_PACK as it has not been registered."
    with pytest.raises(ValueError, match=message):
        tf.env().set("WEBGL_PACK", False)


@pytest.fixture
def fresh_env(monkeypatch):
    monkeypatch.setattr(environment, "_ENV", environment.Environment())
    return environment._ENV


def test_enable_prod_mode_sets_prod(fresh_env):
    tf.enableProdMode()
    assert tf.env().get("PROD") is True


def test_enable_debug_mode_sets_debug_and_warns(fresh_env):
    with pytest.warns(UserWarning, match="Debugging mode is ON"):
        tf.enableDebugMode()
    assert tf.env().getBool("DEBUG") is True
    assert tf.env().getBool("TENSORLIKE_CHECK_SHAPE_CONSISTENCY") is True


def test_disable_deprecation_warnings_clears_the_flag(fresh_env):
    with pytest.warns(UserWarning, match="deprecation warnings have been disabled"):
        tf.disableDeprecationWarnings()
    assert tf.env().get("DEPRECATION_WARNINGS_ENABLED") is False


def test_set_flag_then_get_returns_it(fresh_env):
    tf.env().set("IS_TEST", True)
    assert tf.env().get("IS_TEST") is True


def test_time_of_a_matmul_gives_non_negative_ms():
    async def main():
        return await tf.time(lambda: tf.ones([100, 100]).matMul(tf.ones([100, 100])))

    timing = run(main)
    assert timing["kernelMs"] >= 0
    assert timing["wallMs"] >= 0


def test_profile_counts_new_tensors_as_memory_does():
    kept = []

    def f():
        a, b = tf.ones([4]), tf.zeros([2, 3])
        kept.extend([a, b])
        return b

    async def main():
        return await tf.profile(f)

    before = tf.memory()
    info = run(main)
    after = tf.memory()
    assert info["newTensors"] == after.numTensors - before.numTensors == 2
    assert info["newBytes"] == after.numBytes - before.numBytes
    assert info["peakBytes"] >= max(before.numBytes, after.numBytes)
    assert info["result"] is kept[1]
    assert info["kernels"] == []


def test_engine_lists_registered_variables():
    v = tf.variable(tf.scalar(1.0), name="test_globals_engine")
    assert tf.engine().registeredVariables["test_globals_engine"] is v
    assert tf.engine().registeredVariables == tf.registeredVariables()
    v.dispose()
    assert "test_globals_engine" not in tf.engine().registeredVariables


# -- tf.util


def test_size_from_shape():
    assert tf.util.sizeFromShape([2, 3]) == 6
    assert tf.util.sizeFromShape([]) == 1
    assert tf.util.sizeFromShape([4, 0]) == 0


def test_flatten_nested_lists_and_arrays():
    assert tf.util.flatten([1, [2, [3, 4]], []]) == [1, 2, 3, 4]
    assert tf.util.flatten([np.array([1, 2]), 3]) == [1, 2, 3]
    typed = np.array([1, 2])
    assert tf.util.flatten([typed, 3], None, True)[0] is typed


def test_arrays_equal():
    assert tf.util.arraysEqual([1, 2, 3], [1, 2, 3])
    assert not tf.util.arraysEqual([1, 2, 3], [1, 2, 4])
    assert not tf.util.arraysEqual([1, 2], [1, 2, 3])


def test_now_is_milliseconds_and_monotonic():
    a = tf.util.now()
    b = tf.util.now()
    assert isinstance(a, float) and b >= a


def test_encode_decode_string_round_trip_non_ascii():
    text = "héllo, 世界 ✓"
    encoded = tf.util.encodeString(text)
    assert encoded.dtype == np.uint8
    assert bytes(encoded) == text.encode("utf-8")
    assert tf.util.decodeString(encoded) == text
    assert tf.util.decode_string(list(encoded)) == text


def test_util_doctests():
    assert doctest.testmod(util, raise_on_error=False).failed == 0


def test_environment_doctests():
    assert doctest.testmod(environment, raise_on_error=False).failed == 0


# -- a Python user's view: public namespaces list only public names

PUBLIC = [
    "callbacks",
    "constraints",
    "fused",
    "image",
    "initializers",
    "io",
    "layers",
    "linalg",
    "losses",
    "math",
    "metrics",
    "models",
    "ops",
    "regularizers",
    "signal",
    "sparse",
    "spectral",
    "train",
    "util",
]


def test_io_dir_has_no_module_internals():
    names = dir(tf.io)
    for internal in ("jax", "np", "os", "Any", "json"):
        assert internal not in names
    assert "loadWeights" in names


@pytest.mark.parametrize("name", PUBLIC)
def test_public_namespace_lists_only_gettable_public_names(name):
    module = getattr(tf, name)
    assert isinstance(module, types.ModuleType)
    names = dir(module)
    assert names
    for attr in names:
        assert not attr.startswith("_"), f"tf.{name}.{attr}"
        getattr(module, attr)
    for internal in ("jax", "jnp", "np", "os", "Any", "annotations"):
        assert internal not in names, f"tf.{name} lists {internal}"


def test_losses_js_shape_is_not_public():
    assert not hasattr(tf.losses, "js_shape")


def test_tf_lists_the_globals():
    globals_ = ("ready", "getBackend", "setBackend", "version", "env", "time", "profile", "engine")
    for name in globals_:
        assert name in dir(tf)
        assert name in tf.__all__
