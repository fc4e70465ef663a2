"""tf.io against real tfjs 4.22: fixtures in tests/reference/weights/ (made by gen_weights.js)
and, when Node and tfjs are installed, tfjs reading what save_weights writes
(tests/reference/check_saved_weights.js; install with `cd tests/reference && npm install`)."""

import doctest
import hashlib
import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad import io as tfio

_REFERENCE = Path(__file__).parent / "reference"
_WEIGHTS = _REFERENCE / "weights"
_EXPECTED = json.loads((_WEIGHTS / "expected.json").read_text())
_FIXTURES = _EXPECTED["fixtures"]
_HAS_TFJS = (
    shutil.which("node") is not None
    and (_REFERENCE / "node_modules" / "@tensorflow" / "tfjs" / "package.json").exists()
)
_needs_tfjs = pytest.mark.skipif(
    not _HAS_TFJS, reason="needs Node and tfjs: cd tests/reference && npm install"
)


def _array(t):
    """A fixture tensor {dtype, shape, values} as numpy, bit for bit."""
    values = [float(v) if isinstance(v, str) else v for v in t["values"]]
    if t["dtype"] == "complex64":
        pairs = np.asarray(values, dtype=np.float32).reshape(-1, 2)
        return (pairs[:, 0] + 1j * pairs[:, 1]).astype(np.complex64).reshape(t["shape"])
    return np.asarray(values, dtype=np.dtype(t["dtype"])).reshape(t["shape"])


def _assert_same_bits(actual, expected):
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert actual.tobytes() == expected.tobytes()


def _mlp(weights, x, names):
    """The fixtures' models in JAX: dense layers with relu between them, the last linear."""
    h = jnp.asarray(x, jnp.float32)
    for i, (kernel, bias) in enumerate(names):
        h = h @ weights[kernel] + weights[bias]
        if i < len(names) - 1:
            h = jax.nn.relu(h)
    return h


_LAYERS = [("hidden/kernel", "hidden/bias"), ("out/kernel", "out/bias")]


def _write_manifest(folder, manifest, shards):
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in shards.items():
        (folder / name).write_bytes(data)
    (folder / "model.json").write_text(json.dumps({"weightsManifest": manifest}))
    return folder / "model.json"


# -- tfjs's files load as tfjs decodes them ------------------------------------------


@pytest.mark.parametrize("fixture", sorted(_FIXTURES))
def test_fixture_decodes_to_tfjs_values(fixture):
    loaded = tfio.load_weights(_WEIGHTS / _FIXTURES[fixture]["model_json"])
    expected = _FIXTURES[fixture]["weights"]
    assert list(loaded) == list(expected)
    for name, t in expected.items():
        assert isinstance(loaded[name], jax.Array)
        _assert_same_bits(loaded[name], _array(t))


def test_layers_model_saved_by_tfjs_reproduces_its_predictions():
    fixture = _FIXTURES["layers"]
    weights = tfio.load_weights(_WEIGHTS / fixture["model_json"])
    predictions = _mlp(weights, fixture["input"], _LAYERS)
    np.testing.assert_allclose(predictions, fixture["predictions"], rtol=1e-6, atol=1e-6)


def test_graph_model_with_uint8_kernel_reproduces_tfjs_predictions():
    fixture = _FIXTURES["graph"]
    weights = tfio.load_weights(_WEIGHTS / fixture["model_json"])
    predictions = jax.nn.relu(_mlp(weights, fixture["input"], [("dense/kernel", "dense/bias")]))
    np.testing.assert_allclose(predictions, fixture["predictions"], rtol=1e-6, atol=1e-6)


def test_layers_fixture_assigns_into_variables_by_name():
    model_json = _WEIGHTS / _FIXTURES["layers"]["model_json"]
    shapes = {"hidden/kernel": (4, 8), "hidden/bias": (8,), "out/kernel": (8, 3)}
    variables = [tf.variable(tf.zeros(list(s)), name=n) for n, s in shapes.items()]
    loaded = tfio.load_weights(model_json, variables)
    for v in variables:
        _assert_same_bits(v, loaded[v.name])
    assert "out/bias" in loaded  # weights without a Variable are returned, not assigned


