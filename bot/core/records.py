"""The error record format (see record-format.md), as pydantic models.

Records come from files we do not control, so validation is strict about types and ranges but
tolerant of unknown fields: those are kept for the round trip and reported as warnings.
"""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

Rate = Annotated[float, Field(ge=0.0, le=1.0)]


def _iso_date(value: str | None) -> str | None:
    """Dates stay strings (round trip), but must parse as ISO dates or datetimes."""
    if value is None:
        return None
    try:
        _dt.date.fromisoformat(value)
    except ValueError:
        try:
            _dt.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"not an ISO date: {value!r}") from None
    return value


class _Part(BaseModel):
    """Nested objects: strict types, unknown keys kept."""

    model_config = ConfigDict(extra="allow", strict=True)


class Workaround(_Part):
    action: str
    success_rate: Rate = 0.5
    how: str = ""
    condition: str | None = ""
    sources: list[str] = Field(default_factory=list)


class DeadEnd(_Part):
    action: str
    why_fails: str = ""
    fail_rate: Rate = 0.5
    condition: str | None = ""
    sources: list[str] = Field(default_factory=list)


class VersionInfo(_Part):
    version: str
    introduced: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    behavior_change: str | None = None
    status: str | None = "active"


class Link(_Part):
    """A transition-graph edge given as an object rather than a bare id."""

    error_id: str
    probability: Rate | None = None
    condition: str | None = None
    distinction: str | None = None


class TransitionGraph(_Part):
    leads_to: list[str | Link] = Field(default_factory=list)
    preceded_by: list[str | Link] = Field(default_factory=list)
    frequently_confused_with: list[str | Link] = Field(default_factory=list)

    def ids(self, kind: str) -> list[str]:
        """The target ids of one edge kind, whichever form each entry has."""
        return [e if isinstance(e, str) else e.error_id for e in getattr(self, kind)]


# errfix's additions to the format: written back only when the record has them, so a record
# from a source without them exports exactly as it came in
OPTIONAL_ONLY: frozenset[str] = frozenset({"keywords", "keywords_zh"})


class Record(_Part):
    """One known error. Field order here is the order export writes."""

    id: str = Field(min_length=1, max_length=300)
    signature: str = Field(min_length=1)
    signature_zh: str | None = None
    regex: str = Field(min_length=1, max_length=5000)
    domain: str = ""
    category: str | None = None
    subcategory: str | None = None
    root_cause: str = ""
    root_cause_type: str | None = None
    root_cause_zh: str | None = None
    versions: list[VersionInfo] = Field(default_factory=list)
    os_specific: dict[str, str] = Field(default_factory=dict)
    dead_ends: list[DeadEnd] = Field(default_factory=list)
    workarounds: list[Workaround] = Field(default_factory=list)
    workarounds_zh: list[str] = Field(default_factory=list)
    transition_graph: TransitionGraph = Field(default_factory=TransitionGraph)
    official_doc_url: str | None = None
    official_doc_section: str | None = None
    error_code: str | None = None
    verification_tier: str = "ai_generated"
    confidence: Rate = 0.5
    fix_success_rate: Rate = 0.5
    resolvable: str = "true"
    first_seen: str | None = None
    last_confirmed: str | None = None
    last_updated: str | None = None
    evidence_count: int = Field(default=0, ge=0)
    tags: list[str] = Field(default_factory=list)
    locale: str = "en"
    aliases: list[str] = Field(default_factory=list)
    # search vocabulary: the words people use for this error, not the error's own text (#13)
    keywords: list[str] = Field(default_factory=list)
    keywords_zh: list[str] = Field(default_factory=list)

    @field_validator("first_seen", "last_confirmed", "last_updated")
    @classmethod
    def _dates(cls, value: str | None) -> str | None:
        return _iso_date(value)

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if value != value.strip() or any(c.isspace() for c in value):
            raise ValueError("id must not contain whitespace")
        return value

    @field_validator("resolvable", mode="before")
    @classmethod
    def _resolvable(cls, value: Any) -> Any:
        """The source data stores this as a string; accept a JSON bool too, as its string."""
        if isinstance(value, bool):
            return "true" if value else "false"
        return value

    def unknown_fields(self) -> list[str]:
        """Dotted paths of fields not in the format (kept, but worth a warning)."""
        # errfix_* fields are errfix's own (e.g. the export's vote mark), not unknown
        found = [str(k) for k in (self.model_extra or {}) if not str(k).startswith("errfix_")]
        graph = self.transition_graph
        found += [f"transition_graph.{k}" for k in (graph.model_extra or {})]
        for kind in ("leads_to", "preceded_by", "frequently_confused_with"):
            for i, entry in enumerate(getattr(graph, kind)):
                if isinstance(entry, Link):
                    found += [f"transition_graph.{kind}[{i}].{k}" for k in (entry.model_extra or {})]
        for name in ("workarounds", "dead_ends", "versions"):
            for i, part in enumerate(getattr(self, name)):
                found += [f"{name}[{i}].{k}" for k in (part.model_extra or {})]
        return found

    def to_json(self) -> dict[str, Any]:
        """The record in the file format: every top-level field, nested objects as given."""
        given = self.model_dump(mode="json", exclude_unset=True)
        full = self.model_dump(mode="json")
        out = {k: given.get(k, full[k]) for k in type(self).model_fields if k in given or k not in OPTIONAL_ONLY}
        out.update({k: given[k] for k in given if k not in out})
        return out


FIELDS: tuple[str, ...] = tuple(Record.model_fields)
