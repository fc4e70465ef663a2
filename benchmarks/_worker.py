"""Worker processes for benchmarks/train_step.py (not meant to be run by hand).

_worker.py mlp WORKLOAD VARIANT[,VARIANT...]   serve the protocol (see _harness.py)
_worker.py first-call WORKLOAD VARIANT         print one JSON line: first call, peak RSS
_worker.py polynomial                          serve the polynomial example's loop
_worker.py recompile KIND                      serve the varying and fixed loops of KIND
_worker.py fit [WORKLOAD]                      serve model.fit and its hand-written twin
_worker.py first-result MODEL                  print one JSON line: MODEL's first fit call
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
import time

import _harness
import _mlp


def _first_call(workload: str, variant: str) -> dict[str, float]:
    """Set-up + first step (init, trace, compile, run); peak RSS after 10 steps or a call."""
    data = _mlp.load(workload, variant)
    for module in ("optax", "tfjs_grad"):  # imports are not part of the first call
        importlib.import_module(module)
    start = time.perf_counter()
    runner = _mlp.build(variant, data)
    runner.sync(runner.run(runner.per_call))
    first_call_s = time.perf_counter() - start
    if runner.per_call == 1:
        runner.sync(runner.run(9))
    peak_rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"first_call_s": first_call_s, "peak_rss_mb": peak_rss_mb}


def main(argv: list[str]) -> None:
    mode, *args = argv
    if mode == "mlp":
        workload, variants = args[0], args[1].split(",")
        data = _mlp.load(workload, variants[0])  # one runtime per worker: torch or JAX
        runners = {v: _mlp.build(v, data) for v in variants}
        _harness.serve(runners, {"detail": _mlp.runtime(variants[0])})
    elif mode == "first-call":
        print(json.dumps(_first_call(*args)))
    elif mode == "first-result":
        import _first_result

        print(json.dumps(_first_result.first_result(*args)))
    elif mode == "polynomial":
        import _polynomial

        _harness.serve(*_polynomial.python_runners())
    elif mode == "fit":
        import _fit

        _harness.serve(*_fit.python_runners(*args))
    elif mode == "recompile":
        import _recompile

        _harness.serve(*_recompile.runners(*args))
    else:
        raise SystemExit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(sys.argv[1:])
