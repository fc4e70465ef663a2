"""The reference site (mkdocs.yml, docs/) covers the whole public surface (issue #37).

Read without mkdocs: the `::: tfjs_grad.<path>` directives of docs/**/*.md are resolved by
import, and every public namespace of `tf`, and every public name of `tf.__all__`, must be
one of them or a public member (`__all__`) of one, so a new namespace or function cannot go
undocumented. The porting tables' hook (docs/porting_tables.py) is run here too: every tfjs
op that the repository's fixtures record must have its tfjs_grad name.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import types
from pathlib import Path

import pytest

import tfjs_grad as tf

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def _directives() -> dict[str, str]:
    """`{dotted path: page}` for every `::: path` directive of the docs pages."""
    found = {}
    for page in sorted(DOCS.rglob("*.md")):
        for target in re.findall(r"^::: *([\w.]+)\s*$", page.read_text(), re.MULTILINE):
            found[target] = str(page.relative_to(DOCS))
    return found


def _resolve(dotted: str) -> object:
    """The object a directive documents: a module, or an attribute of its parent module."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        parent, _, name = dotted.rpartition(".")
        return getattr(importlib.import_module(parent), name)


def _documented() -> list[object]:
    """Every documented object: each directive's target, and the public members of a module."""
    objects: list[object] = []
    for target in _directives():
        obj = _resolve(target)
        objects.append(obj)
        if isinstance(obj, types.ModuleType):
            objects += [getattr(obj, n) for n in _public_members(obj)]
    return objects


def _public_members(module: types.ModuleType) -> list[str]:
    """What the site shows of a module: its `__all__`, else the public names it defines."""
    if hasattr(module, "__all__"):
        return list(module.__all__)
    return [
        name
        for name, obj in vars(module).items()
        if not name.startswith("_") and getattr(obj, "__module__", None) == module.__name__
    ]


def _public_namespaces() -> dict[str, types.ModuleType]:
    return {
        name: module
        for name in dir(tf)
        if not name.startswith("_") and isinstance(module := getattr(tf, name), types.ModuleType)
    }


def _hook() -> types.ModuleType:
    spec = importlib.util.spec_from_file_location("porting_tables", DOCS / "porting_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_directive_names_an_importable_object():
    assert _directives(), "no ::: directives found under docs/"
    for target, page in _directives().items():
        assert _resolve(target) is not None, f"{page}: ::: {target}"


def test_every_public_namespace_has_a_reference_page():
    documented = {id(obj) for obj in _documented()}
    missing = [f"tf.{n}" for n, m in _public_namespaces().items() if id(m) not in documented]
    assert not missing, f"no docs/ page has a ::: directive for {missing}"


def test_every_public_name_of_tf_is_documented():
    documented = {id(obj) for obj in _documented()}
    missing = [n for n in tf.__all__ if id(getattr(tf, n)) not in documented]
    assert not missing, f"tf.{missing} are in no documented module's __all__"


def test_every_reference_page_is_in_the_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    pages = [str(p.relative_to(DOCS)) for p in sorted(DOCS.rglob("*.md"))]
    assert [p for p in pages if p not in nav] == []


def test_the_porting_tables_name_every_recorded_tfjs_op():
    hook = _hook()
    groups = hook.op_groups()
    assert len([n for names in groups.values() for n in names]) > 200
    missing = [n for names in groups.values() for n in names if hook.lookup(n) is None]
    assert missing == []
    assert hook.NOT_PORTED not in hook.ops_page()
    assert "| `tf.matMul` | `tf.matMul`, `tf.mat_mul` |" in hook.ops_page()


@pytest.mark.parametrize("page", ["layers_page", "namespaces_page"])
def test_the_porting_tables_list_every_public_function(page):
    text = getattr(_hook(), page)()
    if page == "layers_page":
        assert "### tf.layers.dense" in text and "units: required" in text
        names = [n for n in tf.layers.__all__ if not isinstance(getattr(tf.layers, n), type)]
        prefix = "tf.layers."
    else:
        assert "| `x.matMul`, `x.mat_mul` |" in text  # Tensor methods, attached at import time
        names = tf.train.__all__
        prefix = "tf.train."
    assert [n for n in names if f"`{prefix}{n}`" not in text] == []


def test_doctest_examples_become_pycon_blocks(monkeypatch):
    # the griffe extension, read without griffe: its one function is plain text in, text out
    monkeypatch.setitem(sys.modules, "griffe", types.SimpleNamespace(Extension=object))
    spec = importlib.util.spec_from_file_location("doctest_fences", DOCS / "doctest_fences.py")
    assert spec is not None and spec.loader is not None
    fences = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fences)
    doc = "Sum, like `tf.sum`.\n\n>>> tf.sum([1, 2])\n[[3.0]]\n\nArgs:\n  x: values.\n"
    doc += "  >>> x = 1\n"
    assert fences.fence_doctests(doc) == (
        "Sum, like `tf.sum`.\n\n```pycon\n>>> tf.sum([1, 2])\n[[3.0]]\n```\n\n"
        "Args:\n  x: values.\n  ```pycon\n  >>> x = 1\n  ```"
    )
