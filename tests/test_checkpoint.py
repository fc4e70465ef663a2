"""tf.train.save_checkpoint / restore_checkpoint: round trips, atomic writes, all-or-nothing."""

from __future__ import annotations

import ast
import contextlib
import importlib.metadata
import json
import os
import pathlib
import pickle
import re
import shutil
import signal
import subprocess
import sys
import time

import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from scaleout import SCRIPTS, mlp

import tfjs_grad as tf
from tfjs_grad.train import checkpoint


def _snapshot():
    return {name: np.asarray(v.value) for name, v in tf.registered_variables().items()}


def _assert_unchanged(before):
    after = _snapshot()
    assert sorted(after) == sorted(before)
    for name in before:
        np.testing.assert_array_equal(after[name], before[name], err_msg=name)


def _trained(steps=3):
    model = mlp.Model()
    mlp.train(model, range(steps))
    return model


# -- round trips ---------------------------------------------------------------------------
def test_round_trip_restores_values_slots_and_iterations(tmp_path):
    model = _trained()
    saved = model.state()
    assert tf.train.save_checkpoint(tmp_path, optimizers=[model.opt]) == 0
    mlp.train(model, range(3, 5))
    assert tf.train.restore_checkpoint(tmp_path, optimizers=[model.opt]) == 0
    assert model.opt.iterations == 3
    restored = model.state()
    for name in saved:
        np.testing.assert_array_equal(restored[name], saved[name], err_msg=name)


def test_a_fresh_model_resumes_bit_identically(tmp_path):
    model = _trained(3)
    tf.train.save_checkpoint(tmp_path, optimizers=[model.opt])
    mlp.train(model, range(3, 6))
    uninterrupted = model.state()
    tf.dispose_variables()

    fresh = mlp.Model()
    tf.train.restore_checkpoint(tmp_path, optimizers=[fresh.opt])
    assert [n for n, _ in fresh.opt.get_weights()][:3] == ["iter", "w1/m", "b1/m"]
    mlp.train(fresh, range(3, 6))
    resumed = fresh.state()
    for name in uninterrupted:
        np.testing.assert_array_equal(resumed[name], uninterrupted[name], err_msg=name)


def test_var_list_saves_and_restores_a_subset(tmp_path):
    a = tf.variable(tf.tensor1d([1, 2]), name="a")
    b = tf.variable(tf.tensor1d([3, 4]), name="b")
    tf.train.save_checkpoint(tmp_path, [a])
    a.assign(tf.tensor1d([0, 0]))
    b.assign(tf.tensor1d([0, 0]))
    tf.train.restore_checkpoint(tmp_path)
    assert a.value.tolist() == [1, 2] and b.value.tolist() == [0, 0]
    with pytest.raises(ValueError, match="no entry for Variable 'b'"):
        tf.train.restore_checkpoint(tmp_path, [a, b])


def test_steps_default_to_one_past_the_latest_and_restore_takes_the_latest(tmp_path):
    v = tf.variable(tf.scalar(1.0), name="v")
    assert tf.train.save_checkpoint(tmp_path, [v]) == 0
    v.assign(tf.scalar(2.0))
    assert tf.train.save_checkpoint(tmp_path, [v], step=7) == 7
    v.assign(tf.scalar(3.0))
    assert tf.train.save_checkpoint(tmp_path, [v]) == 8
    assert tf.train.restore_checkpoint(tmp_path, [v], step=7) == 7
    assert float(v.value) == 2.0
    assert tf.train.restore_checkpoint(tmp_path, [v]) == 8
    assert float(v.value) == 3.0
    with pytest.raises(ValueError, match="steps must increase"):
        tf.train.save_checkpoint(tmp_path, [v], step=8)
    with pytest.raises(ValueError, match=r"no complete checkpoint step 5 .*\[0, 7, 8\]"):
        tf.train.restore_checkpoint(tmp_path, [v], step=5)


