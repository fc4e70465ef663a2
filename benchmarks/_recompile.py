"""Eager loops that change what they feed `minimize` every step, against the same loops
that do not: the cost of recompiling, in time and memory.

  shapes     a cart-pole-like policy update: a 4-128-1 policy MLP, sigmoid cross-entropy
             of the actions weighted by advantages, over a batch whose length (an episode's
             length) is drawn in [10, 200] each step; fixed: always 105 rows.
  constants  the tiny 32-64-64-1 regression whose loss is multiplied by a Python float
             that changes each step, `1 + 0.001 * step`; fixed: `1.0`.

Each loop is written as a tfjs user writes it (`tf.tidy` around `minimize(..., True)`,
the step's tensors made from host arrays inside the tidy) and runs in its own worker,
so its memory growth and compile count are its own. Each worker also reports how many
distinct lengths (shapes) or scales (constants) its loop has fed so far, so that
compiles per new length can be read off (one program per new length is the goal), and
how many compiles ran in steps whose length it had fed before: programs the eager
cache evicted to stay within its memory budget, compiled again.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from _harness import Runner, stepper

STEPS = 600  # data prepared for the warm-up and the timed steps, with room to spare
LENGTHS = (10, 200)
FIXED_LENGTH = 105  # the mean of LENGTHS


def compile_counter() -> dict[str, float]:
    """Counts XLA compilations in this process from now on (jax.monitoring events)."""
    import jax

    counts = {"compiles": 0, "compile_s": 0.0}

    def listen(event: str, duration: float, **_: Any) -> None:
        if event == "/jax/core/compile/backend_compile_duration":
            counts["compiles"] += 1
            counts["compile_s"] += duration

    jax.monitoring.register_event_duration_secs_listener(listen)
    return counts


def _policy_loop(varying: bool, seen: set[Any]) -> Any:
    import jax

    import tfjs_grad as tf

    rng = np.random.default_rng(1)
    w0 = tf.variable(tf.tensor((rng.standard_normal((4, 128)) / 2).astype(np.float32)))
    b0 = tf.variable(tf.zeros([128]))
    w1 = tf.variable(tf.tensor((rng.standard_normal((128, 1)) / 11).astype(np.float32)))
    b1 = tf.variable(tf.zeros([1]))
    optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-7)
    relu = getattr(tf, "relu", jax.nn.relu)

    lengths = rng.integers(LENGTHS[0], LENGTHS[1] + 1, STEPS) if varying else [FIXED_LENGTH] * STEPS
    episodes = []
    for n in lengths:
        states = rng.standard_normal((n, 4)).astype(np.float32)
        actions = (rng.random((n, 1)) < 0.5).astype(np.float32)
        advantages = rng.standard_normal((n, 1)).astype(np.float32)
        episodes.append((states, actions, advantages))
    episodes = itertools.cycle(episodes)

    def update(states, actions, advantages):
        def loss():
            logits = relu(states @ w0 + b0) @ w1 + b1
            return tf.losses.sigmoid_cross_entropy(actions, logits, advantages)

        return optimizer.minimize(loss, True)

    def step():
        states, actions, advantages = next(episodes)
        seen.add(len(states))
        return tf.tidy(lambda: update(tf.tensor(states), tf.tensor(actions), tf.tensor(advantages)))

    return step


def _scaled_loss_loop(varying: bool, seen: set[Any]) -> Any:
    import _mlp
    import jax

    import tfjs_grad as tf

    spec, init, xs, ys = _mlp.problem("tiny")
    w = [tf.variable(tf.tensor(init[f"w{i}"])) for i in range(3)]
    b = [tf.variable(tf.tensor(init[f"b{i}"])) for i in range(3)]
    optimizer = tf.train.adam(1e-3, 0.9, 0.999, 1e-7)
    relu = getattr(tf, "relu", jax.nn.relu)
    batches = itertools.cycle(list(zip(xs, ys)))
    counter = itertools.count()

    def predict(x):
        return relu(relu(x @ w[0] + b[0]) @ w[1] + b[1]) @ w[2] + b[2]

    def update(x, y, scale):
        return optimizer.minimize(lambda: tf.losses.mean_squared_error(y, predict(x)) * scale, True)

    def step():
        x, y = next(batches)
        scale = 1 + 0.001 * next(counter) if varying else 1.0
        seen.add(scale)
        return tf.tidy(lambda: update(tf.tensor(x), tf.tensor(y), scale))

    return step


LOOPS = {"shapes": _policy_loop, "constants": _scaled_loss_loop}


def runners(kind: str, which: str) -> tuple[dict[str, Runner], dict[str, Any]]:
    """The `which` ("varying" or "fixed") loop of `kind`; its reports add the compile count."""
    import jax

    counts = compile_counter()
    counts["recompiles"] = 0
    seen: set[Any] = set()
    loop_step = LOOPS[kind](varying=which == "varying", seen=seen)

    def step() -> Any:
        # a compile in a step whose length (or scale) was seen before compiles again a
        # program the eager cache evicted to stay within its memory budget
        n_seen, n_compiles = len(seen), counts["compiles"]
        out = loop_step()
        if len(seen) == n_seen:
            counts["recompiles"] += counts["compiles"] - n_compiles
        return out

    runner = stepper(
        step,
        sync=lambda value: float(jax.block_until_ready(value)),
        losses=lambda value: [float(value)],
    )
    runner.report = lambda: {**counts, "distinct": len(seen)}
    return {which: runner}, {"detail": f"jax {jax.__version__}, tfjs_grad eager"}
