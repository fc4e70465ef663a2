"""The package's modules keep to their own private attributes (issue #20).

A reach is `expr._name` where `expr` is not `self`/`cls` and no class in the same file
defines `_name` (as `self._name = ...`, a method, a class attribute or a slot): each is a
module depending on another module's internals. The store's interface (`_store`, the
module functions of `variables`, the optimizer's state functions) replaces them.
"""

from __future__ import annotations

import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "tfjs_grad"
LIMIT = 10


def _own_names(tree: ast.AST) -> set[str]:
    """Private names the classes of one file define."""
    own: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        for item in ast.walk(node):
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith(
                "_"
            ):
                own.add(item.name)
            if (
                isinstance(item, ast.Attribute)
                and isinstance(item.value, ast.Name)
                and item.value.id in ("self", "cls")
                and isinstance(item.ctx, ast.Store)
            ):
                own.add(item.attr)
            if isinstance(item, (ast.Assign, ast.AnnAssign)):
                targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                own.update(t.id for t in targets if isinstance(t, ast.Name))
        for item in node.body:
            if isinstance(item, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__slots__" for t in item.targets
            ):
                try:
                    own.update(ast.literal_eval(item.value))
                except ValueError:
                    pass
    return own


def private_reaches(root: pathlib.Path = PACKAGE) -> list[str]:
    """`file:line: expression` for every reach into another module's private attribute."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text())
        own = _own_names(tree)
        for node in ast.walk(tree):
            if not (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                continue
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            if node.attr not in own:
                found.append(f"{path.relative_to(root)}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_counter_sees_a_reach_and_not_a_classes_own_attribute(tmp_path):
    (tmp_path / "a.py").write_text(
        "class A:\n    def f(self):\n        self._x = 1\n\ndef g(v):\n    return v._x, v._y\n"
    )
    assert private_reaches(tmp_path) == ["a.py:6: v._y"]


def test_modules_reach_into_other_modules_private_attributes_at_most_ten_times():
    reaches = private_reaches()
    assert len(reaches) <= LIMIT, "\n".join(reaches)
