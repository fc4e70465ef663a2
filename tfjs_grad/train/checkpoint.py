"""`save_checkpoint` / `restore_checkpoint`: Variables and optimizer state on disk.

Storage is orbax-checkpoint's. A step is the directory `<directory>/<step>/` with two
items: `state/` (every array, in tensorstore's OCDBT format, written shard by shard by
the processes that hold the shards) and `manifest/` (JSON naming each entry, its shape
and dtype, and which optimizer state it is). Orbax writes a step into
`<step>.orbax-checkpoint-tmp/` and renames it once complete, so a crash mid-write leaves
earlier steps intact and the unfinished one is never listed.

Restoring checks everything before it writes anything: names, shapes and dtypes against
the manifest; then every stored chunk is read once, so a truncated or missing file is
reported with the entry it belongs to; then the arrays are read onto their shardings;
only then are the Variables assigned. Nothing in a checkpoint is executed: the manifest
is JSON and the arrays are raw tensorstore chunks (no pickle).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _store
from ..variables import Variable, as_var_list, registered_variables
from ._optimizer import Optimizer

if TYPE_CHECKING:  # orbax is imported on first use: it is a fifth of `import tfjs_grad`
    import orbax.checkpoint as ocp

_FORMAT = "tfjs_grad.checkpoint"
_VERSION = 1
_SECTIONS = ("entries", "variables", "optimizers")


def save_checkpoint(
    directory: str | os.PathLike[str],
    var_list: Sequence[Variable] | None = None,
    optimizers: Sequence[Optimizer] | Optimizer = (),
    step: int | None = None,
) -> int:
    """Write Variables and optimizer state (slots, iterations) as checkpoint `step`.

    `var_list` defaults to every live Variable except the state of `optimizers`, which
    is saved with its optimizer. `step` defaults to one past the latest step (0 for an
    empty directory); steps must increase. The write is atomic. With several processes,
    every process calls this with the same arguments; each writes the shards it holds.
    Returns the step written.

    >>> import tempfile, tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_ckpt_w")
    >>> opt = tf.train.sgd(0.5)
    >>> opt.minimize(lambda: (w ** 2).sum())
    >>> directory = tempfile.mkdtemp()
    >>> tf.train.save_checkpoint(directory, [w], [opt])
    0
    >>> w.assign(tf.tensor1d([7, 7]))
    >>> tf.train.restore_checkpoint(directory, [w], [opt])
    0
    >>> w.value.tolist(), opt.iterations
    ([0.0, 0.0], 1)
    >>> w.dispose(); opt.dispose()
    """
    path = _directory(directory, "save_checkpoint")
    opts = _optimizers(optimizers, "save_checkpoint")
    _check_eager("save_checkpoint")
    if var_list is None:
        owned = {v._uid for opt in opts for v in _optimizer_variables(opt).values()}
        variables = [v for v in registered_variables().values() if v._uid not in owned]
    else:
        variables = _variables(var_list, "save_checkpoint")
    if step is not None:
        _check_step(step, "save_checkpoint")

    arrays: dict[str, Any] = {}
    entries: dict[str, dict[str, Any]] = {}

    def add(key: str, label: str, var: Variable) -> str:
        arrays[key] = var.read()
        entries[key] = {"name": label, "shape": list(var.shape), "dtype": _dtype(var.dtype)}
        return key

    manifest = {
        "format": _FORMAT,
        "version": _VERSION,
        "entries": entries,
        "variables": {v.name: add(f"v{i}", v.name, v) for i, v in enumerate(variables)},
        "optimizers": [
            {
                "class_name": opt.class_name,
                "names": list(opt._layout.names),
                "weights": {
                    label: add(f"o{j}_{k}", f"optimizers[{j}]/{label}", var)
                    for k, (label, var) in enumerate(_optimizer_variables(opt).items())
                },
            }
            for j, opt in enumerate(opts)
        ],
    }
    if not arrays:
        raise ValueError("save_checkpoint: there are no Variables to save")
    import orbax.checkpoint as ocp

    with _manager(path, read_only=False) as manager:
        latest = manager.latest_step()
        if step is None:
            step = 0 if latest is None else latest + 1
        elif latest is not None and step <= latest:
            raise ValueError(
                f"save_checkpoint: step {step} is not after the latest checkpoint step "
                f"{latest} in '{path}'; steps must increase"
            )
        saved = manager.save(
            step,
            args=ocp.args.Composite(
                state=ocp.args.PyTreeSave(arrays), manifest=ocp.args.JsonSave(manifest)
            ),
        )
        manager.wait_until_finished()
    if not saved:
        raise ValueError(f"save_checkpoint: orbax declined to write step {step} in '{path}'")
    return step


def restore_checkpoint(
    directory: str | os.PathLike[str],
    var_list: Sequence[Variable] | None = None,
    optimizers: Sequence[Optimizer] | Optimizer = (),
    step: int | None = None,
) -> int:
    """Load checkpoint `step` (the latest complete one when None) into live Variables.

    `var_list` defaults to every Variable the checkpoint holds (each must be live);
    `optimizers[i]` gets the state saved for the i-th optimizer: slots, created if
    needed, and iterations. A Variable with a pinned sharding (`tf.variable(...,
    sharding=)`) keeps it; any other gets the sharding it was saved with when this
    process has those devices. All-or-nothing: a missing entry, a shape or dtype that
    differs, or a truncated file raises ValueError naming the entry, and nothing changes.
    With several processes, every process calls this with the same arguments. Returns
    the step restored.
    """
    path = _directory(directory, "restore_checkpoint")
    opts = _optimizers(optimizers, "restore_checkpoint")
    _check_eager("restore_checkpoint")
    wanted = None if var_list is None else _variables(var_list, "restore_checkpoint")
    if step is not None:
        _check_step(step, "restore_checkpoint")
    if "://" not in path and not os.path.isdir(path):
        raise ValueError(f"restore_checkpoint: no checkpoint directory '{path}'")

    with _manager(path, read_only=True) as manager:
        steps = sorted(manager.all_steps())
        if step is None:
            if not steps:
                raise ValueError(f"restore_checkpoint: no complete checkpoint in '{path}'")
            step = steps[-1]
        elif step not in steps:
            raise ValueError(
                f"restore_checkpoint: no complete checkpoint step {step} in '{path}' "
                f"(complete steps: {steps})"
            )
        manifest = _read_manifest(manager, step, path)
        entries = manifest["entries"]
        targets = _variable_targets(manifest, wanted)
        saved_opts = manifest["optimizers"]
        if len(opts) > len(saved_opts):
            raise ValueError(
                f"restore_checkpoint: {len(opts)} optimizers given, but step {step} holds "
                f"state for {len(saved_opts)}"
            )
        live = registered_variables()
        for j, (opt, saved) in enumerate(zip(opts, saved_opts)):
            _check_optimizer(j, opt, saved, live)
        for key, var in targets.items():
            _check_entry(entries[key], var)
        _check_stored_chunks(path, step, entries)
        with _rolled_back_on_error(opts):
            for opt, saved in zip(opts, saved_opts):
                opt._ensure_state([live[n] for n in saved["names"]])
            for j, (opt, saved) in enumerate(zip(opts, saved_opts)):
                weights = _optimizer_variables(opt)
                if set(weights) != set(saved["weights"]):
                    raise ValueError(
                        f"restore_checkpoint: optimizers[{j}] has state "
                        f"{sorted(weights)}, but the checkpoint holds "
                        f"{sorted(saved['weights'])}"
                    )
                for label, key in saved["weights"].items():
                    _check_entry(entries[key], weights[label])
                    targets[key] = weights[label]
            values = _read_arrays(manager, step, path, entries, targets) if targets else {}
    for key, var in targets.items():
        value = values[key]
        if var._sharding is None:
            var._pin_sharding(_multi_device(value))
        var._write(value)
    return step


# -- arguments -------------------------------------------------------------------------
def _directory(directory: Any, fn: str) -> str:
    if not isinstance(directory, (str, os.PathLike)):
        raise TypeError(
            f"Argument 'directory' passed to '{fn}' must be a path, "
            f"but got '{type(directory).__name__}'"
        )
    path = os.fspath(directory)
    return path if "://" in path else os.path.abspath(path)


def _optimizers(optimizers: Any, fn: str) -> list[Optimizer]:
    if isinstance(optimizers, Optimizer):
        optimizers = [optimizers]
    if not isinstance(optimizers, (list, tuple)) or not all(
        isinstance(o, Optimizer) for o in optimizers
    ):
        raise TypeError(f"Argument 'optimizers' passed to '{fn}' must be a list of Optimizers")
    for opt in optimizers:
        opt._check_alive()
    return list(optimizers)


def _variables(var_list: Any, fn: str) -> list[Variable]:
    for v in as_var_list(var_list, fn):
        v._check_disposed()
    return list(dict.fromkeys(var_list))


def _check_step(step: Any, fn: str) -> None:
    if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
        raise TypeError(f"Argument 'step' passed to '{fn}' must be an int or None")
    if step < 0:
        raise ValueError(f"Argument 'step' passed to '{fn}' must be >= 0, but got {step}")


def _check_eager(fn: str) -> None:
    if _store.current() is not None:
        raise ValueError(
            f"{fn} cannot run inside a transform (tf.jit, variable_grads, functionalize): "
            "the values there are traced. Call it between steps."
        )


def _optimizer_variables(opt: Optimizer) -> dict[str, Variable]:
    """label -> Variable for all of an optimizer's state: 'iter', then each state entry."""
    opt._tracked()
    return {opt._label(v): v for v in (opt._iterations, *opt._layout.leaves)}


