"""The benchmark harness (benchmarks/): its schedule, ratios, loss check and README writer,
and the loops it times computing the same training as their references. No timings are
asserted: the fake workers below answer with made-up seconds."""

import json
import math
import pathlib
import shutil
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import tfjs_grad as tf

BENCH = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"
sys.path.insert(0, str(BENCH))

import _first_result  # noqa: E402
import _fit  # noqa: E402
import _harness  # noqa: E402
import _mlp  # noqa: E402
import _polynomial  # noqa: E402
import _recompile  # noqa: E402
import train_step  # noqa: E402

_has_node = train_step.node_missing() is None
_needs_node = pytest.mark.skipif(not _has_node, reason="node or tests/reference/node_modules")
_has_ops = all(hasattr(tf, name) for name in _polynomial.OPS)
_needs_ops = pytest.mark.skipif(not _has_ops, reason="the tfjs ops (tf.mul, ...) are not in")

losses_lists = st.lists(
    st.floats(min_value=1e-3, max_value=1e3, allow_nan=False), min_size=1, max_size=30
)


@given(losses_lists, st.floats(min_value=-0.49, max_value=0.49))
def test_check_losses_accepts_relative_errors_within_rtol_and_reports_the_worst(reference, e):
    rtol = 1e-3
    got = [v * (1 + e * rtol) for v in reference]
    worst = _harness.check_losses(reference, got, rtol, 0.0, "x")
    assert worst == pytest.approx(abs(e) * rtol, rel=1e-6, abs=1e-15)


@given(losses_lists, st.data())
def test_check_losses_stops_the_run_at_the_first_step_beyond_tolerance(reference, data):
    index = data.draw(st.integers(0, len(reference) - 1))
    got = list(reference)
    got[index] = reference[index] * (1 + 3e-3)
    with pytest.raises(SystemExit, match=f"step {index + 1} loss"):
        _harness.check_losses(reference, got, 1e-3, 0.0, "x")


def test_check_losses_rejects_nan_and_missing_steps():
    with pytest.raises(SystemExit, match="step 2"):
        _harness.check_losses([1.0, 2.0], [1.0, math.nan], 1e-3, 1e-5, "x")
    with pytest.raises(SystemExit, match="1 losses, expected 2"):
        _harness.check_losses([1.0, 2.0], [1.0], 1e-3, 1e-5, "x")


def test_check_losses_absolute_tolerance():
    assert _harness.check_losses([0.5], [0.5 + 9e-6], 0.0, 1e-5, "x") > 0
    with pytest.raises(SystemExit):
        _harness.check_losses([0.5], [0.5 + 2e-5], 0.0, 1e-5, "x")


class _FakeWorker:
    """Answers blocks with made-up seconds (steps × cost), recording the order asked."""

    def __init__(self, costs: dict[str, float], log: list[str]):
        self.costs, self.log = costs, log

    def request(self, op: str, variant: str, steps: int) -> dict:
        assert op == "block"
        self.log.append(variant)
        return {"seconds": steps * self.costs[variant]}


def _block(r: int, steps: int, seconds: float) -> _harness.Block:
    return _harness.Block(r, steps, seconds, {})


@given(
    st.lists(st.floats(min_value=1e-6, max_value=1e-1), min_size=2, max_size=6),
    st.integers(1, 7),
)
def test_interleave_runs_one_block_per_slot_per_round_in_rotating_order(costs, rounds):
    log: list[str] = []
    names = [f"v{i}" for i in range(len(costs))]
    worker = _FakeWorker(dict(zip(names, costs)), log)
    slots = [_harness.Slot(n, worker, n, per_call=1 + i % 2) for i, n in enumerate(names)]  # type: ignore[arg-type]
    _harness.interleave(slots, rounds, target_s=0.25)
    for slot, cost in zip(slots, costs):
        assert [b.round for b in slot.blocks] == list(range(rounds))
        assert slot.steps % slot.per_call == 0 and slot.steps >= slot.per_call
        assert slot.steps * cost == pytest.approx(0.25, rel=0.5) or slot.steps == slot.per_call
        assert slot.rate() == pytest.approx(1 / cost)
    timed = log[len(log) - rounds * len(slots) :]
    firsts = {timed[r * len(slots)] for r in range(rounds)}
    assert len(firsts) == min(rounds, len(slots))  # a different slot leads each round


