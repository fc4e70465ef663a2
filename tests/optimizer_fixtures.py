"""Replay the optimizer scenarios that the real tfjs recorded (tests/reference/optimizers.json)."""

from __future__ import annotations

import json
import pathlib

import jax.numpy as jnp

import tfjs_grad as tf

DATA = json.loads((pathlib.Path(__file__).parent / "reference" / "optimizers.json").read_text())
PROBLEM = DATA["problem"]
SCENARIOS = {s["id"]: s for s in DATA["scenarios"]}
TWO_STEP = {s["id"]: s for s in DATA["two_step"]}
NAMES = PROBLEM["var_order"]
X = jnp.asarray(PROBLEM["X"], jnp.float32)
Y = jnp.asarray(PROBLEM["Y"], jnp.float32)


_alive: list[dict[str, tf.Variable]] = []


def make_variables() -> dict[str, tf.Variable]:
    """The problem's Variables, referenced here until the next call (as a script's globals
    would be): an optimizer keeps slots only for Variables that are still alive."""
    variables = {
        n: tf.variable(jnp.asarray(PROBLEM["init"][n], jnp.float32), name=n) for n in NAMES
    }
    _alive[:] = [variables]
    return variables


def loss_fn(v: dict[str, tf.Variable], kind: str):
    def loss():
        hidden = jnp.tanh(X @ v["w1"] + v["b1"])
        pred = hidden @ v["w2"] + (v["b2"] if kind == "full" else 0.0)
        return jnp.mean(jnp.square(pred - Y))

    return loss


def phase_of(scenario: dict, step: int) -> dict:
    return next(p for p in scenario["phases"] if p["from"] <= step <= p["to"])


def run_step(opt: tf.train.Optimizer, v: dict, phase: dict):
    """One tfjs step as the scenario's phase describes it; returns the cost."""
    loss = loss_fn(v, phase["loss"])
    if phase["call"] == "minimize":
        var_list = [v[n] for n in phase["var_list"]] if phase["var_list"] else None
        return opt.minimize(loss, True, var_list)
    value, grads = tf.variable_grads(loss, [v[n] for n in NAMES])
    opt.apply_gradients({n: (None if n in phase["null_vars"] else grads[n]) for n in NAMES})
    return value
