"""Sharded Variables under tf.jit on 8 simulated CPU devices: data and model parallel.

JAX fixes its device count when it starts, so the multi-device runs happen in one
subprocess (tests/scripts/sharded_training.py) with
XLA_FLAGS=--xla_force_host_platform_device_count=8; the tests below check its report.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import jax
import numpy as np
import pytest
from jax.sharding import SingleDeviceSharding

import tfjs_grad as tf

SCRIPT = pathlib.Path(__file__).parent / "scripts" / "sharded_training.py"
NAMES = ("w1", "b1", "w2", "b2")
SLOTS = tuple(f"adam/{n}/{s}" for s in ("m", "v") for n in NAMES)

# float32 sums in another order (per-shard partial sums, then an all-reduce) round
# differently, and Adam divides by sqrt(v), so an entry whose gradient nearly cancels
# over the batch moves by a slightly different amount. After 20 steps that is a few 1e-5
# absolute: the single-device run itself moves as much when its gradients are computed
# in float64 instead. With float64 gradients the layouts agree bit for bit (see the
# "...64" runs), so the float32 bound only has to cover rounding.
F32_ATOL = 1e-4


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    out = tmp_path_factory.mktemp("sharded")
    env = dict(os.environ)
    env.update(XLA_FLAGS="--xla_force_host_platform_device_count=8", JAX_PLATFORMS="cpu")
    proc = subprocess.run(
        [sys.executable, "-W", "error", str(SCRIPT), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads((out / "report.json").read_text())
    with np.load(out / "state.npz", allow_pickle=False) as npz:
        states = {key: npz[key] for key in npz.files}
    return report, states


def _state(states, run):
    return {k.split(":", 1)[1]: v for k, v in states.items() if k.startswith(run + ":")}


@pytest.mark.parametrize("run", ["data", "model"])
def test_parallel_training_matches_single_device_training(sharded, run):
    _, states = sharded
    single, parallel = _state(states, "single"), _state(states, run)
    assert sorted(parallel) == sorted(single)
    for name in single:
        np.testing.assert_allclose(
            parallel[name], single[name], rtol=1e-5, atol=F32_ATOL, err_msg=name
        )


@pytest.mark.parametrize("run", ["data64", "model64"])
def test_parallel_training_matches_to_rtol_1e5_without_float32_rounding(sharded, run):
    _, states = sharded
    single, parallel = _state(states, "single64"), _state(states, run)
    for name in single:
        np.testing.assert_allclose(parallel[name], single[name], rtol=1e-5, atol=0, err_msg=name)


def test_data_parallel_keeps_every_variable_and_slot_replicated_on_all_devices(sharded):
    report, _ = sharded
    for name, history in report["data"]["shardings"].items():
        assert set(history) == {"{'data': 8} P() on 8"}, name
    assert report["data"]["trace_count"] <= 3


def test_model_parallel_keeps_each_declared_sharding_and_slots_follow_their_variable(sharded):
    report, _ = sharded
    run = report["model"]
    shardings = run["shardings"]
    for name, history in shardings.items():
        assert len(set(history)) == 1, (name, sorted(set(history)))
        assert history[0].endswith(" on 8"), (name, history[0])
    for name in NAMES:
        assert shardings[name][0] == run["declared"][name]
        for slot in ("m", "v"):
            assert shardings[f"adam/{name}/{slot}"][0] == run["declared"][name]
    assert "P(None, 'model')" in run["declared"]["w1"]
    assert "P('model',)" in run["declared"]["w2"]
    assert "P()" in run["declared"]["b1"]
    assert set(report["bias_beside_split_weight"]) == {"{'data': 2, 'model': 4} P() on 8"}


def test_a_sharded_initial_value_keeps_its_sharding_through_assign(sharded):
    report, _ = sharded
    split = "{'data': 2, 'model': 4} P(None, 'model') on 8"
    assert report["sharded_initial_value"] == [split, split]


def test_a_checkpoint_restores_shardings_into_unsharded_variables(sharded):
    report, states = sharded
    assert report["restored_step"] == 10
    assert report["restored_shardings"] == report["saved_shardings"]
    for name, history in report["resume"]["shardings"].items():
        assert set(history) == {report["saved_shardings"][name]}, name


def test_training_resumed_from_a_sharded_checkpoint_is_bit_identical(sharded):
    _, states = sharded
    resumed, uninterrupted = _state(states, "resume"), _state(states, "model")
    assert sorted(resumed) == sorted(uninterrupted)
    for name in uninterrupted:
        np.testing.assert_array_equal(resumed[name], uninterrupted[name], err_msg=name)


def test_a_pinned_sharding_wins_over_the_saved_one(sharded):
    report, states = sharded
    assert set(report["repin_shardings"].values()) == {"{'data': 8} P() on 8"}
    saved, repinned = _state(states, "saved"), _state(states, "repin")
    for name in saved:
        np.testing.assert_array_equal(repinned[name], saved[name], err_msg=name)


def test_variable_keeps_the_sharding_of_its_initial_value_and_argument():
    device = jax.devices()[0]
    sharding = SingleDeviceSharding(device)
    v = tf.variable(jax.device_put(np.ones(3, np.float32), sharding), name="placed")
    w = tf.variable(np.ones(3, np.float32), name="argument", sharding=sharding)
    assert v.value.sharding == sharding and w.value.sharding == sharding
    with pytest.raises(TypeError, match="sharding"):
        tf.variable(np.ones(3, np.float32), sharding="cpu:0")  # type: ignore[arg-type]