@pytest.mark.parametrize("case", _EXPECTED["decoders"], ids=lambda c: c["name"])
def test_every_quantized_code_decodes_as_tfjs(tmp_path, case):
    codes = np.arange(case["codes"], dtype="u1" if case["codes"] == 256 else "<u2")
    spec = {
        "name": "w",
        "shape": [case["codes"]],
        "dtype": case["dtype"],
        "quantization": case["quantization"],
    }
    path = _write_manifest(
        tmp_path, [{"paths": ["w.bin"], "weights": [spec]}], {"w.bin": codes.tobytes()}
    )
    decoded = np.asarray(tfio.load_weights(path)["w"])
    assert decoded.dtype == np.dtype(case["dtype"])
    assert (
        hashlib.sha256(decoded.astype(decoded.dtype.newbyteorder("<")).tobytes()).hexdigest()
        == case["sha256"]
    )


def test_weights_only_manifest_and_model_json_agree(tmp_path):
    manifest = json.loads((_WEIGHTS / "sharded" / "weights_manifest.json").read_text())
    shutil.copytree(_WEIGHTS / "sharded", tmp_path / "copy")
    (tmp_path / "copy" / "model.json").write_text(json.dumps({"weightsManifest": manifest}))
    a = tfio.load_weights(tmp_path / "copy" / "model.json")
    b = tfio.load_weights(_WEIGHTS / "sharded" / "weights_manifest.json")
    for name in b:
        _assert_same_bits(a[name], b[name])


# -- save_weights ------------------------------------------------------------------------


def _mixed_variables():
    rng = np.random.default_rng(7)
    return [
        tf.variable(rng.standard_normal((3, 5)).astype(np.float32), name="mix/kernel"),
        tf.variable(jnp.asarray(np.int32(-123456)), name="mix/step"),
        tf.variable(jnp.asarray([True, False, True]), name="mix/mask"),
        tf.variable(jnp.zeros((0, 4), jnp.float32), name="mix/empty"),
        tf.variable(jnp.asarray([1 - 2j, 3.5 + 0.25j], jnp.complex64), name="mix/z"),
        tf.variable(jnp.asarray([[-(2**31), 2**31 - 1]], jnp.int32), name="mix/extremes"),
    ]


def test_save_then_load_round_trips_every_dtype(tmp_path):
    variables = _mixed_variables()
    path = tfio.save_weights(tmp_path / "model", variables, shard_size_bytes=7)
    loaded = tfio.load_weights(path)
    assert list(loaded) == [v.name for v in variables]
    for v in variables:
        _assert_same_bits(loaded[v.name], v.value)


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def test_save_writes_tfjs_shard_names_with_digests_and_sizes(tmp_path):
    variables = _mixed_variables()
    total = sum(int(np.asarray(v).nbytes) for v in variables)  # bool is one byte, as in tfjs
    path = tfio.save_weights(tmp_path / "model", variables, shard_size_bytes=16)
    count = math.ceil(total / 16)
    document = json.loads(path.read_text())
    (group,) = document["weightsManifest"]
    assert group["paths"] == [
        f"group1-shard{k}of{count}-{_digest(path.parent / name)}.bin"
        for k, name in enumerate(group["paths"], 1)
    ]
    sizes = [(path.parent / p).stat().st_size for p in group["paths"]]
    assert sizes[:-1] == [16] * (count - 1) and sum(sizes) == total
    assert group["weights"][1] == {"name": "mix/step", "shape": [], "dtype": "int32"}
    assert sorted(os.listdir(path.parent)) == sorted([*group["paths"], "model.json"])


def test_default_shard_size_is_tfjs_4mb(tmp_path):
    v = tf.variable(jnp.zeros((1024 * 1024 + 1,), jnp.float32), name="big")
    path = tfio.save_weights(tmp_path / "model", [v])
    paths = json.loads(path.read_text())["weightsManifest"][0]["paths"]
    assert [p[:16] for p in paths] == ["group1-shard1of2", "group1-shard2of2"]
    assert (path.parent / paths[0]).stat().st_size == 4194304


