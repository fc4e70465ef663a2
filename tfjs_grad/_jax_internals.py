"""Every use of JAX's private modules, in one place, each with a public fallback.

JAX does not promise these names. `tests/test_jax_internals.py` checks each one on the
installed JAX (and fails loudly if it moved, rather than letting the library degrade
silently) and runs every fallback, so both paths stay correct.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer


def _private_trace_state_clean() -> Callable[[], bool] | None:
    try:
        from jax._src.core import trace_state_clean
    except ImportError:  # pragma: no cover - exercised by the fallback test
        return None
    return trace_state_clean


def _public_tracing() -> bool:
    # Under jax.jit every primitive applied to constants is staged out as a tracer.
    # (Under vmap/grad alone this cannot tell; callers also check their arguments.)
    return isinstance(jax.lax.add(np.float32(0), np.float32(0)), Tracer)


_trace_state_clean = _private_trace_state_clean()


def tracing() -> bool:
    """Whether a JAX transform (jit, vmap, grad, scan, ...) is tracing right now."""
    if _trace_state_clean is None:  # pragma: no cover - other JAX versions
        return _public_tracing()
    return not _trace_state_clean()


def _private_trace_context() -> Any:
    try:
        from jax._src.core import trace_ctx
    except ImportError:  # pragma: no cover - exercised by the fallback test
        return None
    return trace_ctx if hasattr(trace_ctx, "trace") else None


_trace_ctx = _private_trace_context()


def trace_kinds() -> list[str] | None:
    """The class names of the active JAX traces, innermost first ("BatchTrace" for vmap,
    "DynamicJaxprTrace" for jit, scan, make_jaxpr, ...), "EvalTrace" last; None when this
    JAX does not say.

    >>> import jax
    >>> from tfjs_grad._jax_internals import trace_kinds
    >>> seen = []
    >>> jax.vmap(lambda x: seen.append(trace_kinds()) or x)(jax.numpy.ones(2))
    Array([1., 1.], dtype=float32)
    >>> seen
    [['BatchTrace', 'EvalTrace']]
    """
    if _trace_ctx is None:
        return None
    kinds, trace = [], _trace_ctx.trace
    while trace is not None and len(kinds) < 256:
        kinds.append(type(trace).__name__)
        trace = getattr(trace, "parent_trace", None)
    return kinds


def _private_tracer() -> Callable[..., Any] | None:
    """JAX's tracer entry point (saves ~100 us per eager step), or None if it moved."""
    try:
        from jax._src import api_util, core
        from jax._src import linear_util as lu
        from jax._src.interpreters import partial_eval as pe
        from jax.extend.core import ClosedJaxpr, DebugInfo
    except ImportError:  # pragma: no cover - other JAX versions
        return None

    def trace(fn: Callable[..., Any], avals: Sequence[Any], source: Any = None) -> Any:
        # JAX names `source` in errors raised while tracing ("while tracing the function
        # loss at train.py:12"); built directly, it skips inspect.signature per call.
        debug = DebugInfo("tfjs_grad", api_util.fun_sourceinfo(source or fn), None, None)
        jaxpr, _, consts = pe.trace_to_jaxpr_dynamic(lu.wrap_init(fn, debug_info=debug), avals)
        return ClosedJaxpr(jaxpr, consts)

    try:  # a JAX release that changed these signatures falls back to the public path
        trace(lambda x: [x * 2], [core.ShapedArray((), jnp.float32)])
    except Exception:  # pragma: no cover - other JAX versions
        return None
    return trace


def _public_trace_to_jaxpr(fn: Callable[..., Any], avals: Sequence[Any], source: Any = None) -> Any:
    specs = [jax.ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in avals]
    return jax.make_jaxpr(fn)(*specs)


_private_trace = _private_tracer()


def trace_to_jaxpr(fn: Callable[..., Any], avals: Sequence[Any], source: Any = None) -> Any:
    """`jax.make_jaxpr(fn)` on abstract values, as a ClosedJaxpr (fn returns a list).

    `source` is the user function that errors raised while tracing should name."""
    if _private_trace is None:  # pragma: no cover - other JAX versions
        return _public_trace_to_jaxpr(fn, avals, source)
    return _private_trace(fn, avals, source)


RULE_PARAMS = ("jvp_jaxpr_fun", "jvp_jaxpr_thunk", "fwd_jaxpr_thunk", "bwd")


