"""Subprocess entry point: peak memory of `tf.io.load_weights`, e.g. on a hostile model.json.

    python io_rss.py FOLDER COUNT SHARD_MIB [COUNT SHARD_MIB ...]

For each pair, writes FOLDER/<k>/model.json listing one shard of SHARD_MIB MiB COUNT times,
for a single float32 weight of COUNT * SHARD_MIB MiB, loads it, and prints one JSON line:
{"count", "disk_bytes" (shard and model.json), "outcome" (the error's type and message, or
"loaded"), "peak_rss_increase_bytes"}: how much the process's peak resident set
(getrusage's ru_maxrss) grew during the load, after a warm-up load of a small model.
Issue #13's file is `COUNT=200 SHARD_MIB=1`; put loads expected to be small first, as a
peak only grows.
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


def write_model(folder: Path, count: int, shard_bytes: int) -> Path:
    folder.mkdir(parents=True)
    (folder / "shard.bin").write_bytes(bytes(shard_bytes))
    weight = {"name": "w", "shape": [count * shard_bytes // 4], "dtype": "float32"}
    manifest = [{"paths": ["shard.bin"] * count, "weights": [weight]}]
    (folder / "model.json").write_text(json.dumps({"weightsManifest": manifest}))
    return folder / "model.json"


def main() -> None:
    folder, *pairs = sys.argv[1:]
    warm = tf.variable(tf.ones([4]), name="warm")
    tf.io.load_weights(tf.io.save_weights(Path(folder) / "warm", [warm]))
    for k, (count, shard_mib) in enumerate(zip(pairs[::2], pairs[1::2])):
        model_json = write_model(Path(folder) / str(k), int(count), int(shard_mib) * MIB)
        before = peak_rss_bytes()
        try:
            tf.io.load_weights(model_json)
            outcome = "loaded"
        except Exception as error:  # noqa: BLE001 - reported, not handled
            outcome = f"{type(error).__name__}: {error}"
        increase = peak_rss_bytes() - before
        disk_bytes = int(shard_mib) * MIB + model_json.stat().st_size
        print(
            json.dumps(
                {
                    "count": int(count),
                    "disk_bytes": disk_bytes,
                    "outcome": outcome,
                    "peak_rss_increase_bytes": increase,
                }
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
