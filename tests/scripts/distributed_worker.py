"""Subprocess entry point: one of two processes training the MLP data-parallel.

    python distributed_worker.py PROCESS_ID PORT OUT_DIR

Joins a 2-process JAX cluster on 127.0.0.1:PORT (CPU devices, gloo collectives, every
socket on loopback) and builds a mesh over both processes' devices. Variables are
replicated; each process feeds its half of every global batch. It trains 20 Adam steps
under tf.jit twice: with float32 batches, then with float64 batches (x64 on: gradients
computed in float64). After the float32 run both processes save a checkpoint together,
zero every Variable, and restore it. Writes OUT_DIR/process_<PROCESS_ID>.npz.
"""

from __future__ import annotations

import os
import sys

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

import tfjs_grad as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlp  # noqa: E402

LOOPBACK = "127.0.0.1"


def _gloo_on_loopback() -> None:
    """Gloo listens on the address of the machine's hostname unless told otherwise; JAX
    exposes no setting for it, so wrap the factory it calls (private API, test only)."""
    from jax._src.lib import _jax

    make = _jax.make_gloo_tcp_collectives

    def on_loopback(distributed_client, hostname=None, interface=None):
        return make(distributed_client=distributed_client, hostname=LOOPBACK)

    _jax.make_gloo_tcp_collectives = on_loopback


def main(process_id: int, port: int, out: str) -> None:
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    _gloo_on_loopback()
    jax.distributed.initialize(
        coordinator_address=f"{LOOPBACK}:{port}",
        coordinator_bind_address=f"{LOOPBACK}:{port}",
        num_processes=2,
        process_id=process_id,
        initialization_timeout=60,
        heartbeat_timeout_seconds=20,
        shutdown_timeout_seconds=20,
    )
    assert jax.process_count() == 2 and len(jax.devices()) == 2
    mesh = Mesh(np.array(jax.devices()), ("data",))
    replicated = NamedSharding(mesh, P())
    split = NamedSharding(mesh, P("data", None))
    half = slice(process_id * mlp.BATCH // 2, (process_id + 1) * mlp.BATCH // 2)

    def my_half(x, y):
        return tuple(jax.make_array_from_process_local_data(split, a[half]) for a in (x, y))

    results: dict[str, np.ndarray] = {}
    model = mlp.Model(dict.fromkeys(mlp.NAMES, replicated))
    mlp.train(model, range(20), my_half)
    trained = model.state()
    results.update({f"f32:{n}": v for n, v in trained.items()})

    tf.train.save_checkpoint(os.path.join(out, "ckpt"), optimizers=[model.opt], step=20)
    for v in tf.registered_variables().values():
        v.assign(v.value * 0)
    step = tf.train.restore_checkpoint(os.path.join(out, "ckpt"), optimizers=[model.opt])
    restored = model.state()
    results["restore_ok"] = np.array(
        step == 20 and all(np.array_equal(restored[n], trained[n]) for n in trained)
    )
    results["shardings_ok"] = np.array(
        all(v.value.sharding == replicated for v in model.vars.values())
    )
    tf.dispose_variables()

    with jax.enable_x64(True):
        model = mlp.Model(dict.fromkeys(mlp.NAMES, replicated))
        mlp.train(model, range(20), lambda x, y: my_half(x.astype("float64"), y.astype("float64")))
        results.update({f"f64:{n}": v for n, v in model.state().items()})
        tf.dispose_variables()

    np.savez(os.path.join(out, f"process_{process_id}.npz"), **results)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
