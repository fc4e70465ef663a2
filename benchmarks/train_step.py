"""Training-step benchmarks measured as users measure them: tfjs_grad written as a tfjs
user writes it, against the JAX step a JAX user writes, PyTorch, and tfjs itself in Node.

Sections (all in one run; each prints its table, then every target as met / not met):

  mlp         tiny MLP 32-64-64-1 (batch 32, MSE) and medium 512-1024-1024-10 (batch 256,
              softmax cross-entropy), Adam(1e-3, 0.9, 0.999, 1e-7), same initial values and
              data everywhere (step g trains on batch g % 100):
                baseline       the hand-written JAX step: `jax.jit(step, donate_argnums=(0, 1))`
                               over a params dict and `optax.adam` state, x and y passed per step
                tf.jit         `tf.jit` of the tfjs user's step: `tf.variable` weights, `x @ w + b`,
                               `tf.losses.*`, `opt.minimize(lambda: ..., True)`
                eager          the same step, no `tf.jit`, inside `tf.tidy` (as tfjs code runs)
                eager_read     eager, reading a hidden layer's mean as a float inside the
                               loss (a value read mid-f; tiny, same process as eager)
                baseline_loop  the baseline step under `lax.scan`, 100 steps per call (tiny)
                jit_loop       `tf.jit_loop` of the tfjs user's step, 100 per call (tiny)
                torch@N        PyTorch eager, nn.Sequential + torch.optim.Adam, N threads
                tfjs-wasm/cpu  tfjs 4.22 in Node (tiny only), the same loop in JavaScript
  first-call  a fresh process per variant: set-up + trace + compile + one step, repeated
  polynomial  tfjs-examples' polynomial-regression-core loop (eager SGD), tfjs_grad vs Node
  recompile   eager loops whose batch length or Python float changes every step, vs fixed
  fit         model.fit on the tiny MLP, one step = one epoch of 100 batches (_fit.py);
              on the medium MLP only fit and baseline_fit:
                fit            tfjs_grad's tf.sequential + compile + fit
                baseline_fit   the hand-written jax.jit + optax epoch loop (same process)
                baseline_scan  the same step under lax.scan, an epoch per call (same process)
                keras_fit      Keras 3 (JAX backend) model.fit, default (same process)
                keras_fit_spe  the same with steps_per_execution = 100, an epoch per dispatch
                tfjs-cpu/wasm  tfjs 4.22's model.fit in Node (benchmarks/node/fit.js)
  first-result  addition-rnn's LSTM model and lstm-text-generation's model, as the examples
              build and fit them (_first_result.py): seconds from `fit` called to the first
              epoch's logs and XLA compiles in that fit, a fresh process per run, against
              tfjs 4.22's first epoch in Node (WASM backend; benchmarks/node/first_result.js)

How it measures: a variant runs in a worker process and trains in blocks of ~0.25 s on
command; rounds of one block per variant, in rotating order, so every ratio compares
blocks run side by side (same process where both are JAX: tfjs_grad against a baseline
in its own worker; other processes, interleaved, for torch and Node). Ratios are medians
over rounds. Before timing, every variant's per-step losses are checked against the
baseline's: a mismatch stops the run (exit status 1), nothing else does.

    python benchmarks/train_step.py                  # everything (several minutes)
    python benchmarks/train_step.py --quick          # a smoke run, numbers meaningless
    python benchmarks/train_step.py --sections mlp --workloads tiny
    python benchmarks/train_step.py --update-readme  # also rewrite README's table
    python benchmarks/train_step.py --from-results --update-readme  # no measuring

Writes benchmarks/results/train_step.json (one row per workload and variant, which
notebooks/05_compiled_loops.ipynb plots) and benchmarks/results/targets.json (targets,
machine and load, settings, runtimes). Exit status 1 only when losses disagree.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import importlib.util
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from typing import Any

import _harness
import _mlp
from _harness import Slot, Worker, check_losses, interleave, median_ratio

BENCH = pathlib.Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results" / "train_step.json"
TARGETS = BENCH / "results" / "targets.json"
NODE_MODULES = ROOT / "tests" / "reference" / "node_modules" / "@tensorflow"
SECTIONS = ("mlp", "first-call", "polynomial", "recompile", "fit", "first-result")
# Loss agreement: JAX variants differ only in Adam's bias-correction rounding (optax vs
# tfjs); other runtimes also sum float32 products in another order, which Adam's
# normalised steps amplify on near-zero gradients.
RTOL_JAX, RTOL_OTHER = 1e-4, 1e-3
POLY_ATOL = 1e-5
FLAT_MB = 20.0  # "flat memory": RSS growth over 500 steps
CACHE_MB = 256.0  # tfjs_grad._trace.CACHE_BYTES: the eager compile cache's budget


@dataclass
class Config:
    rounds: int = 20
    block_s: float = 0.25
    check_steps: tuple[int, int] = (100, 10)  # tiny, medium
    first_call_repeats: int = 3  # for baseline and tf.jit (the target); others once
    poly_rounds: int = 6
    poly_block: int = 1000
    recompile_steps: int = 500
    recompile_block: int = 5
    recompile_budget_s: float = 30.0
    fit_rounds: int = 16  # blocks of one epoch (a few ms): more rounds, a steadier median
    fit_check_epochs: int = 3
    first_result_repeats: int = 2


QUICK = Config(
    rounds=3,
    block_s=0.05,
    check_steps=(10, 3),
    first_call_repeats=1,
    poly_rounds=2,
    poly_block=100,
    recompile_steps=20,
    recompile_budget_s=5.0,
    fit_rounds=2,
    fit_check_epochs=1,
    first_result_repeats=1,
)


def _python(name: str, *args: str) -> Worker:
    return Worker(name, [sys.executable, str(BENCH / "_worker.py"), *args])


def _node(name: str, script: str, *args: str) -> Worker:
    return Worker(name, ["node", str(BENCH / "node" / script), *args])


def node_missing() -> str | None:
    """Why the Node rows cannot run, or None."""
    if shutil.which("node") is None:
        return "node is not installed"
    for package in ("tfjs", "tfjs-backend-wasm"):
        if not (NODE_MODULES / package / "package.json").exists():
            return f"@tensorflow/{package} missing: cd tests/reference && npm install"
    return None


def torch_missing() -> str | None:
    """Why the torch rows cannot run, or None."""
    if importlib.util.find_spec("torch") is None:
        return "torch is not installed: pip install -e '.[bench]'"
    return None


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


class Run:
    """One benchmark run: rows, targets, notes and the runtimes seen."""

    def __init__(self, config: Config):
        self.config = config
        self.rows: list[dict[str, Any]] = []
        self.targets: list[dict[str, Any]] = []
        self.notes: list[str] = []
        self.runtimes: dict[str, str] = {}

    def target(self, name: str, value: float | None, op: str, threshold: float, figure: str):
        """Record a target; op ">=" or "<=", or "info" for a reference figure."""
        met = None
        if value is not None and op != "info":
            met = value >= threshold if op == ">=" else value <= threshold
        self.targets.append(
            {
                "target": name,
                "value": value,
                "op": op,
                "threshold": threshold,
                "met": met,
                "figure": figure,
            }
        )

    def note(self, message: str) -> None:
        self.notes.append(message)
        _say(f"  note: {message}")


# ---------------------------------------------------------------------------------------
# MLP throughput


# Each tfjs_grad variant shares a worker with a baseline of its own (so no Variables of
# another variant live beside it); the loop variants only on tiny, where a call is cheap.
# tf.jit runs in JIT_PROCESSES such workers, each against its own baseline: two programs
# this close (a few us a step apart) differ by +-3% from one process to the next, with
# the same code (where XLA's buffers and threads land), so its ratio is the median of the
# per-process ratios. Replicas are named "tf.jit#2", ... and folded into the tf.jit row.
JIT_PROCESSES = 3
JAX_GROUPS = {
    "jit": ["tf.jit"],
    **{f"jit{i}": [f"tf.jit#{i}"] for i in range(2, JIT_PROCESSES + 1)},
    "eager": ["eager", "eager_read"],
    "loop": ["baseline_loop", "jit_loop"],
}
HOME = {v: f"baseline@{g}" for g, variants in JAX_GROUPS.items() for v in variants}
TINY_ONLY = {"baseline_loop", "jit_loop", "eager_read"}


def _variant(key: str) -> str:
    """The variant a slot runs: a replica's key without its "#n"."""
    return key.partition("#")[0]


