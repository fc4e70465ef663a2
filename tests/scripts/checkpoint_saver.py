"""Subprocess entry point: one of several independent processes saving into one directory.

    python checkpoint_saver.py DIRECTORY LABEL SAVES GO_FILE

Waits until GO_FILE exists (so the processes start saving together), then saves a
Variable holding [LABEL, i] SAVES times with `tf.train.save_checkpoint(DIRECTORY, [w])`
(the next free step each time) and prints one JSON line: {"saved": [[step, i], ...],
"errors": ["Type: message", ...]}.
"""

from __future__ import annotations

import json
import os
import sys
import time

import tfjs_grad as tf


def main() -> None:
    directory, label, saves, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    w = tf.variable(tf.tensor1d([label, -1]), name="w")
    while not os.path.exists(go):
        time.sleep(0.005)
    saved, errors = [], []
    for i in range(saves):
        w.assign(tf.tensor1d([label, i]))
        try:
            saved.append([tf.train.save_checkpoint(directory, [w]), i])
        except Exception as error:  # noqa: BLE001 - reported to the test
            errors.append(f"{type(error).__name__}: {str(error)[:300]}")
    print(json.dumps({"saved": saved, "errors": errors}), flush=True)


if __name__ == "__main__":
    main()
