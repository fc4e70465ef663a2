"""Every use of JAX's private modules, in one place, each with a public fallback.

JAX does not promise these names. `tests/test_jax_internals.py` checks each one on the
installed JAX (and fails loudly if it moved, rather than letting the library degrade
silently) and runs every fallback, so both paths stay correct.
"""

from __future__ import annotations

import contextlib
import operator
import os
import site
import sysconfig
from collections.abc import Callable, Sequence
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


def _private_staging_caches() -> Any:
    try:
        from jax._src.util import _caches  # cache -> what it caches, for clear_caches
    except ImportError:  # pragma: no cover - exercised by the fallback test
        return None
    return _caches


_staging_caches = _private_staging_caches()
_KEPT_STAGING_CACHES = ("xla_primitive_callable",)  # ops run one by one: executables


def drop_staging_caches() -> None:
    """Empty JAX's Python-side tracing and lowering caches (jaxprs, lowered modules, kept
    per jitted function and shape), keeping every compiled executable: a jitted function
    still runs from its own cache, and ops run one by one keep theirs. JAX keeps these
    caches while the programs they were made for live, and some past them (by count), so
    an eager loop compiling a program per new shape held about 1.5 MB per program here on
    top of its executable. Does nothing on a JAX without them.

    >>> import jax
    >>> f = jax.jit(lambda x: x * 2)
    >>> drop_staging_caches()
    >>> int(f(3))
    6
    """
    if _staging_caches is None:
        return
    for cache, what in list(_staging_caches.items()):
        if not any(name in what for name in _KEPT_STAGING_CACHES):
            cache.cache_clear()


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
    for name in RULE_PARAMS:
        if name in params:
            _collect_functions(params[name], 0, found)
    return list(found.values()) or None


def _collect_functions(obj: Any, depth: int, found: dict[int, Callable[..., Any]]) -> None:
    """Add to `found` the functions in `obj` (see `custom_rule_functions`); a module
    function, so that no closure refers to itself per call."""
    if depth > 6 or id(obj) in found:
        return
    inner = getattr(obj, "f", None)  # a WrappedFun
    if inner is not None and type(obj).__name__ == "WrappedFun":
        _collect_functions(inner, depth + 1, found)
        return
    if isinstance(obj, (tuple, list)):
        for item in obj:
            _collect_functions(item, depth + 1, found)
        return
    func = getattr(obj, "func", None)  # functools.partial
    if func is not None and callable(func):
        _collect_functions(func, depth + 1, found)
        _collect_functions(getattr(obj, "args", ()), depth + 1, found)
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
            _collect_functions(content, depth + 1, found)


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


# -- a jaxpr trace opened in the middle of running code -----------------------------------
# The eager tape records tf ops; when f then hands a recorded value to JAX (a jnp or
# jax.nn call, `v.value`), the tape replays what it recorded into a jaxpr trace opened at
# that moment and f goes on, on that trace, until it returns: `jax.make_jaxpr` split in two
# (open before, close after), so f runs once. Values read as data meanwhile (`if loss > 1`,
# `float(x)`) are computed from the program traced so far, as the tape computes them.