def test_save_without_var_list_writes_every_live_variable(tmp_path):
    a = tf.variable(tf.ones([2]), name="live_a")
    b = tf.variable(tf.zeros([3]), name="live_b", trainable=False)
    loaded = tfio.load_weights(tfio.save_weights(tmp_path / "m"))
    assert set(loaded) == {a.name, b.name}


def test_save_with_layers_topology_marks_the_format(tmp_path):
    topology = json.loads((_WEIGHTS / "layers" / "model.json").read_text())["modelTopology"]
    v = tf.variable(tf.ones([3]), name="out/bias")
    document = json.loads(
        tfio.save_weights(tmp_path / "m", [v], model_topology=topology).read_text()
    )
    assert document["modelTopology"] == topology
    assert document["format"] == "layers-model"
    with pytest.raises(ValueError, match="modelTopology"):
        tfio.save_weights(tmp_path / "n", [v], model_topology={"weightsManifest": []})


def test_save_replaces_a_previous_save_atomically(tmp_path):
    v = tf.variable(tf.ones([100]), name="w")
    tfio.save_weights(tmp_path / "m", [v], shard_size_bytes=64)
    v.assign(tf.zeros([100]))
    path = tfio.save_weights(tmp_path / "m", [v])
    assert sorted(os.listdir(path.parent)) == sorted(["model.json", *_shard_names(path)])
    assert _shard_names(path)[0].startswith("group1-shard1of1-")
    assert not np.asarray(tfio.load_weights(path)["w"]).any()
    assert os.listdir(tmp_path) == ["m"]  # no staging folders left behind


def test_save_refuses_a_folder_with_other_files_and_changes_nothing(tmp_path):
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "notes.txt").write_text("mine")
    v = tf.variable(tf.ones([2]), name="w")
    with pytest.raises(ValueError, match="notes.txt"):
        tfio.save_weights(tmp_path / "m", [v])
    assert os.listdir(tmp_path / "m") == ["notes.txt"]


def test_failed_save_leaves_no_trace(tmp_path):
    ok = tf.variable(tf.ones([2]), name="ok")
    half = tf.variable(jnp.ones((2,), jnp.float16), name="half")
    with pytest.raises(ValueError, match="Variable 'half' has dtype float16"):
        tfio.save_weights(tmp_path / "m", [ok, half])
    assert os.listdir(tmp_path) == []


def test_saved_folder_gets_ordinary_permissions(tmp_path):
    v = tf.variable(tf.ones([2]), name="w")
    path = tfio.save_weights(tmp_path / "m", [v])
    (tmp_path / "plain").mkdir()
    assert path.parent.stat().st_mode == (tmp_path / "plain").stat().st_mode


def test_save_argument_errors(tmp_path):
    v = tf.variable(tf.ones([2]), name="w")
    with pytest.raises(TypeError, match="var_list"):
        tfio.save_weights(tmp_path / "m", v)
    with pytest.raises(TypeError, match="shard_size_bytes"):
        tfio.save_weights(tmp_path / "m", [v], shard_size_bytes=1.5)
    with pytest.raises(ValueError, match="shard_size_bytes"):
        tfio.save_weights(tmp_path / "m", [v], shard_size_bytes=0)
    with pytest.raises(ValueError, match="Argument 'var_list': weight 'w' appears twice"):
        tfio.save_weights(tmp_path / "m", [v, v])
    assert os.listdir(tmp_path) == []


# -- untrusted input: clear errors, no Variable changed ------------------------------


def _good_model(tmp_path):
    """A two-entry model and Variables holding other values."""
    a = tf.variable(tf.ones([2, 3]), name="a")
    b = tf.variable(jnp.asarray([1, 2], jnp.int32), name="b")
    path = tfio.save_weights(tmp_path / "m", [a, b], shard_size_bytes=8)
    a.assign(tf.zeros([2, 3]))
    b.assign(jnp.asarray([0, 0], jnp.int32))
    return path, [a, b]


