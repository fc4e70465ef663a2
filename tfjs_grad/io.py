"""`tf.io`: TensorFlow.js weight files in and out of Variables.

tfjs's format: `model.json` holds a `weightsManifest`, a list of groups
`{"paths": [shard files], "weights": [{"name", "shape", "dtype", "quantization"?}]}`.
A group's shard files, concatenated, hold its weights' little-endian values one after
the other, with no padding: an entry may start at an odd offset and span two shards.
A weights-only file (the converter's `weights_manifest.json`) is the bare list.

Files are untrusted input: shard paths must name files in the model's own folder, each
at most once, and the shards must hold exactly the bytes the manifest declares before
anything is allocated from its shapes, and occupy them on disk (a sparse file's holes
are not data), so loading never allocates more than a small multiple of the bytes on
disk. Every refusal is a ValueError naming the entry and what
was wrong.

A save is crash-safe without leaving the folder: the new shards are written beside the
old ones under names of their own (tfjs's `groupG-shardKofN` plus a digest of the shard's
bytes), then model.json is replaced by one rename, the commit, and only then are the old
shards deleted. At every instant model.json names a complete save, the old or the new;
whatever an interrupted save left is deleted by the next one. A save holds an exclusive
`flock` on the folder and a load a shared one, so a load never sees shards vanish.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import re
import stat
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from ._filelock import locked as _locked
from .train._optimizer import is_optimizer_state
from .variables import Variable, as_var_list, registered_variables

MODEL_JSON = "model.json"
DEFAULT_SHARD_SIZE_BYTES = 4 * 1024 * 1024  # tfjs's converter default

# How each tfjs dtype is stored (little-endian) and which quantized forms decode to it.
_STORED = {
    "float32": np.dtype("<f4"),
    "int32": np.dtype("<i4"),
    "bool": np.dtype("u1"),
    "complex64": np.dtype("<c8"),
}
_QUANTIZED = {"uint8": np.dtype("u1"), "uint16": np.dtype("<u2"), "float16": np.dtype("<f2")}
_DEQUANTIZES_TO = {
    "uint8": ("float32", "int32"),
    "uint16": ("float32", "int32"),
    "float16": ("float32",),
}
_MAX_DIM = 2**31 - 1  # tfjs shapes are int32
_MAX_RANK = 64  # numpy's
# Bytes of holes a load may read (a sparse file's apparent size is not data on disk);
# filesystems that keep small files inline or compress may report a little less.
_HOLE_ALLOWANCE = 1 << 20
_SHARD = r"group\d+-shard\d+of\d+(?:-[0-9a-f]{16})?\.bin"  # tfjs's names, ours with a digest
_OUR_FILES = re.compile(rf"model\.json|{_SHARD}|\.(?:model\.json|{_SHARD})\.[0-9a-f]{{32}}\.tmp")


class _Entry(NamedTuple):
    """One checked manifest entry: where its bytes are and how to decode them."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    stored: np.dtype
    quantization: Mapping[str, Any] | None
    nbytes: int


# -- loading -------------------------------------------------------------------------


