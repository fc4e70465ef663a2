"""Data-parallel training-step throughput on 1, 2, 4 and 8 simulated CPU devices.

Workload: MLP 256-512-512-10 (tanh), Adam, softmax cross-entropy, global batch 256.
Each device count runs in its own process started with
XLA_FLAGS=--xla_force_host_platform_device_count=N; a mesh over the N devices splits
every batch on its 'data' axis and the Variables (and so Adam's slots) are replicated.

Variants, same data and initial values:
  tf.jit    `@tf.jit def step(x, y): return opt.minimize(loss, True)`, sharded Variables
  baseline  hand-written `jax.jit` over (params, opt_state) with `tf.train.tfjs_adam`,
            the same shardings, buffers donated

Simulated devices are not extra hardware: they share this machine's cores. On a small
machine (2 cores here) more devices add partitioning and all-reduce work without adding
compute, so the numbers show the cost of the data-parallel machinery, not a speed-up.

Every step waits for the previous one (in every variant and device count): with several
multi-device steps in flight on a busy machine, XLA's CPU all-reduce can deadlock (each
device waiting at the rendezvous holds a thread the others need).

    python benchmarks/data_parallel.py            # prints a table
    python benchmarks/data_parallel.py --quick    # fewer steps (smoke test)

Results are also written to benchmarks/results/data_parallel.json.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

DEVICE_COUNTS = (1, 2, 4, 8)
VARIANTS = ("tf.jit", "baseline")
SIZES = (256, 512, 512, 10)
BATCH = 256
N_BATCHES = 8
RESULTS = pathlib.Path(__file__).parent / "results" / "data_parallel.json"


def run_child(devices: int, quick: bool) -> list[dict]:
    """Measure both variants on this process's `devices` simulated devices."""
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    import tfjs_grad as tf

    assert len(jax.devices()) == devices, jax.devices()
    mesh = Mesh(np.array(jax.devices()), ("data",))
    replicated, split = NamedSharding(mesh, P()), NamedSharding(mesh, P("data", None))

    rng = np.random.default_rng(0)
    init = {}
    for i, (a, b) in enumerate(zip(SIZES, SIZES[1:])):
        init[f"w{i}"] = (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
        init[f"b{i}"] = np.zeros(b, np.float32)
    xs = rng.standard_normal((N_BATCHES, BATCH, SIZES[0])).astype(np.float32)
    labels = rng.integers(0, SIZES[-1], (N_BATCHES, BATCH))
    ys = np.eye(SIZES[-1], dtype=np.float32)[labels]
    batches = [jax.device_put((xs[g], ys[g]), split) for g in range(N_BATCHES)]

    def loss(p, x, y):
        h = x
        for i in range(len(SIZES) - 1):
            h = h @ p[f"w{i}"] + p[f"b{i}"]
            if i < len(SIZES) - 2:
                h = jnp.tanh(h)
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h), axis=-1))

    def tfjs_step():
        params = {k: tf.variable(v, name=k, sharding=replicated) for k, v in init.items()}
        opt = tf.train.adam(1e-3)
        compiled = tf.jit(lambda x, y: opt.minimize(lambda: loss(params, x, y), True))
        return lambda g: compiled(*batches[g])

    def baseline_step():
        tx = tf.train.tfjs_adam(1e-3)
        state = {"p": jax.device_put(init, replicated)}
        state["s"] = jax.device_put(tx.init(state["p"]), replicated)

        def update(p, s, x, y):
            value, grads = jax.value_and_grad(loss)(p, x, y)
            updates, s = tx.update(grads, s, p)
            return optax.apply_updates(p, updates), s, value

        compiled = jax.jit(update, donate_argnums=(0, 1))

        def step(g):
            state["p"], state["s"], value = compiled(state["p"], state["s"], *batches[g])
            return value

        return step

    steps = 20 if quick else 100
    repeats = 2 if quick else 3
    rows = []
    for variant, make_step in zip(VARIANTS, (tfjs_step, baseline_step)):
        step = make_step()
        start = time.perf_counter()
        value = jax.block_until_ready(step(0))
        first_call_s = time.perf_counter() - start
        for g in range(1, N_BATCHES):
            value = jax.block_until_ready(step(g))
        rates = []
        for _ in range(repeats):
            start = time.perf_counter()
            for g in range(steps):
                value = jax.block_until_ready(step(g % N_BATCHES))
            rates.append(steps / (time.perf_counter() - start))
        rows.append(
            {
                "devices": devices,
                "variant": variant,
                "steps_per_s": statistics.median(rates),
                "examples_per_s": statistics.median(rates) * BATCH,
                "first_call_s": first_call_s,
                "final_loss": float(value),
            }
        )
        tf.dispose_variables()
    return rows


def _child(devices: int, quick: bool) -> list[dict]:
    env = dict(
        os.environ,
        XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}",
        JAX_PLATFORMS="cpu",
    )
    command = [sys.executable, __file__, "--child", str(devices)] + ["--quick"] * quick
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"{devices} devices failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps (smoke test)")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_child(args.child, args.quick)))
        return
    rows = []
    for devices in DEVICE_COUNTS:
        rows += _child(devices, args.quick)
        print(f"  measured {devices} device(s)", file=sys.stderr, flush=True)
    reference = rows[0]["final_loss"]
    for row in rows:  # same steps on the same data: only float32 summation order differs
        if abs(row["final_loss"] - reference) > 1e-3 * abs(reference):
            raise SystemExit(f"loss mismatch: {rows[0]} vs {row}")
    print("| devices | variant | steps/s | examples/s | × 1 device | first call s |")
    print("|---:|---|---:|---:|---:|---:|")
    for r in rows:
        one = next(o for o in rows if o["devices"] == 1 and o["variant"] == r["variant"])
        r["vs_one_device"] = r["steps_per_s"] / one["steps_per_s"]
        print(
            f"| {r['devices']} | {r['variant']} | {r['steps_per_s']:,.1f} | "
            f"{r['examples_per_s']:,.0f} | {r['vs_one_device']:.2f} | {r['first_call_s']:.2f} |"
        )
    print(
        f"\n{os.cpu_count()} CPU cores. Simulated devices share those cores, so on a small "
        "machine adding devices adds partitioning and all-reduce overhead rather than "
        "compute: these numbers measure that overhead, not a speed-up. On real devices "
        "each one brings its own compute."
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
