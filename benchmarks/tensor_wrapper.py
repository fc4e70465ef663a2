"""What the tf.Tensor wrapper costs: eager ops and tf.jit steps, before and after, in one
process.

    python benchmarks/tensor_wrapper.py [--before GIT_REV] [--blocks 15]

`--before` (default: main before issue #21) is exported with `git archive` and imported
beside the working tree's package as `tfjs_grad_before` (ops returning jax.Arrays), so
both run the same code in alternating blocks; each figure is the median over blocks.

- eager op: `tf.add(a, b)` then `tf.relu` on [8] float32 arrays (per op, microseconds);
- method chain: `x.square().sum()` against `tf.sum(tf.square(x))` before (per chain);
- tf.jit step: an MLP 32-64-64-1 with Adam, batch 32 (per step), with the batch passed
  as Tensors (new) or jax.Arrays (before).

Measured 2026-12-02 on the shared 2-core machine (9 blocks): tf.add 19.39 -> 19.62 us,
tf.relu 131.53 -> 131.32 us, square+sum chain 25.25 -> 25.36 us, tf.jit MLP step
140.94 -> 121.89 us (no cost; the difference is noise).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ownership import _import_before  # noqa: E402

BEFORE = "cd7baf5"  # main before issue #21's tf.Tensor


def _per_call(fn, n: int) -> float:
    fn()
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n * 1e6


def _mlp(tf, prefix: str, seed: int):
    rng = np.random.default_rng(seed)
    sizes = [32, 64, 64, 1]
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        w = rng.normal(0, 1 / np.sqrt(a), (a, b)).astype(np.float32)
        params.append(tf.variable(jnp.asarray(w), name=f"{prefix}w{i}"))
        params.append(tf.variable(jnp.zeros(b), name=f"{prefix}b{i}"))
    opt = tf.train.adam(1e-3, 0.9, 0.999, 1e-7)

    def predict(x):
        for i in range(0, len(params), 2):
            x = tf.add(tf.matMul(x, params[i]), params[i + 1])
            if i + 2 < len(params):
                x = tf.relu(x)
        return x

    @tf.jit
    def step(x, y):
        return opt.minimize(lambda: tf.losses.meanSquaredError(y, predict(x)), True)

    x = tf.tensor(rng.normal(size=(32, 32)).astype(np.float32))
    y = tf.tensor(rng.normal(size=(32, 1)).astype(np.float32))
    for _ in range(5):
        step(x, y).block_until_ready()
    return lambda: step(x, y).block_until_ready()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", default=BEFORE)
    parser.add_argument("--blocks", type=int, default=15)
    args = parser.parse_args()
    import tfjs_grad as new

    with tempfile.TemporaryDirectory() as tmp:
        old = _import_before(args.before, Path(tmp))
        figures: dict[str, dict[str, list[float]]] = {}
        cases = {}
        for label, tf in (("before", old), ("after", new)):
            a, b = tf.tensor1d(np.arange(8.0)), tf.tensor1d(np.ones(8))
            x = tf.tensor1d(np.linspace(-1, 1, 8))
            cases[label] = {
                "eager op (tf.add)": (lambda tf=tf, a=a, b=b: tf.add(a, b), 2000),
                "eager op (tf.relu)": (lambda tf=tf, a=a: tf.relu(a), 2000),
                "chain square+sum": (
                    (lambda x=x: x.square().sum())
                    if label == "after"
                    else (lambda tf=tf, x=x: tf.sum(tf.square(x))),
                    1000,
                ),
                "tf.jit MLP step": (_mlp(tf, f"tw_{label}_", 0), 300),
            }
        for name in cases["after"]:  # one case at a time: before and after alternate
            for _ in range(args.blocks):
                for label in ("before", "after"):
                    fn, n = cases[label][name]
                    figures.setdefault(name, {}).setdefault(label, []).append(_per_call(fn, n))
        print(f"{'case':<22}{'before us':>12}{'after us':>12}{'diff us':>10}{'ratio':>8}")
        for name, by in figures.items():
            before, after = statistics.median(by["before"]), statistics.median(by["after"])
            print(
                f"{name:<22}{before:12.2f}{after:12.2f}{after - before:10.2f}{after / before:8.3f}"
            )


if __name__ == "__main__":
    main()
