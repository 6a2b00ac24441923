"""Prometheus metrics for `errfix serve` (GET /metrics), on a registry of their own.

One `Metrics` per running app (no module-level registry): tests and a demo can run several apps
in one process. The Slack adapter, the service and the sync loop report what happened through
the methods below; `refresh_store()` is called on each scrape for the store's size.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
# match latency: a paste is matched in a few ms; a slow one (huge log, cold index) in seconds
MATCH_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    """The counters, histogram and gauges of one errfix process."""

    def __init__(self, db_path: str | Path | None = None) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.db_path = str(db_path) if db_path else None
        r = self.registry
        self.messages_seen = Counter(
            "errfix_messages_seen", "Messages from people errfix handled (after dedupe), by kind", ["kind"], registry=r
        )
        self.errors_detected = Counter(
            "errfix_errors_detected", "Messages recognised as an error or matched to a record", registry=r
        )
        self.replies_posted = Counter(
            "errfix_replies_posted", "Messages errfix posted (chat.postMessage ok)", registry=r
        )
        self.silent = Counter(
            "errfix_silent_decisions", "Errors errfix chose not to answer, by reason", ["reason"], registry=r
        )
        self.votes = Counter(
            "errfix_votes", "Votes cast, changed or withdrawn, by source and value", ["source", "value"], registry=r
        )
        self.slack_calls = Counter("errfix_slack_api_calls", "Slack Web API calls, by method", ["method"], registry=r)
        self.slack_errors = Counter(
            "errfix_slack_api_errors",
            "Slack Web API calls that failed, by method and error code",
            ["method", "code"],
            registry=r,
        )
        self.match_seconds = Histogram(
            "errfix_match_seconds",
            "Time to match one message on the service's thread",
            buckets=MATCH_BUCKETS,
            registry=r,
        )
        self.store_records = Gauge("errfix_store_records", "Records in the store", registry=r)
        self.store_bytes = Gauge("errfix_store_bytes", "Size of the database file plus its WAL", registry=r)
        self.store_votes = Gauge("errfix_store_votes", "Votes held in the store", registry=r)
        self.sync_runs = Counter("errfix_sync_runs", "Upstream record syncs, by result", ["result"], registry=r)
        self.sync_last_success = Gauge(
            "errfix_sync_last_success_timestamp_seconds", "When the last sync succeeded (Unix time)", registry=r
        )
        self.in_flight = Gauge("errfix_events_in_flight", "Listeners running now", registry=r)
        self.app_rate_limited = Counter(
            "errfix_app_rate_limited", "app_rate_limited notices: Slack dropped this app's events", registry=r
        )

    # ---- what happened -----------------------------------------------------------------------

    def message_seen(self, kind: str) -> None:
        self.messages_seen.labels(kind).inc()

    def paste(self, *, replied: bool) -> None:
        """A message that looked like an error (or matched a record): answered, or kept quiet."""
        self.errors_detected.inc()
        if not replied:
            self.silent.labels("unsure").inc()

    def events_dropped_by_slack(self) -> None:
        """Slack sent `app_rate_limited`: over 30,000 events an hour, it drops the rest for a while."""
        self.app_rate_limited.inc()

    def rate_limited(self) -> None:
        self.silent.labels("rate_limited").inc()

    def vote(self, source: str, value: int | None) -> None:
        self.votes.labels(source, {1: "up", -1: "down"}.get(value or 0, "withdrawn")).inc()

    def slack_call(self, method: str, error: str | None) -> None:
        self.slack_calls.labels(method).inc()
        if error is not None:
            self.slack_errors.labels(method, error).inc()
        elif method == "chat.postMessage":
            self.replies_posted.inc()

    def sync(self, result: str, when: float | None = None) -> None:
        self.sync_runs.labels(result).inc()
        if when is not None:
            self.sync_last_success.set(when)

    def track_in_flight(self, running: Callable[[], float]) -> None:
        self.in_flight.set_function(running)

    # ---- exposition --------------------------------------------------------------------------

    def refresh_store(self, *, records: int, votes: int) -> None:
        self.store_records.set(records)
        self.store_votes.set(votes)
        if self.db_path:
            size = 0
            for suffix in ("", "-wal"):
                with contextlib.suppress(FileNotFoundError):
                    size += os.stat(self.db_path + suffix).st_size
            self.store_bytes.set(size)

    def render(self) -> bytes:
        return generate_latest(self.registry)
