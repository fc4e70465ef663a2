"""Two processes, one JAX cluster on loopback: data-parallel training and a shared checkpoint.

The test starts both processes of tests/scripts/distributed_worker.py itself, on a free
127.0.0.1 port, and always stops them (bounded wait, then kill).
"""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import time

import jax
import numpy as np
import pytest
from scaleout import SCRIPTS, mlp

TIMEOUT_S = 150
F32_ATOL = 1e-4  # float32 summation order; see tests/test_sharding.py


def _free_loopback_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_cluster(out: pathlib.Path) -> list[tuple[int, str]]:
    """Start both workers, wait at most TIMEOUT_S, kill whatever is left; (rc, log) each."""
    port = _free_loopback_port()
    env = dict(os.environ, JAX_PLATFORMS="cpu")
    env.pop("XLA_FLAGS", None)
    logs = [out / f"process_{i}.log" for i in range(2)]
    procs = []
    try:
        for i, log in enumerate(logs):
            with open(log, "w") as sink:
                procs.append(
                    subprocess.Popen(
                        [sys.executable, "-W", "error", str(SCRIPTS / "distributed_worker.py")]
                        + [str(i), str(port), str(out)],
                        env=env,
                        stdout=sink,
                        stderr=subprocess.STDOUT,
                    )
                )
        deadline = time.monotonic() + TIMEOUT_S
        while time.monotonic() < deadline and any(p.poll() is None for p in procs):
            if any(p.poll() not in (None, 0) for p in procs):
                break  # one failed: the other would wait for it until its own timeout
            time.sleep(0.1)
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
            p.wait(timeout=30)
    return [(p.returncode, log.read_text()[-3000:]) for p, log in zip(procs, logs)]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    for attempt in range(2):  # the free port can be taken between choosing and binding
        out = tmp_path_factory.mktemp("cluster")
        results = _run_cluster(out)
        if all(rc == 0 for rc, _ in results):
            break
        if attempt == 0 and any("in use" in log.lower() for _, log in results):
            continue
        pytest.fail(
            "\n\n".join(f"process {i} exited {rc}:\n{log}" for i, (rc, log) in enumerate(results))
        )
    loaded = []
    for i in range(2):
        with np.load(out / f"process_{i}.npz", allow_pickle=False) as npz:
            loaded.append({key: npz[key] for key in npz.files})
    return loaded


def _single_process(wide: bool) -> dict[str, np.ndarray]:
    model = mlp.Model()
    if not wide:
        mlp.train(model, range(20))
        return model.state()
    with jax.enable_x64(True):
        mlp.train(model, range(20), lambda x, y: (x.astype(np.float64), y.astype(np.float64)))
        return model.state()


def _run(results, prefix):
    return {k.split(":", 1)[1]: v for k, v in results.items() if k.startswith(prefix + ":")}


def test_both_processes_end_with_identical_variables(cluster):
    first, second = cluster
    assert sorted(first) == sorted(second)
    for key in first:
        np.testing.assert_array_equal(first[key], second[key], err_msg=key)


def test_two_process_training_matches_single_process_training(cluster):
    reference = _single_process(wide=False)
    trained = _run(cluster[0], "f32")
    assert sorted(trained) == sorted(reference)
    for name in reference:
        np.testing.assert_allclose(
            trained[name], reference[name], rtol=1e-5, atol=F32_ATOL, err_msg=name
        )


def test_two_process_training_matches_to_rtol_1e5_with_float64_gradients(cluster):
    reference = _single_process(wide=True)
    trained = _run(cluster[0], "f64")
    for name in reference:
        np.testing.assert_allclose(trained[name], reference[name], rtol=1e-5, atol=0, err_msg=name)


def test_processes_save_and_restore_one_checkpoint_together(cluster):
    for results in cluster:
        assert bool(results["restore_ok"]) and bool(results["shardings_ok"])
