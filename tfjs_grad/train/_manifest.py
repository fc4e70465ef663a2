"""A checkpoint's manifest: the JSON that says which stored array belongs to what.

    {"format": "tfjs_grad.checkpoint", "version": 1,
     "entries": {"v0": {"name": "w", "shape": [2, 3], "dtype": "float32"}, ...},
     "variables": {"w": "v0", ...},
     "optimizers": [{"class_name": "Adam", "names": ["w"],
                     "weights": {"iter": "o0_0", "w/m": "o0_1", ...}}, ...]}

`parse` checks all of it in one pass against that schema before anything else reads it:
a file on disk is input, and a malformed or ambiguous one is a ValueError that names the
entry, never a KeyError from deep inside a restore. Every entry is used exactly once,
under the name that uses it.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

import jax.numpy as jnp
import numpy as np

FORMAT = "tfjs_grad.checkpoint"
VERSION = 1
_KEY = re.compile(r"^(v|o[0-9]+_)[0-9]+$")  # the array names save_checkpoint writes


class Entry(NamedTuple):
    key: str  # the array's name in the array store
    name: str  # what it holds: a Variable's name, or 'optimizers[j]/<label>'
    shape: tuple[int, ...]
    dtype: np.dtype


class SavedOptimizer(NamedTuple):
    class_name: str
    names: tuple[str, ...]  # the Variables it tracked, in order
    weights: dict[str, str]  # state label -> entry key


class Manifest(NamedTuple):
    entries: dict[str, Entry]
    variables: dict[str, str]  # Variable name -> entry key
    optimizers: list[SavedOptimizer]


def dtype_name(dtype: Any) -> str:
    return np.dtype(dtype).name


def build(
    entries: dict[str, Entry], variables: dict[str, str], optimizers: list[SavedOptimizer]
) -> dict[str, Any]:
    """The JSON document for these entries."""
    return {
        "format": FORMAT,
        "version": VERSION,
        "entries": {
            e.key: {"name": e.name, "shape": list(e.shape), "dtype": dtype_name(e.dtype)}
            for e in entries.values()
        },
        "variables": dict(variables),
        "optimizers": [
            {"class_name": o.class_name, "names": list(o.names), "weights": dict(o.weights)}
            for o in optimizers
        ],
    }


class _Malformed(Exception):
    pass


def parse(document: Any, where: str) -> Manifest:
    """The manifest in `document`, or ValueError saying which entry is wrong and how."""
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise ValueError(f"restore_checkpoint: checkpoint {where} was not written by tfjs_grad")
    if document.get("version") != VERSION:
        raise ValueError(
            f"restore_checkpoint: checkpoint {where} has format version "
            f"{document.get('version')!r}; this tfjs_grad reads version {VERSION}"
        )
    try:
        return _parse(document)
    except _Malformed as e:
        raise ValueError(
            f"restore_checkpoint: the manifest of checkpoint {where} is malformed: {e}"
        ) from None


def _parse(document: dict[str, Any]) -> Manifest:
    _keys(document, {"format", "version", "entries", "variables", "optimizers"}, "the manifest")
    raw_entries = _typed(document["entries"], dict, "'entries'")
    entries = {key: _entry(key, raw) for key, raw in raw_entries.items()}
    users: dict[str, str] = {}

    def use(key: Any, name: str, what: str) -> str:
        if not isinstance(key, str) or key not in entries:
            raise _Malformed(f"{what} refers to {key!r}, which is not an entry")
        if key in users:
            raise _Malformed(f"entry {key!r} is used twice: by {users[key]} and by {what}")
        if entries[key].name != name:
            raise _Malformed(f"entry {key!r} is named {entries[key].name!r}, but {what} uses it")
        users[key] = what
        return key

    variables = {}
    for name, key in _typed(document["variables"], dict, "'variables'").items():
        variables[name] = use(key, name, f"Variable {name!r}")

    optimizers = []
    for j, raw in enumerate(_typed(document["optimizers"], list, "'optimizers'")):
        what = f"optimizers[{j}]"
        _keys(_typed(raw, dict, what), {"class_name", "names", "weights"}, what)
        class_name = _typed(raw["class_name"], str, f"{what}.class_name")
        names = _typed(raw["names"], list, f"{what}.names")
        if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
            raise _Malformed(f"{what}.names must be distinct strings, got {names!r}")
        weights = {
            label: use(key, f"{what}/{label}", f"{what} weight {label!r}")
            for label, key in _typed(raw["weights"], dict, f"{what}.weights").items()
        }
        optimizers.append(SavedOptimizer(class_name, tuple(names), weights))

    unused = [key for key in entries if key not in users]
    if unused:
        raise _Malformed(f"entry {unused[0]!r} ({entries[unused[0]].name!r}) is not used")
    return Manifest(entries, variables, optimizers)


def _entry(key: Any, raw: Any) -> Entry:
    if not isinstance(key, str) or not _KEY.match(key):
        raise _Malformed(f"entry key {key!r} is not one save_checkpoint writes")
    what = f"entry {key!r}"
    _keys(_typed(raw, dict, what), {"name", "shape", "dtype"}, what)
    name = _typed(raw["name"], str, f"{what}: 'name'")
    what = f"entry {key!r} ({name!r})"
    shape = raw["shape"]
    if not isinstance(shape, list) or not all(
        isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape
    ):
        raise _Malformed(f"{what}: 'shape' must be a list of non-negative integers, got {shape!r}")
    return Entry(key, name, tuple(shape), _dtype(raw["dtype"], what))


def _dtype(raw: Any, what: str) -> np.dtype:
    try:
        dtype = np.dtype(jnp.dtype(raw)) if isinstance(raw, str) else None
    except (TypeError, ValueError):
        dtype = None
    numeric = dtype is not None and (dtype == np.bool_ or jnp.issubdtype(dtype, jnp.number))
    if dtype is None or not numeric or dtype_name(dtype) != raw:
        raise _Malformed(f"{what}: 'dtype' must name an array dtype, got {raw!r}")
    return dtype


def _typed(value: Any, kind: type, what: str) -> Any:
    if not isinstance(value, kind):
        raise _Malformed(f"{what} must be a {kind.__name__}, got {type(value).__name__}")
    return value


def _keys(value: dict[str, Any], expected: set[str], what: str) -> None:
    if set(value) != expected:
        missing, extra = sorted(expected - set(value)), sorted(set(value) - expected)
        detail = f"lacks {missing}" if missing else f"has unexpected {extra}"
        raise _Malformed(f"{what} {detail}")