class Staging:
    """A jaxpr trace made current now (`inputs` are tracers of `avals`) and closed later.

    `values()` gives the inputs' concrete values: reading a staged tracer as data
    (`bool`, `int`, `float`, `np.asarray`, ...) evaluates the part of the program it
    depends on. `close(outputs)` ends the trace and returns the ClosedJaxpr; `abort()`
    ends it on an error. The caller closes it in the same thread, after every context
    entered since it opened has exited.

    >>> import jax.numpy as jnp, numpy as np
    >>> from jax.core import ShapedArray
    >>> staging = Staging([ShapedArray((2,), jnp.float32)], lambda: [np.ones(2, np.float32)])
    >>> y = jnp.sin(staging.inputs[0]) * 0 + 3
    >>> float(y.sum())
    6.0
    >>> staging.close([y]).jaxpr.invars
    [Var(id=...):float32[2]]
    """

    def __init__(self, avals: Sequence[Any], values: Callable[[], list[Any]], source: Any = None):
        from jax._src import api_util, core, source_info_util
        from jax._src.interpreters import partial_eval as pe
        from jax.extend.core import DebugInfo

        _install_staged_reads()
        where = api_util.fun_sourceinfo(source) if source is not None else "<f>"
        self._debug = DebugInfo("tfjs_grad", where, None, None)
        self._values = values
        self.trace = pe.DynamicJaxprTrace(self._debug, parent_trace=core.trace_ctx.trace)
        self._exit = contextlib.ExitStack()
        self._exit.enter_context(source_info_util.reset_name_stack())
        self._source = source_info_util.current()
        self.inputs = [self.trace.new_arg(a, self._source) for a in avals]
        self._exit.enter_context(core.set_current_trace(self.trace))
        _open[id(self.trace)] = self

    def close(self, outputs: Sequence[Any]) -> Any:
        from jax._src import dtypes
        from jax.extend.core import ClosedJaxpr

        self._end()
        outs = [dtypes.canonicalize_value(o) for o in outputs]
        tracers = [self.trace.to_jaxpr_tracer(o, self._source) for o in outs]
        jaxpr, consts = self.trace.frame.to_jaxpr(self.trace, tracers, self._debug, self._source)
        self.trace.invalidate()
        return ClosedJaxpr(jaxpr, consts)

    def abort(self) -> None:
        self._end()
        self.trace.invalidate()

    def _end(self) -> None:
        _open.pop(id(self.trace), None)
        self._exit.close()

    def owns(self, value: Any) -> bool:
        """Whether `value` is a tracer of this trace (one `value_of` can compute)."""
        return isinstance(value, Tracer) and getattr(value, "_trace", None) is self.trace

    def value_of(self, tracer: Any) -> Any:
        """The concrete value of a tracer of this trace, from the program so far (effects
        such as prints left out: they run once, with the program)."""
        from jax._src import core
        from jax.extend.core import Var

        jaxpr, consts = self.trace.frame.to_jaxpr(self.trace, [tracer], self._debug, self._source)
        needed, kept = {v for v in jaxpr.outvars if isinstance(v, Var)}, []
        for eqn in reversed(jaxpr.eqns):
            if any(isinstance(v, Var) and v in needed for v in eqn.outvars):
                kept.append(eqn)
                needed.update(v for v in eqn.invars if isinstance(v, Var))
        jaxpr = jaxpr.replace(eqns=kept[::-1], effects=frozenset())
        with core.set_current_trace(core.eval_trace):
            return core.eval_jaxpr(jaxpr, consts, *self._values())[0]


_open: dict[int, Staging] = {}  # id of an open staging trace -> its Staging
_staged_reads_installed: list[bool] = []


def _staged_value(tracer: Any) -> Any:
    staging = _open.get(id(getattr(tracer, "_trace", None))) if _open else None
    return None if staging is None else staging.value_of(tracer)


def _install_staged_reads() -> None:
    """Let a tracer of an open `Staging` be read as data (JAX raises a concretization
    error for these reads; every other tracer keeps JAX's behaviour)."""
    if _staged_reads_installed:
        return
    _staged_reads_installed.append(True)

    def reading(name: str, convert: Callable[[Any], Any]) -> None:
        original = getattr(Tracer, name)

        def read(self: Any, *args: Any, **kwargs: Any) -> Any:
            value = _staged_value(self)
            if value is None:
                return original(self, *args, **kwargs)
            return convert(value) if not args and not kwargs else np.asarray(value, *args[:1])

        read.__name__ = name
        setattr(Tracer, name, read)

    reading("__bool__", bool)
    reading("__int__", int)
    reading("__index__", operator.index)
    reading("__float__", float)
    reading("__complex__", complex)
    reading("__array__", np.asarray)
    reading("tolist", lambda v: np.asarray(v).tolist())


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


# Where JAX rebuilds a call's arguments from leaves before running the code it calls:
# jax.custom_jvp / jax.custom_vjp for the function and its derivative rules, and jit for
# the function it traces (its local `fun`).
_CUSTOM_DERIVATIVES = "jax._src.custom_derivatives"
_CUSTOM_RULE_CALLERS = frozenset(
    {"_flatten_fun_nokwargs", "_flatten_jvp", "_flatten_fwd", "_flatten_bwd"}
)
_JIT_TRACES = frozenset({"trace_to_jaxpr", "trace_to_jaxpr_nocache"})
_PARTIAL_EVAL = "jax._src.interpreters.partial_eval"
_TREE_MODULES = frozenset({"jax._src.tree_util", "jax._src.flattree"})
_OWN_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_LIBRARY_DIRS = tuple(
    {
        os.path.abspath(d) + os.sep
        for d in (
            *site.getsitepackages(),
            site.getusersitepackages(),
            sysconfig.get_paths()["purelib"],
            sysconfig.get_paths()["platlib"],
            os.path.dirname(os.path.dirname(os.path.abspath(jax.__file__))),
        )
        if d
    }
)
_library_code: dict[Any, bool] = {}


