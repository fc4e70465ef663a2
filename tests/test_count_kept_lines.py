"""examples/count_kept_lines.py: its rules on small made-up programs, and (given a clone of
tfjs-examples in $TFJS_EXAMPLES) the tables that quote its counts against the counts it computes."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from examples import count_kept_lines as counter

ROOT = Path(__file__).parent.parent

JS = """\
// a comment
function fit(x, w, b) {
  const y = x.matMul(w)
      .add(b)
      .relu();
  const loss = y.square().mean();
  loss.dispose();
  const total = tf.add(tf.mul(x, w), b);
  const first = y.dataSync()[0];
  const rows = y.as2D(-1, 4);
  tf.tidy(() => y.sum());
  return {y, first: Math.abs(first)};
}
"""

PY = """\
def fit(x, w, b):
    y = (x.matMul(w)
         .add(b)
         .relu())
    loss = y.square().mean()  # as tfjs
    loss.dispose()
    total = tf.add(tf.mul(x, w), b)
    first = y.dataSync()[0]
    rows = tf.reshape(y, [-1, 4])
    tf.tidy(lambda: y.sum())
    return SimpleNamespace(y=y, first=abs(first))
"""


def test_tensor_methods_and_multi_line_chains_are_kept_line_for_line():
    result = {line: reason for _, line, reason in counter.compare("x/fit.js", JS, PY)}
    assert result == {
        "function fit(x, w, b) {": "other",
        "const y = x.matMul(w)": None,  # Python's `(` that opens the chain is not counted
        ".add(b)": None,
        ".relu();": None,  # nor the `)` that closes it
        "const loss = y.square().mean();": None,
        "loss.dispose();": None,
        "const total = tf.add(tf.mul(x, w), b);": None,
        "const first = y.dataSync()[0];": None,
        "const rows = y.as2D(-1, 4);": "other",  # the port did not keep this chain
        "tf.tidy(() => y.sum());": "arrow function",
        "return {y, first: Math.abs(first)};": "Math.*",
    }


def test_unwrapped_drops_only_the_parenthesis_python_adds():
    assert counter.unwrapped("ys = (a.mul(xs)") == "ys = a.mul(xs)"
    assert (
        counter.unwrapped("return (layer.conv2d(w, 1, 'same')")
        == "return layer.conv2d(w, 1, 'same')"
    )
    assert counter.unwrapped(".maxPool([2, 2], strides, pad))") == ".maxPool([2, 2], strides, pad)"
    assert counter.unwrapped("w = tf.variable(") == "w = tf.variable("  # JS has that `(` too
    assert counter.unwrapped("y = a.mul(b)") == "y = a.mul(b)"


def test_reasons_for_changed_lines():
    why = lambda line: counter.why_changed("x/y.js", 1, line)  # noqa: E731
    assert why("const f = () => x;") == "arrow function"
    assert why("const r = Math.random();") == "Math.*"
    assert why("console.log(`loss: ${loss.dataSync()}`);") == "template literal"
    assert why("model.add(tf.layers.dense({units: 1}));") == "object literal"
    assert why("units: 50,") == "object literal"
    assert why("import {generateData} from './data';") == "other"
    assert counter.why_changed("cart-pole/index.js", 300, "x") == "left out"


def _clone() -> str:
    repo = os.environ.get("TFJS_EXAMPLES")
    if not repo:
        pytest.skip("set TFJS_EXAMPLES to a clone of tensorflow/tfjs-examples")
    found = subprocess.run(
        ["git", "-C", repo, "cat-file", "-e", f"{counter.COMMIT}^{{commit}}"], capture_output=True
    )
    if found.returncode:
        pytest.skip(f"$TFJS_EXAMPLES has no commit {counter.COMMIT[:10]}")
    return repo


def _rows(markdown: str, header: str) -> dict[str, list[str]]:
    """First cell (a link's text) -> the other cells, for each row of the table whose header
    row contains `header`."""
    rows, inside = {}, False
    for line in markdown.splitlines():
        if not line.startswith("|"):
            inside = False
        elif header in line and not inside:
            inside = True
        elif inside and not line.startswith("|---"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            rows[re.sub(r"\[([^]]+)\]\([^)]*\)", r"\1", cells[0])] = cells[1:]
    return rows


_COLUMNS = ["arrow function", "Math.*", "template literal", "object literal", "left out", "other"]


def test_tables_quote_the_computed_counts():
    computed = counter.counts(_clone())
    notebook = json.loads((ROOT / "notebooks" / "04_porting_from_tfjs.ipynb").read_text())
    cells = "\n".join(
        "".join(c["source"]) for c in notebook["cells"] if c["cell_type"] == "markdown"
    )
    breakdowns = {"examples/README.md": (ROOT / "examples" / "README.md").read_text(),
                  "notebook 04": cells}  # fmt: skip
    for where, text in breakdowns.items():
        rows = _rows(text, "| code lines | kept as written |")
        for example, (kept, total, changed) in computed.items():
            expected = [str(total), f"{kept} ({kept / total:.0%})",
                        *(str(changed[c]) for c in _COLUMNS)]  # fmt: skip
            assert rows[example] == expected, f"{where}: {example}"
    root = _rows((ROOT / "README.md").read_text(), "kept as written / code lines")
    for example, (kept, total, _) in computed.items():
        assert f"{kept} / {total}" in root[example], f"README.md: {example}"
