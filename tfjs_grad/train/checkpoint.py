"""`save_checkpoint` / `restore_checkpoint`: Variables and optimizer state on disk.

Storage is orbax-checkpoint's. A step is the directory `<directory>/<step>/` with two
items: `state/` (every array, in tensorstore's OCDBT format, written shard by shard by
the processes that hold the shards) and `manifest/` (JSON naming each entry, its shape
and dtype, and which optimizer state it is; see `_manifest`). Orbax writes a step into
`<step>.orbax-checkpoint-tmp/` and renames it once complete, so a crash mid-write leaves
earlier steps intact and the unfinished one is never listed. A save holds an exclusive
`flock` on the directory and a restore a shared one (as `tf.io` does), so independent
processes saving into one directory take turns.

Restoring trusts nothing it reads and checks everything before it writes anything: the
manifest against its schema (every entry used once); every stored chunk is read once,
so a truncated or missing file is reported with the entry it belongs to; each array's
real shape and dtype, from the array store's own metadata, against the manifest and
against the Variable it goes to; then the arrays are read onto their shardings and
checked again; only then are the Variables assigned. Nothing in a checkpoint is
executed: the manifest is JSON and the arrays are raw tensorstore chunks (no pickle).
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
from .._filelock import locked
from ..variables import (
    Variable,
    as_var_list,
    check_alive,
    pin_sharding,
    pinned_sharding,
    registered_variables,
    write,
)
from . import _manifest
from ._chunks import check_chunks
from ._manifest import Entry, Manifest, SavedOptimizer, dtype_name
from ._optimizer import (
    Optimizer,
    check_usable,
    owned_variables,
    track,
    tracked_names,
    transaction,
)

if TYPE_CHECKING:  # orbax is imported on first use: it is a fifth of `import tfjs_grad`
    import orbax.checkpoint as ocp


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
    owned = {v.id: j for j, opt in enumerate(opts) for v in owned_variables(opt).values()}
    if var_list is None:
        variables = [v for v in registered_variables().values() if v.id not in owned]
    else:
        variables = _variables(var_list, "save_checkpoint")
        for v in variables:
            if v.id in owned:
                raise ValueError(
                    f"save_checkpoint: Variable '{v.name}' is state of optimizers"
                    f"[{owned[v.id]}], which saves it; leave it out of var_list"
                )
    if step is not None:
        _check_step(step, "save_checkpoint")

    arrays: dict[str, Any] = {}
    entries: dict[str, Entry] = {}

    def add(key: str, name: str, var: Variable) -> str:
        if var.size == 0:
            raise ValueError(
                f"save_checkpoint: Variable '{var.name}' has no elements (shape "
                f"{var.shape}); orbax cannot store empty arrays"
            )
        arrays[key] = var.raw()
        entries[key] = Entry(key, name, var.shape, np.dtype(var.dtype))
        return key

    saved_variables = {v.name: add(f"v{i}", v.name, v) for i, v in enumerate(variables)}
    saved_optimizers = [
        SavedOptimizer(
            opt.class_name,
            tracked_names(opt),
            {
                label: add(f"o{j}_{k}", f"optimizers[{j}]/{label}", var)
                for k, (label, var) in enumerate(owned_variables(opt).items())
            },
        )
        for j, opt in enumerate(opts)
    ]
    manifest = _manifest.build(entries, saved_variables, saved_optimizers)
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
    `optimizers[i]` gets the state saved for the i-th optimizer: slots (for the live
    Variables of the names it tracked, created if needed), counters, learning rate and
    iterations. A Variable with a pinned sharding (`tf.variable(..., sharding=)`) keeps
    it; any other gets the sharding it was saved with when this process has those
    devices. All-or-nothing: a malformed or ambiguous manifest, a missing entry, a stored
    array whose real shape or dtype differs from its target's, or a truncated file raises
    ValueError naming the entry, and nothing changes. With several processes, every
    process calls this with the same arguments. Returns the step restored.
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
        where = f"step {step} in '{path}'"
        manifest = _manifest.parse(_read_manifest(manager, step, where), where)
        _check_stored_arrays(path, step, manifest.entries)
        targets = _variable_targets(manifest, wanted)
        if len(opts) > len(manifest.optimizers):
            raise ValueError(
                f"restore_checkpoint: {len(opts)} optimizers given, but step {step} holds "
                f"state for {len(manifest.optimizers)}"
            )
        live = registered_variables()
        for j, (opt, saved) in enumerate(zip(opts, manifest.optimizers)):
            _check_optimizer(j, opt, saved, live)
        for key, var in targets.items():
            _check_entry(manifest.entries[key], var)
        with _rolled_back_on_error(opts):
            for opt, saved in zip(opts, manifest.optimizers):
                track(opt, [live[n] for n in saved.names])
            for j, (opt, saved) in enumerate(zip(opts, manifest.optimizers)):
                weights = owned_variables(opt)
                if set(weights) != set(saved.weights):
                    raise ValueError(
                        f"restore_checkpoint: optimizers[{j}] has state "
                        f"{sorted(weights)}, but the checkpoint holds "
                        f"{sorted(saved.weights)}"
                    )
                for label, key in saved.weights.items():
                    _check_entry(manifest.entries[key], weights[label])
                    targets[key] = weights[label]
            _check_distinct_targets(targets, manifest.entries)
            values = _read_arrays(manager, step, path, manifest.entries, targets) if targets else {}
    for key, var in targets.items():
        value = values[key]
        if pinned_sharding(var) is None:
            pin_sharding(var, _multi_device(value))
        write(var, value)
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
    if optimizers is None:  # JS undefined: the default, no optimizers
        return []
    if isinstance(optimizers, Optimizer):
        optimizers = [optimizers]
    if not isinstance(optimizers, (list, tuple)) or not all(
        isinstance(o, Optimizer) for o in optimizers
    ):
        raise TypeError(f"Argument 'optimizers' passed to '{fn}' must be a list of Optimizers")
    for opt in optimizers:
        check_usable(opt)
    return list(optimizers)


def _variables(var_list: Any, fn: str) -> list[Variable]:
    for v in as_var_list(var_list, fn):
        check_alive(v)
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


def _multi_device(value: Any) -> jax.sharding.Sharding | None:
    return value.sharding if len(value.sharding.device_set) > 1 else None


# -- checks (nothing is written until all pass) ----------------------------------------
def _read_manifest(manager: ocp.CheckpointManager, step: int, where: str) -> Any:
    import orbax.checkpoint as ocp

    try:
        restored = manager.restore(step, args=ocp.args.Composite(manifest=ocp.args.JsonRestore()))
        return restored["manifest"]
    except Exception as e:
        raise ValueError(
            f"restore_checkpoint: the manifest of checkpoint {where} is unreadable "
            f"(truncated or corrupt file?): {e}"
        ) from None


def _variable_targets(manifest: Manifest, wanted: list[Variable] | None) -> dict[str, Variable]:
    saved = manifest.variables
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
    j: int, opt: Optimizer, saved: SavedOptimizer, live: dict[str, Variable]
) -> None:
    if saved.class_name != opt.class_name:
        raise ValueError(
            f"restore_checkpoint: optimizers[{j}] is {opt.class_name}, but the checkpoint "
            f"holds {saved.class_name} state there"
        )
    missing = [n for n in saved.names if n not in live]
    if missing:
        raise ValueError(
            f"restore_checkpoint: optimizers[{j}] has state for Variable '{missing[0]}', "
            "which is not live"
        )
    extra = [n for n in tracked_names(opt) if n not in saved.names]
    if extra:
        raise ValueError(
            f"restore_checkpoint: optimizers[{j}] holds state for Variable '{extra[0]}', "
            "which the checkpoint lacks"
        )


def _check_entry(entry: Entry, var: Variable) -> None:
    """`entry`'s shape and dtype (already checked against the stored array's) are `var`'s."""
    if entry.shape != var.shape or entry.dtype != np.dtype(var.dtype):
        raise ValueError(
            f"restore_checkpoint: entry '{entry.name}' has shape {entry.shape} and dtype "
            f"{dtype_name(entry.dtype)} in the checkpoint, but Variable '{var.name}' has "
            f"shape {var.shape} and dtype {dtype_name(var.dtype)}"
        )


