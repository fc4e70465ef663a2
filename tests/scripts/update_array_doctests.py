"""Rewrite docstring examples whose expected output is a jax.Array repr (`Array(...)`) to
what they print now (a `Tensor(..., shape=..., dtype=...)` repr), in place.

Ops return `tf.Tensor`s, so a doctest written against `Array([...], dtype=float32)` fails;
this updates such examples (and only those) from their actual output:

    PYTHONPATH=. .venv/bin/python tests/scripts/update_array_doctests.py tfjs_grad/ops/*.py

It prints each file it changed. Check the diff: it replaces text, not meaning.
"""

from __future__ import annotations

import doctest
import importlib
import sys
from pathlib import Path


def _module_name(path: Path) -> str:
    parts = list(path.with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _indent(text: str, indent: int) -> str:
    return "\n".join(" " * indent + line for line in text.splitlines())


def update(path: Path) -> bool:
    module = importlib.import_module(_module_name(path))
    finder = doctest.DocTestFinder()
    fixes: list[tuple[str, str]] = []

    class Recorder(doctest.DocTestRunner):
        def report_failure(self, out, test, example, got):  # noqa: ANN001
            if example.want.lstrip().startswith("Array("):
                fixes.append((example.want, got))

    runner = Recorder(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module):
        if test.filename and Path(test.filename).resolve() == path.resolve():
            runner.run(test, out=lambda _text: None)
    text = path.read_text()
    changed = False
    for want, got in fixes:
        for indent in range(0, 17):
            old = _indent(want, indent)
            if old and old in text:
                text = text.replace(old, _indent(got, indent), 1)
                changed = True
                break
    if changed:
        path.write_text(text)
    return changed


def main(paths: list[str]) -> None:
    for name in paths:
        if update(Path(name)):
            print(name)


if __name__ == "__main__":
    main(sys.argv[1:])
