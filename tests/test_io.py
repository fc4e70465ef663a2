"""tf.io against real tfjs 4.22: fixtures in tests/reference/weights/ (made by gen_weights.js)
and, when Node and tfjs are installed, tfjs reading what save_weights writes
(tests/reference/check_saved_weights.js; install with `cd tests/reference && npm install`)."""

import contextlib
import doctest
import errno
import hashlib
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import hypothesis
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scaleout import SCRIPTS

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


# -- crash safety: the folder holds the old save or the new one -----------------------

_CRASH_WORKER = SCRIPTS / "io_crash_worker.py"
_OLD = {"w": -np.arange(40, dtype=np.float32), "n": np.asarray([1, 2, 3], np.int32)}
_NEW = {"w": np.arange(40, dtype=np.float32) / 7, "n": np.asarray([7, 8, 9], np.int32)}
_NEXT = {"w": np.full(40, 0.5, np.float32), "n": np.asarray([4, 5, 6], np.int32)}


def _state(folder):
    """The save `folder` holds: the arrays model.json names, or None when it has none."""
    try:
        return {name: np.asarray(a) for name, a in tfio.load_weights(folder / "model.json").items()}
    except FileNotFoundError:
        return None


def _same(state, arrays):
    """`state` holds exactly `arrays` (None: no save)."""
    if state is None or arrays is None:
        return state is arrays
    return list(state) == list(arrays) and all(_bits_equal(state[k], arrays[k]) for k in arrays)


def _bits_equal(a, b):
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


def _assert_next_save_leaves_only_itself(folder):
    """A save into `folder` leaves model.json and its shards, nothing else, here or beside."""
    variables = [tf.variable(value, name=name) for name, value in _NEXT.items()]
    path = tfio.save_weights(folder, variables, shard_size_bytes=64)
    assert sorted(os.listdir(folder)) == sorted(["model.json", *_shard_names(path)])
    assert os.listdir(folder.parent) == [folder.name]
    assert _same(_state(folder), _NEXT)
    tf.dispose(variables)


