"""`Budget`: the seconds of regex work one paste may spend, whatever the number of patterns.

One budget is shared by every search made for a paste (its error lines, its tail, its wrapped
sentences), so the bound is per paste, not per pattern or per search. The clock is injected so
tests count steps instead of timing anything.
"""

from __future__ import annotations

import time
from collections.abc import Callable

PASTE_SECONDS = 0.05  # seconds of regex work per paste, all patterns and searches together


class Budget:
    """What one paste may still spend on regexes; `skipped` counts the searches it cut."""

    def __init__(self, seconds: float = PASTE_SECONDS, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.deadline = clock() + seconds
        self.skipped = 0

    def remaining(self) -> float:
        return max(0.0, self.deadline - self.clock())

    def spent(self) -> bool:
        return self.remaining() <= 0.0