def _dtype(dtype: Any) -> str:
    return np.dtype(dtype).name


def _multi_device(value: Any) -> jax.sharding.Sharding | None:
    return value.sharding if len(value.sharding.device_set) > 1 else None


# -- checks (nothing is written until all pass) ----------------------------------------
def _read_manifest(manager: ocp.CheckpointManager, step: int, path: str) -> dict[str, Any]:
    import orbax.checkpoint as ocp

    where = f"step {step} in '{path}'"
    try:
        restored = manager.restore(step, args=ocp.args.Composite(manifest=ocp.args.JsonRestore()))
        manifest = restored["manifest"]
    except Exception as e:
        raise ValueError(
            f"restore_checkpoint: the manifest of checkpoint {where} is unreadable "
            f"(truncated or corrupt file?): {e}"
        ) from None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        raise ValueError(f"restore_checkpoint: checkpoint {where} was not written by tfjs_grad")
    if manifest.get("version") != _VERSION:
        raise ValueError(
            f"restore_checkpoint: checkpoint {where} has format version "
            f"{manifest.get('version')}; this tfjs_grad reads version {_VERSION}"
        )
    entries, variables, optimizers = (manifest.get(k) for k in _SECTIONS)
    if not (
        isinstance(entries, dict)
        and isinstance(variables, dict)
        and isinstance(optimizers, list)
        and all(key in entries for key in variables.values())
        and all(
            isinstance(o, dict)
            and isinstance(o.get("names"), list)
            and isinstance(o.get("weights"), dict)
            and all(key in entries for key in o["weights"].values())
            for o in optimizers
        )
    ):
        raise ValueError(f"restore_checkpoint: the manifest of checkpoint {where} is malformed")
    return manifest


