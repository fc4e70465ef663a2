"""The stop-gradient of tfjs's rules: a zero gradient, with the input still connected.

`tf.stop_gradient(x)` and a value stored in a Variable inside f (`tf.variable(x)`,
`v.assign(x)`) pass no gradient back to x, yet x still counts as used by the output (no
"Cannot compute gradient" error), so the derivative is a zero tangent that flows from x
rather than JAX's symbolic zero.

>>> import jax
>>> jax.grad(lambda x: stopped(x) * 3 + x)(2.0)
Array(1., dtype=float32, weak_type=True)
"""

from __future__ import annotations

from typing import Any

import jax


@jax.custom_jvp
def stopped(x: Any) -> Any:
    """x's value with a zero gradient that still flows from x."""
    return jax.lax.stop_gradient(x)


@stopped.defjvp
def _stopped_jvp(primals: Any, tangents: Any) -> Any:
    # differentiated on real values (under jax.linearize) JAX needs a known tangent for
    # every primal: a zero that still depends on x
    (x,), (t,) = primals, tangents
    return stopped(x), t if t.dtype == jax.dtypes.float0 else t * 0
