import gc

import pytest

import tfjs_grad as tf


@pytest.fixture(autouse=True)
def _fresh_variables():
    """Every test starts and ends with no live Variables (names are global, as in tfjs)."""
    tf.dispose_variables()
    yield
    tf.dispose_variables()
    # The young generations only: a full collection scans every cached JAX program and
    # cost ~0.3 s per test (40% of the suite); what a test leaves in cycles dies here.
    gc.collect(1)


_COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"


@pytest.fixture
def compiles():
    """The names of the programs XLA compiles while the test runs (a list that grows)."""
    import jax.monitoring

    names: list[str] = []

    def listener(event: str, duration: float, **kwargs) -> None:
        if event == _COMPILE_EVENT:
            names.append(kwargs.get("fun_name", "?"))

    jax.monitoring.register_event_duration_secs_listener(listener)
    yield names
    jax.monitoring.unregister_event_duration_listener(listener)
