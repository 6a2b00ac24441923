"""Team records (#17) below Slack, through `Errfix` over real SQLite: a confirmed draft is stored
as tier `team` with one piece of evidence and its sources, answers the next paste of the error at
once (other numbers and paths), is refused when its regex is unsafe or too broad, survives a sync,
exports alone with `export_team_records` and imports elsewhere unchanged, and can be forgotten
(its votes stay)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.core.draft import TeachForm, team_record
from bot.core.records import Record
from bot.errors import InvalidInput, NotFound
from bot.service.errfix import Errfix
from bot.store.store import Reply
from tests.conftest import SEED_ID, SeededCopy

PASTE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/etl/run.py", line 88, in <module>\n'
    "QuarryLockError: shard 17 of /data/quarry/2026-01.qdb is held by pid 4412\n"
)
AGAIN = (
    "Traceback (most recent call last):\n"
    '  File "C:\\jobs\\nightly.py", line 3, in main\n'
    "QuarryLockError: shard 2 of D:\\q\\march.qdb is held by pid 77\n"
)
FIX = "Stop the stale importer first:\n```\nquarry unlock --force\n```"
LINK = "https://team.slack.com/archives/C1/p1700000000000100"


@pytest.fixture
def svc(seeded_copy: SeededCopy) -> Iterator[Errfix]:
    s = Errfix.open(seeded_copy("t.db"))
    yield s
    s.close()


def form_for(svc: Errfix, paste: str = PASTE, fix: str = FIX) -> TeachForm:
    d = svc.draft(paste, fix=fix)
    assert d is not None
    return TeachForm.from_draft(d)


def test_nothing_answers_the_paste_before_it_is_taught(svc: Errfix) -> None:
    assert not svc.diagnose(PASTE).reply


def test_a_taught_record_is_a_team_record_and_answers_the_next_paste_at_once(svc: Errfix) -> None:
    form = form_for(svc)
    assert form.error_line == "QuarryLockError: shard 17 of /data/quarry/2026-01.qdb is held by pid 4412"
    assert form.fix == "Stop the stale importer first" and form.how == "quarry unlock --force"
    rec = svc.teach(form, submitter="U_ALICE", permalink=LINK)
    assert rec.id.startswith("team/") and rec.id == svc.team_ids().pop()
    stored = svc.store.get(rec.id)
    assert stored.verification_tier == "team" and stored.evidence_count == 1
    assert stored.workarounds[0].sources == [LINK] and stored.workarounds[0].how == "quarry unlock --force"
    assert (stored.model_extra or {})["errfix_team"]["submitted_by"] == "U_ALICE"
    answer = svc.diagnose(AGAIN)  # other shard, path, pid, OS
    assert answer.reply and answer.matches[0].id == rec.id


def test_votes_on_a_team_record_count_like_any_other(svc: Errfix) -> None:
    rec = svc.teach(form_for(svc), submitter="U_ALICE", permalink=LINK)
    svc.record_reply(Reply("C1", "2.0", "1.0", "1.0", rec.id, 0.9))
    view = svc.view(rec.id)
    wkey = view.workarounds[0].wkey
    assert svc.click_vote("C1:2.0", rec.id, wkey, "U_BOB", 1) == 1
    assert svc.view(rec.id).workarounds[0].votes_up == 1


LINE = "QuarryLockError: shard 17 of /data/quarry/2026-01.qdb is held by pid 4412"


@pytest.mark.parametrize(
    ("regex", "reason"),
    [
        ("(unclosed", "RE2 cannot compile"),
        ("QuarryLockError: never printed", "does not match the error line"),
        (r"\w+", "no literal text"),
        (r"(a|aa)+$|QuarryLock", "backtrack"),
        (r"is held|the", "ordinary chat"),
        (r"shard|Loss is NaN", "already known: it matches the signature of"),
    ],
)
def test_an_unsafe_or_too_broad_regex_is_refused_with_its_reason(svc: Errfix, regex: str, reason: str) -> None:
    form = TeachForm(LINE, regex, "quarry unlock")
    problems = svc.teach_problems(form)
    assert set(problems) == {"regex"} and reason in problems["regex"], problems
    with pytest.raises(InvalidInput):
        svc.teach(form, submitter="U_ALICE", permalink=LINK)


def test_required_fields_are_named() -> None:
    from bot.service.teach import form_problems

    assert form_problems(TeachForm(" ", "", ""), []) == {
        "error_line": "Error line is required.",
        "regex": "Regex is required.",
        "fix": "Fix that worked is required.",
    }


def test_a_regex_matching_a_bundled_records_signature_is_too_broad(svc: Errfix) -> None:
    seed = svc.store.get(SEED_ID)
    form = TeachForm(seed.signature, r"Loss is NaN", "lower the learning rate")
    assert "already known" in svc.teach_problems(form)["regex"]
    assert SEED_ID in svc.teach_problems(form)["regex"]


def test_the_same_error_taught_twice_gets_a_second_id(svc: Errfix) -> None:
    first = svc.teach(form_for(svc), submitter="U_ALICE", permalink=LINK)
    d = svc.draft(PASTE)
    assert d is not None and d.id == f"{first.id}-2"


def test_export_team_writes_only_team_records_and_they_import_elsewhere_unchanged(svc: Errfix, tmp_path: Path) -> None:
    rec = svc.teach(form_for(svc), submitter="U_ALICE", permalink=LINK)
    rows = list(svc.export_team_records())
    assert [r["id"] for r in rows] == [rec.id]
    other = Errfix.open(tmp_path / "other.db")
    try:
        other.store.import_records([Record.model_validate(rows[0])])
        assert other.team_ids() == {rec.id}
        assert other.store.get(rec.id).to_json() == svc.store.get(rec.id).to_json()
        assert json.loads(json.dumps(rows[0]))["verification_tier"] == "team"
        assert other.diagnose(AGAIN).matches[0].id == rec.id
    finally:
        other.close()


def test_a_sync_does_not_remove_team_records(svc: Errfix) -> None:
    rec = svc.teach(form_for(svc), submitter="U_ALICE", permalink=LINK)
    summary = svc.store.import_records([svc.store.get(SEED_ID)], replace_all=True)
    assert rec.id not in summary.removed and svc.store.has(rec.id)


def test_forget_removes_a_team_record_keeps_its_votes_and_refuses_others(svc: Errfix) -> None:
    rec = svc.teach(form_for(svc), submitter="U_ALICE", permalink=LINK)
    svc.record_reply(Reply("C1", "2.0", "1.0", "1.0", rec.id, 0.9))
    svc.click_vote("C1:2.0", rec.id, svc.view(rec.id).workarounds[0].wkey, "U_BOB", 1)
    svc.forget(rec.id)
    assert not svc.store.has(rec.id)
    trail = [(e.actor, e.action, e.target) for e in svc.audit() if e.target == rec.id]
    assert trail == [("errfix", "forget-record", rec.id), ("U_ALICE", "teach", rec.id)]  # newest first
    assert not svc.diagnose(AGAIN).matches or svc.diagnose(AGAIN).matches[0].id != rec.id
    assert [v.record_id for v in svc.export_votes()] == [rec.id]
    with pytest.raises(NotFound):
        svc.forget(rec.id)
    with pytest.raises(InvalidInput, match="not a team record"):
        svc.forget(SEED_ID)


_text = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=80).filter(str.strip)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=_text, fix=_text, cause=st.text(max_size=80), how=st.text(max_size=80))
def test_a_team_record_round_trips_through_its_json(line: str, fix: str, cause: str, how: str) -> None:
    form = TeachForm(line, "x", fix, cause, how, "general")
    rec = team_record(form, record_id="team/general/x", submitter="U1", permalink=LINK, today="2026-12-04")
    again = Record.model_validate(json.loads(json.dumps(rec.to_json())))
    assert again.to_json() == rec.to_json() and again.unknown_fields() == []
