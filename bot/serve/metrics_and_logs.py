"""What `errfix serve` watches the service with: Prometheus metrics and one log line per decision.

`MetricsAndLogs` is the `Observer` (bot/service/observer.py) the composition root (run.py) hands
to `AsyncErrfix`: matches are timed, pastes counted as answered or kept quiet, votes counted by
source and value, each with a structured log line (the paste's line only with ERRFIX_LOG_PASTES).
"""

from __future__ import annotations

import logging

from bot.core.views import Diagnosis
from bot.service.observer import VoteCast
from bot.store.learning import Paste
from bot.telemetry.metrics import Metrics

log = logging.getLogger("errfix.serve")


class MetricsAndLogs:
    """Counts what the service did in `metrics` and logs each decision."""

    def __init__(self, metrics: Metrics, *, log_pastes: bool = False) -> None:
        self.metrics = metrics
        self.log_pastes = log_pastes

    def on_answer(self, diagnosis: Diagnosis, seconds: float) -> None:
        self.metrics.match_seconds.observe(seconds)

    def on_paste(self, paste: Paste) -> None:
        self.metrics.paste(replied=paste.replied)
        score = round(paste.score, 3) if paste.score is not None else None
        extra: dict[str, object] = {"record": paste.record_id, "score": score, "replied": paste.replied}
        if self.log_pastes:
            extra["line"] = paste.line
        log.info("answered" if paste.replied else "kept quiet", extra=extra)

    def on_vote(self, vote: VoteCast) -> None:
        self.metrics.vote(vote.source, vote.held)
        log.info(
            "vote", extra={"record": vote.record_id, "source": vote.source, "vote": vote.held, "user": vote.user_id}
        )

    def on_rebuild(self, version: int, records: int, seconds: float) -> None:
        log.debug("index built for store version %d: %d records in %.2fs", version, records, seconds)

    def on_index_loaded(self, version: int, records: int, seconds: float) -> None:
        log.debug("index loaded for store version %d: %d records in %.2fs", version, records, seconds)
