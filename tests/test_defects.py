"""Issue 19's defects, each as the user's code that broke (sizes: test_defects_sizes.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from scaleout import SCRIPTS

import tfjs_grad as tf

ROOT = SCRIPTS.parent.parent


def _env():
    path = os.environ.get("PYTHONPATH", "")
    return dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{path}" if path else str(ROOT))


# -- item 6: two processes saving checkpoints into one directory --------------------------
def test_two_processes_saving_into_one_directory_all_succeed_and_each_step_is_whole(tmp_path):
    directory, go, saves = tmp_path / "ckpt", tmp_path / "go", 10
    procs = [
        subprocess.Popen(
            [sys.executable, str(SCRIPTS / "checkpoint_saver.py"), str(directory), str(label),
             str(saves), str(go)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
        )
        for label in (1, 2)
    ]  # fmt: skip
    time.sleep(1)
    go.touch()  # both start saving at once (each waits for this file)
    results = {}
    for label, proc in zip((1, 2), procs):
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        results[label] = json.loads(out.splitlines()[-1])
    for label, result in results.items():
        assert result["errors"] == [], f"process {label}: {result['errors']}"
        assert len(result["saved"]) == saves
    written = {step: (label, i) for label, r in results.items() for step, i in r["saved"]}
    assert sorted(written) == list(range(2 * saves))  # each save got a step of its own
    w = tf.variable(tf.zeros([2]), name="w")
    for step, (label, i) in written.items():
        assert tf.train.restore_checkpoint(directory, [w], step=step) == step
        assert w.value.tolist() == [label, i], f"step {step}"
    assert sorted(p.name for p in directory.iterdir()) == sorted(map(str, written))
    w.dispose()


# -- items 8, 9: hostile files cost no more memory than the bytes they occupy on disk -----
_NOISE = 4 << 20  # the interpreter's own allocations while it raises


@pytest.mark.parametrize(
    "kind, refusal",
    [
        ("sparse-shard", "ValueError: weight group 0: shard 'shard.bin' holds 536870912 bytes"),
        ("zarr-chunk", "ValueError: restore_checkpoint: entry 'hostile_w' of checkpoint step 0"),
    ],
)
def test_a_hostile_file_costs_at_most_twice_its_bytes_on_disk(tmp_path, kind, refusal):
    result = subprocess.run(
        [sys.executable, str(SCRIPTS / "hostile_rss.py"), str(tmp_path), kind],
        capture_output=True, text=True, timeout=300, env=_env(),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["outcome"].startswith(refusal), report["outcome"]
    # on main: 513 MiB for each (a 512 MiB sparse shard; one chunk of 2**27 float32)
    assert report["peak_rss_increase_bytes"] <= 2 * report["disk_bytes"] + _NOISE, report


def test_an_honest_sparse_tail_within_the_allowance_still_loads(tmp_path):
    w = tf.variable(tf.ones([8]), name="w")
    path = tf.io.save_weights(tmp_path / "model", [w])
    (shard,) = [p for p in path.parent.iterdir() if p.suffix == ".bin"]
    manifest = json.loads(path.read_text())
    with open(shard, "r+b") as f:
        f.truncate(32 + 4096)  # 4 KiB of hole after the data: within the allowance
    manifest["weightsManifest"][0]["weights"] = [
        {"name": "w", "shape": [8], "dtype": "float32"},
        {"name": "pad", "shape": [1024], "dtype": "float32"},
    ]
    path.write_text(json.dumps(manifest))
    loaded = tf.io.load_weights(path)
    assert loaded["w"].tolist() == [1.0] * 8 and not loaded["pad"].any()
    w.dispose()


def test_a_chunk_larger_than_its_array_is_refused_before_anything_is_read():
    from tfjs_grad.train._chunks import check_chunks

    check_chunks(b'{"shape": [3, 5], "chunks": [3, 5]}', "w", "here")
    check_chunks(b'{"shape": [0], "chunks": [1]}', "w", "here")
    zarr3 = {
        "shape": [4],
        "chunk_grid": {"configuration": {"chunk_shape": [4]}},
        "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2**31]}}],
    }
    for bad in (
        {"shape": [4], "chunks": [2**31]},
        {"shape": [4, 4], "chunks": [4]},
        {"shape": [4], "chunks": [4.0]},
        {"shape": [4]},
        zarr3,
    ):
        with pytest.raises(ValueError, match="restore_checkpoint: .*entry 'w' of here"):
            check_chunks(json.dumps(bad).encode(), "w", "here")


# -- item 11: unseeded draws under plain jax.jit / jax.vmap warn, naming seed and tf.jit --
def test_an_unseeded_draw_under_plain_jax_jit_warns_that_it_repeats():
    import jax
    import jax.numpy as jnp

    noisy = jax.jit(lambda x: x + tf.randomNormal([3]))
    with pytest.warns(UserWarning, match=r"tf\.randomNormal without a seed.*tf\.jit.*`seed=`"):
        noisy(jnp.zeros(3))


def test_unseeded_dropout_masks_under_jax_vmap_warn_that_every_row_is_the_same():
    import jax
    import jax.numpy as jnp

    def dropout(x):
        return jnp.where(tf.randomUniform(x.shape) < 0.5, 0.0, 2 * x)

    with pytest.warns(UserWarning, match=r"jax\.vmap.*every row.*tf\.jit.*`seed=`") as info:
        rows = jax.vmap(dropout)(jnp.ones((4, 8)))
    assert info[0].filename == __file__  # the warning points at the user's line
    assert (rows == rows[0]).all()  # what it warns about


def test_draws_that_are_fresh_each_call_do_not_warn():
    import jax

    v = tf.variable(tf.ones([4]), name="v")  # (warnings are errors in the tests)
    step = tf.jit(lambda: (v * tf.randomUniform([4])).sum())
    assert float(step()) != float(step())
    grads = tf.variable_grads(lambda: (v * tf.randomUniform([4])).sum()).grads["v"]
    assert grads.shape == (4,)
    jax.grad(lambda x: x * tf.randomUniform([]))(1.0)
    jax.jit(lambda: tf.randomNormal([2], seed=1))()
    v.dispose()


# -- item 14: tf.io.save_weights(dir) writes the model's weights, not optimizer slots -----
def test_save_weights_without_a_var_list_writes_model_weights_only(tmp_path):
    w = tf.variable(tf.ones([2]), name="w")
    b = tf.variable(tf.zeros([1]), name="b", trainable=False)  # still a model weight
    opt = tf.train.adam(0.1)
    opt.minimize(lambda: (w * w).sum() + b.sum())
    path = tf.io.save_weights(tmp_path / "model")
    weights = json.loads(path.read_text())["weightsManifest"][0]["weights"]
    assert [entry["name"] for entry in weights] == ["w", "b"]
    assert opt.iterations == 1 and len(tf.registered_variables()) > 2  # the slots live on
    opt.dispose(), w.dispose(), b.dispose()


# -- item 15: a from_optax optimizer's repr says what it is -------------------------------
def test_a_from_optax_optimizer_prints_what_it_is_made_of():
    import optax

    opt = tf.train.from_optax(optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.1)))
    w = tf.variable(tf.ones([2]), name="w")
    opt.minimize(lambda: (w * w).sum())
    assert repr(opt) == (
        "<tf.train.from_optax(chain(clip_by_global_norm, chain(scale_by_adam, scale))) "
        "iterations=1>"
    )
    rated = tf.train.from_optax(optax.inject_hyperparams(optax.rmsprop)(learning_rate=0.01))
    assert repr(rated).startswith("<tf.train.from_optax(inject_hyperparams(rmsprop, ")
    assert "learning_rate=0.01" in repr(rated)
    assert repr(tf.train.adam(0.1)).startswith("<tf.train.Adam {'learningRate': 0.1")
    opt.dispose(), rated.dispose(), w.dispose()
    assert repr(opt) == (
        "<tf.train.from_optax(chain(clip_by_global_norm, chain(scale_by_adam, scale))) (disposed)>"
    )