def test_int_and_bool_variables_round_trip(tmp_path):
    n = tf.variable(jnp.array([1, 2, 3], jnp.int32), name="n")
    flag = tf.variable(jnp.array([True, False]), name="flag", trainable=False)
    tf.train.save_checkpoint(tmp_path)
    n.assign(jnp.zeros(3, jnp.int32))
    flag.assign(jnp.array([False, False]))
    tf.train.restore_checkpoint(tmp_path)
    assert n.value.tolist() == [1, 2, 3] and flag.value.tolist() == [True, False]


def test_restore_never_unpickles(tmp_path, monkeypatch):
    model = _trained(1)
    tf.train.save_checkpoint(tmp_path, optimizers=[model.opt])

    def refuse(*args, **kwargs):
        raise AssertionError("a checkpoint must not be unpickled")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, refuse)
    tf.train.restore_checkpoint(tmp_path, optimizers=[model.opt])


# -- atomic writes ------------------------------------------------------------------------
@contextlib.contextmanager
def _worker(tmp_path, label, *args):
    """A running checkpoint_worker.py (output in <label>.log); killed on leaving if alive."""
    log = tmp_path / f"{label}.log"
    with open(log, "w") as sink:
        proc = subprocess.Popen(
            [sys.executable, "-W", "error", str(SCRIPTS / "checkpoint_worker.py")]
            + [str(a) for a in args],
            env=dict(os.environ, JAX_PLATFORMS="cpu"),
            stdout=sink,
            stderr=subprocess.STDOUT,
        )
    try:
        yield proc, log
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)


def _succeeds(proc, log, timeout=120):
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"worker still running after {timeout} s:\n{log.read_text()[-3000:]}")
    assert proc.returncode == 0, log.read_text()[-3000:]


def test_killed_during_a_checkpoint_write_then_resumed_is_bit_identical(tmp_path):
    full_dir, killed_dir, marker = tmp_path / "full", tmp_path / "killed", tmp_path / "paused"
    pause = ("--pause-at", 8, marker)
    with (
        _worker(tmp_path, "full", full_dir, tmp_path / "full.npz") as (full, full_log),
        _worker(tmp_path, "killed", killed_dir, tmp_path / "unused.npz", *pause) as (killed, log),
    ):
        deadline = time.monotonic() + 120
        while not marker.exists() and killed.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), log.read_text()[-3000:]
        killed.send_signal(signal.SIGKILL)
        killed.wait(timeout=30)
        assert killed.returncode == -signal.SIGKILL
        _succeeds(full, full_log)

    # Step 8's data is on disk, unpublished; step 4 is intact and is the latest.
    unfinished = pathlib.Path(marker.read_text())
    assert unfinished.parent == killed_dir and unfinished.is_dir()
    assert any(unfinished.rglob("*")), "the kill should have left a partly written step"
    assert sorted(p.name for p in killed_dir.iterdir() if p.name.isdigit()) == ["4"]
    model = mlp.Model()
    with pytest.raises(ValueError, match="no complete checkpoint step 8"):
        tf.train.restore_checkpoint(killed_dir, optimizers=[model.opt], step=8)
    assert tf.train.restore_checkpoint(killed_dir, optimizers=[model.opt]) == 4
    tf.dispose_variables()

    with _worker(tmp_path, "resumed", killed_dir, tmp_path / "resumed.npz", "--resume") as run:
        _succeeds(*run)
    with np.load(tmp_path / "full.npz") as a, np.load(tmp_path / "resumed.npz") as b:
        assert int(b["restored_step"]) == 4 and int(a["restored_step"]) == 0
        names = sorted(set(a.files) - {"restored_step"})
        assert names == sorted(set(b.files) - {"restored_step"})
        for name in names:
            np.testing.assert_array_equal(b[name], a[name], err_msg=name)
    assert sorted(p.name for p in killed_dir.iterdir()) == ["12", "4", "8"]


# -- all-or-nothing -----------------------------------------------------------------------
def _saved_model(directory):
    model = _trained(2)
    tf.train.save_checkpoint(directory, optimizers=[model.opt])
    mlp.train(model, range(2, 3))  # live values now differ from the checkpoint's
    return model