def _variable_targets(
    manifest: dict[str, Any], wanted: list[Variable] | None
) -> dict[str, Variable]:
    saved: dict[str, str] = manifest["variables"]
    if wanted is None:
        live = registered_variables()
        missing = [name for name in saved if name not in live]
        if missing:
            raise ValueError(
                f"restore_checkpoint: the checkpoint holds Variable '{missing[0]}', which is "
                "not live; create it first, or pass var_list to restore a subset"
            )
        return {key: live[name] for name, key in saved.items()}
    absent = [v.name for v in wanted if v.name not in saved]
    if absent:
        raise ValueError(
            f"restore_checkpoint: the checkpoint has no entry for Variable '{absent[0]}'"
        )
    return {saved[v.name]: v for v in wanted}


def _check_optimizer(
    j: int, opt: Optimizer, saved: dict[str, Any], live: dict[str, Variable]
) -> None:
    if saved["class_name"] != opt.class_name:
        raise ValueError(
            f"restore_checkpoint: optimizers[{j}] is {opt.class_name}, but the checkpoint "
            f"holds {saved['class_name']} state there"
        )
    missing = [n for n in saved["names"] if n not in live]
    if missing:
        raise ValueError(
            f"restore_checkpoint: optimizers[{j}] has state for Variable '{missing[0]}', "
            "which is not live"
        )
    extra = [n for n in opt._layout.names if n not in saved["names"]]
    if extra:
        raise ValueError(
            f"restore_checkpoint: optimizers[{j}] holds state for Variable '{extra[0]}', "
            "which the checkpoint lacks"
        )


def _check_entry(entry: dict[str, Any], var: Variable) -> None:
    shape, dtype = tuple(entry["shape"]), entry["dtype"]
    if shape != var.shape or dtype != _dtype(var.dtype):
        raise ValueError(
            f"restore_checkpoint: entry '{entry['name']}' has shape {shape} and dtype "
            f"{dtype} in the checkpoint, but Variable '{var.name}' has shape {var.shape} "
            f"and dtype {_dtype(var.dtype)}"
        )


