"""A monitored value of fit's logs, and when it counts as improved (tfjs's and Keras's
`mode` and `minDelta` rules), shared by the callbacks that watch one.

>>> m = Monitor("val_acc", "auto", 0.01, "EarlyStopping")
>>> m.maximize, m.improved(0.5, m.worst), m.improved(0.505, 0.5)
(True, True, False)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any


class Monitor:
    """`monitor` read from an epoch's logs; `improved(current, best)` by `minDelta`.

    `mode` 'auto' maximizes a name containing 'acc' and minimizes anything else; an invalid
    mode warns and falls back to 'auto' (as tfjs's EarlyStopping does).
    """

    def __init__(self, monitor: str, mode: str, min_delta: float, owner: str):
        self.monitor = monitor
        if mode not in ("auto", "min", "max"):
            warnings.warn(
                f"{owner} mode '{mode}' is invalid. Falling back to mode 'auto'.", stacklevel=3
            )
            mode = "auto"
        self.mode = mode
        self.maximize = mode == "max" or (mode == "auto" and "acc" in monitor)
        self.min_delta = abs(min_delta)
        self.owner = owner

    @property
    def worst(self) -> float:
        """The starting 'best' value: any number improves on it."""
        return -math.inf if self.maximize else math.inf

    def improved(self, current: float, best: float) -> bool:
        """Whether `current` beats `best` by more than `minDelta` in the monitored direction."""
        if self.maximize:
            return current - self.min_delta > best
        return current + self.min_delta < best

    def read(self, logs: Mapping[str, Any] | None) -> float | None:
        """The monitored value in `logs`, or None (with a warning naming what is there)."""
        current = (logs or {}).get(self.monitor)
        if current is None:
            warnings.warn(
                f"Metric for {self.owner} {self.monitor} is not available. "
                f"Available metrics are: {','.join(logs or {})}",
                stacklevel=3,
            )
            return None
        return float(current)