def _groups(workload: str) -> dict[str, list[str]]:
    groups = {
        g: [v for v in vs if workload == "tiny" or v not in TINY_ONLY]
        for g, vs in JAX_GROUPS.items()
    }
    return {g: vs for g, vs in groups.items() if vs}


def _mlp_slots(workload: str, run: Run, data_dir: pathlib.Path) -> dict[str, Slot]:
    """One worker per tfjs_grad group, each with its own baseline; torch; Node (tiny)."""
    slots: dict[str, Slot] = {}
    for group, variants in _groups(workload).items():
        runs = ",".join(["baseline", *map(_variant, variants)])
        worker = _python(f"{workload}/{group}", "mlp", workload, runs)
        slots[f"baseline@{group}"] = Slot(f"baseline@{group}", worker, "baseline")
        for key in variants:
            per_call = _mlp.K if key.endswith("loop") else 1
            slots[key] = Slot(key, worker, _variant(key), per_call)
    if reason := torch_missing():
        run.note(f"torch rows skipped: {reason}")
    else:
        for threads in sorted({1, os.cpu_count() or 1}):
            name = f"torch@{threads}"
            slots[name] = Slot(name, _python(f"{workload}/{name}", "mlp", workload, name), name)
    if workload == "tiny":
        if reason := node_missing():
            run.note(f"tfjs rows skipped: {reason}")
        else:
            _mlp.write_problem(workload, data_dir)
            for backend in ("wasm", "cpu"):
                name = f"tfjs-{backend}"
                slots[name] = Slot(name, _node(name, "mlp.js", str(data_dir), backend), name)
    return slots


def measure_mlp(workload: str, run: Run) -> None:
    config = run.config
    with tempfile.TemporaryDirectory() as tmp:
        slots = _mlp_slots(workload, run, pathlib.Path(tmp))
        try:
            for key, slot in slots.items():
                runtime = "jax" if key.startswith("baseline@") or key in HOME else key
                run.runtimes[runtime] = slot.worker.info["detail"]
            steps = config.check_steps[0 if workload == "tiny" else 1]
            reference = slots["baseline@jit"].trace(steps)
            errors = {}
            for key, slot in slots.items():
                if key != "baseline@jit":
                    rtol = RTOL_JAX if key.startswith("baseline@") or key in HOME else RTOL_OTHER
                    label = f"{workload}/{key}"
                    errors[key] = check_losses(reference, slot.trace(steps), rtol, 0.0, label)
            _say(f"  {workload}: losses of {len(slots)} variants agree over {steps} steps")
            interleave(list(slots.values()), config.rounds, config.block_s)
        finally:
            for worker in {id(s.worker): s.worker for s in slots.values()}.values():
                worker.close()
    _mlp_rows(workload, slots, errors, run)