def load_weights(
    model_json_path: str | os.PathLike[str], var_list: Sequence[Variable] | None = None
) -> dict[str, jax.Array]:
    """Read tfjs weights: name -> array, decoded to each entry's dtype, in manifest order.

    `model_json_path` is a Layers or Graph model's `model.json`, or a weights-only
    manifest. Quantized entries (uint8/uint16 with min and scale, float16) decode exactly as
    `tf.io.decodeWeights` does. With `var_list`, each Variable is assigned the weight of its
    name; names, shapes and dtypes are all checked before any is assigned. Each shard file
    is read once: a manifest listing one twice (under any name or link), or whose shapes
    need other byte counts than the shards hold, raises ValueError before any is read.

    >>> import shutil, tempfile
    >>> import tfjs_grad as tf
    >>> from tfjs_grad import io as tfio
    >>> w = tf.variable(tf.tensor1d([1, 2, 3]), name="doc_load_w")
    >>> folder = tempfile.mkdtemp()
    >>> path = tfio.save_weights(folder + "/model", [w])
    >>> w.assign(tf.zeros([3]))
    >>> tfio.load_weights(path, [w])["doc_load_w"].tolist()
    [1.0, 2.0, 3.0]
    >>> w.tolist()
    [1.0, 2.0, 3.0]
    >>> w.dispose(); shutil.rmtree(folder)
    """
    targets = _variables(var_list, "load_weights")
    path = Path(model_json_path)
    with _locked(path.parent, exclusive=False):
        groups = [_parse_group(group, index, path) for index, group in enumerate(_manifest(path))]
        _check_unique([entry.name for _, entries in groups for entry in entries], str(path))
        shards = _locate_shards(path.parent, [paths for paths, _ in groups])
        for index, ((paths, entries), files) in enumerate(zip(groups, shards)):
            _check_size(sum(size for _, size in files), entries, index, paths)
        arrays: dict[str, jax.Array] = {}
        for index, ((_, entries), files) in enumerate(zip(groups, shards)):
            arrays.update(_decode_group(_read_group(files, index), entries))
    if targets is not None:
        _check_targets(targets, arrays, path)
    for v in targets or ():
        v.assign(arrays[v.name])
    return arrays


def _manifest(path: Path) -> list[Any]:
    try:
        document = json.loads(path.read_bytes().decode("utf-8"))
    except (ValueError, RecursionError) as error:  # ValueError: also bad UTF-8, huge ints
        raise ValueError(f"{path} is not a JSON file: {error}") from error
    manifest = document.get("weightsManifest") if isinstance(document, dict) else document
    if not isinstance(manifest, list):
        raise ValueError(
            f"{path} has no weights manifest: expected a 'weightsManifest' list of groups "
            "(or a bare list, as in weights_manifest.json)"
        )
    return manifest


def _parse_group(group: Any, index: int, path: Path) -> tuple[list[str], list[_Entry]]:
    if not (
        isinstance(group, dict)
        and isinstance(group.get("paths"), list)
        and isinstance(group.get("weights"), list)
    ):
        raise ValueError(
            f"{path}: weight group {index} must be an object with lists 'paths' and 'weights'"
        )
    paths = [_shard_name(p, index) for p in group["paths"]]
    return paths, [
        _parse_entry(spec, index, position) for position, spec in enumerate(group["weights"])
    ]


def _shard_name(path: Any, group: int) -> str:
    """The file name a manifest path denotes; only plain names (or "./name") are allowed."""
    parts = PurePosixPath(path).parts if isinstance(path, str) else ()
    if len(parts) != 1 or parts[0] in ("/", "..") or "\\" in path or "\0" in path:
        raise ValueError(
            f"weight group {group}: shard path {path!r} must be a plain file name inside the "
            "model's folder (no directories, '..' or absolute paths)"
        )
    return parts[0]


def _parse_entry(spec: Any, group: int, position: int) -> _Entry:
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        raise ValueError(f"weight group {group}: entry {position} has no string 'name'")
    name = spec["name"]
    shape = spec.get("shape")
    if not isinstance(shape, list) or not all(_is_dim(d) for d in shape):
        raise ValueError(
            f"weight '{name}': shape must be a list of integers in [0, {_MAX_DIM}], got {shape!r}"
        )
    if len(shape) > _MAX_RANK:
        raise ValueError(
            f"weight '{name}': shape has {len(shape)} dimensions; arrays have at most {_MAX_RANK}"
        )
    dtype = spec.get("dtype")
    if not isinstance(dtype, str) or dtype not in _STORED:
        extra = " (string weights have no JAX equivalent)" if dtype == "string" else ""
        raise ValueError(
            f"weight '{name}': unknown dtype {dtype!r}{extra}; expected one of {', '.join(_STORED)}"
        )
    if "quantization" in spec:
        quantization = spec["quantization"]
        stored = _quantized(name, dtype, quantization)
    else:
        quantization, stored = None, _STORED[dtype]
    return _Entry(
        name, tuple(shape), dtype, stored, quantization, math.prod(shape) * stored.itemsize
    )