def _is_library_function(fun: Any) -> bool:
    """Whether `fun` (through partials and wrappers) is defined in an installed library
    (jax, optax, flax, ...: site-packages), not in the user's code or in tfjs_grad."""
    for _ in range(8):
        code = getattr(fun, "__code__", None)
        if code is not None:
            break
        fun = getattr(fun, "func", None) or getattr(fun, "__wrapped__", None)
        if fun is None:
            return False
    else:
        return False
    found = _library_code.get(code)
    if found is None:
        path = os.path.abspath(code.co_filename)
        found = path.startswith(_LIBRARY_DIRS) and not path.startswith(_OWN_DIR)
        if len(_library_code) > 4096:
            _library_code.clear()
        _library_code[code] = found
    return found


def rebuilt_for_library_code(frame: Any) -> bool:
    """Whether `frame` (the code rebuilding a Tensor from its leaf) is JAX passing the
    arguments to library code that computes with lax on them: a jax.custom_jvp /
    custom_vjp function or derivative rule (`jax.nn.relu`'s rule calls
    `lax.select(x > 0, ...)`), or a function of an installed library that jit traces
    (`jax.nn.sigmoid` is a jitted `lax.logistic`). Those get the plain array, as for
    JAX's own array types; the user's own functions keep Tensors. On another JAX
    layout this answers False."""
    if frame is None or _frame_kinds.get(id(frame.f_code), _NONE)[0] is _OTHER:  # common
        return False
    for _ in range(8):
        if frame is None:
            return False
        code = frame.f_code
        kind = _frame_kinds.get(id(code), _NONE)[0]
        if kind is None:
            kind = _frame_kind(code, frame.f_globals.get("__name__"))
            if len(_frame_kinds) > 4096:
                _frame_kinds.clear()
            _frame_kinds[id(code)] = (kind, code)  # (the code kept alive: its id stays its)
        if kind is _OTHER:
            return False
        if kind is _CUSTOM_RULE:
            return True
        if kind is _JIT:
            return _is_library_function(frame.f_locals.get("fun"))
        frame = frame.f_back  # JAX's own tree code: look at its caller
    return False


_OTHER, _TREE, _CUSTOM_RULE, _JIT = "other", "tree", "custom rule", "jit"
# id of a code object -> (what its frames are, the code): cached, as every unflatten asks
# (a code object's own hash digests its contents)
_frame_kinds: dict[int, tuple[str, Any]] = {}
_NONE = (None, None)


def _frame_kind(code: Any, module: Any) -> str:
    if module in _TREE_MODULES:
        return _TREE
    if module == _CUSTOM_DERIVATIVES and code.co_name in _CUSTOM_RULE_CALLERS:
        return _CUSTOM_RULE
    if module == _PARTIAL_EVAL and code.co_name in _JIT_TRACES:
        return _JIT
    return _OTHER


LAX_TAKES_ARRAYS = (
    "a JAX primitive (a jax.lax function) was handed a tf.{kind}: lax functions take arrays. "
    "Pass jnp.asarray(t) (or v.value for a tf.Variable); jnp and jax.nn functions take "
    "Tensors as they are."
)


class LaxGotTensorError(ValueError):
    """A tf.Tensor reached a JAX primitive (`lax.add(t, 1)`), which takes arrays only."""


def refuse_in_primitives(cls: type, kind: str) -> None:
    """Make a JAX primitive handed a `cls` raise `LaxGotTensorError` saying what to pass
    (JAX's own error speaks of abstractification). On a JAX without the hook, JAX's
    error stays."""
    try:
        from jax._src import dtypes
    except ImportError:  # pragma: no cover - other JAX versions
        return

    def refuse(value: Any) -> Any:
        raise LaxGotTensorError(LAX_TAKES_ARRAYS.format(kind=kind))

    register = getattr(dtypes, "register_canonicalize_value_handler", None)
    if register is not None:
        register(cls, refuse)
    elif hasattr(dtypes, "canonicalize_value_handlers"):
        dtypes.canonicalize_value_handlers[cls] = refuse