@given(st.floats(min_value=0.1, max_value=10), st.lists(st.floats(0.5, 2.0), min_size=1))
def test_median_ratio_compares_blocks_of_the_same_round(factor, drift):
    # The machine's speed drifts from round to round; both sides drift together.
    worker = _FakeWorker({}, [])
    a = _harness.Slot("a", worker, "a")  # type: ignore[arg-type]
    b = _harness.Slot("b", worker, "b")  # type: ignore[arg-type]
    for r, speed in enumerate(drift):
        a.blocks.append(_block(r, 100, 1.0 / (factor * speed)))
        b.blocks.append(_block(r, 100, 1.0 / speed))
    a.blocks.append(_block(len(drift), 100, 1e-9))  # a round b did not run: ignored
    assert _harness.median_ratio(a, b) == pytest.approx(factor)


def test_update_readme_rewrites_only_between_the_markers(tmp_path):
    readme = tmp_path / "README.md"
    head = "# Title\n\n<!-- benchmark table: written by `benchmarks/train_step.py` -->\n"
    tail = "<!-- end benchmark table -->\n\nAfter.\n"
    readme.write_text(head + "old table\n" + tail)
    train_step.update_readme("| new | table |", readme)
    train_step.update_readme("| new | table |", readme)
    assert readme.read_text() == head + "| new | table |\n" + tail


_FLOAT_FIELDS = ("xs", "ys", "init")


def _assert_same_data(committed, generated):
    """Equal, with floats to a few float32 ulps: numpy's SIMD kernels (`power`, ...) differ
    by an ulp between CPUs (AVX2 and AVX-512), so no test compares computed floats with a
    committed file bit for bit."""
    assert {k: v for k, v in committed.items() if k not in _FLOAT_FIELDS} == {
        k: v for k, v in generated.items() if k not in _FLOAT_FIELDS
    }
    assert list(committed["init"]) == list(generated["init"])
    for key in _FLOAT_FIELDS:
        ours, theirs = (
            np.float32(list(d[key].values()) if key == "init" else d[key])
            for d in (generated, committed)
        )
        np.testing.assert_array_max_ulp(ours, theirs, maxulp=4)


def test_polynomial_data_file_is_what_its_generator_writes():
    committed = json.loads(_polynomial.DATA.read_text())
    _assert_same_data(committed, json.loads(json.dumps(_polynomial.generate())))


def test_polynomial_data_check_passes_on_a_cpu_whose_power_differs_by_an_ulp():
    committed = json.loads(_polynomial.DATA.read_text())
    other_cpu = json.loads(json.dumps(_polynomial.generate()))
    ys = np.float32(other_cpu["ys"])
    ys[[3, 17, 42, 99]] = np.nextafter(ys[[3, 17, 42, 99]], np.float32(2))  # AVX2's power
    other_cpu["ys"] = [float(v) for v in ys]
    _assert_same_data(committed, other_cpu)
    ys[5] += np.float32(1e-3)  # a real change is still caught
    other_cpu["ys"] = [float(v) for v in ys]
    with pytest.raises(AssertionError):
        _assert_same_data(committed, other_cpu)


def test_mlp_variants_train_alike():
    """The tfjs user's loop (under tf.jit, and eager in tf.tidy) and the hand-written optax
    step follow the same losses from the same start (the loop variants: at bench time)."""
    data = _mlp.load("tiny", "baseline")
    reference = _mlp.build("baseline", data).trace(5)
    for variant in ("tf.jit", "eager"):
        got = _mlp.build(variant, data).trace(5)
        _harness.check_losses(reference, got, train_step.RTOL_JAX, 0.0, variant)


def test_torch_trains_alike():
    pytest.importorskip("torch")
    reference = _mlp.build("baseline", _mlp.load("tiny", "baseline")).trace(5)
    got = _mlp.build("torch@1", _mlp.load("tiny", "torch@1")).trace(5)
    _harness.check_losses(reference, got, train_step.RTOL_OTHER, 0.0, "torch")


