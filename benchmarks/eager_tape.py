"""What an eager step on the tape costs, against a hand-written jax.jit + optax step.

    python benchmarks/eager_tape.py [--rounds 7] [--steps 200] [--only poly,mlp,read,op]

All in one process, in alternating blocks (each figure the median over rounds; each
ratio the median of the per-round ratios against the hand-written step of that round):

- poly: tfjs-examples' polynomial-regression-core step (`benchmarks/_polynomial.py`'s loop,
  `optimizer.minimize(() => mse(cubic(xs), ys))`);
- mlp: the tiny MLP (32-64-64-1, Adam, batch 32) written with method chains,
  `tf.tidy(() => opt.minimize(loss, true))`, against `_mlp._baseline`'s jax.jit step;
- read: the same MLP step with `loss.dataSync()` inside f (ratio: without / with);
- op: the cost of one recorded op (`h.add(c)`), from f with 41 ops against f with 1.

Wall time per step, and main-thread CPU time (`time.thread_time`), which a loaded
machine disturbs less: it leaves out waiting for the CPU and XLA's own threads.
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

import _mlp  # noqa: E402

Step = tuple[Callable[[], Any], Callable[[], Any]]


def poly() -> Step:
    import tfjs_grad as tf

    data = json.loads((Path(__file__).parent / "data" / "polynomial.json").read_text())
    xs, ys = tf.tensor1d(data["xs"]), tf.tensor1d(data["ys"])
    a, b, c, d = (tf.variable(tf.scalar(data["init"][k])) for k in "abcd")
    optimizer = tf.train.sgd(data["learning_rate"])

    def cubic(x: Any) -> Any:
        three = tf.scalar(3, "int32")
        return tf.tidy(
            lambda: tf.add(
                tf.add(tf.add(tf.mul(a, tf.pow(x, three)), tf.mul(b, tf.square(x))), tf.mul(c, x)),
                d,
            )
        )

    def step() -> None:
        optimizer.minimize(lambda: tf.mean(tf.square(tf.sub(cubic(xs), ys))))

    return step, lambda: float(a.dataSync()[0])


def mlp(read: list[bool]) -> Step:
    import tfjs_grad as tf

    data = _mlp.load("tiny", "eager")
    w = [tf.variable(tf.tensor(data.init[f"w{i}"])) for i in range(data.layers)]
    b = [tf.variable(tf.tensor(data.init[f"b{i}"])) for i in range(data.layers)]
    batches = itertools.cycle([(tf.tensor(x), tf.tensor(y)) for x, y in data.batches])
    optimizer = tf.train.adam(_mlp.LEARNING_RATE, _mlp.BETA1, _mlp.BETA2, _mlp.EPSILON)
    last: list[Any] = [None]

    def loss(x: Any, y: Any) -> Any:
        h = x
        for i in range(data.layers):
            h = h.matMul(w[i]).add(b[i])
            if i < data.layers - 1:
                h = h.relu()
        value = tf.losses.mean_squared_error(y, h)
        if read[0]:
            value.dataSync()
        return value

    def step() -> None:
        x, y = next(batches)
        last[0] = tf.tidy(lambda: optimizer.minimize(lambda: loss(x, y), True))

    return step, lambda: float(last[0])


def hand() -> Step:
    runner = _mlp._baseline(_mlp.load("tiny", "eager"), False)
    last: list[Any] = [None]

    def step() -> None:
        last[0] = runner.run(1)

    return step, lambda: runner.sync(last[0])


def per_op(ops: int) -> Step:
    import tfjs_grad as tf

    v, c = tf.variable(tf.ones([4])), tf.ones([4])

    def f() -> Any:
        h = v
        for _ in range(ops):
            h = h.add(c)
        return h.sum()

    return (lambda: tf.variableGrads(f)), (lambda: None)


def block(step: Step, n: int) -> tuple[float, float]:
    """(wall, main-thread CPU) microseconds per step over n steps."""
    run, sync = step
    cpu, wall = time.thread_time(), time.perf_counter()
    for _ in range(n):
        run()
    sync()
    return (time.perf_counter() - wall) / n * 1e6, (time.thread_time() - cpu) / n * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--only", default="poly,mlp,read,op")
    args = parser.parse_args()
    chosen = args.only.split(",")
    read = [False]
    mlp_step = mlp(read)

    def with_read() -> None:
        read[0] = True
        try:
            mlp_step[0]()
        finally:
            read[0] = False

    steps: dict[str, Step] = {"hand": hand()}
    if "poly" in chosen:
        steps["poly"] = poly()
    if "mlp" in chosen or "read" in chosen:
        steps["mlp"] = mlp_step
    if "read" in chosen:
        steps["mlp+read"] = (with_read, mlp_step[1])
    if "op" in chosen:
        steps["op x1"], steps["op x41"] = per_op(1), per_op(41)
    for step in steps.values():
        block(step, 20)
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in steps}
    for _ in range(args.rounds):
        for name, step in steps.items():
            times[name].append(block(step, args.steps))

    def median(name: str, k: int) -> float:
        return statistics.median(t[k] for t in times[name])

    def ratio(a: str, b: str, k: int) -> float:
        return statistics.median(x[k] / y[k] for x, y in zip(times[a], times[b]))

    for name in steps:
        if name.startswith("op"):
            continue
        line = f"{name:10s} wall {median(name, 0):8.1f} us  cpu {median(name, 1):8.1f} us"
        if name != "hand":
            line += f"  hand/x wall {ratio('hand', name, 0):.3f} cpu {ratio('hand', name, 1):.3f}"
        print(line)
    if "mlp+read" in steps:
        print(
            f"read loop: without/with {ratio('mlp', 'mlp+read', 0):.3f} (wall), "
            f"{ratio('mlp', 'mlp+read', 1):.3f} (cpu)"
        )
    if "op x1" in steps:
        for k, what in ((0, "wall"), (1, "cpu")):
            per = (median("op x41", k) - median("op x1", k)) / 40
            print(
                f"one recorded op: {per:.2f} us ({what}); a 1-op variableGrads call "
                f"{median('op x1', k):.1f} us"
            )


if __name__ == "__main__":
    main()