def _mlp_rows(workload: str, slots: dict[str, Slot], errors: dict[str, float], run: Run) -> None:
    baselines = [s for k, s in slots.items() if k.startswith("baseline@")]
    pooled = [b.steps / b.seconds for s in baselines for b in s.blocks]
    rows = [
        {
            "variant": "baseline",
            "steps_per_s": statistics.median(pooled),
            "ratio": 1.0,
            "against": "",
            "blocks": len(pooled),
        }
    ]
    eager = slots["eager"]
    for key, slot in slots.items():
        if key.startswith("baseline@") or "#" in key:
            continue
        same = key in HOME
        replicas = [s for k, s in slots.items() if _variant(k) == key]
        ratios = [median_ratio(s, slots[HOME.get(s.name, "baseline@eager")]) for s in replicas]
        row = {
            "variant": key,
            "steps_per_s": statistics.median(s.rate() for s in replicas),
            "ratio": statistics.median(ratios),
            "against": "same process" if same else "other process, interleaved",
            "blocks": sum(len(s.blocks) for s in replicas),
            "loss_check_max_rel": max(errors[s.name] for s in replicas),
        }
        if len(replicas) > 1:
            row["against"] = f"same process, median of {len(replicas)} processes"
            row["ratio_by_process"] = ratios
        if not same:
            row["eager_ratio"] = median_ratio(eager, slot)  # tfjs_grad eager ÷ this
        if key == "eager_read":
            row["read_ratio"] = median_ratio(slot, eager)  # with the read ÷ without
        rows.append(row)
    for row in rows:
        row["workload"] = workload
        run.rows.append(row)


# ---------------------------------------------------------------------------------------
# First call


def measure_first_call(workload: str, run: Run) -> None:
    """Fresh processes, variants alternating; baseline and tf.jit `first_call_repeats`
    times, the others once (paired with the first baseline)."""
    keys = (k for vs in _groups(workload).values() for k in vs if "#" not in k)
    variants = ["baseline", *keys]
    by_variant: dict[str, list[dict[str, float]]] = {v: [] for v in variants}
    for repeat in range(run.config.first_call_repeats):
        for variant in variants if repeat == 0 else ["baseline", "tf.jit"]:
            command = [sys.executable, str(BENCH / "_worker.py"), "first-call", workload, variant]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                why = done.stderr[-3000:]
                raise _harness.WorkerError(f"first call {workload}/{variant}:\n{why}")
            by_variant[variant].append(json.loads(done.stdout.splitlines()[-1]))
    base = by_variant["baseline"]
    for row in run.rows:
        if row["workload"] != workload or row["variant"] not in by_variant:
            continue
        mine = by_variant[row["variant"]]
        row["compile_s"] = statistics.median(m["first_call_s"] for m in mine)
        row["compile_ratio"] = statistics.median(
            m["first_call_s"] / b["first_call_s"] for m, b in zip(mine, base)
        )
        row["peak_rss_mb"] = statistics.median(m["peak_rss_mb"] for m in mine)
        row["rss_ratio"] = statistics.median(
            m["peak_rss_mb"] / b["peak_rss_mb"] for m, b in zip(mine, base)
        )


# ---------------------------------------------------------------------------------------
# Polynomial regression (tfjs-examples/polynomial-regression-core)


def measure_polynomial(run: Run) -> None:
    config = run.config
    workers = {"tfjs_grad": _python("polynomial", "polynomial")}
    if reason := node_missing():
        run.note(f"polynomial: tfjs rows skipped: {reason}")
    else:
        for backend in ("cpu", "wasm"):
            workers[f"tfjs-{backend}"] = _node(f"poly/tfjs-{backend}", "polynomial.js", backend)
    try:
        if skip := workers["tfjs_grad"].info.get("skip"):
            run.note(f"polynomial: tfjs_grad row skipped: {skip}")
            workers.pop("tfjs_grad").close()
        if not workers:
            return
        slots = {k: Slot(k, w, k, steps=config.poly_block) for k, w in workers.items()}
        for key, slot in slots.items():
            run.runtimes[f"polynomial {key}"] = slot.worker.info["detail"]
        data = json.loads((BENCH / "data" / "polynomial.json").read_text())
        traces = {k: s.trace(data["check_iterations"]) for k, s in slots.items()}
        if "tfjs-cpu" in traces:  # tfjs as the example runs it in Node: the CPU backend
            for key, losses in traces.items():
                check_losses(traces["tfjs-cpu"], losses, 0.0, POLY_ATOL, f"polynomial/{key}")
            _say(f"  polynomial: {len(traces)} loops agree within {POLY_ATOL:g}")
        interleave(list(slots.values()), config.poly_rounds, 0.0)
    finally:
        for worker in workers.values():
            worker.close()
    for key, slot in slots.items():
        row = {
            "workload": "polynomial",
            "variant": key,
            "steps_per_s": slot.rate(),
            "loss_after_check": traces[key][-1],
            "blocks": len(slot.blocks),
        }
        if key == "tfjs_grad":
            node = [slots[k] for k in ("tfjs-cpu", "tfjs-wasm") if k in slots]
            for other in node:
                row[f"ratio_{other.name}"] = median_ratio(slot, other)
            if node:
                row["ratio_best_tfjs"] = _ratio_to_best(slot, node)
        run.rows.append(row)


