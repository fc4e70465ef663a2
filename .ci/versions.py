"""Print the interpreter and the versions of the packages that the suite's numbers depend on."""

import importlib.metadata
import platform
import sys

PACKAGES = ("jax", "jaxlib", "optax", "orbax-checkpoint", "numpy")

label = sys.argv[1] if len(sys.argv) > 1 else "environment"
versions = ", ".join(f"{p} {importlib.metadata.version(p)}" for p in PACKAGES)
print(f"[{label}] python {platform.python_version()} ({sys.executable}): {versions}", flush=True)
