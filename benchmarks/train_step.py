"""Training-step throughput: tfjs_grad against hand-written JAX + optax, same run.

Workloads (Adam, same initial values and data in every variant):
  tiny:   MLP 32-64-64-1 (relu), batch 32, mean squared error
  medium: MLP 512-1024-1024-10 (relu), batch 256, softmax cross-entropy

Variants:
  baseline  hand-written `jax.jit` step over (params, opt_state) with an optax
            transformation, buffers donated. The transformation is `tf.train.tfjs_adam`
            (tfjs's Adam written as a plain optax GradientTransformation) so that every
            variant runs the same arithmetic; `optax.adam(eps=1e-7)` costs the same but
            rounds its bias correction differently (1-b**t vs tfjs's running product),
            which moves the tiny workload's loss by 1% after 1000 steps.
  tf.jit    `@tf.jit def step(x, y): return opt.minimize(loss, True)` with tf.train.adam
  baseline_loop  the baseline step under a hand-written `lax.scan` over K=100 stacked
            batches per call (the limit for jit_loop)
  jit_loop  `tf.jit_loop` over K=100 stacked batches per call (per-step rate reported)
  eager     `opt.minimize(loss, True)` in a plain Python loop, no tf.jit

Each variant runs in its own process (so peak RSS is its own), reports the median of 5
timed repeats, the first call's wall time (optimizer-state init + trace + compile + one
step, for the baseline too), and checks its
loss after the timed steps against the baseline's (rtol 1e-4).

    python benchmarks/train_step.py            # both workloads, prints a table
    python benchmarks/train_step.py --quick    # fewer steps (smoke test)

Results are also written to benchmarks/results/train_step.json.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import time

WORKLOADS = {
    "tiny": {"sizes": [32, 64, 64, 1], "batch": 32, "loss": "mse", "steps": 2000},
    "medium": {"sizes": [512, 1024, 1024, 10], "batch": 256, "loss": "xent", "steps": 100},
}
VARIANTS = ["baseline", "baseline_loop", "tf.jit", "jit_loop", "eager"]
LOOP_K = 100
RESULTS = pathlib.Path(__file__).parent / "results" / "train_step.json"


def _problem(workload: str):
    import numpy as np

    spec = WORKLOADS[workload]
    rng = np.random.default_rng(0)
    sizes = spec["sizes"]
    init = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        init[f"w{i}"] = (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
        init[f"b{i}"] = np.zeros(b, np.float32)
    n_batches = LOOP_K
    xs = rng.standard_normal((n_batches, spec["batch"], sizes[0])).astype(np.float32)
    if spec["loss"] == "mse":
        ys = rng.standard_normal((n_batches, spec["batch"], 1)).astype(np.float32)
    else:
        labels = rng.integers(0, sizes[-1], (n_batches, spec["batch"]))
        ys = np.eye(sizes[-1], dtype=np.float32)[labels]
    return spec, init, xs, ys


def _loss_fn(spec):
    import jax
    import jax.numpy as jnp

    layers = len(spec["sizes"]) - 1

    def loss(p, x, y):
        h = x
        for i in range(layers):
            h = h @ p[f"w{i}"] + p[f"b{i}"]
            if i < layers - 1:
                h = jax.nn.relu(h)
        if spec["loss"] == "mse":
            return jnp.mean(jnp.square(h - y))
        return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(h), axis=-1))

    return loss


def run_variant(workload: str, variant: str, quick: bool) -> dict:
    """Measure one variant in this process; returns a result row."""
    import jax
    import jax.numpy as jnp
    import optax

    import tfjs_grad as tf

    spec, init, xs_np, ys_np = _problem(workload)
    loss = _loss_fn(spec)
    xs, ys = jnp.asarray(xs_np), jnp.asarray(ys_np)
    batches = [(xs[g], ys[g]) for g in range(LOOP_K)]  # sliced once: steps pay no indexing
    # Step g trains on batch g % K in every variant. Timed repeats run whole passes over
    # the K batches, after a first call and warm-up that also cover exactly K steps.
    steps = spec["steps"]
    if variant == "eager" and workload == "tiny":
        steps //= 10
    repeats = 2 if quick else 5

    if variant.startswith("baseline"):
        tx = tf.train.tfjs_adam(1e-3)
        state = {"p": {k: jnp.asarray(v) for k, v in init.items()}}

        def step_fn(p, s, x, y):
            value, grads = jax.value_and_grad(loss)(p, x, y)
            updates, s = tx.update(grads, s, p)
            return optax.apply_updates(p, updates), s, value

        if variant == "baseline":
            compiled = jax.jit(step_fn, donate_argnums=(0, 1))
        else:

            def scanned(p, s, xs, ys):
                def body(carry, batch):
                    p, s, value = step_fn(*carry, *batch)
                    return (p, s), value

                (p, s), values = jax.lax.scan(body, (p, s), (xs, ys))
                return p, s, values[-1]

            loop = jax.jit(scanned, donate_argnums=(0, 1))

            def compiled(p, s, *_):
                return loop(p, s, xs, ys)

        def step(g):
            if "s" not in state:  # the optimizer state is made on the first step, as tf.train does
                state["s"] = tx.init(state["p"])
            state["p"], state["s"], value = compiled(state["p"], state["s"], *batches[g])
            return value

    else:
        params = {k: tf.variable(jnp.asarray(v), name=k) for k, v in init.items()}
        opt = tf.train.adam(1e-3)

        def train_step(x, y):
            return opt.minimize(lambda: loss(params, x, y), True)

        if variant == "tf.jit":
            compiled = tf.jit(train_step)

            def step(g):
                return compiled(*batches[g])

        elif variant == "jit_loop":
            compiled = tf.jit_loop(train_step)

            def step(g):
                return compiled(xs, ys)[-1]  # the K steps starting at batch 0 == g

        else:

            def step(g):
                return train_step(*batches[g])

    per_call = LOOP_K if variant in ("jit_loop", "baseline_loop") else 1
    start = time.perf_counter()
    value = jax.block_until_ready(step(0))
    first_call_s = time.perf_counter() - start
    for g in range(per_call, LOOP_K):  # warm-up to the end of the first pass
        value = step(g)
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        for g in range(0, steps, per_call):
            value = step(g % LOOP_K)
        jax.block_until_ready(value)
        rates.append(steps / (time.perf_counter() - start))
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "workload": workload,
        "variant": variant,
        "steps_per_s": statistics.median(rates),
        "compile_s": first_call_s,
        "peak_rss_mb": peak_rss_mb,
        "final_loss": float(value),
        "steps_done": LOOP_K + repeats * steps,
    }


def _child(workload: str, variant: str, quick: bool) -> dict:
    command = [sys.executable, __file__, "--child", workload, variant] + (["--quick"] * quick)
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900)
    if done.returncode != 0:
        raise RuntimeError(f"{workload}/{variant} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _same_trajectory(rows: list[dict]) -> None:
    """Variants that ran the same number of steps must end at the same loss."""
    by_steps: dict[tuple[str, int], list[dict]] = {}
    for row in rows:
        by_steps.setdefault((row["workload"], row["steps_done"]), []).append(row)
    for group in by_steps.values():
        ref = group[0]["final_loss"]
        for row in group[1:]:
            if abs(row["final_loss"] - ref) > 1e-4 * max(abs(ref), 1e-6):
                raise SystemExit(f"loss mismatch: {group[0]} vs {row}")


def _table(rows: list[dict]) -> str:
    lines = [
        "| workload | variant | steps/s | × baseline | first call s (× baseline) "
        "| peak RSS MB (× baseline) |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['workload']} | {r['variant']} | {r['steps_per_s']:,.0f} | {r['ratio']:.2f} | "
            f"{r['compile_s']:.2f} ({r['compile_ratio']:.2f}) | "
            f"{r['peak_rss_mb']:.0f} ({r['rss_ratio']:.2f}) |"
        )
    return "\n".join(lines)


def _update_readme(table: str) -> None:
    readme = pathlib.Path(__file__).parent.parent / "README.md"
    text = readme.read_text()
    start = text.index("<!-- benchmark table:")
    start = text.index("\n", start) + 1
    end = text.index("<!-- end benchmark table -->")
    readme.write_text(text[:start] + table + "\n" + text[end:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps (smoke test)")
    parser.add_argument("--child", nargs=2, metavar=("WORKLOAD", "VARIANT"), help=argparse.SUPPRESS)
    parser.add_argument("--workloads", default="tiny,medium")
    parser.add_argument("--update-readme", action="store_true", help="write the table into README")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_variant(*args.child, args.quick)))
        return
    rows = []
    for workload in args.workloads.split(","):
        for variant in VARIANTS:
            rows.append(_child(workload, variant, args.quick))
            print(f"  measured {workload:6s} {variant:13s}", file=sys.stderr, flush=True)
    _same_trajectory(rows)
    for row in rows:
        base = next(
            r for r in rows if r["workload"] == row["workload"] and r["variant"] == "baseline"
        )
        row["ratio"] = row["steps_per_s"] / base["steps_per_s"]
        row["compile_ratio"] = row["compile_s"] / base["compile_s"]
        row["rss_ratio"] = row["peak_rss_mb"] / base["peak_rss_mb"]
    table = _table(rows)
    print(table)
    print(f"\n{os.cpu_count()} CPUs; jit_loop: K={LOOP_K} steps per call; eager: a Python loop.")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(rows, indent=1) + "\n")
    if args.update_readme:
        _update_readme(table)


if __name__ == "__main__":
    main()