def test_python_worker_serves_the_protocol():
    command = [sys.executable, str(BENCH / "_worker.py"), "mlp", "tiny", "baseline,tf.jit"]
    with _harness.Worker("test", command) as worker:
        assert "jax" in worker.info["detail"]
        losses = worker.request(op="trace", variant="tf.jit", steps=3)["losses"]
        reply = worker.request(op="block", variant="baseline", steps=4)
    assert len(losses) == 3 and all(math.isfinite(v) for v in losses)
    assert reply["seconds"] > 0 and math.isfinite(reply["loss"]) and reply["rss_mb"] > 0


@_needs_ops
def test_polynomial_port_follows_tfjs():
    runners, _ = _polynomial.python_runners()
    fixture = json.loads((BENCH / "data" / "polynomial_tfjs.json").read_text())
    got = runners["tfjs_grad"].trace(len(fixture["losses"]))
    _harness.check_losses(fixture["losses"], got, 0.0, train_step.POLY_ATOL, "polynomial")


@_needs_node
@pytest.mark.parametrize("backend", ["cpu", "wasm"])
def test_node_mlp_worker_trains_alike(tmp_path, backend):
    reference = _mlp.build("baseline", _mlp.load("tiny", "baseline")).trace(5)
    _mlp.write_problem("tiny", tmp_path)
    script = str(BENCH / "node" / "mlp.js")
    with _harness.Worker(backend, ["node", script, str(tmp_path), backend]) as worker:
        assert f"{backend} backend" in worker.info["detail"]
        got = worker.request(op="trace", variant=backend, steps=5)["losses"]
        first = worker.request(op="block", variant=backend, steps=3)
        second = worker.request(op="block", variant=backend, steps=3)
    _harness.check_losses(reference, got, train_step.RTOL_OTHER, 0.0, backend)
    assert first["tensors"] == second["tensors"]  # the loop leaks no tensors


@_needs_node
@pytest.mark.parametrize("backend", ["cpu", "wasm"])
def test_node_polynomial_worker_matches_the_fixture(backend):
    fixture = json.loads((BENCH / "data" / "polynomial_tfjs.json").read_text())
    script = str(BENCH / "node" / "polynomial.js")
    with _harness.Worker(backend, ["node", script, backend]) as worker:
        got = worker.request(op="trace", variant=backend, steps=len(fixture["losses"]))
    _harness.check_losses(fixture["losses"], got["losses"], 0.0, train_step.POLY_ATOL, backend)


def test_node_missing_names_what_to_install(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda _: None)
    assert train_step.node_missing() == "node is not installed"


def test_saved_results_report_the_same_without_measuring(tmp_path, monkeypatch):
    monkeypatch.setattr(train_step, "RESULTS", tmp_path / "train_step.json")
    monkeypatch.setattr(train_step, "TARGETS", tmp_path / "targets.json")
    run = train_step.Run(train_step.QUICK)
    run.rows = [
        {
            "workload": "tiny",
            "variant": "baseline",
            "steps_per_s": 100.0,
            "ratio": 1.0,
            "against": "",
            "compile_s": 0.5,
            "compile_ratio": 1.0,
            "peak_rss_mb": 300.0,
            "rss_ratio": 1.0,
        },
        {
            "workload": "tiny",
            "variant": "tf.jit",
            "steps_per_s": 80.0,
            "ratio": 0.8,
            "against": "same process",
            "compile_s": 0.6,
            "compile_ratio": 1.2,
            "peak_rss_mb": 310.0,
            "rss_ratio": 1.03,
        },
        {"workload": "fit", "variant": "baseline_fit", "epochs_per_s": 2.0},
        {"workload": "fit", "variant": "baseline_scan", "epochs_per_s": 4.2,
         "ratio_baseline_fit": 2.1},
        {"workload": "fit", "variant": "fit", "epochs_per_s": 4.0, "ratio": 2.0,
         "ratio_baseline_scan": 0.95},
    ]  # fmt: skip
    run.runtimes = {"jax": "jax x.y"}
    run.note("a note")
    train_step.evaluate_targets(run)
    machine = {"date": "2026-01-01", "cpus": 2, "load_start": "0 0 0", "load_end": "1 1 1"}
    train_step.save(run, machine)
    again, machine_again = train_step.load_saved()
    assert train_step.report(again, machine_again) == train_step.report(run, machine)
    text = train_step.report(run, machine)
    assert "| tiny: tf.jit ≥ 0.95× hand-written | 0.80× | **not met** |" in text
    assert (
        "| tiny: tf.jit first call ≤ 1.5× hand-written | 1.20× (0.60 s vs 0.50 s) | met |" in text
    )
    assert "| medium: tf.jit ≥ 0.98× hand-written | — | not measured |" in text
    # the per-batch fit target shows its ceiling: the hand-written scan's own ratio
    per_batch = "| fit: model.fit ≥ 2.5× hand-written per-batch jax.jit + optax |"
    assert f"{per_batch} 2.00× (the hand-written scan: 2.10×) | **not met** |" in text
    assert "| fit: model.fit ≥ 0.8× hand-written lax.scan epoch | 0.95× | met |" in text