def _ratio_to_best(slot: Slot, others: list[Slot]) -> float:
    """Median over rounds of slot's rate / the fastest of `others` in that round."""
    best: dict[int, float] = {}
    for other in others:
        for b in other.blocks:
            best[b.round] = max(best.get(b.round, 0.0), b.steps / b.seconds)
    return statistics.median(b.steps / b.seconds / best[b.round] for b in slot.blocks)


# ---------------------------------------------------------------------------------------
# Recompilation: varying shapes and constants


def measure_recompile(kind: str, run: Run) -> None:
    config = run.config
    workers = {w: _python(f"{kind}/{w}", "recompile", kind, w) for w in ("varying", "fixed")}
    try:
        slots = {w: Slot(w, workers[w], w, steps=config.recompile_block) for w in workers}
        start = {w: workers[w].request(op="trace", variant=w, steps=1) for w in workers}
        rounds = config.recompile_steps // config.recompile_block
        for r in range(rounds):
            order = list(slots.values()) if r % 2 == 0 else list(slots.values())[::-1]
            for slot in order:
                reply = slot.block(slot.steps)
                slot.blocks.append(_harness.Block(r, slot.steps, reply["seconds"], reply))
            if sum(b.seconds for b in slots["varying"].blocks) > config.recompile_budget_s:
                run.note(
                    f"{kind}: varying loop stopped after {r + 1} of {rounds} rounds "
                    f"({config.recompile_budget_s:g} s budget)"
                )
                break
    finally:
        for worker in workers.values():
            worker.close()
    for which, slot in slots.items():
        steps = sum(b.steps for b in slot.blocks)
        last = slot.blocks[-1].reply
        run.rows.append(
            {
                "workload": f"recompile-{kind}",
                "variant": which,
                "steps": steps,
                "ms_per_step": 1e3 * sum(b.seconds for b in slot.blocks) / steps,
                "rss_growth_mb": last["rss_mb"] - start[which]["rss_mb"],
                "compiles": last["compiles"] - start[which]["compiles"],
                "compile_s": last["compile_s"] - start[which]["compile_s"],
                "new_values": last["distinct"] - start[which]["distinct"],
                "recompiles": last["recompiles"] - start[which]["recompiles"],
            }
        )
        row = run.rows[-1]
        if row["new_values"]:  # a length (shapes) or scale (constants) first seen
            first_sight = row["compiles"] - row["recompiles"]
            row["compiles_per_new_value"] = first_sight / row["new_values"]


# ---------------------------------------------------------------------------------------
# model.fit (tfjs_grad's Layers training) against a hand-written loop and tfjs in Node


def _fit_workload(workload: str) -> str:
    """The rows' workload name: "fit" for the tiny MLP, "fit-medium" for the medium one."""
    return "fit" if workload == "tiny" else f"fit-{workload}"


def measure_fit(run: Run, workload: str = "tiny") -> None:
    """fit against the hand-written loops; on tiny also Keras and tfjs in Node."""
    import _fit

    config = run.config
    tiny = workload == "tiny"
    label = _fit_workload(workload)
    python = _python(label, "fit", workload)
    variants = ["baseline_fit", "baseline_scan", "fit"] if tiny else ["baseline_fit", "fit"]
    keras_skip = _fit.keras_missing() if tiny else "tiny MLP only"
    if tiny and keras_skip:
        run.note(f"fit: Keras rows skipped: {keras_skip}")
    elif tiny:
        variants += list(_fit.KERAS_VARIANTS)
    slots = {k: Slot(k, python, k, steps=1) for k in variants}
    with tempfile.TemporaryDirectory() as tmp:
        node_skip = node_missing() if tiny else "tiny MLP only"
        if tiny and node_skip:
            run.note(f"fit: tfjs rows skipped: {node_skip}")
        elif tiny:
            _fit.write_problem(pathlib.Path(tmp))
            for backend in ("cpu", "wasm"):
                name = f"tfjs-{backend}"
                worker = _node(f"fit/{name}", "fit.js", tmp, backend)
                slots[name] = Slot(name, worker, name, steps=1)
        try:
            for key, slot in slots.items():
                run.runtimes[f"{label} {key}"] = slot.worker.info["detail"]
            epochs = config.fit_check_epochs
            reference = slots["baseline_fit"].trace(epochs)
            errors = {}
            for key, slot in slots.items():
                if key != "baseline_fit":
                    # Keras: see _fit; medium: float32 sums in another order drift
                    # apart by ~6e-4 over 200 steps of the wide layers
                    same_steps = tiny and key in ("fit", "baseline_scan")
                    rtol = RTOL_JAX if same_steps else RTOL_OTHER
                    errors[key] = check_losses(
                        reference, slot.trace(epochs), rtol, 0.0, f"{label}/{key}"
                    )
            _say(f"  {label}: epoch losses of {len(slots)} variants agree over {epochs} epochs")
            interleave(list(slots.values()), config.fit_rounds, 0.0)
        finally:
            for worker in {id(s.worker): s.worker for s in slots.values()}.values():
                worker.close()
    node = [slots[k] for k in ("tfjs-cpu", "tfjs-wasm") if k in slots]
    for key, slot in slots.items():
        row: dict[str, Any] = {
            "workload": label,
            "variant": key,
            "epochs_per_s": slot.rate(),
            "steps_per_s": slot.rate() * 100,
            "blocks": len(slot.blocks),
        }
        if key != "baseline_fit":
            row["loss_check_max_rel"] = errors[key]
        if key == "fit":
            row["ratio"] = median_ratio(slot, slots["baseline_fit"])
            others = ["baseline_scan", *_fit.KERAS_VARIANTS]
            for other in [slots[k] for k in others if k in slots] + node:
                row[f"ratio_{other.name}"] = median_ratio(slot, other)
            if node:
                row["ratio_best_tfjs"] = _ratio_to_best(slot, node)
        if key == "baseline_scan":
            # the per-batch target's ceiling: fit runs the scan's math in one dispatch, so
            # its ratio to the per-batch loop is about this one (which moves with load)
            row["ratio_baseline_fit"] = median_ratio(slot, slots["baseline_fit"])
        run.rows.append(row)


