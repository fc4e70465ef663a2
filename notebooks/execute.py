"""Re-execute notebooks in place, so their committed outputs come from the current code.

.venv/bin/python notebooks/execute.py                 # every notebook
.venv/bin/python notebooks/execute.py 05_compiled_loops.ipynb
"""

import pathlib
import sys

import nbclient
import nbformat

HERE = pathlib.Path(__file__).parent


def main() -> None:
    names = sys.argv[1:] or sorted(p.name for p in HERE.glob("*.ipynb"))
    for name in names:
        path = HERE / name
        notebook = nbformat.read(path, as_version=4)
        nbclient.NotebookClient(
            notebook, timeout=600, resources={"metadata": {"path": HERE}}
        ).execute()
        nbformat.write(notebook, path)
        print(f"executed {name}")


if __name__ == "__main__":
    main()