def _check_distinct_targets(targets: dict[str, Variable], entries: dict[str, Entry]) -> None:
    by_variable: dict[int, str] = {}
    for key, var in targets.items():
        if var.id in by_variable:
            first = entries[by_variable[var.id]].name
            raise ValueError(
                f"restore_checkpoint: entries '{first}' and '{entries[key].name}' would both "
                f"be restored into Variable '{var.name}'"
            )
        by_variable[var.id] = key


def _check_stored_arrays(path: str, step: int, entries: dict[str, Entry]) -> None:
    """Read every stored chunk once, and each array's real shape and dtype from the array
    store's own metadata: damage and disagreement are reported, naming the entry, before
    anything is loaded.

    Orbax reads shards concurrently; when one read fails the others are abandoned
    mid-flight (their errors surface later, at garbage collection) and the failure does
    not name the entry. One plain pass first gives a clean error naming the entry.
    """
    import tensorstore as ts

    state = f"{path}/{step}/state/"
    base = state if "://" in state else "file://" + state
    where = f"checkpoint step {step} in '{path}'"
    try:
        store = ts.KvStore.open({"driver": "ocdbt", "base": base}).result()
        keys = [key.decode() for key in store.list().result()]
    except Exception as e:
        raise ValueError(
            f"restore_checkpoint: the array index of {where} is unreadable (truncated or "
            f"missing file?): {e}"
        ) from None
    drivers: dict[str, str] = {}
    for key in keys:
        name, _, leaf = key.partition("/")
        if leaf in (".zarray", "zarr.json"):
            drivers[name] = "zarr" if leaf == ".zarray" else "zarr3"
        label = entries[name].name if name in entries else name
        try:
            value = store.read(key).result().value
        except Exception as e:
            raise ValueError(
                f"restore_checkpoint: entry '{label}' of {where} is unreadable (truncated or "
                f"missing file?): {e}"
            ) from None
        if leaf in (".zarray", "zarr.json"):
            check_chunks(bytes(value), label, where)
    lost = [e.name for key, e in entries.items() if key not in drivers]
    if lost:
        raise ValueError(f"restore_checkpoint: entry '{lost[0]}' is missing from {where}")
    opening = {
        key: ts.open(
            {"driver": drivers[key], "kvstore": {"driver": "ocdbt", "base": base, "path": key}},
            open=True,
        )
        for key in entries
    }
    for key, future in opening.items():
        entry = entries[key]
        try:
            array = future.result()
            shape, dtype = tuple(array.shape), np.dtype(array.dtype.numpy_dtype)
        except Exception as e:
            raise ValueError(
                f"restore_checkpoint: the stored array of entry '{entry.name}' in {where} is "
                f"unreadable: {e}"
            ) from None
        if (shape, dtype) != (entry.shape, entry.dtype):
            raise ValueError(
                f"restore_checkpoint: entry '{entry.name}' claims shape {entry.shape} and dtype "
                f"{dtype_name(entry.dtype)} in the manifest of {where}, but its stored array "
                f"has shape {shape} and dtype {dtype_name(dtype)}"
            )


