"""mkdocs hook: the porting tables (generated/*.md), written when the site is built.

Which tfjs ops exist comes from the repository's tfjs 4.22 records: the op groups of
tests/reference/ops.json and the op tables of tests/reference/OPS2.md. Which layers were
checked against tfjs comes from tests/reference/layers.json. Every other row comes from the
live package: its public names (`__all__`) and the first line of each docstring.
"""

from __future__ import annotations

import inspect
import json
import re
import types
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

import tfjs_grad as tf

if TYPE_CHECKING:
    from mkdocs.config.defaults import MkDocsConfig
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "tests" / "reference"
NAMESPACES = (
    "train",
    "losses",
    "metrics",
    "data",
    "callbacks",
    "node",
    "models",
    "io",
    "browser",
    "serialization",
    "initializers",
    "constraints",
    "regularizers",
    "util",
)
NOT_PORTED = "**not in tfjs_grad**"
INDEX = """# Porting from tfjs

Generated when the site is built: which tfjs 4.22 name is which tfjs_grad name, with the
first line of its docstring.

- [Ops](ops.md): every tfjs-core op the repository's tfjs 4.22 fixtures record, by group.
- [Layers](layers.md): every `tf.layers` factory, and whether a tfjs fixture checks it.
- [Other namespaces](namespaces.md): `tf.*` functions that are not ops, `tf.train`,
  `tf.losses`, `tf.data`, `tf.callbacks` and the rest.
"""


def summary(obj: object) -> str:
    """The first line of obj's docstring, fit for a table cell."""
    doc = inspect.getdoc(obj) or ""
    return doc.split("\n\n", 1)[0].replace("\n", " ").replace("|", "\\|")


def lookup(dotted: str) -> object | None:
    """tf.<dotted>, or None where the package has no such name."""
    obj: object = tf
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def aliases(module: types.ModuleType, names: Iterable[str]) -> dict[int, list[str]]:
    """The names in module that are one object, keyed by the object's id, in first-seen order."""
    grouped: dict[int, list[str]] = {}
    for name in names:
        grouped.setdefault(id(getattr(module, name)), []).append(name)
    return grouped


def table(header: str, rows: Iterable[tuple[str, ...]]) -> str:
    columns = header.count("|") - 1
    lines = [header, "|" + "---|" * columns]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def op_groups() -> dict[str, list[str]]:
    """tfjs op names by group: ops.json's groups, then OPS2.md's op-table headings."""
    groups: dict[str, list[str]] = {}
    for op in json.loads((REFERENCE / "ops.json").read_text())["ops"]:
        groups.setdefault(op["group"].capitalize(), []).append(op["name"])
    tables = (REFERENCE / "OPS2.md").read_text().split("## Op tables", 1)[1]
    heading = ""
    for line in tables.splitlines():
        if line.startswith("### "):
            heading = line[4:].strip()
        row = re.match(r"\| `([\w.]+)`", line)
        if row and heading:
            groups.setdefault(heading, []).append(row.group(1))
    return groups


def ops_page() -> str:
    parts = ["# Ops: tfjs 4.22 and tfjs_grad", ""]
    for group, names in op_groups().items():
        rows = []
        for name in names:
            obj = lookup(name)
            parent, _, leaf = name.rpartition(".")
            holder = lookup(parent) if parent else tf
            same = [n for n in dir(holder) if getattr(holder, n, None) is obj and n != leaf]
            port = ", ".join(f"`tf.{(parent + '.') if parent else ''}{n}`" for n in [leaf, *same])
            rows.append((f"`tf.{name}`", port if obj is not None else NOT_PORTED, summary(obj)))
        parts += [f"## {group}", "", table("| tfjs | tfjs_grad | summary |", rows), ""]
    return "\n".join(parts)


def layers_page() -> str:
    checked = {
        case["factory"]
        for case in json.loads((REFERENCE / "layers.json").read_text())["layers"].values()
    }
    rows, sections = [], []
    for names in aliases(tf.layers, tf.layers.__all__).values():
        obj = getattr(tf.layers, names[0])
        if isinstance(obj, type) or not callable(obj):
            continue
        fixture = "yes" if checked & set(names) else ""
        cell = ", ".join(f"`tf.layers.{n}`" for n in names)
        rows.append((cell, fixture, summary(obj)))
        sections += [f"### tf.layers.{names[0]}", "", inspect.getdoc(obj) or "", ""]
    header = "| tfjs_grad (tfjs's name first) | tfjs fixture | summary |"
    intro = "Every factory, then each one's config keys and their defaults."
    return "\n".join(
        ["# Layers", "", intro, "", table(header, rows), "", "## Configs", "", *sections]
    )


def namespace_rows(label: str, module: types.ModuleType, names: Iterable[str]) -> str:
    rows = []
    for group in aliases(module, names).values():
        obj = getattr(module, group[0])
        if isinstance(obj, types.ModuleType):
            continue
        cell = ", ".join(f"`{label}.{n}`" for n in group)
        rows.append((cell, summary(obj)))
    return table("| tfjs_grad | summary |", rows)


def namespaces_page() -> str:
    top = [n for n in tf.__all__ if n not in tf.ops.__all__]
    parts = ["# Other namespaces", "", "## tf (not ops)", "", namespace_rows("tf", tf, top), ""]
    for name in NAMESPACES:
        module = getattr(tf, name)
        parts += [f"## tf.{name}", "", namespace_rows(f"tf.{name}", module, module.__all__), ""]
    return "\n".join(parts + tensor_methods())


def tensor_methods() -> list[str]:
    """The methods and properties of `tf.Tensor`, most attached from the ops at import time."""
    members = [n for n in dir(tf.Tensor) if not n.startswith("_")]
    grouped: dict[int, list[str]] = {}
    for name in members:
        grouped.setdefault(id(inspect.getattr_static(tf.Tensor, name)), []).append(name)
    rows = []
    for names in grouped.values():
        names.sort(key=lambda n: ("_" in n, n))  # tfjs's camelCase name first
        obj = inspect.getattr_static(tf.Tensor, names[0])
        cell = ", ".join(f"`x.{n}`" for n in names)
        rows.append((cell, summary(getattr(obj, "__func__", obj))))
    return ["## tf.Tensor methods", "", table("| tfjs_grad | summary |", rows), ""]


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages to the site (they are never written into docs/)."""
    from mkdocs.structure.files import (
        File,
    )  # imported here: the tests read this file without mkdocs

    pages = {
        "generated/index.md": INDEX,
        "generated/ops.md": ops_page(),
        "generated/layers.md": layers_page(),
        "generated/namespaces.md": namespaces_page(),
    }
    for path, content in pages.items():
        files.append(File.generated(config, path, content=content))
    return files
