"""The public type hints: what a type checker sees is what the library returns.

`tensor_methods.attach` sets Tensor's op methods and operators at import time, so
tfjs_grad/_tensor.py declares them for type checkers in a block that
tests/scripts/gen_tensor_types.py writes; these tests fail when the two differ. The user
code in tests/typing/user_code.py is type-checked in pyright's strict mode by `make lint`;
here it also runs, and is checked when pyright is installed.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import pathlib
import shutil
import subprocess
import sys
import typing

import pytest

import tfjs_grad as tf
from tfjs_grad.ops.sorting import TopK, Unique

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _load(path: pathlib.Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _declared() -> dict[str, str]:
    """Name -> return annotation of every member in Tensor's `if TYPE_CHECKING:` blocks."""
    tree = ast.parse((ROOT / "tfjs_grad" / "_tensor.py").read_text())
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    found: dict[str, str] = {}
    for node in tensor.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.returns is not None:
                    found[fn.name] = ast.unparse(fn.returns)
    return found


def test_every_method_attach_adds_is_declared_for_type_checkers():
    generator = _load(ROOT / "tests" / "scripts" / "gen_tensor_types.py", "gen_tensor_types")
    expected = {"T": "Tensor", **generator.declarations()}
    declared = _declared()
    missing = sorted(set(expected) - set(declared))
    stale = sorted(set(declared) - set(expected))
    wrong = sorted(n for n in set(expected) & set(declared) if expected[n] != declared[n])
    assert not (missing or stale or wrong), (
        f"rerun tests/scripts/gen_tensor_types.py: missing {missing}, stale {stale}, "
        f"wrong return types {wrong}"
    )


def test_declared_methods_return_what_they_say():
    x = tf.tensor2d([[1, -2], [3, 4]])
    w = tf.tensor2d([[1], [1]])
    assert type(x.matMul(w).add(1).relu()) is tf.Tensor
    assert type(x.mat_mul(w)) is tf.Tensor
    assert type(x @ w) is tf.Tensor and type(1 - x) is tf.Tensor and type(x == 1) is tf.Tensor
    assert type(x.T) is tf.Tensor and type(-x) is tf.Tensor and type(abs(x)) is tf.Tensor
    parts = x.split(2)
    assert type(parts) is list and all(type(p) is tf.Tensor for p in parts)
    assert isinstance(x.variable(), tf.Variable)


def test_public_functions_return_the_annotated_types():
    dense = tf.layers.dense({"units": 1})
    assert isinstance(dense, tf.layers.Dense)
    assert isinstance(tf.layers.conv2d({"filters": 1, "kernelSize": 1}), tf.layers.Conv2D)
    assert isinstance(tf.sequential(), tf.Sequential)
    assert type(tf.grad(lambda x: x.square())(tf.tensor1d([1.0]))) is tf.Tensor
    assert type(tf.stopGradient(tf.tensor1d([1.0]))) is tf.Tensor
    assert type(tf.fused.matMul({"a": [[1.0]], "b": [[2.0]]})) is tf.Tensor
    assert type(tf.einsum("i,i->", [1, 2], [3, 4])) is tf.Tensor


def test_user_code_runs():
    user_code = _load(ROOT / "tests" / "typing" / "user_code.py", "typing_user_code")
    # relu(x @ w + 1) = 0; (x @ w + 1) * 2 - sum(x) = -10; the first row of x sums to 3
    assert user_code.method_chains() == [-7.0]
    # d(stop(x) * x) = x = [1, 2]; d(x^2) there = [2, 4]; d(a * b) = (b, a) = ([4, 5], [2, 3])
    assert user_code.gradients().dataSync().tolist() == [8.0, 12.0]
    assert isinstance(user_code.functional_model(), tf.LayersModel)


def _pyright() -> str | None:
    beside = pathlib.Path(sys.executable).with_name("pyright")
    return str(beside) if beside.exists() else shutil.which("pyright")


@pytest.mark.skipif(_pyright() is None, reason="pyright is not installed")
def test_user_code_passes_pyright_strict():
    run = subprocess.run(
        [_pyright(), "--pythonpath", sys.executable, "tests/typing"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_op_announces_the_tensors_it_returns():
    from tfjs_grad._tensors import OPS

    for name, public in OPS.items():
        body = inspect.unwrap(public).__annotations__.get("return")
        if body in ("jax.Array", "list[jax.Array]"):
            shown = typing.get_type_hints(public)["return"]
            assert shown == (tf.Tensor if body == "jax.Array" else list[tf.Tensor]), name
            assert "Tensor" in str(inspect.signature(public).return_annotation), name


def test_user_code_builds_layers_from_typed_configs():
    user_code = _load(ROOT / "tests" / "typing" / "user_code.py", "typing_user_code")
    assert user_code.layer_configs() == [3, 2, 2, 1, 5]


def test_user_code_reads_typed_results():
    user_code = _load(ROOT / "tests" / "typing" / "user_code.py", "typing_user_code")
    # topk [5, 3] + [1, 2]; top-1 5 - index 1; unique's indices [0, 1, 0]; the buffer [0, 4]
    # + 1; raggedRange's splits [0, 3, 5]; |[0.6, 0.8]| + |[0.8, -0.6]| = 2.8, and [0, 1]
    assert user_code.typed_results() == pytest.approx([6, 5, 4, 1, 1, 5, 5, 3.8], abs=1e-5)


def test_results_have_the_annotated_types():
    x = tf.tensor1d([1, 5, 3])
    top, seen = tf.topk(x, 2), tf.unique(x)
    assert type(top) is TopK and type(seen) is Unique
    for result in (top, seen, x.topk(1)):
        assert all(type(field) is tf.Tensor for field in result)
        assert result["values"] is result.values and result[1] is result.indices
    ragged = tf.raggedGather([[0, 2, 3]], [1.0, 2.0, 3.0], [1, 0], 1)
    assert type(ragged.outputDenseValues) is tf.Tensor
    assert all(type(s) is tf.Tensor for s in ragged.output_nested_splits)
    pooled = tf.maxPoolWithArgmax(tf.ones([1, 2, 2, 1]), 2, 2, "valid")
    reshaped = tf.sparse.sparseReshape([[0, 1]], [2, 2], [4])
    padded = tf.image.nonMaxSuppressionPadded([[0, 0, 1, 1]], [0.5], 2)
    for result in (pooled, reshaped, padded):
        assert all(type(field) is tf.Tensor for field in result)
        assert result[result.keys()[0]] is result[0]
    assert type(tf.buffer([1]).toTensor()) is tf.Tensor
    assert type(tf.buffer([1], "int32").get(0)) is int
    assert type(tf.linalg.gramSchmidt([[0, 2]])) is list
    assert type(tf.linalg.gramSchmidt(tf.tensor2d([[0, 2]]))) is tf.Tensor
    dense = tf.layers.dense({"units": 2})
    out = dense.apply(tf.input({"shape": [3]}))
    assert dense.output is out and type(dense.input) is tf.layers.SymbolicTensor
    assert dense.inputShape == [None, 3] and dense.outputShape == [None, 2]
