"""What an answer is made of: a matched record with its workarounds ranked by team evidence (pure).

These views are shared by every renderer (CLI text, Slack blocks, JSON) so they all show the
same rates and order.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from bot.core import rank
from bot.core.extract import Extracted
from bot.core.records import Record


def workaround_key(action: str) -> str:
    """Votes follow a workaround's text, so reordering a record's list keeps them in place."""
    return hashlib.sha1(" ".join(action.lower().split()).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Tally:
    up: int = 0
    down: int = 0


@dataclass(frozen=True)
class WorkaroundView:
    index: int  # position in the record
    wkey: str
    action: str
    how: str
    condition: str
    prior_rate: float
    success_rate: float  # posterior mean: prior from the record, plus this team's votes
    votes_up: int
    votes_down: int

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action,
            "how": self.how,
            "success_rate": round(self.success_rate, 4),
            "votes_up": self.votes_up,
            "votes_down": self.votes_down,
        }


@dataclass(frozen=True)
class MatchView:
    record: Record
    score: float
    workarounds: list[WorkaroundView]  # ranked, best first
    parts: dict[str, float] = field(default_factory=dict)
    # whether the record knows this very error, not only its kind (bot/core/knows.py); None when
    # not judged (a record shown by id, a search result)
    knows: bool | None = None
    by_wording: bool = False  # found by its wording alone: its regex missed the paste
    imported_catch_all: bool = False  # not a bundled seed; its regex found the paste and recognises others' signatures

    @property
    def id(self) -> str:
        return self.record.id

    @property
    def kind_only(self) -> bool:
        """The record is general advice for this kind of error, not this error's own record."""
        return self.knows is False

    def to_json(self) -> dict[str, Any]:
        r = self.record
        return {
            "id": r.id,
            "score": self.score,
            "signature": r.signature,
            "root_cause": r.root_cause,
            "workarounds": [w.to_json() for w in self.workarounds],
            "dead_ends": [
                {"action": d.action, "why_fails": d.why_fails, "fail_rate": d.fail_rate} for d in r.dead_ends
            ],
            "official_doc_url": r.official_doc_url,
        }


@dataclass(frozen=True)
class Diagnosis:
    is_error: bool
    reply: bool
    matches: list[MatchView]
    extracted: Extracted

    def to_json(self) -> dict[str, Any]:
        return {"is_error": self.is_error, "reply": self.reply, "matches": [m.to_json() for m in self.matches]}


def rank_workarounds(rec: Record, tallies: dict[str, Tally]) -> list[WorkaroundView]:
    """The record's workarounds with posterior rates, in the order rank.order chooses."""
    views = []
    posts = []
    for i, w in enumerate(rec.workarounds):
        key = workaround_key(w.action)
        t = tallies.get(key, Tally())
        p = rank.posterior(w.success_rate, rec.evidence_count, t.up, t.down)
        posts.append(p)
        views.append(WorkaroundView(i, key, w.action, w.how, w.condition or "", w.success_rate, p.mean, t.up, t.down))
    return [views[i] for i in rank.order(posts)]
