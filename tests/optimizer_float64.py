"""The optimizer scenarios of tests/reference/optimizers.json replayed in numpy float64.

`replay(case)` evaluates tfjs's formulas (TFJS_BEHAVIOR.md §3.3) in float64: the
hand-derived gradient of the fixture's MLP loss and each optimizer's update rule, written
from the spec and not from `tfjs_grad`. What tfjs computes in float32 by specification is
kept: hyperparameters are float32 scalars made from JS numbers (`1 - beta` rounded on its
own) and Adam's and Adamax's beta powers are float32 running products; any float32
implementation of tfjs (ours included) shares those roundings exactly. Everything else,
the tensor arithmetic whose rounding depends on summation order and fusion, is exact.

`replay(case, float32_noise(seed))` injects a float32-sized rounding error into the result
of every tensor operation: `value + u * magnitude * xi`, with `u = 2**-24` float32's unit
roundoff and `xi` uniform in [-1, 1]. `magnitude` is `|value|` for an elementwise
operation (one rounding); the sum of the terms' absolute values for a dot product, whose
partial sums are each rounded and may exceed the result when the terms cancel; and
`sqrt(n)` times the value for the loss, a mean of n positive squares whose partial sums
grow steadily (the probabilistic bound of Higham & Mary, SIAM J. Sci. Comput. 41(5),
2019). How far such replays stray from the exact one measures how much this particular
trajectory amplifies rounding: cancellation in gradient sums as training converges, and
RMSProp dividing a gradient by its own running magnitude.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from optimizer_fixtures import NAMES, PROBLEM, phase_of

X = np.asarray(PROBLEM["X"], np.float64)
Y = np.asarray(PROBLEM["Y"], np.float64)
UNIT_ROUNDOFF = 2.0**-24
BACKEND_EPSILON = 1e-7

Arrays = dict[str, np.ndarray]
Rounding = Callable[[Any, Any], Any]  # (value, magnitude) -> value with a rounding error


def exact(value: Any, magnitude: Any) -> Any:
    return value


def float32_noise(seed: int) -> Rounding:
    rng = np.random.default_rng(seed)

    def rounding(value: Any, magnitude: Any) -> Any:
        return value + UNIT_ROUNDOFF * magnitude * rng.uniform(-1.0, 1.0, np.shape(value))

    return rounding


def loss_and_grads(w: Arrays, kind: str, fl: Rounding = exact) -> tuple[float, Arrays]:
    """Mean squared error of the 2-layer tanh MLP and its gradient (b2 omitted for no_b2)."""

    def matmul(a, b):
        return fl(a @ b, np.abs(a) @ np.abs(b))

    def add(a, b):
        return fl(a + b, np.abs(a + b))

    def mul(a, b):
        return fl(a * b, np.abs(a * b))

    hidden = np.tanh(add(matmul(X, w["w1"]), w["b1"]))
    hidden = fl(hidden, np.abs(hidden))
    pred = matmul(hidden, w["w2"])
    if kind == "full":
        pred = add(pred, w["b2"])
    residual = add(pred, -Y)
    loss = fl(np.mean(residual**2), np.sqrt(residual.size) * np.mean(residual**2))
    d_pred = mul(residual, 2.0 / residual.size)
    d_pre = mul(matmul(d_pred, w["w2"].T), add(1.0, -mul(hidden, hidden)))
    ones = np.ones(len(X))
    grads = {"w1": matmul(X.T, d_pre), "b1": matmul(ones, d_pre), "w2": matmul(hidden.T, d_pred)}
    if kind == "full":
        grads["b2"] = matmul(ones, d_pred)
    return float(loss), grads


class Rule(NamedTuple):
    """One optimizer: each variable's slots (named as tfjs's getWeights names them), their
    update, and the state one call shares across variables."""

    slots: Callable[[tuple[int, ...]], Arrays]
    update: Callable[[np.ndarray, np.ndarray, Arrays, dict], tuple[np.ndarray, Arrays]]
    shared: dict  # before the first call
    advance: Callable[[dict], dict]  # after every call, whichever gradients were null


def _per_variable(slots, update) -> Rule:
    return Rule(slots, update, {}, lambda c: c)


def _zeros(*names: str) -> Callable[[tuple[int, ...]], Arrays]:
    return lambda shape: {k: np.zeros(shape) for k in names}


def _float32(*values: float) -> list[float]:
    return [float(np.float32(v)) for v in values]


def _sgd(lr: float) -> Rule:
    (lr,) = _float32(lr)
    return _per_variable(_zeros(), lambda w, g, s, c: (w - lr * g, s))


def _momentum(lr: float, mu: float, nesterov: bool = False) -> Rule:
    lr, mu = _float32(lr, mu)

    def update(w, g, s, c):
        a = mu * s["momentum"] + g
        return w - lr * ((g + mu * a) if nesterov else a), {"momentum": a}

    return _per_variable(_zeros("momentum"), update)


def _adagrad(lr: float, initial: float = 0.1) -> Rule:
    lr, initial, eps = _float32(lr, initial, BACKEND_EPSILON)

    def update(w, g, s, c):
        acc = s["accumulator"] + g**2
        return w - lr * g / np.sqrt(acc + eps), {"accumulator": acc}

    return _per_variable(lambda shape: {"accumulator": np.full(shape, initial)}, update)


def _adadelta(lr: float = 0.001, rho: float = 0.95, eps: float | None = None) -> Rule:
    eps = BACKEND_EPSILON if eps is None else eps
    lr, rho, one_minus_rho, eps = _float32(lr, rho, 1 - rho, eps)

    def update(w, g, s, c):
        ag, ax = s["accum_grad"], s["accum_var"]
        delta = np.sqrt(ax + eps) / np.sqrt(ag + eps) * g  # the old A_g, as tfjs
        ag = rho * ag + one_minus_rho * g**2
        ax = rho * ax + one_minus_rho * delta**2
        return w - lr * delta, {"accum_grad": ag, "accum_var": ax}

    return _per_variable(_zeros("accum_grad", "accum_var"), update)


def _adam(
    lr: float = 0.001,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float | None = None,
) -> Rule:
    eps = BACKEND_EPSILON if eps is None else eps
    lr, b1, b2, one_minus_b1, one_minus_b2, eps = _float32(lr, b1, b2, 1 - b1, 1 - b2, eps)

    def update(w, g, s, c):
        m = b1 * s["m"] + one_minus_b1 * g
        v = b2 * s["v"] + one_minus_b2 * g**2
        step = (m / (1 - c["p1"])) / (np.sqrt(v / (1 - c["p2"])) + eps)
        return w - lr * step, {"m": m, "v": v}

    advance = lambda c: {"p1": c["p1"] * b1, "p2": c["p2"] * b2}  # noqa: E731
    return Rule(_zeros("m", "v"), update, {"p1": b1, "p2": b2}, advance)


def _adamax(
    lr: float = 0.002,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float | None = None,
    decay: float = 0.0,
) -> Rule:
    eps = BACKEND_EPSILON if eps is None else eps
    lr, b1, b2, one_minus_b1, eps, decay = _float32(lr, b1, b2, 1 - b1, eps, decay)

    def update(w, g, s, c):
        m = b1 * s["m"] + one_minus_b1 * g
        u = np.maximum(b2 * s["v"], np.abs(g))
        rate = lr / (c["i"] * decay + 1) / (1 - c["p1"])
        return w - rate * (m / (u + eps)), {"m": m, "v": u}

    advance = lambda c: {"i": c["i"] + 1, "p1": c["p1"] * b1}  # noqa: E731
    return Rule(_zeros("m", "v"), update, {"i": 0.0, "p1": b1}, advance)


def _rmsprop(
    lr: float,
    rho: float = 0.9,
    mu: float = 0.0,
    eps: float | None = None,
    centered: bool = False,
) -> Rule:
    eps = BACKEND_EPSILON if eps is None else eps
    lr, rho, one_minus_rho, mu, eps = _float32(lr, rho, 1 - rho, mu, eps)

    def update(w, g, s, c):
        ms = rho * s["rms"] + one_minus_rho * g**2
        mg = rho * s["mg"] + one_minus_rho * g
        denominator = np.sqrt(ms - (mg**2 + eps)) if centered else np.sqrt(ms + eps)
        mom = mu * s["momentum"] + lr * g / denominator
        return w - mom, {"rms": ms, "momentum": mom, "mg": mg}

    return _per_variable(_zeros("rms", "momentum", "mg"), update)


RULES: dict[str, Callable[..., Rule]] = {
    "sgd": _sgd,
    "momentum": _momentum,
    "adagrad": _adagrad,
    "adadelta": _adadelta,
    "adam": _adam,
    "adamax": _adamax,
    "rmsprop": _rmsprop,
}


class Trajectory(NamedTuple):
    costs: np.ndarray  # the loss each step returned, before its update
    snapshots: dict[int, Arrays]  # the variables after each snapshot step
    slots: Arrays  # after the last step, by tfjs's weight names ("w1/m", ...)


def replay(case: dict, fl: Rounding = exact) -> Trajectory:
    """One fixture scenario, exactly or (with `float32_noise`) as one rounded evaluation.

    Slots are keyed by variable name; the fixture's scenarios are built so that tfjs's
    positional slots coincide with them.
    """
    rule = RULES[case["factory"]](*case["args"])
    w = {n: np.asarray(PROBLEM["init"][n], np.float64) for n in NAMES}
    slots = {n: rule.slots(w[n].shape) for n in NAMES}
    shared = rule.shared
    costs, snapshots = [], {}
    for t in range(1, case["steps"] + 1):
        phase = phase_of(case, t)
        cost, grads = loss_and_grads(w, phase["loss"], fl)
        present = phase["var_list"] or [n for n in NAMES if n not in phase.get("null_vars", ())]
        for n in present:
            if n in grads:
                new_w, new_slots = rule.update(w[n], grads[n], slots[n], shared)
                w[n] = fl(new_w, np.abs(new_w))
                slots[n] = {k: fl(v, np.abs(v)) for k, v in new_slots.items()}
        shared = {k: float(np.float32(v)) for k, v in rule.advance(shared).items()}
        costs.append(cost)
        if t in case["snapshot_steps"]:
            snapshots[t] = {n: w[n].copy() for n in NAMES}
    named_slots = {f"{n}/{k}": v for n in NAMES for k, v in slots[n].items()}
    return Trajectory(np.asarray(costs), snapshots, named_slots)