def _run_worker(*args):
    result = subprocess.run(
        [sys.executable, str(_CRASH_WORKER), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _savez(path, arrays):
    np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("start", ["nothing", "saved", "converter names"])
def test_a_save_killed_at_any_filesystem_step_leaves_the_old_or_the_new_save(tmp_path, start):
    """The save runs in a process that ends (os._exit) at its N-th write, fsync, rename,
    unlink or mkdir, for every N; a write is cut in half first."""
    folder = tmp_path / "start"
    if start == "saved":
        tfio.save_weights(
            folder, [tf.variable(v, name=k) for k, v in _OLD.items()], shard_size_bytes=64
        )
    elif start == "converter names":  # as tfjs's converter (and save_weights before) named them
        data = b"".join(v.tobytes() for v in _OLD.values())
        specs = [
            {"name": k, "shape": list(v.shape), "dtype": v.dtype.name} for k, v in _OLD.items()
        ]
        names = ["group1-shard1of2.bin", "group1-shard2of2.bin"]
        _write_manifest(
            folder, [{"paths": names, "weights": specs}], dict(zip(names, [data[:100], data[100:]]))
        )
    old = None if start == "nothing" else _OLD
    assert _same(_state(folder), old)

    steps = _run_worker("steps", folder, tmp_path / "out", _savez(tmp_path / "new.npz", _NEW), 64)
    assert steps["steps"] >= 4  # at least one per file: 3 shards and model.json
    for n in range(1, steps["steps"] + 2):
        crashed = tmp_path / "out" / str(n) / "m"
        allowed = [_NEW] if n == steps["steps"] + 1 else [old, _NEW]
        state = _state(crashed)
        assert any(_same(state, arrays) for arrays in allowed), f"crash at step {n}: {state}"
        _assert_next_save_leaves_only_itself(crashed)


def test_saves_killed_at_random_times_leave_a_whole_save_and_no_leftovers(tmp_path):
    """SIGKILL a process saving A and B in turn, eight times over on one folder."""
    folder = tmp_path / "live" / "m"
    a, b = _NEW, _OLD
    tfio.save_weights(folder, [tf.variable(v, name=k) for k, v in a.items()], shard_size_bytes=64)
    a_npz, b_npz = _savez(tmp_path / "a.npz", a), _savez(tmp_path / "b.npz", b)
    _run_worker("kill", folder, tmp_path / "out", a_npz, b_npz, 16, 8, 13)
    for k in range(8):
        snapshot = tmp_path / "out" / str(k)
        state = _state(snapshot)
        assert _same(state, a) or _same(state, b), f"after kill {k}: {state}"
    assert os.listdir(folder.parent) == ["m"]
    _assert_next_save_leaves_only_itself(folder)


@pytest.mark.parametrize("failure", ["disk full", "interrupt after the commit"])
def test_a_save_failing_midway_leaves_a_whole_save(tmp_path, monkeypatch, failure):
    """An exception inside save_weights (the process lives on): the old save and nothing
    else if it came before model.json's rename, the new save if after."""
    folder = tmp_path / "m"
    variables = [tf.variable(value, name=name) for name, value in _OLD.items()]
    old_files = sorted(
        ["model.json", *_shard_names(tfio.save_weights(folder, variables, shard_size_bytes=64))]
    )
    for v in variables:
        v.assign(_NEW[v.name])
    write, replace = os.write, os.replace
    calls = []

    def full_disk(fd, data):
        calls.append(fd)
        if len(calls) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return write(fd, data)

    def interrupted(src, dst):
        replace(src, dst)
        if os.path.basename(dst) == "model.json":
            raise KeyboardInterrupt

    if failure == "disk full":
        monkeypatch.setattr(os, "write", full_disk)
        with pytest.raises(OSError, match="No space left"):
            tfio.save_weights(folder, variables, shard_size_bytes=64)
        assert _same(_state(folder), _OLD)
        assert sorted(os.listdir(folder)) == old_files
    else:
        monkeypatch.setattr(os, "replace", interrupted)
        with pytest.raises(KeyboardInterrupt):
            tfio.save_weights(folder, variables, shard_size_bytes=64)
        assert _same(_state(folder), _NEW)
    monkeypatch.undo()
    tf.dispose(variables)
    _assert_next_save_leaves_only_itself(folder)


def test_concurrent_saves_and_loads_see_whole_saves(tmp_path):
    """Two processes save A, B and C, D in turn into one folder while this one loads: every
    load is one of the four, though each save deletes the files of the save before."""
    folder = tmp_path / "live" / "m"
    saves = [_NEW, _OLD, _NEXT, {k: v[::-1].copy() for k, v in _NEW.items()}]
    npz = [_savez(tmp_path / f"{k}.npz", arrays) for k, arrays in enumerate(saves)]
    seen, changes = [], 0
    with contextlib.ExitStack() as stack:
        savers = []
        for first, second, pause in [(0, 1, "0.005"), (2, 3, "0.002")]:
            command = ["loop", folder, npz[first], npz[second], 16, pause]
            saver = subprocess.Popen(
                [sys.executable, str(_CRASH_WORKER), *map(str, command)],
                stdout=subprocess.PIPE,
                text=True,
            )
            stack.enter_context(saver)
            stack.callback(saver.kill)
            savers.append(saver)
        for saver in savers:
            assert saver.stdout is not None and saver.stdout.readline() == "ready\n"
        while changes < 10 and len(seen) < 20_000:
            seen.append(_state(folder))
            changes += len(seen) > 1 and not _same(seen[-1], seen[-2])
    assert all(any(_same(state, arrays) for arrays in saves) for state in seen)
    assert changes == 10, "the saves did not overlap the loads"


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
        ({"shape": [1] * 65 + [6]}, "weight 'a': shape has 66 dimensions; arrays have at most 64"),
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
        ("[" * 100_000 + "]" * 100_000, "is not a JSON file"),
        ('[{"paths": [], "weights": [{"shape": [' + "9" * 5000 + "]}]}]", "is not a JSON file"),
        (b"[\xff]", "is not a JSON file"),
    ]:
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
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


def test_a_shard_listed_200_times_is_refused_before_reading_it(tmp_path):
    """The file of issue #13: 1.9 KB of JSON naming one 1 MiB shard 200 times."""
    (tmp_path / "shard.bin").write_bytes(bytes(1 << 20))
    weight = {"name": "w", "shape": [200 << 18], "dtype": "float32"}
    path = _write_manifest(tmp_path, [{"paths": ["shard.bin"] * 200, "weights": [weight]}], {})
    w = tf.variable(tf.ones([4]), name="w")
    with pytest.raises(
        ValueError, match="weight group 0: shard 'shard.bin' is listed twice .*list each shard"
    ):
        tfio.load_weights(path, [w])
    assert np.asarray(w).all()


@pytest.mark.parametrize("link", ["symlink", "hardlink", "dot-slash"])
def test_one_shard_file_under_two_names_is_refused(tmp_path, link):
    path, variables = _good_model(tmp_path)
    first, second = (path.parent / name for name in _shard_names(path)[:2])
    second.unlink()
    if link == "symlink":
        second.symlink_to(first.name)
    elif link == "hardlink":
        os.link(first, second)
    else:
        _edit_manifest(path, lambda m: m[0]["paths"].__setitem__(1, "./" + first.name))
        second = first
    with pytest.raises(ValueError) as error:
        tfio.load_weights(path, variables)
    again = "is listed twice" if link == "dot-slash" else f"is the same file as '{first.name}'"
    assert f"weight group 0: shard '{second.name}' {again} (first in weight group 0)" in str(
        error.value
    )
    _assert_unchanged(variables)


def test_a_shard_listed_in_two_groups_is_refused(tmp_path):
    path, variables = _good_model(tmp_path)
    name = _shard_names(path)[0]
    extra = {"paths": [name], "weights": [{"name": "c", "shape": [2], "dtype": "float32"}]}
    _edit_manifest(path, lambda m: m.append(extra))
    with pytest.raises(
        ValueError,
        match=f"weight group 1: shard '{name}' is listed twice \\(first in weight group 0",
    ):
        tfio.load_weights(path, variables)
    _assert_unchanged(variables)


def test_peak_memory_of_a_load_is_bounded_by_the_bytes_on_disk(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "io_rss.py"), str(tmp_path), "200", "1", "1", "32"],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    hostile, honest = map(json.loads, result.stdout.splitlines())
    # 200 MiB of weights from 1 MiB on disk (issue #13): refused before anything is read
    assert hostile["outcome"].startswith("ValueError: weight group 0: shard 'shard.bin'")
    assert hostile["peak_rss_increase_bytes"] < 16 << 20
    assert honest["outcome"] == "loaded"
    assert honest["peak_rss_increase_bytes"] <= 2 * honest["disk_bytes"] + (16 << 20)


