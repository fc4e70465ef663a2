"""Subprocess entry point: `tf.io.save_weights` ended abruptly, for tests/test_io.py.

    python io_crash_worker.py steps START OUT NEW.npz SHARD_BYTES
        For N = 1, 2, ...: copy the folder START (or nothing, if it does not exist) to
        OUT/N/m, then save NEW.npz's arrays (as Variables named by their keys) to OUT/N/m
        in a process that `os._exit`s at the save's N-th filesystem step: an os.open that
        creates or writes, write (cut to half its bytes first), fsync, rename/replace,
        unlink/remove, mkdir or rmdir. Stops after the first N whose save completes and
        prints {"steps": N - 1} (the number of steps of a save).
    python io_crash_worker.py kill FOLDER OUT A.npz B.npz SHARD_BYTES RUNS SEED
        RUNS times: start a process that saves A and B to FOLDER in turn without end,
        SIGKILL it after a random delay, and copy FOLDER to OUT/k. Prints {"runs": RUNS}.
    python io_crash_worker.py loop FOLDER A.npz B.npz SHARD_BYTES PAUSE
        Save A and B to FOLDER in turn, PAUSE seconds apart, until killed; prints "ready"
        after the first save.

Each save runs in a child forked before JAX starts its backend (importing tfjs_grad does
not), so one Python start serves every crash.
"""

from __future__ import annotations

import functools
import json
import os
import random
import shutil
import signal
import sys
import time
from pathlib import Path

import numpy as np

import tfjs_grad as tf

CRASHED = 86
_MUTATING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def variables(npz: str) -> list[tf.Variable]:
    with np.load(npz) as arrays:
        return [tf.variable(arrays[name], name=name) for name in arrays.files]


def crash_at(step: int) -> None:
    """Patch os so that the process ends at its `step`-th filesystem step from now."""
    count = [0]

    def reached() -> bool:
        count[0] += 1
        return count[0] == step

    def wrap(name: str):
        original = getattr(os, name)

        def patched(*args, **kwargs):
            if reached():
                os._exit(CRASHED)
            return original(*args, **kwargs)

        setattr(os, name, patched)

    for name in ("fsync", "replace", "rename", "unlink", "remove", "mkdir", "rmdir"):
        wrap(name)
    original_open, original_write = os.open, os.write

    def open_(path, flags, *args, **kwargs):
        if flags & _MUTATING and reached():
            os._exit(CRASHED)
        return original_open(path, flags, *args, **kwargs)

    def write(fd, data):
        if reached():
            original_write(fd, memoryview(data)[: len(data) // 2])
            os._exit(CRASHED)
        return original_write(fd, data)

    os.open, os.write = open_, write


def in_child(body) -> int:
    """Run `body` in a forked child that never returns here; its exit status."""
    pid = os.fork()
    if pid == 0:
        try:
            body()
        except BaseException as error:  # noqa: BLE001 - reported through the exit status
            print(f"child failed: {error!r}", file=sys.stderr, flush=True)
            os._exit(1)
        os._exit(0)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def steps(start: Path, out: Path, new: str, shard_bytes: int) -> None:
    step = 0
    while True:
        step += 1
        folder = out / str(step) / "m"
        folder.parent.mkdir(parents=True)
        if start.exists():
            shutil.copytree(start, folder, symlinks=True)

        def save(step: int = step, folder: Path = folder) -> None:
            var_list = variables(new)
            crash_at(step)
            tf.io.save_weights(folder, var_list, shard_size_bytes=shard_bytes)

        status = in_child(save)
        if status == 0:
            print(json.dumps({"steps": step - 1}))
            return
        if status != CRASHED:
            sys.exit(f"the save at step {step} failed with exit status {status}")


def loop(folder: Path, a: str, b: str, shard_bytes: int, ready=None, pause=0.0) -> None:
    var_list = variables(a)
    with np.load(a) as first, np.load(b) as second:
        values = [[first[v.name] for v in var_list], [second[v.name] for v in var_list]]
    turn = 0
    while True:
        for v, value in zip(var_list, values[turn]):
            v.assign(value)
        tf.io.save_weights(folder, var_list, shard_size_bytes=shard_bytes)
        if ready is not None:
            ready()
            ready = None
        turn = 1 - turn
        time.sleep(pause)


def kill(folder: Path, out: Path, a: str, b: str, shard_bytes: int, runs: int, seed: int):
    rng = random.Random(seed)
    for k in range(runs):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read_end)
            try:
                loop(folder, a, b, shard_bytes, functools.partial(os.write, write_end, b"."))
            finally:
                os._exit(1)
        os.close(write_end)
        if os.read(read_end, 1) != b".":
            sys.exit("the saving process ended before its first save")
        os.close(read_end)
        time.sleep(rng.uniform(0.0, 0.25))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        shutil.copytree(folder, out / str(k), symlinks=True)
    print(json.dumps({"runs": runs}))


def main() -> None:
    mode, *args = sys.argv[1:]
    if mode == "steps":
        start, out, new, shard_bytes = args
        steps(Path(start), Path(out), new, int(shard_bytes))
    elif mode == "kill":
        folder, out, a, b, shard_bytes, runs, seed = args
        kill(Path(folder), Path(out), a, b, int(shard_bytes), int(runs), int(seed))
    elif mode == "loop":
        folder, a, b, shard_bytes, pause = args
        ready = lambda: print("ready", flush=True)  # noqa: E731
        loop(Path(folder), a, b, int(shard_bytes), ready, float(pause))
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main()