def custom_rule_functions(params: dict[str, Any]) -> list[Callable[..., Any]] | None:
    """The Python functions behind a custom_jvp/custom_vjp equation's rules.

    JAX keeps the rules in per-trace thunks (`WrappedFun`s wrapping memoizing
    closures); this walks those closures and returns every function found: the rule the
    user defined, and whatever it closes over (`defjvps` wraps the user's per-argument
    rules in a closure of JAX's). None when the parameters hold no rule we recognise.
    """
    found: dict[int, Callable[..., Any]] = {}

    def visit(obj: Any, depth: int) -> None:
        if depth > 6 or id(obj) in found:
            return
        inner = getattr(obj, "f", None)  # a WrappedFun
        if inner is not None and type(obj).__name__ == "WrappedFun":
            visit(inner, depth + 1)
            return
        if isinstance(obj, (tuple, list)):
            for item in obj:
                visit(item, depth + 1)
            return
        func = getattr(obj, "func", None)  # functools.partial
        if func is not None and callable(func):
            visit(func, depth + 1)
            visit(getattr(obj, "args", ()), depth + 1)
            return
        code = getattr(obj, "__code__", None)
        if code is None:
            return
        found[id(obj)] = obj
        for cell in getattr(obj, "__closure__", None) or ():
            try:
                content = cell.cell_contents
            except ValueError:  # an empty cell
                continue
            if (
                callable(content)
                or isinstance(content, (tuple, list))
                or type(content).__name__ == "WrappedFun"
            ):
                visit(content, depth + 1)

    for name in RULE_PARAMS:
        if name in params:
            visit(params[name], 0)
    return list(found.values()) or None


def _private_staging() -> Callable[[], bool] | None:
    try:
        from jax._src.core import trace_ctx
        from jax._src.interpreters.partial_eval import DynamicJaxprTrace
    except ImportError:  # pragma: no cover - other JAX versions
        return None
    return lambda: isinstance(trace_ctx.trace, DynamicJaxprTrace)


_staging = _private_staging()


def staging() -> bool:
    """Whether the innermost transform stages a program (jit, scan, cond, make_jaxpr, ...),
    rather than running op by op on values (eager grad, vmap)."""
    if _staging is None:  # pragma: no cover - other JAX versions
        return _public_tracing()
    return _staging()


# -- reading concrete values through differentiation tracers -----------------------------
# `float(x)` and `np.asarray(x)` of a tracer that carries a concrete primal (jax.linearize
# on real values) raise, while `bool(x)`, `int(x)` and `.item()` read the primal. Inside
# `concrete_reads()` all of them read it (the result is a constant, as bool's is).
_reading_concretely: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "tfjs_grad_concrete_reads", default=False
)
_installed: list[bool] = []


def _concrete(x: Any) -> Any:
    if not _reading_concretely.get():
        return None
    try:
        return x.to_concrete_value()
    except Exception:  # pragma: no cover - a tracer type without the method
        return None


def _install_concrete_reads() -> None:
    float_, complex_, array_ = Tracer.__float__, Tracer.__complex__, Tracer.__array__

    def __float__(self: Any) -> float:  # noqa: N807
        value = _concrete(self)
        return float_(self) if value is None else float(value)

    def __complex__(self: Any) -> complex:  # noqa: N807
        value = _concrete(self)
        return complex_(self) if value is None else complex(value)

    def __array__(self: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N807
        value = _concrete(self)
        if value is None:
            return array_(self, *args, **kwargs)
        return np.asarray(value, *args[:1], **{k: v for k, v in kwargs.items() if k != "copy"})

    Tracer.__float__ = __float__  # type: ignore[method-assign]
    Tracer.__complex__ = __complex__  # type: ignore[method-assign]
    Tracer.__array__ = __array__  # type: ignore[method-assign]
    _installed.append(True)


@contextlib.contextmanager
def concrete_reads() -> Iterator[None]:
    """Let `float()`, `complex()` and `np.asarray()` read a tracer's concrete value, in
    this context only (the concrete gradient path runs the user's f inside it)."""
    if not _installed:
        _install_concrete_reads()
    token = _reading_concretely.set(True)
    try:
        yield
    finally:
        _reading_concretely.reset(token)


# jax.Array's binary operators (`x + t`, `x @ t`, `x == t`) live in this module as
# `_operator_<name>` functions; each asks the other operand for `__jax_array__` first.
_ARRAY_METHODS = "jax._src.numpy.array_methods"


def asked_by_jax_operator(frame: Any) -> bool:
    """Whether `frame` (the code reading a Tensor's `__jax_array__`) is one of jax.Array's
    binary operators applied to a concrete array (`jnp_array @ t`, `np_array + t` goes through
    numpy's own deferral). Hiding the attribute from it makes the operator return
    NotImplemented, so Python calls the Tensor's reflected operator, the tf op. With a JAX
    tracer on the left (inside the user's own jax.jit/grad/vmap) JAX's operator stays, so
    `jax.grad(lambda x: x * t)` still returns an array. Elsewhere (`jnp.*`, `lax.*`) the
    attribute converts as usual; on another JAX layout this answers False and the operator
    is JAX's, as before."""
    return (
        frame is not None
        and frame.f_code.co_name.startswith("_operator_")
        and frame.f_globals.get("__name__") == _ARRAY_METHODS
        and not isinstance(frame.f_locals.get("self"), Tracer)
    )