def _shard_names(path):
    """The shard file names model.json lists, in order."""
    return [p for group in json.loads(path.read_text())["weightsManifest"] for p in group["paths"]]


def _edit_manifest(path, edit):
    document = json.loads(path.read_text())
    edit(document["weightsManifest"])
    path.write_text(json.dumps(document))


def _assert_unchanged(variables):
    assert not np.asarray(variables[0]).any() and not np.asarray(variables[1]).any()


@pytest.mark.parametrize("bad_path", ["../outside.bin", "/etc/passwd", "sub/x.bin", "..", ""])
def test_shard_path_outside_the_folder_is_refused(tmp_path, bad_path):
    path, variables = _good_model(tmp_path)
    (tmp_path / "outside.bin").write_bytes(bytes(100))
    _edit_manifest(path, lambda m: m[0]["paths"].__setitem__(0, bad_path))
    with pytest.raises(ValueError, match="must be a plain file name inside the model's folder"):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_symlink_out_of_the_folder_is_refused(tmp_path):
    path, variables = _good_model(tmp_path)
    shard = path.parent / _shard_names(path)[0]
    (tmp_path / "outside.bin").write_bytes(shard.read_bytes())
    shard.unlink()
    shard.symlink_to(tmp_path / "outside.bin")
    with pytest.raises(ValueError, match=f"shard '{shard.name}' resolves to .*outside"):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_symlink_within_the_folder_is_followed(tmp_path):
    path, variables = _good_model(tmp_path)
    shard = path.parent / _shard_names(path)[0]
    shard.rename(path.parent / "real.bin")
    shard.symlink_to("real.bin")
    tfio.load_weights(path, variables)
    assert np.asarray(variables[0]).all()


def test_truncated_shard_names_the_entry_cut_off(tmp_path):
    path, variables = _good_model(tmp_path)
    last = path.parent / _shard_names(path)[-1]
    last.write_bytes(last.read_bytes()[:-1])
    with pytest.raises(
        ValueError,
        match=r"weight 'b' \(shape \[2\], int32 data\) needs bytes "
        r"24\.\.32 but the shards hold 31 bytes",
    ):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_shape_larger_than_the_data_is_refused_before_allocating(tmp_path):
    path, variables = _good_model(tmp_path)
    _edit_manifest(path, lambda m: m[0]["weights"][0].update(shape=[2**31 - 1, 2**31 - 1]))
    with pytest.raises(ValueError, match="weight 'a'.*needs bytes 0..18446744056529682436"):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_shape_smaller_than_the_data_is_refused(tmp_path):
    path, variables = _good_model(tmp_path)
    _edit_manifest(path, lambda m: m[0]["weights"][1].update(shape=[1]))
    with pytest.raises(ValueError, match="4 bytes more than the manifest declares .*weight 'b'"):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"dtype": "float64"}, "weight 'a': unknown dtype 'float64'"),
        ({"dtype": "string"}, "string weights have no JAX equivalent"),
        ({"shape": [-2, 3]}, r"weight 'a': shape must be a list of integers in \[0, 2147483647\]"),
        ({"shape": [2**31, 1]}, "weight 'a': shape must be"),
        ({"shape": [2.0, 3]}, "weight 'a': shape must be"),
        ({"shape": "2x3"}, "weight 'a': shape must be"),
        ({"quantization": {"dtype": "int4"}}, "weight 'a': unknown quantization"),
        ({"quantization": {"dtype": "uint8", "min": 0}}, "needs a finite number 'scale'"),
        (
            {"dtype": "bool", "quantization": {"dtype": "uint8", "min": 0, "scale": 1}},
            "uint8 quantization decodes to float32 or int32, not bool",
        ),
        (
            {"dtype": "int32", "quantization": {"dtype": "float16"}},
            "float16 quantization decodes to float32, not int32",
        ),
        ({"name": 3}, "entry 0 has no string 'name'"),
    ],
)
def test_bad_entries_are_refused(tmp_path, entry, message):
    path, variables = _good_model(tmp_path)
    _edit_manifest(path, lambda m: m[0]["weights"][0].update(entry))
    with pytest.raises(ValueError, match=message):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_bad_documents_are_refused(tmp_path):
    path, variables = _good_model(tmp_path)
    for text, message in [
        ("{", "is not a JSON file"),
        ('{"modelTopology": {}}', "has no weights manifest"),
        ('[{"paths": "x"}]', "weight group 0 must be an object"),
        (
            '[{"paths": [], "weights": [{"name": "a", "shape": [], "dtype": "float32"}, '
            '{"name": "a", "shape": [], "dtype": "float32"}]}]',
            "weight 'a' appears twice",
        ),
        ('[{"paths": ["nope.bin"], "weights": []}]', "shard 'nope.bin' does not exist"),
    ]:
        path.write_text(text)
        with pytest.raises(ValueError, match=message):
            tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_variable_mismatches_assign_nothing(tmp_path):
    path, variables = _good_model(tmp_path)
    wrong_shape = tf.variable(tf.zeros([3]), name="b_shape")
    _edit_manifest(
        path, lambda m: m[0]["weights"].append({"name": "b_shape", "shape": [3], "dtype": "int32"})
    )
    last = path.parent / _shard_names(path)[-1]
    last.write_bytes(last.read_bytes() + bytes(12))
    missing = tf.variable(tf.zeros([1]), name="missing")
    for extra, message in [
        (wrong_shape, "weight 'b_shape' .* is int32 \\[3\\] but Variable 'b_shape' is float32"),
        (missing, "Variable 'missing' has no weight in .*model.json \\(it has: a, b, b_shape\\)"),
    ]:
        with pytest.raises(ValueError, match=message):
            tfio.load_weights(path, [*variables, extra])
        _assert_unchanged(variables)
    with pytest.raises(TypeError, match="var_list"):
        tfio.load_weights(path, variables[0])


