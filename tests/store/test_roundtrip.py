"""What goes in comes out: records imported then exported come back field for field.

Hypothesis generates records over the whole format (optional fields present or not, nested
objects with only some keys, transition-graph entries as ids or objects, unknown fields at every
level, awkward Unicode); the public corpus checks the same at full size.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.records import FIELDS, Record
from bot.service.errfix import Errfix
from bot.store.files import load
from bot.store.store import Store
from tests.conftest import CORPUS_SIZE, copy_db, invoke, read_jsonl, write_json, write_jsonl

# ---- strategies ---------------------------------------------------------------------------------

TEXT = st.text(max_size=30)  # any Unicode but lone surrogates, including NUL, U+2028, U+0085…
NONEMPTY = st.text(min_size=1, max_size=30)
OPT_TEXT = st.none() | TEXT
RATE = st.floats(min_value=0.0, max_value=1.0) | st.sampled_from([0, 1])
ISO = st.dates().map(lambda d: d.isoformat()) | st.datetimes().map(lambda d: d.isoformat())
RECORD_ID = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cc", "Cs", "Zs", "Zl", "Zp")), min_size=1, max_size=40
).filter(lambda s: not any(c.isspace() for c in s))

JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


def extras(known: tuple[str, ...]) -> st.SearchStrategy[dict[str, Any]]:
    """Unknown fields for an object whose known keys are `known`."""
    return st.dictionaries(TEXT.filter(lambda k: k not in known), JSON_VALUE, max_size=2)


def obj(required: dict[str, Any], optional: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    known = (*required, *optional)
    return st.builds(
        lambda base, more: {**more, **base}, st.fixed_dictionaries(required, optional=optional), extras(known)
    )


WORKAROUND = obj(
    {"action": TEXT}, {"success_rate": RATE, "how": TEXT, "condition": OPT_TEXT, "sources": st.lists(TEXT, max_size=2)}
)
DEAD_END = obj(
    {"action": TEXT},
    {"why_fails": TEXT, "fail_rate": RATE, "condition": OPT_TEXT, "sources": st.lists(TEXT, max_size=2)},
)
VERSION = obj(
    {"version": TEXT}, {k: OPT_TEXT for k in ("introduced", "deprecated", "removed", "behavior_change", "status")}
)
LINK = obj({"error_id": TEXT}, {"probability": st.none() | RATE, "condition": OPT_TEXT, "distinction": OPT_TEXT})
EDGES = st.lists(RECORD_ID | LINK, max_size=3)
GRAPH = obj({}, {"leads_to": EDGES, "preceded_by": EDGES, "frequently_confused_with": EDGES})

OPTIONAL_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "signature_zh": OPT_TEXT,
    "domain": TEXT,
    "category": OPT_TEXT,
    "subcategory": OPT_TEXT,
    "root_cause": TEXT,
    "root_cause_type": OPT_TEXT,
    "root_cause_zh": OPT_TEXT,
    "versions": st.lists(VERSION, max_size=2),
    "os_specific": st.dictionaries(TEXT, TEXT, max_size=2),
    "dead_ends": st.lists(DEAD_END, max_size=3),
    "workarounds": st.lists(WORKAROUND, max_size=4),
    "workarounds_zh": st.lists(TEXT, max_size=2),
    "transition_graph": GRAPH,
    "official_doc_url": OPT_TEXT,
    "official_doc_section": OPT_TEXT,
    "error_code": OPT_TEXT,
    "verification_tier": TEXT,
    "confidence": RATE,
    "fix_success_rate": RATE,
    "resolvable": st.sampled_from(["true", "partial", "false"]),
    "first_seen": st.none() | ISO,
    "last_confirmed": st.none() | ISO,
    "last_updated": st.none() | ISO,
    "evidence_count": st.integers(min_value=0, max_value=2**53),
    "tags": st.lists(TEXT, max_size=3),
    "locale": TEXT,
    "aliases": st.lists(TEXT, max_size=3),
    "keywords": st.lists(TEXT, max_size=3),
    "keywords_zh": st.lists(TEXT, max_size=3),
}
assert set(OPTIONAL_FIELDS) | {"id", "signature", "regex"} == set(FIELDS), "the strategy must cover every field"

RECORD = obj(
    # any text, quoted: a regex that compiles nowhere is refused at import (tests/store/test_files.py)
    {"id": RECORD_ID, "signature": NONEMPTY, "regex": st.text(min_size=1, max_size=60).map(re.escape)},
    OPTIONAL_FIELDS,
)
RECORDS = st.lists(RECORD, min_size=1, max_size=4, unique_by=lambda r: r["id"])


def _write(folder: Path, records: list[dict[str, Any]], form: str) -> Path:
    if form == "jsonl":
        return write_jsonl(folder / "in.jsonl", records)
    if form == "list":
        return write_json(folder / "in.json", records)
    for i, r in enumerate(records):  # a folder of single-object files
        write_json(folder / "in" / f"{i:02d}.json", r)
    return folder / "in"


def _same_given_fields(exported: dict[str, Any], given: dict[str, Any]) -> None:
    """Every field that was given comes back with the same value; the rest are the defaults."""
    assert {k: exported[k] for k in given} == given
    # the search vocabulary (keywords, keywords_zh) is written only when the record has it
    assert set(given) | (set(FIELDS) - {"keywords", "keywords_zh"}) == set(exported)


# ---- generated records ----------------------------------------------------------------------------


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=RECORDS, form=st.sampled_from(["jsonl", "list", "folder"]))
def test_generated_records_import_then_export_field_for_field(records: list[dict[str, Any]], form: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        result = load([_write(folder, records, form)])
        assert result.problems == []
        assert [rec.id for _, rec in result.records] == [r["id"] for r in records]
        store = Store(folder / "rt.db")
        try:
            summary = store.import_records([rec for _, rec in result.records])
            assert sorted(summary.added) == sorted(r["id"] for r in records)
            exported = {row["id"]: row for row in Errfix(store).export_records()}
            assert set(exported) == {r["id"] for r in records}
            for raw in records:
                assert exported[raw["id"]] == Record.model_validate(raw).to_json()
                _same_given_fields(exported[raw["id"]], raw)

            # the export, written as `errfix export` writes it, imports back unchanged
            again = load([write_jsonl(folder / "out.jsonl", exported.values())])
            assert again.problems == []
            version = store.version
            assert sorted(store.import_records([rec for _, rec in again.records]).unchanged) == sorted(exported)
            assert store.version == version
        finally:
            store.close()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records=RECORDS)
def test_generated_records_through_the_command_line(records: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db, out = folder / "cli.db", folder / "out.jsonl"
        assert invoke("import", write_jsonl(folder / "in.jsonl", records), "--db", db).code == 0
        assert invoke("export", "--db", db, "-o", out).code == 0
        exported = {row["id"]: row for row in read_jsonl(out)}
        for raw in records:  # the database also holds the bundled seeds
            assert exported[raw["id"]] == Record.model_validate(raw).to_json()
            _same_given_fields(exported[raw["id"]], raw)


# ---- the public corpus ------------------------------------------------------------------------------


def test_the_whole_corpus_exports_back_equal_object_for_object(
    corpus_db: Path, corpus_records: list[dict[str, Any]]
) -> None:
    store = Store(corpus_db)
    try:
        exported = {row["id"]: row for row in Errfix(store).export_records()}
    finally:
        store.close()
    assert len(corpus_records) == CORPUS_SIZE
    for original in corpus_records:
        back = exported[original["id"]]
        assert back == original, original["id"]
        assert list(back) == list(original), original["id"]  # the same field order too


def test_the_corpus_through_errfix_export_file(
    tmp_path: Path, corpus_db: Path, corpus_records: list[dict[str, Any]]
) -> None:
    out = tmp_path / "export.jsonl"
    assert invoke("export", "--db", corpus_db, "-o", out).code == 0
    assert not (tmp_path / "export.jsonl.tmp").exists()
    by_id = {row["id"]: row for row in read_jsonl(out)}
    assert [by_id[r["id"]] for r in corpus_records] == corpus_records
    # and byte for byte the line each record had in the corpus, which was written the same way
    lines = {json.loads(line)["id"]: line for line in out.read_text(encoding="utf-8").split("\n") if line}
    originals = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "deadends-records.jsonl"
    for line in originals.read_text(encoding="utf-8").split("\n")[:50]:
        assert lines[json.loads(line)["id"]] == line


def test_reimporting_the_corpus_is_an_idempotent_upsert(tmp_path: Path, corpus_db: Path, corpus_path: Path) -> None:
    db = copy_db(corpus_db, tmp_path / "copy.db")
    store = Store(db)
    try:
        version, count = store.version, store.count()
        result = load([corpus_path])
        assert result.problems == [] and result.warnings == []
        summary = store.import_records([rec for _, rec in result.records])
        assert (len(summary.unchanged), summary.added, summary.changed) == (CORPUS_SIZE, [], [])
        assert (store.version, store.count()) == (version, count)
        store.db.execute("INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)")
    finally:
        store.close()