def test_fit_and_its_hand_written_twin_train_alike():
    """model.fit's epoch losses equal the hand-written jax.jit + optax epoch loop's, and
    so do those of the same step under lax.scan, one call per epoch."""
    runners, _ = _fit.python_runners()
    reference = runners["baseline_fit"].trace(2)
    for name in ("fit", "baseline_scan"):
        got = runners[name].trace(2)
        _harness.check_losses(reference, got, train_step.RTOL_JAX, 0.0, name)


def test_medium_fit_follows_its_hand_written_classifier_loop():
    """The medium MLP's fit (softmax + categoricalCrossentropy) and the jax.jit + optax loop
    over the same clipped cross-entropy log the same first epoch."""
    runners, _ = _fit.python_runners("medium")
    assert set(runners) == {"baseline_fit", "fit"}
    reference = runners["baseline_fit"].trace(1)
    _harness.check_losses(reference, runners["fit"].trace(1), train_step.RTOL_JAX, 0.0, "medium")


@_needs_node
def test_node_fit_worker_trains_alike(tmp_path):
    reference = _fit._baseline_runner().trace(2)
    _fit.write_problem(tmp_path)
    script = str(BENCH / "node" / "fit.js")
    with _harness.Worker("cpu", ["node", script, str(tmp_path), "cpu"]) as worker:
        got = worker.request(op="trace", variant="cpu", steps=2)["losses"]
        first = worker.request(op="block", variant="cpu", steps=1)
        second = worker.request(op="block", variant="cpu", steps=1)
    _harness.check_losses(reference, got, train_step.RTOL_OTHER, 0.0, "tfjs fit")
    assert first["tensors"] == second["tensors"]  # fit leaks no tensors


@pytest.mark.skipif(_fit.keras_missing() is not None, reason="keras (the bench extra)")
def test_keras_fit_rows_train_as_the_hand_written_loop():
    """Keras 3's fit on the JAX backend, per batch and a whole epoch per dispatch, follows
    the hand-written jax.jit + optax epoch losses (same weights and data; Keras's Adam puts
    epsilon before the bias correction, hence the other runtimes' tolerance)."""
    runners, info = _fit.python_runners()
    reference = runners["baseline_fit"].trace(3)
    assert "keras 3." in info["detail"]
    for name in _fit.KERAS_VARIANTS:
        got = runners[name].trace(3)
        _harness.check_losses(reference, got, train_step.RTOL_OTHER, 0.0, name)


def _tiny_recurrent(monkeypatch) -> dict:
    """The first-result models at toy sizes (their structure and fit arguments unchanged)."""
    small = {"units": 8, "train": 40, "batch": 16}
    models = {name: {**spec, **small} for name, spec in _first_result.MODELS.items()}
    models["addition-rnn"]["validation"] = 8
    models["lstm-text-generation"]["in_len"] = 6
    monkeypatch.setattr(_first_result, "MODELS", models)
    return models


@pytest.mark.parametrize("name", sorted(_first_result.MODELS))
def test_first_result_times_the_first_fit_and_counts_its_compiles(monkeypatch, name):
    spec = _tiny_recurrent(monkeypatch)[name]
    got = _first_result.first_result(name)
    assert 0 < got["first_epoch_s"] <= got["fit_s"]
    assert got["compiles"] >= 1 and got["compile_s"] > 0
    # One epoch from a fresh start on random one-hot targets: the cross-entropy of
    # near-uniform predictions, log(vocabulary size).
    assert abs(got["epoch_loss"] - math.log(spec["vocab"])) < 0.3