# ---------------------------------------------------------------------------------------
# Time to first result: a recurrent model's first fit, fresh processes


FIRST_RESULT_BACKEND = "wasm"  # tfjs's faster backend here (cpu took 3.5x as long)


def run_fresh(label: str, command: list[str]) -> dict[str, Any]:
    """Run `command` in a new process; its last stdout line, parsed as JSON."""
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise _harness.WorkerError(f"{label}:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def measure_first_result(run: Run) -> None:
    """Per model, `first_result_repeats` fresh runs of tfjs_grad and of tfjs, alternating."""
    import _first_result

    node = node_missing()
    if node:
        run.note(f"first-result: tfjs rows skipped: {node}")
    tfjs = f"tfjs-{FIRST_RESULT_BACKEND}"
    for name, spec in _first_result.MODELS.items():
        runs: dict[str, list[dict[str, Any]]] = {"tfjs_grad": [], tfjs: []}
        for _ in range(run.config.first_result_repeats):
            ours = [sys.executable, str(BENCH / "_worker.py"), "first-result", name]
            runs["tfjs_grad"].append(run_fresh(f"first result {name}", ours))
            if not node:
                script = str(BENCH / "node" / "first_result.js")
                theirs = ["node", script, name, FIRST_RESULT_BACKEND, json.dumps(spec)]
                runs[tfjs].append(run_fresh(f"first result {name} in tfjs", theirs))
                run.runtimes[f"first-result {tfjs}"] = runs[tfjs][-1]["detail"]
        for variant, mine in runs.items():
            if not mine:
                continue
            row: dict[str, Any] = {"workload": f"first-result-{name}", "variant": variant}
            for key in ("first_epoch_s", "fit_s", "compiles", "compile_s"):
                if key in mine[0]:
                    row[key] = statistics.median(m[key] for m in mine)
            row["runs"] = len(mine)
            if variant == "tfjs_grad" and runs[tfjs]:
                row["ratio_tfjs"] = statistics.median(  # time ÷ tfjs's time: lower is better
                    m["first_epoch_s"] / t["first_epoch_s"] for m, t in zip(mine, runs[tfjs])
                )
            run.rows.append(row)


def _first_result_table(run: Run) -> str:
    rows = [r for r in run.rows if r["workload"].startswith("first-result-")]
    if not rows:
        return ""
    lines = [
        "| first fit call | runtime | s to first epoch's logs | XLA compiles (s) | ÷ tfjs |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        compiles = f"{r['compiles']:g} ({r['compile_s']:.1f})" if "compiles" in r else ""
        lines.append(
            f"| {r['workload'][len('first-result-') :]} | {r['variant']} | "
            f"{r['first_epoch_s']:.1f} | {compiles} | {_x(r.get('ratio_tfjs'))} |"
        )
    return "\n".join(lines)


def _fit_table(run: Run) -> str:
    tables = []
    for workload in _mlp.WORKLOADS:
        name = _fit_workload(workload)
        rows = [r for r in run.rows if r["workload"] == name]
        if not rows:
            continue
        ours = _row(run, name, "fit") or {}
        lines = [f"| model.fit, {workload} MLP | epochs/s | fit ÷ this |", "|---|---:|---:|"]
        for r in rows:
            ratio = {"fit": 1.0, "baseline_fit": ours.get("ratio")}.get(
                r["variant"], ours.get(f"ratio_{r['variant']}")
            )
            lines.append(f"| {r['variant']} | {r['epochs_per_s']:,.2f} | {_x(ratio)} |")
        tables.append("\n".join(lines))
    return "\n\n".join(tables)


# ---------------------------------------------------------------------------------------
# Targets, tables, files


def _row(run: Run, workload: str, variant: str) -> dict[str, Any] | None:
    return next(
        (r for r in run.rows if r["workload"] == workload and r["variant"] == variant), None
    )


def _best_torch(run: Run, workload: str) -> dict[str, Any] | None:
    rows = [r for r in run.rows if r["workload"] == workload and r["variant"].startswith("torch")]
    return max(rows, key=lambda r: r["steps_per_s"]) if rows else None


def evaluate_targets(run: Run) -> None:
    def get(workload: str, variant: str, key: str) -> float | None:
        row = _row(run, workload, variant)
        return None if row is None else row.get(key)

    ratio = get("tiny", "tf.jit", "ratio")
    run.target("tiny: tf.jit ≥ 0.95× hand-written", ratio, ">=", 0.95, _x(ratio))
    first = get("tiny", "tf.jit", "compile_ratio")
    run.target(
        "tiny: tf.jit first call ≤ 1.5× hand-written",
        first,
        "<=",
        1.5,
        f"{_x(first)} ({_s(get('tiny', 'tf.jit', 'compile_s'))} vs "
        f"{_s(get('tiny', 'baseline', 'compile_s'))})",
    )
    wasm = get("tiny", "tfjs-wasm", "eager_ratio")
    run.target("tiny: eager ≥ 2× tfjs WASM in Node", wasm, ">=", 2.0, _x(wasm))
    ratio = get("tiny", "eager", "ratio")
    run.target("tiny: eager ≥ 0.4× hand-written", ratio, ">=", 0.4, _x(ratio))
    read = get("tiny", "eager_read", "read_ratio")
    run.target("tiny: eager with a value read in f ≥ 0.6× eager without", read, ">=", 0.6, _x(read))
    torch = _best_torch(run, "tiny")
    if torch is not None:
        run.target(
            f"tiny: eager ÷ {torch['variant']} eager (about 0.75× expected)",
            torch.get("eager_ratio"),
            "info",
            0.75,
            _x(torch.get("eager_ratio")),
        )
    for variant, threshold in (("tf.jit", 0.98), ("eager", 0.85)):
        ratio = get("medium", variant, "ratio")
        run.target(
            f"medium: {variant} ≥ {threshold:.2f}× hand-written", ratio, ">=", threshold, _x(ratio)
        )
    poly = get("polynomial", "tfjs_grad", "ratio_best_tfjs")
    run.target(
        "polynomial: eager ≥ 2× tfjs in Node (its faster backend)", poly, ">=", 2.0, _x(poly)
    )
    ratio = get("fit", "fit", "ratio")
    scan = get("fit", "baseline_scan", "ratio_baseline_fit")
    run.target("fit: model.fit ≥ 2.5× hand-written per-batch jax.jit + optax", ratio, ">=", 2.5,
               f"{_x(ratio)} (the hand-written scan: {_x(scan)})")  # fmt: skip
    ratio = get("fit-medium", "fit", "ratio")
    run.target("fit medium: model.fit ≥ 0.95× hand-written", ratio, ">=", 0.95, _x(ratio))
    ratio = get("fit", "fit", "ratio_baseline_scan")
    run.target("fit: model.fit ≥ 0.8× hand-written lax.scan epoch", ratio, ">=", 0.8, _x(ratio))
    keras = get("fit", "fit", "ratio_keras_fit_spe")
    run.target("fit: model.fit ≥ 2× Keras 3 fit with steps_per_execution", keras, ">=", 2.0,
               _x(keras))  # fmt: skip
    keras = get("fit", "fit", "ratio_keras_fit")
    run.target("fit: model.fit ÷ Keras 3 default fit", keras, "info", 1.0, _x(keras))
    tfjs = get("fit", "fit", "ratio_best_tfjs")
    run.target("fit: model.fit ≥ 10× tfjs model.fit in Node (its faster backend)", tfjs, ">=", 10.0,
               _x(tfjs))  # fmt: skip
    import _first_result

    for name in _first_result.MODELS:
        row = _row(run, f"first-result-{name}", "tfjs_grad") or {}
        ratio = row.get("ratio_tfjs")
        figure = _x(ratio)
        if row:
            figure += f" ({row['first_epoch_s']:.1f} s, {row['compiles']:g} XLA compiles)"
        run.target(f"{name}: first epoch ≤ 1× tfjs's first epoch", ratio, "<=", 1.0, figure)
    for kind in ("shapes", "constants"):
        varying = _row(run, f"recompile-{kind}", "varying")
        fixed = _row(run, f"recompile-{kind}", "fixed")
        if varying is None or fixed is None:
            continue
        slow = varying["ms_per_step"] / fixed["ms_per_step"]
        # A new batch length is a new program, compiled once (as under jax.jit): the time
        # per step of a loop that keeps meeting new lengths is the compile's, by design.
        run.target(
            f"varying {kind}: ≤ 2× the fixed loop's time per step"
            if kind == "constants"
            else "varying shapes: time per step ÷ the fixed loop's (each new length compiles)",
            slow,
            "<=" if kind == "constants" else "info",
            2.0,
            f"{_x(slow)} ({varying['ms_per_step']:.1f} vs {fixed['ms_per_step']:.1f} ms)",
        )
        if kind == "shapes":
            per_new = varying.get("compiles_per_new_value")
            run.target(
                "varying shapes: 1.0 XLA compile per new batch length (evicted ones counted apart)",
                per_new,
                "<=",
                1.0,
                "—"
                if per_new is None
                else f"{per_new:.2f} ({varying['compiles']} compiles, "
                f"{varying['new_values']} new lengths, "
                f"{varying.get('recompiles', 0)} of evicted lengths)",
            )
        if kind == "shapes":  # compiled programs are kept up to the cache's budget
            run.target(
                f"varying shapes: memory bounded by the compile cache's budget ({CACHE_MB:g} MB)",
                varying["rss_growth_mb"],
                "<=",
                CACHE_MB,
                f"+{varying['rss_growth_mb']:.0f} MB over {varying['steps']} "
                f"steps (fixed: +{fixed['rss_growth_mb']:.0f} MB)",
            )
            continue
        growth = varying["rss_growth_mb"] * 500 / varying["steps"]
        run.target(
            f"varying {kind}: flat memory (≤ {FLAT_MB:g} MB per 500 steps)",
            growth,
            "<=",
            FLAT_MB,
            f"+{varying['rss_growth_mb']:.0f} MB over {varying['steps']} "
            f"steps (fixed: +{fixed['rss_growth_mb']:.0f} MB)",
        )


def _x(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}×"


def _s(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"


def _mlp_table(run: Run) -> str:
    if not any(r["workload"] in _mlp.WORKLOADS for r in run.rows):
        return ""
    lines = [
        "| workload | variant | steps/s | × hand-written | compared | first call s (×) "
        "| peak RSS MB (×) |",
        "|---|---|---:|---:|---|---:|---:|",
    ]
    for r in run.rows:
        if r["workload"] not in _mlp.WORKLOADS:
            continue
        first = f"{r['compile_s']:.2f} ({r['compile_ratio']:.2f})" if "compile_s" in r else ""
        rss = f"{r['peak_rss_mb']:.0f} ({r['rss_ratio']:.2f})" if "peak_rss_mb" in r else ""
        lines.append(
            f"| {r['workload']} | {r['variant']} | {r['steps_per_s']:,.0f} | {r['ratio']:.2f} | "
            f"{r['against']} | {first} | {rss} |"
        )
    return "\n".join(lines)


def _polynomial_table(run: Run) -> str:
    rows = [r for r in run.rows if r["workload"] == "polynomial"]
    if not rows:
        return ""
    lines = [
        "| polynomial-regression-core | steps/s | tfjs_grad ÷ this | loss after 75 |",
        "|---|---:|---:|---:|",
    ]
    ours = _row(run, "polynomial", "tfjs_grad") or {}
    for r in rows:
        ratio = ours.get(f"ratio_{r['variant']}")
        lines.append(
            f"| {r['variant']} | {r['steps_per_s']:,.0f} | {_x(ratio)} | "
            f"{r['loss_after_check']:.7f} |"
        )
    return "\n".join(lines)


def _recompile_table(run: Run) -> str:
    rows = [r for r in run.rows if r["workload"].startswith("recompile-")]
    if not rows:
        return ""
    lines = [
        "| eager loop | steps | ms/step | XLA compiles | new lengths or values "
        "| compiles per new one | compiled again after eviction | RSS growth MB |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        per_new = r.get("compiles_per_new_value")
        lines.append(
            f"| {r['workload'][len('recompile-') :]}, {r['variant']} | {r['steps']} | "
            f"{r['ms_per_step']:.1f} | {r['compiles']} | {r.get('new_values', '—')} | "
            f"{'—' if per_new is None else f'{per_new:.2f}'} | {r.get('recompiles', '—')} | "
            f"{r['rss_growth_mb']:+.0f} |"
        )
    return "\n".join(lines)


def _targets_table(run: Run) -> str:
    lines = ["| target | measured | |", "|---|---:|---|"]
    for t in run.targets:
        verdict = {True: "met", False: "**not met**", None: "not measured"}[t["met"]]
        if t["op"] == "info":
            verdict = "for reference"
        lines.append(f"| {t['target']} | {t['figure']} | {verdict} |")
    return "\n".join(lines)


def report(run: Run, machine: dict[str, Any]) -> str:
    """The markdown printed at the end and written into README between the markers."""
    config = run.config
    mlp = (
        "Hand-written = `jax.jit(step, donate_argnums=(0, 1))` over a params dict and "
        "`optax.adam(1e-3, b1=0.9, b2=0.999, eps=1e-7)` state, x and y passed each step. "
        "tf.jit and eager = the tfjs user's loop: `tf.variable` weights, `x @ w + b`, "
        "`tf.losses.*`, `tf.train.adam(1e-3, 0.9, 0.999, 1e-7)`, "
        "`opt.minimize(lambda: ..., True)`; eager runs it in `tf.tidy`. "
        f"Steps/s: median of {config.rounds} blocks of about {config.block_s:g} s. "
        "× hand-written: median over rounds of the ratio to the baseline's block of the same "
        "round; the tfjs_grad variants share a process with their baseline, torch and tfjs "
        f"run in other processes, interleaved; tf.jit runs in {JIT_PROCESSES} processes, "
        "each with its own baseline, and its ratio is the median of theirs (its ratio moves "
        "by about ±3% from one process to the next, with the same code). First call: a "
        "fresh process, weights and optimizer made, traced, compiled and one step run "
        "(imports excluded), median of "
        f"{config.first_call_repeats} for baseline and tf.jit, once for the others; "
        "peak RSS after 10 steps."
    )
    polynomial = (
        f"tfjs-examples' polynomial-regression-core: blocks of {config.poly_block} iterations "
        "of its loop (an SGD step, then `await tf.nextFrame()`), "
        f"{config.poly_rounds} rounds; losses checked against tfjs (CPU backend) within "
        f"{POLY_ATOL:g} over the example's 75 iterations."
    )
    recompile = (
        "Eager `tf.tidy(lambda: opt.minimize(..., True))` loops whose batch length (shapes) "
        "or Python float (constants) changes each step, in blocks of "
        f"{config.recompile_block} steps alternating with their fixed twin (other process), "
        f"for {config.recompile_steps} steps or until the varying loop has run "
        f"{config.recompile_budget_s:g} s; compiles and RSS growth counted after the first step."
    )
    fit = (
        "`model.fit` (tf.sequential of dense layers, Adam, MSE, batch 32, shuffle off) on the "
        "tiny MLP's 3,200 samples, one step = one epoch (100 batches); hand-written = "
        "`jax.jit` + `optax.adam` over the same batches, sliced on device, epoch loss summed "
        "in the step; baseline_scan = that step as a `lax.scan` over the epoch, one call per "
        "epoch; keras_fit = Keras 3 (JAX backend) `model.fit` on the same arrays, "
        "keras_fit_spe = the same with `steps_per_execution=100` (one dispatch per epoch), "
        "both in fit's process; tfjs = tfjs 4.22's `model.fit` in Node. Medium: the "
        "512-1024-1024-10 MLP's 25,600 samples, batch 256, softmax output and "
        "'categoricalCrossentropy', against its hand-written loop only. "
        f"{config.fit_rounds} rounds, "
        "epoch losses checked against the hand-written loop first."
    )
    first_result = (
        "addition-rnn (its LSTM model) and lstm-text-generation as the examples build and "
        "fit them, on random one-hot inputs of their shapes: seconds from `fit` called to "
        "the first `onEpochEnd`, in a fresh process (model built and data made before), "
        f"median of {config.first_result_repeats} runs alternating with tfjs 4.22's in Node "
        f"({FIRST_RESULT_BACKEND} backend); XLA compiles counted during that fit call; "
        "÷ tfjs = tfjs_grad's time over tfjs's (lower is better)."
    )
    parts = [
        f"Measured {machine['date']} on {machine['cpus']} CPUs, load average "
        f"{machine['load_start']} at start and {machine['load_end']} at the end "
        "(a loaded machine lowers every figure; the ratios compare blocks run side by side). "
        "Runtimes: " + "; ".join(sorted(set(run.runtimes.values()))) + "."
    ]
    for intro, table in (
        (mlp, _mlp_table(run)),
        (polynomial, _polynomial_table(run)),
        (recompile, _recompile_table(run)),
        (fit, _fit_table(run)),
        (first_result, _first_result_table(run)),
        ("", _targets_table(run)),
    ):
        if table:
            parts += [intro, table]
    if run.notes:
        parts.append("Notes: " + "; ".join(run.notes) + ".")
    return "\n\n".join(p for p in parts if p)


def update_readme(text: str, readme: pathlib.Path = ROOT / "README.md") -> None:
    """Replace what lies between README's benchmark markers with `text`."""
    content = readme.read_text()
    start = content.index("<!-- benchmark table:")
    start = content.index("\n", start) + 1
    end = content.index("<!-- end benchmark table -->")
    readme.write_text(content[:start] + text + "\n" + content[end:])


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def measure(run: Run, sections: list[str], workloads: list[str]) -> dict[str, Any]:
    """Run the sections; returns the machine's description (date, CPUs, load)."""
    machine = {"date": datetime.date.today().isoformat(), "cpus": os.cpu_count()}
    machine["load_start"] = _load()
    for workload in workloads:
        if "mlp" in sections:
            _say(f"mlp {workload} ...")
            measure_mlp(workload, run)
            if "first-call" in sections:
                _say(f"first call {workload} ...")
                measure_first_call(workload, run)
    if "polynomial" in sections:
        _say("polynomial ...")
        measure_polynomial(run)
    if "recompile" in sections:
        for kind in ("shapes", "constants"):
            _say(f"recompile {kind} ...")
            measure_recompile(kind, run)
    if "fit" in sections:
        for workload in workloads:
            _say(f"fit {workload} ...")
            measure_fit(run, workload)
    if "first-result" in sections:
        _say("first result ...")
        measure_first_result(run)
    machine["load_end"] = _load()
    evaluate_targets(run)
    return machine


def save(run: Run, machine: dict[str, Any]) -> None:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(run.rows, indent=1) + "\n")
    summary = {
        "machine": machine,
        "config": dataclasses.asdict(run.config),
        "runtimes": run.runtimes,
        "targets": run.targets,
        "notes": run.notes,
    }
    TARGETS.write_text(json.dumps(summary, indent=1) + "\n")


def load_saved() -> tuple[Run, dict[str, Any]]:
    """The run `save` wrote, to print or put into README again without measuring."""
    summary = json.loads(TARGETS.read_text())
    config = summary["config"]
    run = Run(Config(**{**config, "check_steps": tuple(config["check_steps"])}))
    run.rows = json.loads(RESULTS.read_text())
    run.runtimes, run.targets, run.notes = summary["runtimes"], summary["targets"], summary["notes"]
    return run, summary["machine"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: short, writes no files")
    parser.add_argument("--sections", default=",".join(SECTIONS))
    parser.add_argument("--workloads", default="tiny,medium")
    parser.add_argument("--update-readme", action="store_true", help="write the tables into README")
    parser.add_argument(
        "--from-results", action="store_true", help="measure nothing: report the saved results"
    )
    args = parser.parse_args()
    if args.from_results:
        run, machine = load_saved()
    else:
        run = Run(QUICK if args.quick else Config())
        machine = measure(run, args.sections.split(","), args.workloads.split(","))
    text = report(run, machine)
    print(text)
    if args.quick:
        return  # a smoke run's numbers are not results
    if not args.from_results:
        save(run, machine)
    if args.update_readme:
        update_readme(text)


if __name__ == "__main__":
    main()
