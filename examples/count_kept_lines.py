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
line is ignored, and so are the parentheses Python needs around an expression that spans
lines (the `(` after `name = ` or `return ` that opens it, the `)` at the end of its last
line), so a chain written over several lines (`return xs.conv2d(w, 1, 'same')`, `.relu()`)
is kept line for line. Tensor methods are tfjs's (`a.mul(b).add(c)`, `x.dataSync()[0]`,
`x.dispose()`, `x.as4D(-1, 28, 28, 1)`), so a port that calls them as tfjs does keeps those
lines. Every other code line is *changed*, for the first of these reasons that applies:
left out (browser-only code, listed below), an arrow function, `Math.*` (Python's `math` and
`random`), a template literal (an f-string), an object literal (a dict with quoted keys,
`SimpleNamespace(key=value)` or keyword arguments; `import {...}` lines excepted), or other
(JavaScript syntax: `function`, `class`, `for`, `if`, imports, typed arrays, `push`,
`Array.from`, `tensors.x` for the dict `tensors['x']`, an expression split over lines
differently, ...).
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
    "custom-layer": {
        "custom_layer.js": "custom_layer/custom_layer.py",
        "index.js": "custom_layer/index.py",
    },
    "fashion-mnist-vae": {
        "data.js": "fashion_mnist_vae/data.py",
        "model.js": "fashion_mnist_vae/model.py",
        "train.js": "fashion_mnist_vae/train.py",
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
    "fashion-mnist-vae/data.js": [
        (19, 25, "modules for reading the dataset file and the terminal previews"),
        (45, 92, "reading the Fashion-MNIST file (synthetic images)"),
        (128, 166, "jimp and terminal-image previews (printed as characters)"),
    ],
    "fashion-mnist-vae/train.js": [
        (23, 25, "tf set to tfjs-node or tfjs-node-gpu by --gpu"),
        (155, 158, "the --gpu option (tfjs-node-gpu)"),
        (186, 192, "require('@tensorflow/tfjs-node') or tfjs-node-gpu"),
    ],
}
_REASONS = [
    ("arrow function", re.compile(r"=>")),
    ("Math.*", re.compile(r"\bMath\.")),
    ("template literal", re.compile(r"`")),
    ("object literal", re.compile(r"^(?!import\b)(\w+:\s|.*\{\s*\w+\s*[:,}])")),
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


def unwrapped(line: str) -> str:
    """A Python line without the parenthesis that wraps a multi-line expression: the `(`
    that opens it after `name = ` or `return `, or the `)` that closes it at its end."""
    depth = line.count("(") - line.count(")")
    if depth > 0:
        return re.sub(r"^((?:return|[\w.\[\]', ]+ =)\s*)\(", r"\1", line).strip()
    if depth < 0 and line.endswith(")"):
        return line[:-1]
    return line


def python_lines(py: str) -> set[str]:
    lines = {re.sub(r"\s+#.*$", "", line).strip() for line in py.splitlines()}
    return lines | {unwrapped(line) for line in lines}


def why_changed(name: str, number: int, line: str) -> str:
    if any(first <= number <= last for first, last, _ in LEFT_OUT.get(name, ())):
        return "left out"
    return next((reason for reason, pattern in _REASONS if pattern.search(line)), "other")


def compare(name: str, js: str, py: str) -> list[tuple[int, str, str | None]]:
    """(line number, text, why it changed or None when kept) of each code line of the
    original `name` (e.g. "cart-pole/index.js") against the Python source of its port."""
    port = python_lines(py)
    return [(number, line, None if as_python(line) in port else why_changed(name, number, line))
            for number, line in code_lines(js)]


def counts(repo: str) -> dict[str, tuple[int, int, collections.Counter]]:
    """example -> (lines kept, code lines, Counter of the reasons the others changed)."""
    result = {}
    for example, files in PORTS.items():
        kept, total, changed = 0, 0, collections.Counter()
        for js_name, py_name in files.items():
            name = f"{example}/{js_name}"
            js = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{name}"],
                                check=True, capture_output=True, text=True).stdout
            for _, _, reason in compare(name, js, (HERE / py_name).read_text()):
                total += 1
                if reason is None:
                    kept += 1
                else:
                    changed[reason] += 1
        result[example] = (kept, total, changed)
    return result


def count(repo: str, show: bool) -> None:
    print(f"tfjs-examples at {COMMIT[:10]}: code lines kept as written, and why the others changed")
    if show:
        for example, files in PORTS.items():
            for js_name, py_name in files.items():
                name = f"{example}/{js_name}"
                js = subprocess.run(["git", "-C", repo, "show", f"{COMMIT}:{name}"],
                                    check=True, capture_output=True, text=True).stdout
                for number, line, reason in compare(name, js, (HERE / py_name).read_text()):
                    if reason is not None:
                        print(f"  {name}:{number} ({reason}): {line}")
    for example, (kept, total, changed) in counts(repo).items():
        reasons = ", ".join(f"{reason} {n}" for reason, n in changed.most_common())
        print(f"{example}: {kept} of {total} kept ({kept / total:.0%}); "
              f"{changed.total()} changed: {reasons}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", help="a clone of tensorflow/tfjs-examples")
    parser.add_argument("--show", action="store_true", help="print each changed line")
    arguments = parser.parse_args()
    count(arguments.repo, arguments.show)