def test_module_doctests():
    assert doctest.testmod(tfio, raise_on_error=False).failed == 0


# -- tfjs reads what save_weights writes ---------------------------------------------


def _tfjs_reads(folder, x=None):
    command = ["node", str(_REFERENCE / "check_saved_weights.js"), str(folder)]
    if x is not None:
        (folder.parent / "input.json").write_text(json.dumps(np.asarray(x).tolist()))
        command.append(str(folder.parent / "input.json"))
    result = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


@_needs_tfjs
def test_tfjs_decodes_every_dtype_save_weights_writes(tmp_path):
    variables = _mixed_variables()
    path = tfio.save_weights(tmp_path / "model", variables, shard_size_bytes=7)
    assert len(json.loads(path.read_text())["weightsManifest"][0]["paths"]) > 5
    seen = _tfjs_reads(path.parent)
    assert list(seen["weights"]) == [v.name for v in variables]
    for v in variables:
        _assert_same_bits(_array(seen["weights"][v.name]), v.value)


@_needs_tfjs
def test_tfjs_loads_layers_model_saved_with_a_copied_topology(tmp_path):
    topology = json.loads((_WEIGHTS / "layers" / "model.json").read_text())["modelTopology"]
    rng = np.random.default_rng(3)
    shapes = {"hidden/kernel": (4, 8), "hidden/bias": (8,), "out/kernel": (8, 3), "out/bias": (3,)}
    variables = [
        tf.variable(rng.standard_normal(s).astype(np.float32), name=n) for n, s in shapes.items()
    ]
    path = tfio.save_weights(
        tmp_path / "model", variables, shard_size_bytes=48, model_topology=topology
    )
    assert len(json.loads(path.read_text())["weightsManifest"][0]["paths"]) == 6
    x = rng.standard_normal((6, 4)).astype(np.float32)
    seen = _tfjs_reads(path.parent, x)
    assert seen["format"] == "layers-model"
    for v in variables:
        _assert_same_bits(_array(seen["weights"][v.name]), v.value)
    ours = _mlp({v.name: v.value for v in variables}, x, _LAYERS)
    np.testing.assert_allclose(_array(seen["predictions"]), ours, rtol=1e-6, atol=1e-6)
