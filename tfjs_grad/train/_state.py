"""An optimizer's state layout: which Variables it tracks and which Variables hold the
leaves of its optax state, as records; and how the layout is rebuilt when that set changes.

Per-variable state is every dict keyed by exactly the tracked names (except the
hyperparameter dicts of `optax.inject_hyperparams`); everything else is shared state.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
from jax.tree_util import DictKey, GetAttrKey

from ..variables import Variable, concrete_value
from ._validation import aval_text, shape_and_dtype

_versions = itertools.count(1)
SHARED = -1  # the owner of a state entry that belongs to no one Variable


class Tracked(NamedTuple):
    """A Variable an optimizer keeps state for: by identity, and by the name that keys it
    in the optax params and state."""

    uid: int
    name: str


class StateEntry(NamedTuple):
    """One leaf of the optax state and the Variable that holds it."""

    var: Variable
    owner: int  # index into StateLayout.tracked, or SHARED (counters, the learning rate)
    path: Any  # the leaf's key path in the optax state


@dataclass(frozen=True)
class StateLayout:
    """Which Variables an optimizer tracks, and the Variables holding its optax state
    (`treedef` None until the state is built; `version` names it in compile caches)."""

    tracked: tuple[Tracked, ...] = ()
    entries: tuple[StateEntry, ...] = ()  # in the optax state's flattening order
    treedef: Any = None
    version: int = 0

    @functools.cached_property
    def uids(self) -> tuple[int, ...]:
        return tuple(t.uid for t in self.tracked)

    @functools.cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(t.name for t in self.tracked)

    @functools.cached_property
    def leaves(self) -> tuple[Variable, ...]:
        """The state Variables, in flattening order."""
        return tuple(e.var for e in self.entries)

    def state(self) -> Any:
        """The optax state's structure with its Variables as leaves (None before it exists)."""
        return None if self.treedef is None else jax.tree.unflatten(self.treedef, self.leaves)


def initial_values(variables: Sequence[Variable]) -> dict[str, Any]:
    """The values to initialise state from: concrete buffers where they exist."""
    return {v.name: concrete_value(v) for v in variables}


def owners(shapes: Any, paths: list[Any], names: tuple[str, ...]) -> list[int]:
    """Per leaf path: the index of the variable it belongs to, or SHARED."""
    wanted = set(names)
    if not wanted:
        return [SHARED] * len(paths)
    keyed = lambda x: isinstance(x, dict) and set(x) == wanted  # noqa: E731
    nodes = jax.tree_util.tree_flatten_with_path(shapes, is_leaf=keyed)[0]
    per_variable = {
        path
        for path, node in nodes
        if keyed(node)
        and not (
            path
            and isinstance(path[-1], GetAttrKey)
            and path[-1].name in ("hyperparams", "hyperparams_states")
        )
    }
    index = {n: i for i, n in enumerate(names)}
    found = []
    for path in paths:
        owner = SHARED
        for i in range(len(path)):
            if path[:i] in per_variable and isinstance(path[i], DictKey):
                owner = index[path[i].key]
                break
        found.append(owner)
    return found


def _path_parts(path: Any) -> list[str]:
    parts = []
    for key in path:
        for attr in ("name", "key", "idx"):
            if hasattr(key, attr):
                parts.append(str(getattr(key, attr)))
                break
    return parts


def label(path: Any, owner: int, names: tuple[str, ...], skips: frozenset[str]) -> str:
    """A state leaf's label: '<variable>/<path>' for per-variable state, else '<path>'."""
    parts = _path_parts(path)
    if owner >= 0:
        at = next(i for i, k in enumerate(path) if isinstance(k, DictKey) and k.key == names[owner])
        parts = parts[:at] + parts[at + 1 :]
    parts = [p for p in parts if p not in skips]
    text = "/".join(parts) or "state"
    return f"{names[owner]}/{text}" if owner >= 0 else text


def rebuilt(
    before: StateLayout,
    tx: Any,
    variables: list[Variable],
    values: Callable[[], dict[str, Any]],
    fresh: Any,
    *,
    slot: Callable[[str, Any], Variable],
    label_of: Callable[[Variable], str],
    where: str,
    skips: frozenset[str],
) -> StateLayout:
    """The state over `variables`: entries that stay keep their Variables, new entries get
    Variables (`slot(label, value)`) holding `tx.init`'s values, the rest are disposed.
    `fresh`: the state already initialised, if the caller has it."""
    tracked = tuple(Tracked(v.id, v.name) for v in variables)
    names = tuple(t.name for t in tracked)
    if fresh is None:
        avals = {v.name: jax.ShapeDtypeStruct(v.shape, v.dtype) for v in variables}
        shapes = jax.eval_shape(tx.init, avals)
    else:
        shapes = fresh
    flat, treedef = jax.tree_util.tree_flatten_with_path(shapes)
    paths = [path for path, _ in flat]
    owner_of = owners(shapes, paths, names)
    # A leaf is the same entry as before when its path and its owner's identity are.
    old = {
        (before.tracked[e.owner].uid if e.owner >= 0 else SHARED, e.path): e.var
        for e in before.entries
    }
    keys = [(tracked[o].uid if o >= 0 else SHARED, path) for path, o in zip(paths, owner_of)]
    for key, (_, aval) in zip(keys, flat):
        kept = old.get(key)
        if kept is not None and shape_and_dtype(aval) != (kept.shape, kept.dtype):
            raise ValueError(
                f"{where}: state entry '{label_of(kept)}' is "
                f"{aval_text(kept.shape, kept.dtype)}, but the transformation now makes "
                f"it {aval_text(*shape_and_dtype(aval))}; give optax.inject_hyperparams "
                "a hyperparam_dtype"
            )
    if any(key not in old for key in keys):
        init = fresh if fresh is not None else tx.init(values())
        init_leaves = jax.tree.leaves(init)
    else:
        init_leaves = [None] * len(keys)
    entries: list[StateEntry] = []
    try:
        for key, path, owner, value in zip(keys, paths, owner_of, init_leaves):
            var = old[key] if key in old else slot(label(path, owner, names, skips), value)
            entries.append(StateEntry(var, owner, path))
    except BaseException:  # e.g. a name taken: nothing changes
        for entry in entries:
            if all(entry.var is not kept for kept in before.leaves):
                entry.var.dispose()
        raise
    kept_ids = {id(e.var) for e in entries}
    for var in before.leaves:
        if id(var) not in kept_ids:
            var.dispose()
    return StateLayout(tracked, tuple(entries), treedef, next(_versions))


def discard_since(current: StateLayout, saved: StateLayout) -> None:
    """Dispose the state Variables `current` has and `saved` lacks (a rollback)."""
    kept = {id(v) for v in saved.leaves}
    for var in current.leaves:
        if id(var) not in kept:
            var.dispose()
