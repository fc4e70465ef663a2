"""One optimizer step as a pure function of flat lists of arrays (what gets compiled),
and the fused eager `minimize`: the loss's vjp and the update in one program."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax

from .. import _trace
from ..gradients import LossProgram
from ..variables import Variable
from ._state import StateLayout
from ._validation import check_updates, checked_state


def update_fn(
    tx: optax.GradientTransformation,
    layout: StateLayout,
    has_grad: tuple[bool, ...],
    labels: Sequence[str],
) -> Callable[..., Any]:
    """`update(params, grads, state, count) -> (new params, new state, count + 1)`, where
    `params` and `state` follow `layout` and `grads` holds one gradient per tracked
    Variable with `has_grad`. The others get zero gradients, and keep their values and
    their per-variable state (`labels`: each state entry's, for errors)."""
    treedef, names = layout.treedef, layout.names
    updated_names = [n for n, g in zip(names, has_grad) if g]
    # state entries of the Variables without a gradient: kept exactly as they were
    kept_entries = {
        i for i, e in enumerate(layout.entries) if e.owner >= 0 and not has_grad[e.owner]
    }

    def update(params: list[Any], grads: list[Any], state: list[Any], count: Any) -> Any:
        by_name = dict(zip(names, params))
        supplied = iter(grads)
        full_grads = {
            n: next(supplied) if g else jnp.zeros_like(by_name[n]) for n, g in zip(names, has_grad)
        }
        updates: Any
        updates, new_state = tx.update(full_grads, jax.tree.unflatten(treedef, state), by_name)
        check_updates(updates, by_name, updated_names)
        new_leaves = checked_state(new_state, treedef, state, labels)
        new_leaves = [
            old if i in kept_entries else new for i, (new, old) in enumerate(zip(new_leaves, state))
        ]
        new_params: Any = optax.apply_updates(
            {n: by_name[n] for n in updated_names}, {n: updates[n] for n in updated_names}
        )
        return [new_params[n] for n in updated_names], new_leaves, count + 1

    return update


class FusedPlan(NamedTuple):
    """Where a fused eager step finds each array (static: part of its cache key).

    Positions are (donated?, index) into the donated or the kept list."""

    xs: tuple[tuple[bool, int] | None, ...]  # the loss's inputs (None: not needed)
    params: tuple[tuple[bool, int], ...]  # every tracked Variable, in state order
    grads: tuple[int, ...]  # per Variable with a gradient: its index among the loss's
    leaves: tuple[int, int]  # the state leaves' range in the donated list (then iter)


class FusedStep(NamedTuple):
    """A fused step's plan, and where its Variables are found on every call.

    It holds no Variable: `updated` and `read` are positions, among the tracked Variables
    and among `[*loss.trainable, *tracked]`, fixed by what the plan is cached under (the
    state layout's version, which names the tracked Variables, and the loss's trainable
    ones), so a cached plan keeps nothing alive and finds the same Variables again."""

    plan: FusedPlan
    has_grad: tuple[bool, ...]
    updated: tuple[int, ...]  # the tracked Variables with a gradient: donated, written
    read: tuple[int, ...]  # the Variables only read

    def variables(
        self,
        trainable: Sequence[Variable],
        tracked: Sequence[Variable],
        layout: StateLayout,
        iterations: Variable,
    ) -> tuple[list[Variable], list[Variable]]:
        """(the Variables the step donates and writes, in order; those it only reads)."""
        written = [tracked[i] for i in self.updated]
        written += layout.leaves
        written.append(iterations)
        if not self.read:
            return written, []
        pool = [*trainable, *tracked]
        return written, [pool[i] for i in self.read]


def plan_fused_step(
    loss: LossProgram, tracked: list[Variable], layout: StateLayout, iterations: Variable
) -> FusedStep:
    """Lay out one fused step over the loss's inputs, the tracked Variables and the state."""
    graded = {v.id: i for i, v in enumerate(loss.connected)}
    has_grad = tuple(v.id in graded for v in tracked)
    updated = tuple(i for i, g in enumerate(has_grad) if g)
    written = [tracked[i] for i in updated]
    written += [*layout.leaves, iterations]
    where = {v.id: (True, i) for i, v in enumerate(written)}
    pool: dict[int, int] = {}  # where each Variable is first found on later calls
    for i, v in enumerate([*loss.trainable, *tracked]):
        pool.setdefault(v.id, i)
    read: list[int] = []

    def place(var: Variable) -> tuple[bool, int]:
        if var.id not in where:
            where[var.id] = (False, len(read))
            read.append(pool[var.id])
        return where[var.id]

    n_grads = len(updated)
    plan = FusedPlan(
        xs=tuple(place(v) if n else None for v, n in zip(loss.trainable, loss.program.needed)),
        params=tuple(place(v) for v in tracked),
        grads=tuple(graded[v.id] for v, g in zip(tracked, has_grad) if g),
        leaves=(n_grads, n_grads + len(layout.leaves)),
    )
    return FusedStep(plan, has_grad, updated, tuple(read))


def fused_step(
    update: Callable[..., Any], program: _trace.Program, plan: FusedPlan
) -> Callable[..., Any]:
    """`step(donated, kept, consts) -> (new values of the donated arrays, loss value)`."""
    jaxpr, connected = program.jaxpr, program.connected

    def step(donated: list[Any], kept: list[Any], consts: list[Any]) -> Any:
        def pick(at: tuple[bool, int]) -> Any:
            return donated[at[1]] if at[0] else kept[at[1]]

        xs = [None if at is None else pick(at) for at in plan.xs]
        value, grads, _ = _trace.vjp_of_program(jaxpr, connected, False, consts, xs, None)
        first, last = plan.leaves
        new_params, new_state, new_count = update(
            [pick(at) for at in plan.params],
            [grads[i] for i in plan.grads],
            donated[first:last],
            donated[last],
        )
        # new state first: JAX pairs each donated input with the first output of its shape
        # and dtype, so a scalar loss in front would take a scalar state leaf's buffer
        return [*new_params, *new_state, new_count], value

    return step
