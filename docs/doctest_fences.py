"""griffe extension: the docstrings' doctest examples become ```pycon code blocks.

The docstrings write their examples as bare doctest (`>>> ...` lines and their output).
As Markdown, that is a paragraph, and output such as `[[0.0, 1.0472]]` reads as a link.
Fenced, it is highlighted Python console code, shown as written.
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """Wrap each run of lines that starts with `>>>` (up to a blank line) in a pycon fence."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        stripped = line.lstrip()
        if not inside and stripped.startswith(">>>"):
            out.append(line[: len(line) - len(stripped)] + "```pycon")
            inside = True
        elif inside and not stripped:
            out.append(out_fence(out))
            inside = False
        out.append(line)
    if inside:
        out.append(out_fence(out))
    return "\n".join(out)


def out_fence(lines: list[str]) -> str:
    """The closing fence, indented as the opening one."""
    opening = next(line for line in reversed(lines) if line.lstrip() == "```pycon")
    return opening[: len(opening) - len(opening.lstrip())] + "```"


class DoctestFences(griffe.Extension):
    """Fence the doctests of every documented object's docstring."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = fence_doctests(obj.docstring.value)