@contextlib.contextmanager
def _rolled_back_on_error(opts: list[Optimizer]) -> Iterator[None]:
    """Undo `_ensure_state` (new slot Variables) if a later check fails."""
    with contextlib.ExitStack() as stack:
        for opt in opts:
            stack.enter_context(transaction(opt))
        yield


# -- reading ---------------------------------------------------------------------------
def _read_arrays(
    manager: ocp.CheckpointManager,
    step: int,
    path: str,
    entries: dict[str, Entry],
    targets: dict[str, Variable],
) -> dict[str, Any]:
    """The arrays for `targets`, each on its Variable's pinned sharding, else its saved one,
    each checked once more for its Variable's shape and dtype.

    Arrays without a multi-device sharding come back uncommitted on the default device,
    like the value `tf.variable` makes from host data.
    """
    import orbax.checkpoint as ocp

    saved_shardings = _saved_shardings(manager, step, targets)
    item: dict[str, Any] = {}
    restore_args: dict[str, Any] = {}
    for key, var in targets.items():
        shape, dtype = var.shape, np.dtype(var.dtype)
        sharding = pinned_sharding(var) or saved_shardings.get(key)
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
    values = {}
    for key, var in targets.items():
        value = restored.get(key) if isinstance(restored, dict) else None
        if value is None or (tuple(value.shape), value.dtype) != (var.shape, var.dtype):
            raise ValueError(
                f"restore_checkpoint: entry '{entries[key].name}' of checkpoint step {step} in "
                f"'{path}' did not read back as Variable '{var.name}''s shape and dtype"
            )
        values[key] = jnp.asarray(value) if isinstance(value, np.ndarray) else value
    return values


def _saved_shardings(
    manager: ocp.CheckpointManager, step: int, targets: dict[str, Variable]
) -> dict[str, jax.sharding.Sharding]:
    """Saved multi-device shardings this process can rebuild, for unpinned targets."""
    if all(pinned_sharding(var) is not None for var in targets.values()):
        return {}
    try:
        metadata = manager.item_metadata(step)["state"]
    except Exception:  # the shardings are a layout hint; the values are checked elsewhere
        return {}
    out = {}
    for key, var in targets.items():
        if pinned_sharding(var) is not None or key not in metadata:
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
    with contextlib.ExitStack() as stack:
        if "://" not in path and jax.process_count() == 1:
            # Independent processes saving into one directory take turns (the processes of
            # one multi-process run write together instead, coordinated by orbax).
            if not read_only:
                os.makedirs(path, exist_ok=True)
            stack.enter_context(locked(path, exclusive=not read_only))
        yield stack.enter_context(_orbax_manager(path, read_only=read_only))


@contextlib.contextmanager
def _orbax_manager(path: str, *, read_only: bool) -> Iterator[ocp.CheckpointManager]:
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
