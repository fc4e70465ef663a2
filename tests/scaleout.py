"""Shared by the scale-out tests: the subprocess scripts' folder and their small MLP."""

import importlib.util
import pathlib

SCRIPTS = pathlib.Path(__file__).parent / "scripts"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"scaleout_{name}", SCRIPTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mlp = _load("mlp")