def _is_dim(d: Any) -> bool:
    return isinstance(d, int) and not isinstance(d, bool) and 0 <= d <= _MAX_DIM


def _quantized(name: str, dtype: str, quantization: Any) -> np.dtype:
    """The stored dtype of a quantized entry, after checking its metadata as tfjs does."""
    kind = quantization.get("dtype") if isinstance(quantization, dict) else None
    if not isinstance(kind, str) or kind not in _QUANTIZED:
        raise ValueError(
            f"weight '{name}': unknown quantization {quantization!r}; expected dtype "
            "'uint8', 'uint16' or 'float16'"
        )
    if dtype not in _DEQUANTIZES_TO[kind]:
        raise ValueError(
            f"weight '{name}': {kind} quantization decodes to "
            f"{' or '.join(_DEQUANTIZES_TO[kind])}, not {dtype}"
        )
    if kind != "float16":
        for key in ("min", "scale"):
            value = quantization.get(key)
            if (
                isinstance(value, bool)
                or not isinstance(value, (int, float))
                or not math.isfinite(value)
            ):
                raise ValueError(
                    f"weight '{name}': {kind} quantization needs a finite number '{key}', "
                    f"got {value!r}"
                )
    return _QUANTIZED[kind]


def _check_unique(names: list[str], where: str) -> None:
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{where}: weight '{name}' appears twice")
        seen.add(name)


def _locate_shards(folder: Path, groups: list[list[str]]) -> list[list[tuple[Path, int]]]:
    """Each group's shard files (real path, size); a file listed twice, under any name or
    link, is refused: it would be read, and its bytes allocated, once per listing."""
    seen: dict[tuple[int, int], tuple[int, str]] = {}
    located, holes = [], 0
    for group, paths in enumerate(groups):
        files = []
        for name in paths:
            real, info = _shard_file(folder, name, group)
            on_disk = _bytes_on_disk(info)
            holes += max(0, info.st_size - on_disk)
            if holes > _HOLE_ALLOWANCE:
                raise ValueError(
                    f"weight group {group}: shard '{name}' holds {info.st_size} bytes but "
                    f"occupies {on_disk} on disk (a sparse file): a load reads no more bytes "
                    "than its shards occupy"
                )
            identity = (info.st_dev, info.st_ino)
            if identity in seen:
                first_group, first = seen[identity]
                again = "is listed twice" if first == name else f"is the same file as '{first}'"
                raise ValueError(
                    f"weight group {group}: shard '{name}' {again} (first in weight group "
                    f"{first_group}): a manifest may list each shard file once"
                )
            seen[identity] = (group, name)
            files.append((real, info.st_size))
        located.append(files)
    return located


def _bytes_on_disk(info: os.stat_result) -> int:
    """The bytes a file occupies (st_blocks counts 512-byte units); its size without them."""
    blocks = getattr(info, "st_blocks", None)
    return info.st_size if blocks is None else blocks * 512


def _read_group(files: list[tuple[Path, int]], group: int) -> bytearray:
    """A group's shards, read once each into one buffer of their checked total size."""
    data = bytearray(sum(size for _, size in files))
    view, offset = memoryview(data), 0
    for file, size in files:
        with open(file, "rb") as stream:
            if stream.readinto(view[offset : offset + size]) != size or stream.read(1):
                raise ValueError(f"weight group {group}: shard '{file.name}' changed while read")
        offset += size
    return data


