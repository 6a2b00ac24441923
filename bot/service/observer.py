"""What `Errfix` tells whoever watches it (metrics, logs): a small Protocol of hooks.

The service calls these on its own thread, after the work is done; a hook must be quick and must
not raise. `errfix serve` passes one that counts in Prometheus and writes decision logs
(bot/serve/metrics_and_logs.py); everything else runs with `Quiet`, which does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from bot.core.views import Diagnosis
from bot.store.learning import Paste


@dataclass(frozen=True)
class VoteCast:
    """A vote from a button ('button') or a reaction ('reaction'); `held` is the user's vote now
    (None when withdrawn)."""

    source: str
    record_id: str
    user_id: str
    held: int | None


class Observer(Protocol):
    def on_answer(self, diagnosis: Diagnosis, seconds: float) -> None:
        """A paste or mention was matched in `seconds` (on the service's thread)."""

    def on_paste(self, paste: Paste) -> None:
        """A paste that looked like an error was logged: answered, or kept quiet."""

    def on_vote(self, vote: VoteCast) -> None:
        """A vote was set, changed or withdrawn."""

    def on_rebuild(self, version: int, records: int, seconds: float) -> None:
        """The index for store `version` was built and is now used."""

    def on_index_loaded(self, version: int, records: int, seconds: float) -> None:
        """The cached index of store `version` was loaded and is now used."""


class Quiet:
    """The observer that observes nothing."""

    def on_answer(self, diagnosis: Diagnosis, seconds: float) -> None:
        pass

    def on_paste(self, paste: Paste) -> None:
        pass

    def on_vote(self, vote: VoteCast) -> None:
        pass

    def on_rebuild(self, version: int, records: int, seconds: float) -> None:
        pass

    def on_index_loaded(self, version: int, records: int, seconds: float) -> None:
        pass