@_needs_node
@pytest.mark.parametrize("name", sorted(_first_result.MODELS))
def test_node_first_result_runs_the_same_model_in_tfjs(monkeypatch, name):
    spec = _tiny_recurrent(monkeypatch)[name]
    script = str(BENCH / "node" / "first_result.js")
    got = train_step.run_fresh(name, ["node", script, name, "cpu", json.dumps(spec)])
    assert "cpu backend" in got["detail"]
    assert 0 < got["first_epoch_s"] <= got["fit_s"]
    assert abs(got["epoch_loss"] - math.log(spec["vocab"])) < 0.3


def test_report_shows_first_result_and_compiles_per_new_length():
    run = train_step.Run(train_step.QUICK)
    run.rows = [
        {
            "workload": "first-result-addition-rnn",
            "variant": "tfjs_grad",
            "first_epoch_s": 6.0,
            "fit_s": 6.1,
            "compiles": 9,
            "compile_s": 3.5,
            "runs": 1,
            "ratio_tfjs": 2.0,
        },
        {
            "workload": "first-result-addition-rnn",
            "variant": "tfjs-wasm",
            "first_epoch_s": 3.0,
            "fit_s": 3.0,
            "runs": 1,
        },
        {
            "workload": "recompile-shapes",
            "variant": "varying",
            "steps": 50,
            "ms_per_step": 30.0,
            "rss_growth_mb": 4.0,
            "compiles": 60,
            "compile_s": 9.0,
            "new_values": 40,
            "recompiles": 2,
            "compiles_per_new_value": 1.45,
        },
        {
            "workload": "recompile-shapes",
            "variant": "fixed",
            "steps": 50,
            "ms_per_step": 1.0,
            "rss_growth_mb": 0.0,
            "compiles": 0,
            "compile_s": 0.0,
            "new_values": 0,
            "recompiles": 0,
        },
    ]
    train_step.evaluate_targets(run)
    machine = {"date": "2026-01-01", "cpus": 2, "load_start": "0 0 0", "load_end": "1 1 1"}
    text = train_step.report(run, machine)
    assert "| addition-rnn | tfjs_grad | 6.0 | 9 (3.5) | 2.00× |" in text
    assert "| addition-rnn | tfjs-wasm | 3.0 |  | — |" in text
    assert (
        "| addition-rnn: first epoch ≤ 1× tfjs's first epoch | 2.00× (6.0 s, 9 XLA compiles) "
        "| **not met** |" in text
    )
    assert (
        "| lstm-text-generation: first epoch ≤ 1× tfjs's first epoch | — | not measured |" in text
    )
    assert "| shapes, varying | 50 | 30.0 | 60 | 40 | 1.45 | 2 | +4 |" in text
    assert (
        "| varying shapes: 1.0 XLA compile per new batch length (evicted ones counted apart) "
        "| 1.45 (60 compiles, 40 new lengths, 2 of evicted lengths) | **not met** |" in text
    )
    assert (
        "| varying shapes: memory bounded by the compile cache's budget (256 MB) | +4 MB over "
        "50 steps (fixed: +0 MB) | met |" in text
    )
    assert "| varying shapes: time per step ÷ the fixed loop's (each new length compiles) |" in text


@pytest.mark.parametrize("cache_size", [3, 1000])
def test_varying_loop_counts_lengths_compiled_again_after_an_eviction_apart(
    monkeypatch, cache_size
):
    from tfjs_grad import _trace

    monkeypatch.setattr(_trace, "CACHE_SIZE", cache_size)  # 3: each new length evicts
    runners, _ = _recompile.runners("shapes", "varying")
    runner = runners["varying"]
    runner.sync(runner.run(1))  # the warm-up step the bench takes first
    start = runner.report()
    runner.sync(runner.run(40))  # 40 lengths drawn in [10, 200]: some come again
    end = runner.report()
    compiles = end["compiles"] - start["compiles"]
    recompiles = end["recompiles"] - start["recompiles"]
    new_lengths = end["distinct"] - start["distinct"]
    assert 20 < new_lengths < 40
    assert compiles - recompiles == new_lengths  # one compile per length first seen
    if cache_size == 3:
        assert recompiles > 0  # a length seen again after its program was evicted
    else:
        assert recompiles == 0


def test_the_reported_cache_budget_is_the_eager_caches():
    from tfjs_grad import _trace

    assert train_step.CACHE_MB * 2**20 == _trace.CACHE_BYTES
