"""Interleaved timing across processes: workers that train on command, and the schedule.

Every variant lives in a worker process that has set itself up (data, initial values,
first call) and then waits on stdin for JSON-lines commands:

    {"op": "trace", "variant": v, "steps": n} -> {"losses": [n floats]}
        n steps, each step's loss read back (the correctness check)
    {"op": "block", "variant": v, "steps": n} -> {"seconds": s, "loss": x}
        n steps timed together, synchronised once at the end

Python workers serve with `serve`; the Node workers (benchmarks/node/runtime.js) speak the
same protocol. The parent calibrates each variant's block to about `target_s` seconds,
then runs `rounds` rounds in which every variant runs one block, in an order that rotates
from round to round. A ratio pairs the two variants' blocks of each round, run seconds
apart, so load that comes and goes moves both sides together; the median over rounds
drops the rounds it hit unevenly. What interleaving cannot cancel is a lasting speed
difference between two processes: variants that can share a process should.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple


class WorkerError(RuntimeError):
    """A worker died or answered with an error; the message carries its stderr tail."""


class Worker:
    """A running worker process and its reply channel."""

    def __init__(self, name: str, command: Sequence[str]):
        self.name = name
        self._stderr = tempfile.TemporaryFile(mode="w+")
        self._proc = subprocess.Popen(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            bufsize=1,
        )
        self._info: dict[str, Any] | None = None

    @property
    def info(self) -> dict[str, Any]:
        """The worker's first line ({"ready": true, "detail": ...} or {"skip": why});
        waits for it, so workers started together set up in parallel."""
        if self._info is None:
            self._info = self._read()
        return self._info

    def _fail(self, why: str) -> WorkerError:
        self._stderr.seek(0)
        tail = self._stderr.read()[-4000:]
        return WorkerError(f"worker {self.name}: {why}\n{tail}")

    def _read(self) -> dict[str, Any]:
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            self._proc.wait()
            raise self._fail(f"exited with status {self._proc.returncode}")
        reply = json.loads(line)
        if "error" in reply:
            raise self._fail(reply["error"])
        return reply

    def request(self, **command: Any) -> dict[str, Any]:
        assert self._proc.stdin is not None
        _ = self.info
        try:
            self._proc.stdin.write(json.dumps(command) + "\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            raise self._fail("stdin closed") from None
        return self._read()

    def close(self) -> None:
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            self._proc.stdin.close()
        try:
            self._proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


@dataclass
class Runner:
    """One variant inside a Python worker.

    `run(n)` trains n steps (a multiple of `per_call`) and returns a value that
    `sync(value)` waits for, answering the last loss; `trace(n)` trains n steps and
    returns every step's loss; `report()` adds figures to each block's reply.
    """

    run: Callable[[int], Any]
    sync: Callable[[Any], float]
    trace: Callable[[int], list[float]]
    per_call: int = 1
    report: Callable[[], dict[str, Any]] = dict


def stepper(
    step: Callable[[], Any],
    sync: Callable[[Any], float],
    losses: Callable[[Any], list[float]],
    per_call: int = 1,
) -> Runner:
    """A Runner from a step function that trains `per_call` steps per call and returns
    its loss(es) unsynchronised; `losses(value)` reads a call's per-step losses."""

    def run(n: int) -> Any:
        value = None
        for _ in range(n // per_call):
            value = step()
        return value

    def trace(n: int) -> list[float]:
        out: list[float] = []
        while len(out) < n:
            out.extend(losses(step()))
        return out[:n]

    return Runner(run=run, sync=sync, trace=trace, per_call=per_call)


def rss_mb() -> float:
    """This process's resident memory now (Linux), in MB."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def serve(runners: dict[str, Runner], info: dict[str, Any]) -> None:
    """Answer the protocol's commands on stdin until it closes (Python worker side)."""

    def reply(obj: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(obj) + "\n")
        sys.stdout.flush()

    reply({"ready": True, **info})
    if "skip" in info:
        return
    for line in sys.stdin:
        command = json.loads(line)
        runner = runners[command["variant"]]
        if command["op"] == "trace":
            losses = runner.trace(command["steps"])
            reply({"losses": losses, "rss_mb": rss_mb(), **runner.report()})
        elif command["op"] == "block":
            start = time.perf_counter()
            loss = runner.sync(runner.run(command["steps"]))
            seconds = time.perf_counter() - start
            reply({"seconds": seconds, "loss": loss, "rss_mb": rss_mb(), **runner.report()})
        else:
            reply({"error": f"unknown op {command['op']!r}"})


class Block(NamedTuple):
    round: int
    steps: int
    seconds: float
    reply: dict[str, Any]


@dataclass
class Slot:
    """A variant the schedule times: the worker that hosts it, its block size and blocks."""

    name: str
    worker: Worker
    variant: str
    per_call: int = 1
    steps: int = 0  # steps per block; 0: calibrate
    blocks: list[Block] = field(default_factory=list)

    def block(self, steps: int) -> dict[str, Any]:
        return self.worker.request(op="block", variant=self.variant, steps=steps)

    def trace(self, steps: int) -> list[float]:
        return self.worker.request(op="trace", variant=self.variant, steps=steps)["losses"]

    def rate(self) -> float:
        """Median steps per second over the timed blocks."""
        return statistics.median(b.steps / b.seconds for b in self.blocks)


def calibrate(slot: Slot, target_s: float) -> None:
    """Size `slot`'s block to about `target_s` seconds (whole calls, at least one)."""
    steps = slot.per_call
    while True:
        seconds = slot.block(steps)["seconds"]
        if seconds >= target_s / 4 or steps >= 1 << 24:
            break
        steps *= 2
    calls = max(1, round(target_s * steps / seconds / slot.per_call))
    slot.steps = calls * slot.per_call


def interleave(slots: Sequence[Slot], rounds: int, target_s: float) -> None:
    """Calibrate the slots that need it, then time `rounds` rounds of one block per slot."""
    for slot in slots:
        if not slot.steps:
            calibrate(slot, target_s)
    for r in range(rounds):
        # Each slot leads once per len(slots) rounds; every other such cycle runs backwards,
        # so no slot always follows the same neighbour.
        shift = r % len(slots)
        order = list(slots[shift:]) + list(slots[:shift])
        if (r // len(slots)) % 2:
            order.reverse()
        for slot in order:
            reply = slot.block(slot.steps)
            slot.blocks.append(Block(r, slot.steps, reply["seconds"], reply))


def median_ratio(numerator: Slot, denominator: Slot) -> float:
    """Median over the rounds both ran of numerator's rate / denominator's rate."""
    theirs = {b.round: b.steps / b.seconds for b in denominator.blocks}
    return statistics.median(
        b.steps / b.seconds / theirs[b.round] for b in numerator.blocks if b.round in theirs
    )


def check_losses(
    reference: Sequence[float], got: Sequence[float], rtol: float, atol: float, label: str
) -> float:
    """Raise SystemExit unless `got` matches `reference` step by step; returns the max error.

    The benchmark's one hard failure: variants that do not compute the same training are
    not comparable, whatever their speed.
    """
    if len(got) < len(reference):
        raise SystemExit(f"loss check {label}: {len(got)} losses, expected {len(reference)}")
    worst = 0.0
    for i, (want, have) in enumerate(zip(reference, got)):
        error = abs(have - want)
        worst = max(worst, error / max(abs(want), 1e-12))
        if not error <= atol + rtol * abs(want):  # also catches NaN
            raise SystemExit(
                f"loss check {label}: step {i + 1} loss {have!r} != reference {want!r} "
                f"(|diff| {error:.3g} > {atol:g} + {rtol:g}·|ref|)"
            )
    return worst