# -- fuzz: a mutated model.json loads the original values or raises ValueError --------

_FUZZ_VALUES = {
    "kernel": np.asarray([[0.5, -1.25, 3.0], [1e-3, -0.0, 7.0]], np.float32),
    "step": np.asarray(-7, np.int32),
    "mask": np.asarray([True, False, True]),
    "q8": np.asarray([0, 1, 2, 255], np.float32) * 0.5 - 1,  # uint8 codes, min -1, scale 0.5
    "h16": np.asarray([1.5, -2.0], np.float32),
    "z": np.asarray([1 - 2j], np.complex64),
}
_FUZZ_QUANTIZATION = {
    "q8": {"dtype": "uint8", "min": -1.0, "scale": 0.5},
    "h16": {"dtype": "float16"},
}


def _fuzz_model(folder):
    """Two groups, an entry spanning two shards, both quantizations: model.json's document."""
    v = _FUZZ_VALUES
    group0 = v["kernel"].tobytes() + v["step"].tobytes() + v["mask"].tobytes()
    group1 = bytes([0, 1, 2, 255]) + v["h16"].astype("<f2").tobytes() + v["z"].tobytes()
    specs = {
        name: {"name": name, "shape": list(value.shape), "dtype": value.dtype.name}
        | ({"quantization": dict(_FUZZ_QUANTIZATION[name])} if name in _FUZZ_QUANTIZATION else {})
        for name, value in v.items()
    }
    manifest = [
        {
            "paths": ["g0a.bin", "g0b.bin"],
            "weights": [specs[n] for n in ("kernel", "step", "mask")],
        },
        {"paths": ["g1.bin"], "weights": [specs[n] for n in ("q8", "h16", "z")]},
    ]
    shards = {"g0a.bin": group0[:13], "g0b.bin": group0[13:], "g1.bin": group1}
    _write_manifest(folder, manifest, shards)
    (folder.parent / "outside.bin").write_bytes(group1)
    return {"weightsManifest": manifest}


