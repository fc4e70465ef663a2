"""Subprocess entry point: train the MLP for 12 steps, checkpointing after steps 4, 8, 12.

    python checkpoint_worker.py DIRECTORY OUT.npz [--resume] [--pause-at STEP MARKER]

--resume      first restore the latest complete checkpoint in DIRECTORY, and continue
              from the step it holds
--pause-at    while writing checkpoint STEP, once its data is written but before the
              checkpoint directory is renamed into place (the commit), create MARKER and
              sleep, so the test can SIGKILL the process mid-write

Writes OUT.npz: every Variable (model, Adam slots, iterations) and 'restored_step'.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

import numpy as np

import tfjs_grad as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mlp  # noqa: E402

STEPS = 12
EVERY = 4


def pause_before_commit(directory: str, step: int, marker: str) -> None:
    """Block the rename that would publish `directory/step` (any writer renames it last)."""
    rename = os.rename
    target = os.path.join(os.path.abspath(directory), str(step))

    def paused_rename(src, dst, *args, **kwargs):
        if os.path.abspath(os.fspath(dst)) == target:
            pathlib.Path(marker).write_text(os.fspath(src))
            time.sleep(600)
        return rename(src, dst, *args, **kwargs)

    os.rename = paused_rename


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("directory")
    parser.add_argument("out")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("--pause-at", nargs=2, metavar=("STEP", "MARKER"))
    args = parser.parse_args()
    if args.pause_at:
        pause_before_commit(args.directory, int(args.pause_at[0]), args.pause_at[1])

    model = mlp.Model()
    start = 0
    if args.resume:
        start = tf.train.restore_checkpoint(args.directory, optimizers=[model.opt])
    for i in range(start, STEPS):
        mlp.train(model, range(i, i + 1))
        if (i + 1) % EVERY == 0:
            tf.train.save_checkpoint(args.directory, optimizers=[model.opt], step=i + 1)
    np.savez(args.out, restored_step=np.array(start), **model.state())


if __name__ == "__main__":
    main()
