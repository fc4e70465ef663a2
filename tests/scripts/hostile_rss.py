"""Subprocess entry point: peak memory while loading a hostile file (issue 19, items 8-9).

    python hostile_rss.py FOLDER KIND

KIND is `sparse-shard` (a model.json whose one shard is a 512 MiB sparse file, holes
only, declaring a 512 MiB weight) or `zarr-chunk` (a checkpoint of a 4-element Variable
whose array metadata declares one chunk of 2**27 elements, its zlib-compressed zeros in
the chunk file). Writes the file, warms up with an honest load of the same kind, then
loads the hostile one and prints one JSON line: {"kind", "disk_bytes" (what the files
occupy on disk), "outcome" (the error's type and message, or "loaded"),
"peak_rss_increase_bytes"}: how much the peak resident set grew during the load. The
peak is reset just before the load (/proc/self/clear_refs), else getrusage's since start.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import zlib
from pathlib import Path

import numpy as np

import tfjs_grad as tf

MIB = 1024 * 1024
CHUNK = 2**27  # elements in the hostile chunk: 512 MiB of float32


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")  # resets VmHWM, the peak resident set
        return True
    except OSError:
        return False


def _peak_bytes(reset: bool) -> int:
    if reset:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def _on_disk(folder: Path) -> int:
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


def sparse_shard(folder: Path) -> tuple[Path, object]:
    folder.mkdir(parents=True)
    with open(folder / "shard.bin", "wb") as f:
        f.truncate(512 * MIB)  # a hole: no byte of it is on disk
    weight = {"name": "w", "shape": [512 * MIB // 4], "dtype": "float32"}
    manifest = [{"paths": ["shard.bin"], "weights": [weight]}]
    (folder / "model.json").write_text(json.dumps({"weightsManifest": manifest}))
    return folder, lambda: tf.io.load_weights(folder / "model.json")


def zarr_chunk(folder: Path) -> tuple[Path, object]:
    import tensorstore as ts

    w = tf.variable(tf.ones([4]), name="hostile_w")
    tf.train.save_checkpoint(folder, [w], step=0)
    store = ts.KvStore.open({"driver": "ocdbt", "base": f"file://{folder}/0/state/"}).result()
    (key,) = [k for k in store.list().result() if k.endswith(b"/.zarray")]
    metadata = json.loads(store.read(key).result().value)
    metadata.update(chunks=[CHUNK], compressor={"id": "zlib", "level": 9})
    packer, data, zeros = zlib.compressobj(9), [], bytes(MIB)
    for _ in range(CHUNK * 4 // MIB):
        data.append(packer.compress(zeros))
    data.append(packer.flush())
    store.write(key, json.dumps(metadata).encode()).result()
    store.write(key[: -len(b".zarray")] + b"0", b"".join(data)).result()
    return folder, lambda: tf.train.restore_checkpoint(folder, [w])


def honest(folder: Path, kind: str) -> None:
    w = tf.variable(tf.ones([4]), name="warm_w")
    if kind == "sparse-shard":
        tf.io.load_weights(tf.io.save_weights(folder / "warm", [w]))
    else:
        tf.train.save_checkpoint(folder / "warm", [w])
        tf.train.restore_checkpoint(folder / "warm", [w])
    w.dispose()


def main() -> None:
    folder, kind = Path(sys.argv[1]), sys.argv[2]
    honest(folder, kind)
    made, load = {"sparse-shard": sparse_shard, "zarr-chunk": zarr_chunk}[kind](folder / kind)
    np.zeros(1)  # nothing lazily imported during the measured load
    reset = _reset_peak()
    before = _peak_bytes(reset)
    try:
        load()  # type: ignore[operator]
        outcome = "loaded"
    except Exception as error:  # noqa: BLE001 - reported, not handled
        outcome = f"{type(error).__name__}: {error}"
    increase = _peak_bytes(reset) - before
    print(
        json.dumps(
            {
                "kind": kind,
                "disk_bytes": _on_disk(made),
                "outcome": outcome[:500],
                "peak_rss_increase_bytes": increase,
                "peak_reset": reset,
            }
        ),
        flush=True,
    )
    os._exit(0)  # skip orbax's atexit work: the measurement is done


if __name__ == "__main__":
    main()