def test_truncated_array_data_raises_naming_the_entry_and_changes_nothing(tmp_path):
    model = _saved_model(tmp_path / "ckpt")
    data = max((p for p in (tmp_path / "ckpt").rglob("*") if p.is_file()), key=os.path.getsize)
    os.truncate(data, data.stat().st_size // 2)
    before = _snapshot()
    with pytest.raises(ValueError, match=r"entry '[^']+' .* is unreadable \(truncated"):
        tf.train.restore_checkpoint(tmp_path / "ckpt", optimizers=[model.opt])
    _assert_unchanged(before)


def test_every_truncated_file_either_raises_and_changes_nothing_or_loads_exactly(tmp_path):
    model = _saved_model(tmp_path / "ckpt")
    live = model.state()
    tf.train.restore_checkpoint(tmp_path / "ckpt", optimizers=[model.opt])
    saved = model.state()
    files = sorted(p.relative_to(tmp_path / "ckpt") for p in (tmp_path / "ckpt").rglob("*"))
    files = [f for f in files if (tmp_path / "ckpt" / f).is_file()]
    raised = []
    for rel in files:
        for keep in (0.5, 0.0):
            shutil.rmtree(tmp_path / "copy", ignore_errors=True)
            shutil.copytree(tmp_path / "ckpt", tmp_path / "copy")
            damaged = tmp_path / "copy" / rel
            os.truncate(damaged, int(damaged.stat().st_size * keep))
            tf.set_state({n.replace("adam/", model.opt._prefix + "/"): v for n, v in live.items()})
            try:
                tf.train.restore_checkpoint(tmp_path / "copy", optimizers=[model.opt])
            except ValueError as e:
                assert "restore_checkpoint" in str(e)
                raised.append(str(rel))
                expected = live
            else:
                expected = saved
            got = model.state()
            for name in expected:
                np.testing.assert_array_equal(got[name], expected[name], err_msg=f"{rel}: {name}")
    # The files that hold arrays or the manifest are the ones that matter.
    assert any("manifest" in r for r in raised) and any("/d/" in r for r in raised)


def test_shape_mismatch_raises_naming_the_entry_and_changes_nothing(tmp_path):
    w = tf.variable(tf.ones([3, 4]), name="w")
    b = tf.variable(tf.zeros([4]), name="b")
    opt = tf.train.adam(0.1)
    opt.minimize(lambda: jnp.sum((w + b) ** 2))
    tf.train.save_checkpoint(tmp_path, optimizers=[opt])
    tf.dispose_variables()

    w = tf.variable(tf.ones([4, 3]), name="w")
    b = tf.variable(tf.ones([4]), name="b")
    opt = tf.train.adam(0.1)
    before = _snapshot()
    with pytest.raises(ValueError, match=r"entry 'w' has shape \(3, 4\).*has shape \(4, 3\)"):
        tf.train.restore_checkpoint(tmp_path, optimizers=[opt])
    _assert_unchanged(before)
    assert opt.iterations == 0 and opt.get_weights()[1:] == []


def test_dtype_mismatch_raises_naming_the_entry(tmp_path):
    v = tf.variable(tf.ones([2]), name="v")
    tf.train.save_checkpoint(tmp_path, [v])
    v.dispose()
    v = tf.variable(jnp.ones(2, jnp.int32), name="v")
    with pytest.raises(ValueError, match="entry 'v' .* dtype float32 .* dtype int32"):
        tf.train.restore_checkpoint(tmp_path, [v])
    assert v.value.tolist() == [1, 1]


def test_a_failure_after_slots_were_made_leaves_the_optimizer_as_it_was(tmp_path, monkeypatch):
    model = _trained(1)
    tf.train.save_checkpoint(tmp_path, optimizers=[model.opt])
    tf.dispose_variables()
    fresh = mlp.Model()
    before = _snapshot()

    def fail(*args, **kwargs):
        raise ValueError("restore_checkpoint: simulated read failure")

    monkeypatch.setattr(checkpoint, "_read_arrays", fail)
    with pytest.raises(ValueError, match="simulated"):
        tf.train.restore_checkpoint(tmp_path, optimizers=[fresh.opt])
    _assert_unchanged(before)  # no slot Variables left behind either
    assert fresh.opt._layout.names == () and fresh.opt.get_weights()[1:] == []


def test_unknown_or_missing_variables_and_mismatched_optimizers_raise(tmp_path):
    model = _trained(1)
    tf.train.save_checkpoint(tmp_path, optimizers=[model.opt])
    before = _snapshot()
    with pytest.raises(ValueError, match="2 optimizers given"):
        tf.train.restore_checkpoint(tmp_path, optimizers=[model.opt, tf.train.sgd(0.1)])
    with pytest.raises(ValueError, match="optimizers\\[0\\] is SGD"):
        tf.train.restore_checkpoint(tmp_path, optimizers=[tf.train.sgd(0.1)])
    extra = tf.variable(tf.ones([2]), name="extra")
    other = tf.train.adam(0.1)
    other.minimize(lambda: jnp.sum(extra**2), var_list=[extra])
    with pytest.raises(ValueError, match="state for Variable 'extra', which the checkpoint lacks"):
        tf.train.restore_checkpoint(tmp_path, optimizers=[other])
    model.vars["w2"].dispose()
    with pytest.raises(ValueError, match="holds Variable 'w2', which is not live"):
        tf.train.restore_checkpoint(tmp_path)
    before.pop("w2")
    for name, value in before.items():
        np.testing.assert_array_equal(tf.registered_variables()[name].value, value)


def test_missing_or_foreign_checkpoints_raise(tmp_path):
    v = tf.variable(tf.ones([2]), name="v")
    with pytest.raises(ValueError, match="no checkpoint directory"):
        tf.train.restore_checkpoint(tmp_path / "absent", [v])
    with pytest.raises(ValueError, match="no complete checkpoint in"):
        tf.train.restore_checkpoint(tmp_path, [v])

    import orbax.checkpoint as ocp

    manager = ocp.CheckpointManager(
        tmp_path / "foreign",
        item_handlers={"manifest": ocp.JsonCheckpointHandler()},
        options=ocp.CheckpointManagerOptions(enable_async_checkpointing=False),
    )
    manager.save(0, args=ocp.args.Composite(manifest=ocp.args.JsonSave({"format": "other"})))
    manager.close()
    with pytest.raises(ValueError, match="not written by tfjs_grad"):
        tf.train.restore_checkpoint(tmp_path / "foreign", [v])


def test_bad_arguments_raise_type_errors(tmp_path):
    v = tf.variable(tf.ones([2]), name="v")
    with pytest.raises(TypeError, match="'directory'"):
        tf.train.save_checkpoint(3, [v])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'var_list'"):
        tf.train.save_checkpoint(tmp_path, v)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="'optimizers'"):
        tf.train.save_checkpoint(tmp_path, [v], optimizers=["adam"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="'step'"):
        tf.train.save_checkpoint(tmp_path, [v], step=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'step'"):
        tf.train.save_checkpoint(tmp_path, [v], step=-1)
    with pytest.raises(ValueError, match="no Variables to save"):
        tf.train.save_checkpoint(tmp_path, [])


def test_saving_inside_tf_jit_raises(tmp_path):
    v = tf.variable(tf.ones([2]), name="v")

    @tf.jit
    def step():
        v.assign(v * 2)
        tf.train.save_checkpoint(tmp_path, [v])

    with pytest.raises(ValueError, match="cannot run inside a transform"):
        step()
    assert v.value.tolist() == [1, 1]


# -- hostile manifests (issue #13) ----------------------------------------------------------
def _manifest_file(directory, step=0):
    return pathlib.Path(directory) / str(step) / "manifest" / "metadata"


def _edit_manifest(directory, edit, step=0):
    path = _manifest_file(directory, step)
    manifest = json.loads(path.read_text())
    edit(manifest)
    path.write_text(json.dumps(manifest))


@pytest.mark.parametrize("declared", [(3, 2), (6,), (2, 2)])
def test_a_manifest_claiming_the_targets_shape_is_caught_by_the_stored_arrays_shape(
    tmp_path, declared
):
    w = tf.variable(tf.ones([2, 3]), name="w")
    tf.train.save_checkpoint(tmp_path, [w])
    w.dispose()
    w = tf.variable(jnp.full(declared, 7.0), name="w")
    _edit_manifest(tmp_path, lambda m: m["entries"]["v0"].update(shape=list(declared)))
    with pytest.raises(
        ValueError, match=r"entry 'w' claims shape .* but its stored array has shape \(2, 3\)"
    ):
        tf.train.restore_checkpoint(tmp_path, [w])
    np.testing.assert_array_equal(w.value, np.full(declared, 7.0))


def test_a_manifest_claiming_the_targets_dtype_is_caught_by_the_stored_arrays_dtype(tmp_path):
    n = tf.variable(jnp.array([1, 2], jnp.int32), name="n")
    tf.train.save_checkpoint(tmp_path, [n])
    n.dispose()
    n = tf.variable(tf.tensor1d([5.0, 5.0]), name="n")
    _edit_manifest(tmp_path, lambda m: m["entries"]["v0"].update(dtype="float32"))
    with pytest.raises(ValueError, match="entry 'n' claims .* stored array has shape .* int32"):
        tf.train.restore_checkpoint(tmp_path, [n])
    assert n.value.tolist() == [5.0, 5.0]


def _set(path, value):
    def edit(manifest):
        *parents, last = path
        node = manifest
        for key in parents:
            node = node[key]
        node[last] = value

    return edit


def _delete(path):
    def edit(manifest):
        *parents, last = path
        node = manifest
        for key in parents:
            node = node[key]
        del node[last]

    return edit


@pytest.mark.parametrize(
    "edit, match",
    [
        (_set(["entries", "v0"], 5), r"entry 'v0' must be a dict"),
        (_delete(["entries", "v0", "dtype"]), r"entry 'v0' lacks \['dtype'\]"),
        (_set(["entries", "v0", "shape"], "2,3"), r"entry 'v0' \('w'\): 'shape' must be"),
        (_set(["entries", "v0", "shape"], [2, -3]), r"entry 'v0' \('w'\): 'shape' must be"),
        (_set(["entries", "v0", "shape"], [2.0, 3]), r"entry 'v0' \('w'\): 'shape' must be"),
        (_set(["entries", "v0", "dtype"], "float99"), r"entry 'v0' \('w'\): 'dtype' must"),
        (_set(["entries", "v0", "dtype"], "object"), r"entry 'v0' \('w'\): 'dtype' must"),
        (_set(["entries", "v0", "name"], 3), r"entry 'v0': 'name' must be a str"),
        (_set(["entries", "v0", "extra"], 1), r"entry 'v0' has unexpected \['extra'\]"),
        (_set(["variables", "w"], "nope"), r"Variable 'w' refers to 'nope', which is not"),
        (_set(["variables", "w"], ["v0"]), r"Variable 'w' refers to \['v0'\]"),
        (_set(["optimizers"], {}), r"'optimizers' must be a list"),
        (_set(["optimizers", 0], []), r"optimizers\[0\] must be a dict"),
        (_set(["optimizers", 0, "names"], [1]), r"optimizers\[0\].names must be distinct"),
        (_set(["optimizers", 0, "names"], ["w", "w"]), r"optimizers\[0\].names must be"),
        (_delete(["optimizers", 0, "weights"]), r"optimizers\[0\] lacks \['weights'\]"),
        (_set(["optimizers", 0, "weights", "iter"], "v0"), r"entry 'v0' is used twice"),
        (
            _set(["entries", "../v0"], {"name": "w", "shape": [], "dtype": "float32"}),
            "entry key '../v0'",
        ),
        (_delete(["variables", "w"]), r"entry 'v0' \('w'\) is not used"),
        (_set(["entries", "v0", "name"], "b"), r"entry 'v0' is named 'b', but Variable 'w'"),
    ],
)
def test_a_malformed_manifest_raises_value_error_naming_the_entry(tmp_path, edit, match):
    w = tf.variable(tf.ones([2, 3]), name="w")
    opt = tf.train.adam(0.1)
    opt.minimize(lambda: jnp.sum(w**2))
    tf.train.save_checkpoint(tmp_path, [w], [opt])
    opt.minimize(lambda: jnp.sum(w**2))
    _edit_manifest(tmp_path, edit)
    before = _snapshot()
    with pytest.raises(ValueError, match="malformed: " + match):
        tf.train.restore_checkpoint(tmp_path, [w], [opt])
    _assert_unchanged(before)


def test_a_variable_and_a_slot_mapped_to_one_entry_raise_and_restore_nothing(tmp_path):
    w = tf.variable(tf.ones([2]), name="w")
    opt = tf.train.momentum(0.1, 0.9)
    opt.minimize(lambda: jnp.sum(w**2))
    tf.train.save_checkpoint(tmp_path, [w], [opt])
    opt.minimize(lambda: jnp.sum(w**2))

    def alias(manifest):
        slot = manifest["optimizers"][0]["weights"]["w/accumulation"]
        manifest["optimizers"][0]["weights"]["w/accumulation"] = manifest["variables"]["w"]
        del manifest["entries"][slot]

    _edit_manifest(tmp_path, alias)
    before = _snapshot()
    with pytest.raises(ValueError, match="entry 'v0' is used twice"):
        tf.train.restore_checkpoint(tmp_path, [w], [opt])
    _assert_unchanged(before)


def test_optimizer_state_in_var_list_is_refused_when_saving(tmp_path):
    w = tf.variable(tf.ones([2]), name="w")
    opt = tf.train.adam(0.1)
    opt.minimize(lambda: jnp.sum(w**2))
    slot = next(v for n, v in tf.registered_variables().items() if n.endswith("/w/m"))
    with pytest.raises(ValueError, match="is state of optimizers\\[0\\]"):
        tf.train.save_checkpoint(tmp_path, [w, slot], [opt])


# -- fuzzing the manifest -------------------------------------------------------------------
_REPLACEMENTS = [None, True, 0, -1, 1, 7, 2.5, "", "x", "v0", "v1", "o0_1", "o0_2", "w", "b"]
_REPLACEMENTS += ["float32", "int32", "bfloat16", "float64", [], [3], [2, 3], [3, 2], [6], {}]
_REPLACEMENTS += [{"name": "w", "shape": [2, 3], "dtype": "float32"}, ["w"], ["w", "b"]]


def _nodes(tree, path=()):
    yield path
    if isinstance(tree, dict):
        for key, value in tree.items():
            yield from _nodes(value, (*path, key))
    elif isinstance(tree, list):
        for i, value in enumerate(tree):
            yield from _nodes(value, (*path, i))


def _mutate(manifest, data):
    """One edit: delete, replace (with a constant or another node), add a key, or reorder
    a dict's keys (harmless: the restore must then load exactly)."""
    paths = [p for p in _nodes(manifest) if p]
    path = data.draw(st.sampled_from(paths), label="path")
    parent = manifest
    for key in path[:-1]:
        parent = parent[key]
    kinds = ["delete", "constant", "copy", "add", "reorder"]
    kind = data.draw(st.sampled_from(kinds), label="kind")
    if kind == "reorder":
        if isinstance(parent, dict):
            items = list(parent.items())[::-1]
            parent.clear()
            parent.update(items)
    elif kind == "delete":
        del parent[path[-1]]
    elif kind == "constant":
        parent[path[-1]] = data.draw(st.sampled_from(_REPLACEMENTS), label="value")
    elif kind == "copy":
        source = manifest
        for key in data.draw(st.sampled_from(paths), label="source"):
            source = source[key]
        parent[path[-1]] = json.loads(json.dumps(source))
    elif isinstance(parent, dict):
        parent[data.draw(st.sampled_from(["extra", "v9", "o0_9", "w"]), label="key")] = data.draw(
            st.sampled_from(_REPLACEMENTS), label="value"
        )
    else:
        parent.append(data.draw(st.sampled_from(_REPLACEMENTS), label="value"))


@pytest.fixture
def fuzz_checkpoint(tmp_path):
    """A checkpoint of w, b, n and an Adam optimizer; the live values differ from it."""
    w = tf.variable(tf.ones([2, 3]), name="w")
    b = tf.variable(tf.tensor1d([1.0, 2.0, 3.0]), name="b")
    n = tf.variable(jnp.array([4, 5], jnp.int32), name="n", trainable=False)
    opt = tf.train.adam(0.1)
    opt.minimize(lambda: jnp.sum(w**2) + jnp.sum(b**3))
    tf.train.save_checkpoint(tmp_path, [w, b, n], [opt])
    saved = {v.name: np.asarray(v.value) for v in (w, b, n)}
    saved_opt = {k: np.asarray(v) for k, v in opt.get_weights()}
    opt.minimize(lambda: jnp.sum(w**2) + jnp.sum(b**3))
    n.assign(jnp.array([0, 0], jnp.int32))
    opt.dispose()
    live = {v.name: v.value for v in (w, b, n)}
    yield tmp_path, _manifest_file(tmp_path).read_text(), live, saved, saved_opt


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_every_manifest_mutation_loads_exactly_or_raises_and_changes_nothing(fuzz_checkpoint, data):
    directory, original, live, saved, saved_opt = fuzz_checkpoint
    manifest = json.loads(original)
    _mutate(manifest, data)
    _manifest_file(directory).write_text(json.dumps(manifest))
    tf.set_state(live)
    fresh = tf.train.adam(0.1)
    before = _snapshot()
    try:
        tf.train.restore_checkpoint(directory, optimizers=[fresh])
    except ValueError as e:
        assert "restore_checkpoint" in str(e)
        event("raised: " + ("malformed manifest" if "malformed" in str(e) else "other"))
        _assert_unchanged(before)
        assert [name for name, _ in fresh.get_weights()] == ["iter"]
    else:
        event("loaded")
        variables = tf.registered_variables()
        for name, value in saved.items():
            np.testing.assert_array_equal(variables[name].value, value, err_msg=name)
        got = {k: np.asarray(v) for k, v in fresh.get_weights()}
        assert sorted(got) == sorted(saved_opt)
        for label, value in saved_opt.items():
            np.testing.assert_array_equal(got[label], value, err_msg=label)
    finally:
        fresh.dispose()


# -- packaging ------------------------------------------------------------------------------
def test_every_third_party_import_of_the_package_is_a_declared_dependency():
    """Plain imports are dependencies; an import guarded by `except ImportError` (tqdm's
    progress bar) is optional and must be declared in one of the extras."""
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    root = pathlib.Path(tf.__file__).parent

    def modules(node):
        if isinstance(node, ast.Import):
            return {alias.name.split(".")[0] for alias in node.names}
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            return {node.module.split(".")[0]}
        return set()

    imported, optional = set(), set()
    for source in root.rglob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Try) and any(
                isinstance(h.type, ast.Name) and h.type.id == "ImportError" for h in node.handlers
            ):
                for inner in node.body:
                    for sub in ast.walk(inner):
                        optional |= modules(sub)
        for node in ast.walk(tree):
            imported |= modules(node)
    stdlib = set(sys.stdlib_module_names) | {"tfjs_grad"}
    project = tomllib.loads((root.parent / "pyproject.toml").read_text())["project"]
    normalise = lambda name: re.sub(r"[-_.]+", "-", name).lower()  # noqa: E731
    names = lambda deps: {normalise(re.split(r"[<>=!~ ;\[]", d)[0]) for d in deps}  # noqa: E731
    declared = names(project["dependencies"])
    extras = names(d for deps in project["optional-dependencies"].values() for d in deps)
    distributions = importlib.metadata.packages_distributions()
    for module in sorted(imported - stdlib):
        providers = {normalise(d) for d in distributions.get(module, [module])}
        allowed = declared | extras if module in optional else declared
        assert providers & allowed, f"'import {module}' is not declared in pyproject.toml"