def _check_stored_chunks(path: str, step: int, entries: dict[str, Any]) -> None:
    """Read every stored chunk once, so damage is reported before anything is loaded.

    Orbax reads shards concurrently; when one read fails the others are abandoned
    mid-flight (their errors surface later, at garbage collection) and the failure does
    not name the entry. One plain pass first gives a clean error naming the entry.
    """
    import tensorstore as ts

    state = f"{path}/{step}/state/"
    base = state if "://" in state else "file://" + state
    try:
        store = ts.KvStore.open({"driver": "ocdbt", "base": base}).result()
        keys = store.list().result()
    except Exception as e:
        raise ValueError(
            f"restore_checkpoint: the array index of checkpoint step {step} in '{path}' is "
            f"unreadable (truncated or missing file?): {e}"
        ) from None
    found: set[str] = set()
    for key in keys:
        name = key.decode().split("/", 1)[0]
        found.add(name)
        try:
            store.read(key).result()
        except Exception as e:
            label = entries[name]["name"] if name in entries else name
            raise ValueError(
                f"restore_checkpoint: entry '{label}' of checkpoint step {step} in '{path}' "
                f"is unreadable (truncated or missing file?): {e}"
            ) from None
    lost = [entries[k]["name"] for k in entries if k not in found]
    if lost:
        raise ValueError(
            f"restore_checkpoint: entry '{lost[0]}' is missing from checkpoint step {step} "
            f"in '{path}'"
        )


@contextlib.contextmanager
def _rolled_back_on_error(opts: list[Optimizer]) -> Iterator[None]:
    """Undo `_ensure_state` (new slot Variables) if a later check fails."""
    with contextlib.ExitStack() as stack:
        for opt in opts:
            opt._tracked()
            stack.enter_context(opt._transaction())
        yield


# -- reading ---------------------------------------------------------------------------
def _read_arrays(
    manager: ocp.CheckpointManager,
    step: int,
    path: str,
    entries: dict[str, Any],
    targets: dict[str, Variable],
) -> dict[str, Any]:
    """The arrays for `targets`, each on its Variable's pinned sharding, else its saved one.

    Arrays without a multi-device sharding come back uncommitted on the default device,
    like the value `tf.variable` makes from host data.
    """
    import orbax.checkpoint as ocp

    saved_shardings = _saved_shardings(manager, step, targets)
    item: dict[str, Any] = {}
    restore_args: dict[str, Any] = {}
    for key, var in targets.items():
        shape, dtype = tuple(entries[key]["shape"]), np.dtype(var.dtype)
        sharding = var._sharding or saved_shardings.get(key)
        item[key] = jax.ShapeDtypeStruct(shape, dtype, sharding=sharding)
        if sharding is None:
            restore_args[key] = ocp.RestoreArgs(restore_type=np.ndarray, dtype=dtype)
        else:
            restore_args[key] = ocp.ArrayRestoreArgs(
                sharding=sharding, global_shape=shape, dtype=dtype
            )
    try:
        restored = manager.restore(
            step,
            args=ocp.args.Composite(
                state=ocp.args.PyTreeRestore(item, restore_args, partial_restore=True)
            ),
        )["state"]
    except Exception as e:
        raise ValueError(
            f"restore_checkpoint: the arrays of checkpoint step {step} in '{path}' are "
            f"unreadable: {e}"
        ) from None
    return {
        key: jnp.asarray(value) if isinstance(value, np.ndarray) else value
        for key, value in restored.items()
    }


def _saved_shardings(
    manager: ocp.CheckpointManager, step: int, targets: dict[str, Variable]
) -> dict[str, jax.sharding.Sharding]:
    """Saved multi-device shardings this process can rebuild, for unpinned targets."""
    if all(var._sharding is not None for var in targets.values()):
        return {}
    try:
        metadata = manager.item_metadata(step)["state"]
    except Exception:  # the shardings are a layout hint; the values are checked elsewhere
        return {}
    out = {}
    for key, var in targets.items():
        if var._sharding is not None or key not in metadata:
            continue
        try:
            sharding = metadata[key].sharding.to_jax_sharding()
        except Exception:  # saved on devices this process does not have
            continue
        if len(sharding.device_set) > 1:
            out[key] = sharding
    return out


@contextlib.contextmanager
def _manager(path: str, *, read_only: bool) -> Iterator[ocp.CheckpointManager]:
    import orbax.checkpoint as ocp

    # Restoring opens the manager without orbax's `read_only` (which only adds a warning);
    # it never saves, so nothing is written either way.
    options = ocp.CheckpointManagerOptions(
        enable_async_checkpointing=False,
        create=not read_only,
        cleanup_tmp_directories=not read_only,
    )
    manager = ocp.CheckpointManager(
        path,
        item_handlers={
            "state": ocp.PyTreeCheckpointHandler(),
            "manifest": ocp.JsonCheckpointHandler(),
        },
        options=options,
    )
    try:
        yield manager
    finally:
        manager.close()
