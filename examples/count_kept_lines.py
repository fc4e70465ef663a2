"""Count the lines of each ported tfjs-examples program that the port keeps as written.

    python examples/count_kept_lines.py PATH_TO_TFJS_EXAMPLES [--show]

PATH_TO_TFJS_EXAMPLES is a clone of https://github.com/tensorflow/tfjs-examples (a bare one
will do); the originals are read at the commit below, so the counts are reproducible.

How lines are counted. Only the original's code lines count: blank lines, comments and lines
that are nothing but brackets and semicolons (`}`, `});`, ...), which Python has no use for,
are skipped. A code line is *kept* when some line of its port reads the same after these
spelling changes, which every JavaScript-to-Python port makes: surrounding whitespace, a
trailing `;` and a leading `const `/`let `/`var ` are dropped, `this.` is written `self.`, and
`null`/`true`/`false` are written `None`/`True`/`False`; a trailing `# comment` on the Python
line is ignored. Every other code line is *changed*, for the first of these reasons that
applies: left out (browser-only code, listed below), `dataSync()` (a numpy conversion), a
tensor method chain (`a.mul(b)` becomes `tf.mul(a, b)`), an arrow function, `Math.*` (Python's
`math` and `random`), or other (JavaScript syntax: `function`, `class`, `for`, `if`, imports,
object literals, typed arrays, `push`, ...; and the stand-ins for the Layers API).
"""

import argparse
import collections
import re
import subprocess
from pathlib import Path

COMMIT = "0521725666e4504948eed00fe372b92510cc74f9"
HERE = Path(__file__).parent
PORTS = {
    "polynomial-regression-core": {
        "data.js": "polynomial_regression_core/data.py",
        "index.js": "polynomial_regression_core/index.py",
    },
    "mnist-core": {
        "data.js": "mnist_core/data.py",
        "model.js": "mnist_core/model.py",
        "index.js": "mnist_core/index.py",
    },
    "cart-pole": {
        "cart_pole.js": "cart_pole/cart_pole.py",
        "index.js": "cart_pole/index.py",
    },
    "boston-housing": {
        "data.js": "boston_housing/data.py",
        "normalization.js": "boston_housing/normalization.py",
        "index.js": "boston_housing/index.py",
    },
    "snake-dqn": {
        "utils.js": "snake_dqn/utils.py",
        "snake_game.js": "snake_dqn/snake_game.py",
        "replay_memory.js": "snake_dqn/replay_memory.py",
        "dqn.js": "snake_dqn/dqn.py",
        "agent.js": "snake_dqn/agent.py",
        "train.js": "snake_dqn/train.py",
    },
}
# Code the ports leave out by design, as (first line, last line, why) at COMMIT.
LEFT_OUT = {
    "mnist-core/data.js": [(48, 89, "downloading and decoding the PNG sprite in a canvas")],
    "cart-pole/index.js": [
        (248, 322, "SaveablePolicyNetwork: browser IndexedDB storage"),
        (418, 418, "setUpUI(): the page's controls"),
    ],
    "boston-housing/data.js": [(18, 66, "downloading and parsing the CSV files (synthetic rows)")],
    "boston-housing/index.js": [
        (19, 19, "tfjs-vis import"),
        (137, 137, "the page's chart element"),
        (149, 149, "tfjs-vis chart of the history"),
    ],
    "snake-dqn/train.js": [
        (22, 25, "tf set to tfjs-node or tfjs-node-gpu by --gpu"),
        (70, 73, "tf.node.summaryFileWriter: tfjs-node's TensorBoard logs"),
        (109, 116, "tf.node.summaryFileWriter: tfjs-node's TensorBoard logs"),
        (144, 148, "the --gpu option (tfjs-node-gpu)"),
        (229, 233, "the --logDir option (TensorBoard logs)"),
        (239, 243, "require('@tensorflow/tfjs-node') or tfjs-node-gpu"),
    ],
}
_REASONS = [
    ("dataSync()", re.compile(r"\.dataSync\(")),
    ("method chain", re.compile(
        r"(^|[\w)\]])\.(add|sub|mul|div|square|pow|min|max|mean|sum|relu|conv2d|maxPool|matMul|"
        r"argMax|as2D|as4D|asScalar|reshape|dispose)\(")),
    ("arrow function", re.compile(r"=>")),
    ("Math.*", re.compile(r"\bMath\.")),
]
_BRACKETS = re.compile(r"[\s{}()\[\];,]*")
_JS_WORDS = {"null": "None", "true": "True", "false": "False"}


def code_lines(js: str) -> list[tuple[int, str]]:
    """(line number, text) of the JavaScript code lines, comments removed."""
    lines, in_block = [], False
    for number, line in enumerate(js.splitlines(), 1):
        text = line.strip()
        if in_block:
            in_block = "*/" not in text
            continue
        if text.startswith("/*"):
            in_block = "*/" not in text
            continue
        text = re.sub(r"(^|\s)//.*$", "", text).strip()
        if not _BRACKETS.fullmatch(text):
            lines.append((number, text))
    return lines


def as_python(js_line: str) -> str:
    """A JavaScript line with the spelling changes every port makes."""
    text = re.sub(r"^(const|let|var)\s+", "", js_line.rstrip(";").strip())
    text = text.replace("this.", "self.")
    return re.sub(r"\b(null|true|false)\b", lambda m: _JS_WORDS[m.group()], text)


def python_lines(py: str) -> set[str]:
    return {re.sub(r"\s+#.*$", "", line).strip() for line in py.splitlines()}


def why_changed(name: str, number: int, line: str) -> str:
    if any(first <= number <= last for first, last, _ in LEFT_OUT.get(name, ())):
        return "left out"
    return next((reason for reason, pattern in _REASONS if pattern.search(line)), "other")


def count(repo: str, show: bool) -> None:
    print(f"tfjs-examples at {COMMIT[:10]}: code lines kept as written, and why the others changed")
    for example, files in PORTS.items():
        kept, changed = 0, collections.Counter()
        for js_name, py_name in files.items():
            name = f"{example}/{js_name}"
            js = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{name}"],
                                check=True, capture_output=True, text=True).stdout
            port = python_lines((HERE / py_name).read_text())
            for number, line in code_lines(js):
                if as_python(line) in port:
                    kept += 1
                    continue
                reason = why_changed(name, number, line)
                changed[reason] += 1
                if show:
                    print(f"  {name}:{number} ({reason}): {line}")
        total = kept + changed.total()
        reasons = ", ".join(f"{reason} {n}" for reason, n in changed.most_common())
        print(f"{example}: {kept} of {total} kept ({kept / total:.0%}); "
              f"{changed.total()} changed: {reasons}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a clone of tensorflow/tfjs-examples")
    parser.add_argument("--show", action="store_true", help="print each changed line")
    arguments = parser.parse_args()
    count(arguments.repo, arguments.show)