def _json_paths(node, path=()):
    yield path
    if isinstance(node, (dict, list)):
        for key, child in node.items() if isinstance(node, dict) else enumerate(node):
            yield from _json_paths(child, (*path, key))


def _parent(document, path):
    for key in path[:-1]:
        document = document[key]
    return document


def _is_finite_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=5,
)
_QUANTIZATIONS = (
    {"dtype": "uint8", "min": 0, "scale": 1},
    {"dtype": "uint16", "min": 0, "scale": 1},
    {"dtype": "float16"},
    {"dtype": "int8", "min": 0, "scale": 1},
    {"dtype": "uint8"},
    {},
    None,
    [],
)
_MUTATIONS = (
    "replace delete shape dtype quantization path duplicate-path shard-bytes shard-file text benign"
).split()
_DTYPES = ("float32", "int32", "bool", "complex64", "string", "float16", "float64", "uint8", None)
_SHARDS = ("g0a.bin", "g0b.bin", "g1.bin")
_PATHS = (*_SHARDS, "../outside.bin", "/etc/passwd", "sub/g1.bin", "", ".", "..", "missing.bin")
_PATHS += ("model.json", "g1.bin\x00", "g0a.bin/")


def _mutate(data, document, folder):
    """Apply one drawn mutation to `document` (written back by the caller) or the shards.

    Left out, because they make a different valid file: new finite min/scale numbers,
    reordered shards or bytes, and float16 <-> uint16 (both two bytes per value)."""
    manifest = document["weightsManifest"]
    entries = [(g, e) for g, group in enumerate(manifest) for e in range(len(group["weights"]))]
    g, e = data.draw(st.sampled_from(entries), label="entry")
    entry = manifest[g]["weights"][e]
    kind = data.draw(st.sampled_from(_MUTATIONS), label="kind")
    hypothesis.event(f"mutation: {kind}")
    if kind == "replace":
        path = data.draw(st.sampled_from(list(_json_paths(document))), label="node")
        value = data.draw(_ANY_JSON, label="value")
        hypothesis.assume(not (path and path[-1] in ("min", "scale") and _is_finite_number(value)))
        if not path:
            return value
        _parent(document, path)[path[-1]] = value
    elif kind == "delete":
        path = data.draw(st.sampled_from(list(_json_paths(document))[1:]), label="node")
        del _parent(document, path)[path[-1]]
    elif kind == "shape":
        shape, op = entry["shape"], data.draw(st.sampled_from(["set", "add", "remove"]))
        dim = data.draw(st.sampled_from([0, 1, 2, 3, 4, 6, -1, 2**31 - 1, 2**31, 2**53]))
        if op == "add":
            shape.insert(data.draw(st.integers(0, len(shape))), dim)
        else:
            hypothesis.assume(shape)
            i = data.draw(st.integers(0, len(shape) - 1))
            shape[i : i + 1] = [dim] if op == "set" else []
    elif kind == "dtype":
        entry["dtype"] = data.draw(st.sampled_from(_DTYPES))
    elif kind == "quantization":
        old = entry.get("quantization", {}).get("dtype")
        forbidden = {old, {"float16": "uint16", "uint16": "float16"}.get(old)}
        allowed = [
            q for q in _QUANTIZATIONS if not (isinstance(q, dict) and q.get("dtype") in forbidden)
        ]
        choice = data.draw(st.sampled_from([*allowed, "drop", "bad min", "bad scale"]))
        if choice == "drop":
            hypothesis.assume("quantization" in entry)
            del entry["quantization"]
        elif choice in ("bad min", "bad scale"):
            hypothesis.assume(old in ("uint8", "uint16"))
            entry["quantization"][choice[4:]] = data.draw(
                st.sampled_from([math.nan, math.inf, -math.inf, "1", None, True, [], {}])
            )
        else:
            entry["quantization"] = choice
    elif kind == "path":
        paths = manifest[g]["paths"]
        i = data.draw(st.integers(0, len(paths) - 1))
        paths[i] = data.draw(st.sampled_from([*_PATHS, "./" + paths[i]]))
    elif kind == "duplicate-path":
        name = data.draw(st.sampled_from([*_SHARDS, "./g1.bin"]))
        paths = manifest[data.draw(st.integers(0, 1))]["paths"]
        paths.insert(data.draw(st.integers(0, len(paths))), name)
    elif kind == "shard-bytes":
        shard = folder / data.draw(st.sampled_from(_SHARDS))
        content = shard.read_bytes()
        if data.draw(st.booleans()):
            shard.write_bytes(content[: data.draw(st.integers(0, len(content) - 1))])
        else:
            shard.write_bytes(content + data.draw(st.binary(min_size=1, max_size=8)))
    elif kind == "shard-file":
        shard, other = (folder / data.draw(st.sampled_from(_SHARDS)) for _ in range(2))
        hypothesis.assume(other != shard)
        how = data.draw(
            st.sampled_from(["symlink", "hardlink", "outside", "loop", "dir", "fifo", "gone"])
        )
        shard.unlink()
        if how == "symlink":
            shard.symlink_to(other.name)
        elif how == "hardlink":
            os.link(other, shard)
        elif how == "outside":
            shard.symlink_to(folder.parent / "outside.bin")
        elif how == "loop":
            shard.symlink_to(shard.name)
        elif how == "dir":
            shard.mkdir()
        elif how == "fifo":
            os.mkfifo(shard)
    elif kind == "text":
        text = json.dumps(document).encode()
        if data.draw(st.booleans()):
            return text[: data.draw(st.integers(0, len(text) - 1))]
        i = data.draw(st.integers(0, len(text)))
        byte = data.draw(st.sampled_from(b'{}[],:" \\\n\xffxyzIN'))  # nothing that extends a number
        return text[:i] + bytes([byte]) + text[i:]
    else:  # benign: what tfjs's own files may hold
        entry["group"] = "weights"
        manifest[g]["paths"] = ["./" + p for p in manifest[g]["paths"]]
        document["format"], document["generatedBy"] = "layers-model", None
    return document


@settings(max_examples=500, deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow])
@given(data=st.data())
def test_a_mutated_model_json_loads_the_original_values_or_raises_value_error(data):
    sentinels = {name: np.zeros_like(value) for name, value in _FUZZ_VALUES.items()}
    variables = [tf.variable(value, name=name) for name, value in sentinels.items()]
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "m"
            mutated = _mutate(data, _fuzz_model(folder), folder)
            model_json = folder / "model.json"
            model_json.write_bytes(
                mutated if isinstance(mutated, bytes) else json.dumps(mutated).encode()
            )
            try:
                loaded = tfio.load_weights(model_json, variables)
            except ValueError:
                hypothesis.event("ValueError")
                expected = sentinels
            else:
                hypothesis.event("loaded")
                assert list(loaded) == list(_FUZZ_VALUES)
                for name, value in _FUZZ_VALUES.items():
                    _assert_same_bits(loaded[name], value)
                expected = _FUZZ_VALUES
            for v in variables:
                _assert_same_bits(v, expected[v.name])
    finally:
        tf.dispose(variables)


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
