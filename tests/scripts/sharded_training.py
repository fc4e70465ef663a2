"""Subprocess entry point: the MLP on 8 simulated CPU devices (see tests/test_sharding.py).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 python sharded_training.py OUT_DIR

Runs, 20 Adam steps each under `tf.jit`:
  single  one device, nothing sharded (the reference)
  data    mesh data=8: Variables replicated, every batch split over 'data'
  model   mesh data=2 x model=4: w1 and w2 split over 'model', b1 and b2 replicated, batch
          split over 'data'; a checkpoint is saved after step 10
          (and a smaller model: a replicated bias beside a split weight)
  resume  fresh Variables made without shardings, restored from model's step-10 checkpoint
          (shardings included), then steps 10..19 as model ran them
  repin   fresh Variables pinned to the data mesh's replicated sharding, restored from the
          same checkpoint: values as saved, shardings as pinned
  single64, data64, model64   single, data and model again with float64 batches (x64 on):
          the float32 Variables then get gradients computed in float64, which takes
          float32's summation-order rounding out of the comparison

Writes OUT_DIR/state.npz (each run's final Variables, keyed '<run>:<name>') and
OUT_DIR/report.json (each run's Variables' shardings after every step, and more).
"""

from __future__ import annotations

import json
import os
import pathlib
import sys

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import tfjs_grad as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlp  # noqa: E402


def describe(sharding: jax.sharding.Sharding) -> str:
    if isinstance(sharding, NamedSharding):
        spec = list(sharding.spec)
        while spec and spec[-1] is None:  # P('model', None) and P('model') are one layout
            spec.pop()
        return f"{dict(sharding.mesh.shape)} {P(*spec)} on {len(sharding.device_set)}"
    return f"{type(sharding).__name__} on {len(sharding.device_set)}"


def shardings_now() -> dict[str, str]:
    return {name: describe(v.value.sharding) for name, v in tf.registered_variables().items()}


def run(
    report: dict, states: dict, label: str, model: mlp.Model, steps: range, put, before=None
) -> None:
    history: dict[str, list[str]] = {}
    for i in steps:
        if before is not None:
            before(i)
        mlp.train(model, range(i, i + 1), put)
        for name, text in shardings_now().items():
            history.setdefault(name.replace(model.opt._prefix + "/", "adam/"), []).append(text)
    report[label] = {
        "shardings": history,
        "declared": {n: describe(v._sharding) for n, v in model.vars.items() if v._sharding},
        "trace_count": model.step.trace_count,
        "devices": {n: len(v.value.sharding.device_set) for n, v in model.vars.items()},
    }
    for name, value in model.state().items():
        states[f"{label}:{name}"] = value


def main(out: pathlib.Path) -> None:
    devices = np.array(jax.devices())
    assert devices.size == 8, devices
    report: dict = {}
    states: dict = {}

    run(report, states, "single", mlp.Model(), range(20), None)
    tf.dispose_variables()

    data_mesh = Mesh(devices, ("data",))
    replicated = NamedSharding(data_mesh, P())
    split = NamedSharding(data_mesh, P("data", None))
    model = mlp.Model(dict.fromkeys(mlp.NAMES, replicated))
    run(report, states, "data", model, range(20), lambda x, y: jax.device_put((x, y), split))
    tf.dispose_variables()

    mesh = Mesh(devices.reshape(2, 4), ("data", "model"))
    layout = {
        "w1": NamedSharding(mesh, P(None, "model")),
        "b1": NamedSharding(mesh, P()),
        "w2": NamedSharding(mesh, P("model", None)),
        "b2": NamedSharding(mesh, P()),
    }
    batch_split = NamedSharding(mesh, P("data", None))

    def put(x, y):
        return jax.device_put((x, y), batch_split)

    # A sharded initial value keeps its sharding, through assign too.
    v = tf.variable(jax.device_put(np.ones((8, 8), np.float32), layout["w1"]), name="v")
    report["sharded_initial_value"] = [describe(v.value.sharding)]
    v.assign(np.zeros((8, 8), np.float32))
    report["sharded_initial_value"].append(describe(v.value.sharding))
    tf.dispose_variables()

    # A replicated bias beside a split weight (once handed back split by tf.jit).
    w = tf.variable(np.ones((8, 8), np.float32), name="w", sharding=layout["w1"])
    b = tf.variable(np.ones(8, np.float32), name="b", sharding=layout["b1"])
    opt = tf.train.adam(0.1)
    small_step = tf.jit(
        lambda x: opt.minimize(lambda: jax.numpy.sum(jax.numpy.tanh(x @ w + b) ** 2))
    )
    report["bias_beside_split_weight"] = []
    for _ in range(3):  # one step in flight at a time: see mlp.train
        small_step(jax.device_put(np.ones((16, 8), np.float32), batch_split))
        jax.block_until_ready(b.value)
        report["bias_beside_split_weight"].append(describe(b.value.sharding))
    tf.dispose_variables()

    ckpt = out / "ckpt"
    model = mlp.Model(layout)

    def save_at_10(i: int) -> None:
        if i == 10:
            tf.train.save_checkpoint(ckpt, optimizers=[model.opt], step=10)
            report["saved_shardings"] = {
                n.replace(model.opt._prefix + "/", "adam/"): s for n, s in shardings_now().items()
            }
            for name, value in model.state().items():
                states[f"saved:{name}"] = value

    run(report, states, "model", model, range(20), put, before=save_at_10)
    tf.dispose_variables()

    model = mlp.Model()
    report["restored_step"] = tf.train.restore_checkpoint(ckpt, optimizers=[model.opt])
    report["restored_shardings"] = {
        n.replace(model.opt._prefix + "/", "adam/"): s for n, s in shardings_now().items()
    }
    run(report, states, "resume", model, range(10, 20), put)
    tf.dispose_variables()

    model = mlp.Model(dict.fromkeys(mlp.NAMES, replicated))
    tf.train.restore_checkpoint(ckpt, optimizers=[model.opt])
    report["repin_shardings"] = {n: describe(v.value.sharding) for n, v in model.vars.items()}
    for name, value in model.state().items():
        states[f"repin:{name}"] = value
    tf.dispose_variables()

    jax.config.update("jax_enable_x64", True)

    def wide(x, y):
        return x.astype(np.float64), y.astype(np.float64)

    run(report, states, "single64", mlp.Model(), range(20), wide)
    tf.dispose_variables()
    model = mlp.Model(dict.fromkeys(mlp.NAMES, replicated))
    run(report, states, "data64", model, range(20), lambda x, y: jax.device_put(wide(x, y), split))
    tf.dispose_variables()
    model = mlp.Model(layout)
    run(report, states, "model64", model, range(20), lambda x, y: put(*wide(x, y)))
    tf.dispose_variables()

    np.savez(out / "state.npz", **states)
    (out / "report.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
