"""Subprocess entry point: peak memory of `tf.io.load_weights` on a hostile model.json.

    python io_rss.py FOLDER [COUNT [SHARD_MIB]]

Writes FOLDER/model.json listing one shard of SHARD_MIB MiB (default 1) COUNT times
(default 200) for a single float32 weight of COUNT * SHARD_MIB MiB, loads it, and prints one JSON line:
{"count", "disk_bytes", "outcome" (the error's type and message, or "loaded"),
 "peak_rss_increase_bytes"} where the increase is the growth of the process's peak resident
set (getrusage's ru_maxrss) across the call, after a warm-up load of a small model.
"""

from __future__ import annotations

import json
import resource
import sys
from pathlib import Path

import tfjs_grad as tf

MIB = 1024 * 1024


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def main() -> None:
    folder = Path(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    shard_bytes = int(sys.argv[3]) * MIB if len(sys.argv) > 3 else MIB
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shard.bin").write_bytes(bytes(shard_bytes))
    manifest = [
        {
            "paths": ["shard.bin"] * count,
            "weights": [{"name": "w", "shape": [count * shard_bytes // 4], "dtype": "float32"}],
        }
    ]
    (folder / "model.json").write_text(json.dumps({"weightsManifest": manifest}))

    warm = tf.variable(tf.ones([4]), name="warm")
    tf.io.load_weights(tf.io.save_weights(folder / "warm", [warm]))
    before = peak_rss_bytes()
    try:
        tf.io.load_weights(folder / "model.json")
        outcome = "loaded"
    except Exception as error:  # noqa: BLE001 - reported, not handled
        outcome = f"{type(error).__name__}: {error}"
    print(
        json.dumps(
            {
                "count": count,
                "disk_bytes": shard_bytes + (folder / "model.json").stat().st_size,
                "outcome": outcome,
                "peak_rss_increase_bytes": peak_rss_bytes() - before,
            }
        )
    )


if __name__ == "__main__":
    main()