def _shard_file(folder: Path, name: str, group: int) -> tuple[Path, os.stat_result]:
    """The real path and stat of a shard, refused if a link leads out of the folder."""
    home = Path(os.path.realpath(folder))
    real = Path(os.path.realpath(home / name))
    if real.parent != home:
        raise ValueError(
            f"weight group {group}: shard '{name}' resolves to {real}, outside the model's "
            f"folder {home}"
        )
    try:
        info = os.stat(real)
    except FileNotFoundError:
        raise ValueError(f"weight group {group}: shard '{name}' does not exist in {home}") from None
    except OSError as error:  # a link loop, ...
        raise ValueError(f"weight group {group}: shard '{name}': {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"weight group {group}: shard '{name}' is not a regular file")
    return real, info


def _check_size(available: int, entries: list[_Entry], group: int, paths: list[str]) -> None:
    where = f"weight group {group} ({', '.join(paths) or 'no shard files'})"
    offset = 0
    for entry in entries:
        if offset + entry.nbytes > available:
            raise ValueError(
                f"{where}: weight '{entry.name}' (shape {list(entry.shape)}, "
                f"{entry.stored.name} data) needs bytes {offset}..{offset + entry.nbytes} but "
                f"the shards hold {available} bytes: a shard is truncated or the manifest's "
                "shape is too large"
            )
        offset += entry.nbytes
    if available != offset:
        last = f"after weight '{entries[-1].name}'" if entries else "for a group with no weights"
        raise ValueError(
            f"{where}: the shards hold {available - offset} bytes more than the manifest "
            f"declares ({offset}) {last}: a shape or dtype does not match the data"
        )


def _decode_group(data: bytearray, entries: list[_Entry]) -> dict[str, jax.Array]:
    values, offset = {}, 0
    for entry in entries:
        count = entry.nbytes // entry.stored.itemsize
        raw = np.frombuffer(data, dtype=entry.stored, count=count, offset=offset)
        values[entry.name] = jnp.asarray(_decode(raw, entry).reshape(entry.shape))
        offset += entry.nbytes
    return values


def _decode(raw: np.ndarray, entry: _Entry) -> np.ndarray:
    """tfjs's `decodeWeight`: dequantize in float64 (JS numbers), then store as the dtype."""
    quantization = entry.quantization
    if quantization is None:
        return raw != 0 if entry.dtype == "bool" else raw.astype(entry.dtype, copy=False)
    if quantization["dtype"] == "float16":
        return raw.astype(np.float32)
    real = raw.astype(np.float64)
    real *= float(quantization["scale"])  # in place: one float64 buffer, same rounding
    real += float(quantization["min"])
    if entry.dtype == "int32":
        return _js_round_to_int32(real)
    with np.errstate(over="ignore"):
        return real.astype(np.float32)


def _js_round_to_int32(x: np.ndarray) -> np.ndarray:
    """`Int32Array.of(Math.round(x))`: halves round up, then wrap modulo 2**32."""
    with np.errstate(over="ignore", invalid="ignore"):
        whole = np.floor(x)
        whole = whole + (x - whole >= 0.5)  # exact: x - floor(x) is representable
        whole = np.where(np.isfinite(whole), whole, 0.0)
    return np.fmod(whole, 2.0**32).astype(np.int64).astype(np.int32)


def _check_targets(targets: list[Variable], values: dict[str, jax.Array], path: Path) -> None:
    for v in targets:
        if v.is_disposed:
            raise ValueError(f"Variable '{v.name}' is disposed.")
        if v.name not in values:
            names = ", ".join(list(values)[:10]) + (", ..." if len(values) > 10 else "")
            raise ValueError(f"Variable '{v.name}' has no weight in {path} (it has: {names})")
        value = values[v.name]
        if value.dtype != v.dtype or value.shape != v.shape:
            raise ValueError(
                f"weight '{v.name}' in {path} is {value.dtype.name} {list(value.shape)} but "
                f"Variable '{v.name}' is {np.dtype(v.dtype).name} {list(v.shape)}"
            )


# -- saving --------------------------------------------------------------------------


def save_weights(
    directory: str | os.PathLike[str],
    var_list: Sequence[Variable] | None = None,
    *,
    shard_size_bytes: int = DEFAULT_SHARD_SIZE_BYTES,
    model_topology: Mapping[str, Any] | None = None,
    names: Sequence[str] | None = None,
) -> Path:
    """Write Variables as tfjs weights: `directory/model.json` + `group1-shardKofM-<digest>.bin`.

    One weight group, named by the Variables' names, in `var_list` order (default: every
    live Variable but optimizers' state, `registered_variables()` order: the model's
    weights, as tfjs's `model.save` writes), split into shards of at most
    `shard_size_bytes`, each named with a digest of its bytes. With `model_topology` (the
    `modelTopology` of a tfjs Layers model's model.json), tfjs's `loadLayersModel` reads the
    result. `names` (one per Variable) are written in place of the Variables' names, as a
    Layers model saves its weights under their unsuffixed names. An existing `directory` is
    replaced only if it holds nothing but files that `save_weights` writes, and atomically:
    model.json is renamed into place last, so after a
    crash at any point the folder holds the previous save or this one; the next save deletes
    what an interrupted one left. Returns the path of model.json.

    >>> import json, shutil, tempfile
    >>> import tfjs_grad as tf
    >>> from tfjs_grad import io as tfio
    >>> w = tf.variable(tf.ones([3, 4]), name="doc_save_w")
    >>> folder = tempfile.mkdtemp()
    >>> path = tfio.save_weights(folder + "/model", [w], shard_size_bytes=32)
    >>> sorted(p.name for p in path.parent.iterdir())  # doctest: +NORMALIZE_WHITESPACE
    ['group1-shard1of2-4f05df05f8da9356.bin', 'group1-shard2of2-f6bb1294da2f78cd.bin',
     'model.json']
    >>> json.loads(path.read_text())["weightsManifest"][0]["weights"]
    [{'name': 'doc_save_w', 'shape': [3, 4], 'dtype': 'float32'}]
    >>> w.dispose(); shutil.rmtree(folder)
    """
    variables = _variables(var_list, "save_weights")
    if variables is None:
        live = registered_variables().values()
        variables = [v for v in live if not is_optimizer_state(v)]
    if isinstance(shard_size_bytes, bool) or not isinstance(shard_size_bytes, int):
        raise TypeError(
            f"Argument 'shard_size_bytes' must be an int, got {type(shard_size_bytes).__name__}"
        )
    if shard_size_bytes < 1:
        raise ValueError(f"Argument 'shard_size_bytes' must be positive, got {shard_size_bytes}")
    if model_topology is not None and not isinstance(model_topology, Mapping):
        raise TypeError("Argument 'model_topology' must be a dict (a model.json's modelTopology)")
    if model_topology is not None and "weightsManifest" in model_topology:
        raise ValueError(
            "Argument 'model_topology' is a whole model.json; pass its 'modelTopology' instead"
        )
    if names is not None and len(names) != len(variables):
        raise ValueError(
            f"Argument 'names' has {len(names)} entries but {len(variables)} Variables are saved"
        )
    written = [v.name for v in variables] if names is None else [str(n) for n in names]
    _check_unique(written, "Argument 'names'" if names is not None else "Argument 'var_list'")
    target = Path(directory).absolute()
    if os.path.lexists(target) and (target.is_symlink() or not target.is_dir()):
        raise ValueError(f"{target} exists and is not a directory")

    encoded = [_encode(v, name) for v, name in zip(variables, written)]
    data = memoryview(b"".join(chunk for _, chunk in encoded))
    count = max(1, math.ceil(len(data) / shard_size_bytes))
    chunks = [data[k * shard_size_bytes : (k + 1) * shard_size_bytes] for k in range(count)]
    shards = {_shard_file_name(k, count, chunk): chunk for k, chunk in enumerate(chunks, 1)}
    manifest = [{"paths": list(shards), "weights": [spec for spec, _ in encoded]}]
    document = json.dumps(
        _model_json(model_topology, manifest), allow_nan=False, separators=(",", ":")
    )

    created = _make_folder(target)
    try:
        with _locked(target, exclusive=True) as folder_fd:
            _check_replaceable(target)  # another saver's temporary files are gone by now
            _commit(target, folder_fd, shards, document.encode("utf-8"))
            _delete_ours(target, keep={MODEL_JSON, *shards})
    except BaseException:
        if created:
            with contextlib.suppress(OSError):
                target.rmdir()
        raise
    return target / MODEL_JSON


def _shard_file_name(k: int, count: int, chunk: memoryview) -> str:
    """tfjs's shard name plus the first 64 bits of the shard's SHA-256: a new shard never
    overwrites a different one the current model.json names, and an unchanged model saves
    to the same names."""
    return f"group1-shard{k}of{count}-{hashlib.sha256(chunk).hexdigest()[:16]}.bin"


def _encode(v: Variable, name: str) -> tuple[dict[str, Any], bytes]:
    if v.is_disposed:
        raise ValueError(f"Variable '{v.name}' is disposed.")
    dtype = np.dtype(v.dtype).name
    if dtype not in _STORED:
        raise ValueError(
            f"Variable '{v.name}' has dtype {dtype}, which tfjs weights cannot hold "
            f"({', '.join(_STORED)})"
        )
    data = np.ascontiguousarray(np.asarray(v.raw()), dtype=_STORED[dtype]).tobytes()
    return {"name": name, "shape": list(v.shape), "dtype": dtype}, data


def _model_json(topology: Mapping[str, Any] | None, manifest: list[Any]) -> dict[str, Any]:
    """model.json with tfjs's keys, in the order tfjs writes them."""
    document: dict[str, Any] = {}
    if topology is not None:
        document["modelTopology"] = dict(topology)
        if "node" in topology:
            document["format"] = "graph-model"
        elif "class_name" in topology or "model_config" in topology:
            document["format"] = "layers-model"
    document["generatedBy"] = "tfjs_grad"
    document["convertedBy"] = None
    document["weightsManifest"] = manifest
    return document


def _check_replaceable(target: Path) -> None:
    if not os.path.lexists(target):
        return
    if target.is_symlink() or not target.is_dir():
        raise ValueError(f"{target} exists and is not a directory")
    foreign = sorted(
        p.name
        for p in target.iterdir()
        if not (_OUR_FILES.fullmatch(p.name) and p.is_file() and not p.is_symlink())
    )
    if foreign:
        raise ValueError(
            f"refusing to replace {target}: it holds files save_weights does not write "
            f"({', '.join(foreign[:5])})"
        )


def _make_folder(target: Path) -> bool:
    """Create `target` (and its parents) unless it exists; True if this call created it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(target)
    except FileExistsError:
        return False
    fd = os.open(target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        os.fsync(fd)  # the new folder's name is on disk before the save inside it
    finally:
        os.close(fd)
    return True


def _commit(
    folder: Path, folder_fd: int | None, shards: dict[str, memoryview], document: bytes
) -> None:
    """Write the shards, then replace model.json: the one step that switches saves.

    If this fails before model.json is replaced, the shards it added are deleted again."""
    added = []
    try:
        for name, chunk in shards.items():
            if not os.path.lexists(folder / name):
                added.append(name)
            _write_and_rename(folder, name, chunk)
        _fsync(folder_fd)  # the shards' names are on disk before model.json names them
        _write_and_rename(folder, MODEL_JSON, document)
    except BaseException:
        if not _holds(folder / MODEL_JSON, document):  # an interrupt can follow the rename
            for name in added:
                with contextlib.suppress(OSError):
                    os.unlink(folder / name)
        raise
    _fsync(folder_fd)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.read_bytes() == data
    except OSError:
        return False


def _write_and_rename(folder: Path, name: str, data: bytes | memoryview) -> None:
    """Write `folder/name` whole or not at all: into a fresh file, synced, then renamed."""
    temporary = folder / f".{name}.{uuid.uuid4().hex}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, folder / name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _delete_ours(folder: Path, keep: set[str]) -> None:
    """Delete the previous save's shards and any interrupted save's files; a file that
    cannot be deleted now is deleted by a later save."""
    for entry in os.scandir(folder):
        if (
            entry.name not in keep
            and _OUR_FILES.fullmatch(entry.name)
            and entry.is_file(follow_symlinks=False)
        ):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)


def _fsync(fd: int | None) -> None:
    if fd is not None:
        os.fsync(fd)


# -- shared --------------------------------------------------------------------------


def _variables(var_list: Sequence[Variable] | None, fn: str) -> list[Variable] | None:
    if var_list is None:
        return None
    return as_var_list(var_list, fn)


loadWeights = load_weights
saveWeights = save_weights

__all__ = ["load_weights", "loadWeights", "save_weights", "saveWeights"]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
