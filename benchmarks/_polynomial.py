"""tfjs-examples' polynomial-regression-core training loop, in Python against the tfjs ops.

A cubic y = a·x³ + b·x² + c·x + d fitted by SGD (learning rate 0.5) to 100 noisy points
with y normalised to [0, 1], minimising the mean squared error, each iteration followed
by `await tf.nextFrame()`: the example's loop, written here as a porter writes it (the
Node version beside it, benchmarks/node/polynomial.js, is the same loop in tfjs). The
data and initial coefficients come from benchmarks/data/polynomial.json, which both read;

    python benchmarks/_polynomial.py

rewrites that file (seeded, so the same bytes each time).
"""

from __future__ import annotations

import asyncio
import json
import pathlib
from typing import Any

import numpy as np
from _harness import Runner

DATA = pathlib.Path(__file__).parent / "data" / "polynomial.json"
OPS = ("add", "mul", "pow", "square", "sub", "mean", "next_frame")


def generate(seed: int = 2018, points: int = 100, sigma: float = 0.04) -> dict[str, Any]:
    """The example's data recipe with numpy's seeded generator, in float32."""
    rng = np.random.default_rng(seed)
    true = {"a": -0.8, "b": -0.2, "c": 0.9, "d": 0.5}
    xs = rng.uniform(-1, 1, points).astype(np.float32)
    a, b, c, d = (np.float32(true[k]) for k in "abcd")
    ys = a * xs**3 + b * xs**2 + c * xs + d + rng.normal(0, sigma, points).astype(np.float32)
    ys = (ys - ys.min()) / (ys.max() - ys.min())
    init = rng.random(4).astype(np.float32)  # the example's Math.random() coefficients
    return {
        "generator": "benchmarks/_polynomial.py (numpy default_rng, float32)",
        "seed": seed,
        "true_coefficients": true,
        "learning_rate": 0.5,
        "check_iterations": 75,
        "xs": [float(v) for v in xs],
        "ys": [float(v) for v in ys.astype(np.float32)],
        "init": {k: float(v) for k, v in zip("abcd", init)},
    }


def python_runners() -> tuple[dict[str, Runner], dict[str, Any]]:
    """The loop in tfjs_grad, or no runner and a reason when the tfjs ops are missing."""
    import tfjs_grad as tf

    missing = [name for name in OPS if not hasattr(tf, name)]
    if missing:
        return {}, {"skip": "tfjs_grad lacks " + ", ".join(f"tf.{n}" for n in missing)}
    data = json.loads(DATA.read_text())
    xs, ys = tf.tensor1d(data["xs"]), tf.tensor1d(data["ys"])
    a, b, c, d = (tf.variable(tf.scalar(data["init"][k])) for k in "abcd")
    optimizer = tf.train.sgd(data["learning_rate"])

    def cubic(x):
        return tf.tidy(
            lambda: tf.add(
                tf.add(
                    tf.add(tf.mul(a, tf.pow(x, tf.scalar(3, "int32"))), tf.mul(b, tf.square(x))),
                    tf.mul(c, x),
                ),
                d,
            )
        )

    def mse(predictions, labels):
        return tf.mean(tf.square(tf.sub(predictions, labels)))

    async def train(iterations: int) -> None:
        for _ in range(iterations):
            optimizer.minimize(lambda: mse(cubic(xs), ys))
            await tf.next_frame()

    def trace(iterations: int) -> list[float]:
        costs = [optimizer.minimize(lambda: mse(cubic(xs), ys), True) for _ in range(iterations)]
        return [float(cost) for cost in costs]

    runner = Runner(
        run=lambda n: asyncio.run(train(n)),
        sync=lambda _: float(mse(cubic(xs), ys)),
        trace=trace,
    )
    return {"tfjs_grad": runner}, {"detail": "tfjs_grad eager, asyncio loop"}


if __name__ == "__main__":
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(generate(), indent=1) + "\n")
