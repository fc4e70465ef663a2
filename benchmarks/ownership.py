"""What buffer ownership costs: tf.jit's steady-state step before and after, in one process.

    python benchmarks/ownership.py [--before GIT_REV] [--blocks 20] [--steps 200]

`--before` (default: the commit before the ownership work) is exported with `git archive`
and imported beside the working tree's package as `tfjs_grad_before`, so both versions
run the same tfjs-style step (tiny MLP 32-64-64-1, Adam, batch 32) in alternating
blocks of steps; the printed ratio is the median over blocks. A second comparison runs
the new step in a loop that also creates and disposes one unrelated Variable per step,
against the same loop creating and disposing a plain array instead.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "3d8f470"  # main before issue #12's ownership work


def _import_before(rev: str, into: Path):
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "tfjs_grad"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    (into / "tfjs_grad").rename(into / "tfjs_grad_before")
    sys.path.insert(0, str(into))
    return importlib.import_module("tfjs_grad_before")


def _mlp_step(tf, prefix: str, rng: np.random.Generator):
    sizes = [32, 64, 64, 1]
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32)
        params.append(tf.variable(jnp.asarray(w), name=f"{prefix}w{i}"))
        params.append(tf.variable(jnp.zeros(b), name=f"{prefix}b{i}"))
    opt = tf.train.adam(1e-3, 0.9, 0.999, 1e-7)

    def predict(x):
        for i in range(0, len(params), 2):
            x = x @ params[i] + params[i + 1]
            if i + 2 < len(params):
                x = jax.nn.relu(x)
        return x

    @tf.jit
    def step(x, y):
        return opt.minimize(lambda: tf.losses.mean_squared_error(y, predict(x)), True)

    return step


def _time_block(run, steps: int) -> float:
    start = time.perf_counter()
    out = None
    for _ in range(steps):
        out = run()
    jax.block_until_ready(out)
    return (time.perf_counter() - start) / steps


def _alternate(a, b, blocks: int, steps: int) -> tuple[float, float, float]:
    """Median seconds per step of a and b, and the median of the per-block ratios b/a."""
    for run in (a, b):
        _time_block(run, steps)  # warm up: compile, caches
    times_a, times_b = [], []
    for _ in range(blocks):
        times_a.append(_time_block(a, steps))
        times_b.append(_time_block(b, steps))
    ratios = [tb / ta for ta, tb in zip(times_a, times_b)]
    return statistics.median(times_a), statistics.median(times_b), statistics.median(ratios)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--blocks", type=int, default=20)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    import tfjs_grad as after

    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.normal(size=(32, 32)).astype(np.float32))
    y = jnp.asarray(rng.normal(size=(32, 1)).astype(np.float32))
    with tempfile.TemporaryDirectory() as tmp:
        before = _import_before(args.before, Path(tmp))
        step_before = _mlp_step(before, "before_", np.random.default_rng(1))
        step_after = _mlp_step(after, "after_", np.random.default_rng(1))
        t_before, t_after, ratio = _alternate(
            lambda: step_before(x, y), lambda: step_after(x, y), args.blocks, args.steps
        )
        print(
            f"tf.jit tiny MLP step, {args.before} vs working tree (same process, "
            f"{args.blocks} alternating blocks of {args.steps} steps):"
        )
        print(
            f"  before {t_before * 1e6:7.1f} us/step   after {t_after * 1e6:7.1f} us/step   "
            f"after/before (median of blocks) {ratio:.3f}"
        )

        counter = [0]

        def with_unrelated_variable():
            counter[0] += 1
            other = after.variable(jnp.zeros(3), name=f"unrelated{counter[0]}")
            out = step_after(x, y)
            other.dispose()
            return out

        def with_plain_array():
            other = jnp.zeros(3)
            out = step_after(x, y)
            other.delete()
            return out

        traces = step_after.trace_count
        t_plain, t_unrelated, ratio = _alternate(
            with_plain_array, with_unrelated_variable, args.blocks, args.steps
        )
        print(
            "tf.jit step + one unrelated tf.variable created and disposed per step, vs the "
            "same loop with a plain array:"
        )
        print(
            f"  plain {t_plain * 1e6:7.1f} us/step   unrelated Variable "
            f"{t_unrelated * 1e6:7.1f} us/step   ratio {ratio:.3f}   "
            f"retraces {step_after.trace_count - traces}"
        )


if __name__ == "__main__":
    main()
