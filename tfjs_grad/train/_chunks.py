"""`check_chunks`: a stored array's chunks, from its zarr metadata, fit inside the array.

Reading a chunk allocates all of it, whatever part of it the array uses: a 4-element
array whose metadata declares one chunk of 2**31 elements would allocate 8 GiB from a
few KiB of compressed zeros. Orbax writes chunks no larger than the array (a shard of
it), so a chunk grid larger than its array is refused before anything is read.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any


def _grids(metadata: dict[str, Any]) -> Iterator[Any]:
    """Every chunk shape the metadata declares: zarr v2's `chunks`; zarr v3's chunk grid
    and the inner chunks of its sharding codecs, at any depth."""
    if "chunks" in metadata:
        yield metadata["chunks"]
    grid = metadata.get("chunk_grid")
    if isinstance(grid, dict) and isinstance(grid.get("configuration"), dict):
        yield grid["configuration"].get("chunk_shape")
    codecs = list(metadata.get("codecs") or ())
    while codecs:
        codec = codecs.pop()
        config = codec.get("configuration") if isinstance(codec, dict) else None
        if isinstance(config, dict):
            if "chunk_shape" in config:
                yield config["chunk_shape"]
            codecs.extend(config.get("codecs") or ())
            codecs.extend(config.get("index_codecs") or ())


def _dims(value: Any) -> bool:
    return isinstance(value, list) and all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value
    )


def check_chunks(raw: bytes, entry: str, where: str) -> None:
    """Raise ValueError naming `entry` unless the zarr metadata `raw` declares a shape and
    chunk shapes of that rank, none larger than the shape in any dimension.

    >>> from tfjs_grad.train._chunks import check_chunks
    >>> check_chunks(b'{"shape": [4], "chunks": [4]}', "w", "step 0")
    >>> check_chunks(b'{"shape": [4], "chunks": [134217728]}', "w", "step 0")
    Traceback (most recent call last):
    ValueError: restore_checkpoint: entry 'w' of step 0 declares chunks of shape [134217728] \
for an array of shape [4]: reading it would allocate a whole chunk
    """
    try:
        metadata = json.loads(raw)
    except (ValueError, RecursionError):
        raise ValueError(
            f"restore_checkpoint: the array metadata of entry '{entry}' of {where} is not JSON"
        ) from None
    shape: Any = metadata.get("shape") if isinstance(metadata, dict) else None
    grids = list(_grids(metadata)) if isinstance(metadata, dict) else []
    if shape is None or not _dims(shape) or not grids:
        raise ValueError(
            f"restore_checkpoint: the array metadata of entry '{entry}' of {where} declares "
            "no shape or no chunk shape"
        )
    for chunks in grids:
        if (
            not _dims(chunks)
            or len(chunks) != len(shape)
            or any(c > max(s, 1) for c, s in zip(chunks, shape))
        ):
            raise ValueError(
                f"restore_checkpoint: entry '{entry}' of {where} declares chunks of shape "
                f"{chunks} for an array of shape {shape}: reading it would allocate a whole "
                "chunk"
            )
