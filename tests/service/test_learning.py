"""What the team teaches, end to end below Slack (through `Errfix`, over real SQLite): "Not this
error" lowers a record for similar pastes, "This one" makes a paste match, both listed and undone;
and export/import of what was learned (rates with the votes folded in, learned aliases) without
counting a vote twice."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.core import rank
from bot.core.extract import normalize
from bot.core.fold import FOLDED
from bot.core.records import Record
from bot.core.views import Tally, workaround_key
from bot.service.errfix import Errfix
from bot.store import open_store
from bot.store.learning import Learning, Paste, iso_days_ago
from bot.store.store import Store
from tests.conftest import SEED_ID, SeededCopy, copy_db, minimal, seed_json

NAN = (
    'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n'
    "RuntimeError: Loss is NaN or Inf at step 1000"
)
ODD = "epoch 3 went bad:\nTrainingAbortError: objective went non-finite after 1000 steps (see run 7f3a)"
OOM = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 15.90 GiB total capacity)"

PER_USER = 2.0  # logits one "Not this error" costs a record (this test's own number)


@pytest.fixture
def seeded(seeded_copy: SeededCopy) -> Iterator[Store]:
    store = open_store(seeded_copy("a.db"))
    yield store
    store.close()


def _reject(svc: Errfix, paste: str, user: str, n: int) -> None:
    """What the Slack layer does: log our answer to a paste, then a user's "Not this error" on it."""
    d = svc.diagnose(paste)
    ts = f"1700000000.{n:06d}"
    logged = svc.log_paste("C1", ts, d, replied=d.reply)
    assert logged is not None and logged.line == d.extracted.lines[0].raw
    assert svc.reject(channel="C1", message_ts=ts, record_id=SEED_ID, user_id=user) == logged.line


def _first(svc: Errfix, paste: str) -> tuple[str | None, float, bool, dict[str, float]]:
    d = svc.diagnose(paste)
    if not d.matches:
        return None, 0.0, False, {}
    return d.matches[0].id, d.matches[0].score, d.reply, d.matches[0].parts


# ---- "Not this error" -------------------------------------------------------------------------------


def test_not_this_error_lowers_the_record_for_similar_pastes_more_with_each_user(seeded: Store) -> None:
    svc = Errfix(seeded)
    rid, score, reply, parts = _first(svc, NAN)
    assert (rid, reply) == (SEED_ID, True) and "rejected" not in parts

    version = seeded.version
    _reject(svc, NAN, "U1", 1)
    assert seeded.version == version + 1  # the matcher rebuilds with the rejection
    rid1, score1, _, parts1 = _first(svc, NAN)
    assert rid1 == SEED_ID and parts1["rejected"] == -PER_USER and score1 < score
    # the same error with other numbers is a similar paste: lowered too
    assert _first(svc, NAN.replace("1000", "52").replace("line 9", "line 77"))[3]["rejected"] == -PER_USER
    # another error's answer is untouched
    assert all("rejected" not in m.parts for m in svc.diagnose(OOM).matches)

    _reject(svc, NAN, "U1", 2)  # the same person again counts once, and changes nothing
    assert seeded.version == version + 1 and _first(svc, NAN)[3]["rejected"] == -PER_USER

    _reject(svc, NAN, "U2", 3)
    _reject(svc, NAN, "U3", 4)
    rid3, _, reply3, _ = _first(svc, NAN)
    assert not reply3 or rid3 != SEED_ID  # three people: no longer the answer

    # reversible: one user's, then everyone's
    line = Errfix(seeded).learned(SEED_ID)[0].text
    assert Errfix(seeded).unlearn_rejection(SEED_ID, line, "U3") == 1
    assert _first(svc, NAN)[3]["rejected"] == -2 * PER_USER
    assert Errfix(seeded).unlearn_rejection(SEED_ID, NAN.splitlines()[-1]) == 2  # the raw line works too
    assert _first(svc, NAN) == (rid, score, reply, parts)
    assert Errfix(seeded).unlearn_rejection(SEED_ID, line) == 0


# ---- "This one": learned aliases ----------------------------------------------------------------------


def test_a_learned_alias_makes_the_same_paste_match_next_time(seeded: Store) -> None:
    svc = Errfix(seeded)
    before = svc.diagnose(ODD)
    assert not before.reply and SEED_ID not in [m.id for m in before.matches]
    line = before.extracted.lines[0].raw  # what "This one" teaches: the paste's best error line
    version = seeded.version
    assert Errfix(seeded).learn_alias(SEED_ID, line, "U1")
    assert not Errfix(seeded).learn_alias(SEED_ID, line, "U2")  # known already
    assert seeded.version == version + 1
    after = svc.diagnose(ODD)
    assert after.reply and after.matches[0].id == SEED_ID

    assert Errfix(seeded).unlearn_alias(SEED_ID, "  " + line.replace(" ", "  ")) == 1  # spacing as pasted
    assert seeded.version == version + 2
    assert SEED_ID not in [m.id for m in svc.diagnose(ODD).matches]
    assert Errfix(seeded).unlearn_alias(SEED_ID, line) == 0


def test_only_learned_aliases_can_be_unlearned(seeded: Store) -> None:
    seeded.import_records([Record.model_validate(minimal("t/own", aliases=["OwnError: as the record says"]))])
    Errfix(seeded).learn_alias("t/own", "OwnError: as the record says", "U1")  # the same text, learned too
    assert Errfix(seeded).unlearn_alias("t/own", "OwnError: as the record says") == 1
    assert Errfix(seeded).unlearn_alias("t/own", "OwnError: as the record says") == 0
    assert seeded.get("t/own").aliases == ["OwnError: as the record says"]
    assert seeded.learned_aliases() == {}


def test_learned_lists_aliases_and_rejections_with_who_and_when(seeded: Store) -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    svc = Errfix(seeded)
    Errfix(seeded).learn_alias(SEED_ID, "TrainingAbortError: objective went non-finite", "U_ALICE")
    Errfix(seeded).learn_alias("pytorch/cuda-out-of-memory", "CudaSadness: no memory left", "U_BOB")
    _reject(svc, NAN, "U_BOB", 1)
    items = Errfix(seeded).learned()
    assert [(i.kind, i.record_id, i.user_id) for i in items] == [
        ("alias", SEED_ID, "U_ALICE"),
        ("alias", "pytorch/cuda-out-of-memory", "U_BOB"),
        ("rejection", SEED_ID, "U_BOB"),
    ]
    assert items[2].text == normalize(NAN.splitlines()[-1])  # the paste's error line, normalised
    after = datetime.now(UTC)
    for i in items:  # when it was learned: between the start of the test and now (no midnight edge)
        assert before <= datetime.strptime(i.created_at, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC) <= after
    assert [i.kind for i in Errfix(seeded).learned("pytorch/cuda-out-of-memory")] == ["alias"]
    assert Learning(seeded).rejections() == {SEED_ID: [(items[2].text, "U_BOB")]}


# ---- export and import of what was learned ------------------------------------------------------------


def _keys(store: Store, rid: str = SEED_ID) -> list[str]:
    return [workaround_key(w.action) for w in store.get(rid).workarounds]


def _vote_on_nan(store: Store) -> list[str]:
    """Three "Didn't work" on the 0.9 workaround, two "Worked" on the 0.85 one."""
    k_clip, _, k_norm = _keys(store)
    for user in ("U1", "U2", "U3"):
        store.vote(f"C1:{user}", SEED_ID, k_norm, user, -1)
    for user in ("U1", "U4"):
        store.vote(f"C1:{user}", SEED_ID, k_clip, user, 1)
    return _keys(store)


def _shown(store: Store, rid: str = SEED_ID) -> list[tuple[str, float]]:
    """Workarounds as shown: (action, rate) best first."""
    return [(w.action, round(w.success_rate, 4)) for w in Errfix(store).view(rid).workarounds]


def _export(store: Store) -> dict[str, dict[str, Any]]:
    # through JSON, as a file would carry them
    return {row["id"]: json.loads(json.dumps(row)) for row in Errfix(store).export_records()}


def _records(rows: dict[str, dict[str, Any]]) -> list[Record]:
    return [Record.model_validate(r) for r in rows.values()]


def test_export_folds_the_votes_into_rates_evidence_and_last_confirmed(seeded: Store) -> None:
    day_before = datetime.now(UTC).strftime("%Y-%m-%d")
    k_clip, k_lr, k_norm = _vote_on_nan(seeded)
    Errfix(seeded).learn_alias(SEED_ID, "TrainingAbortError: objective went non-finite", "U1")
    raw = seed_json()
    row = _export(seeded)[SEED_ID]
    e = raw["evidence_count"]
    by_action = {w["action"]: w for w in row["workarounds"]}
    clip, lr, norm = (w["action"] for w in raw["workarounds"])
    assert by_action[clip]["success_rate"] == round(rank.posterior(0.85, e, 2, 0).mean, 4)
    assert by_action[lr]["success_rate"] == 0.8  # no votes: as it was
    assert by_action[norm]["success_rate"] == round(rank.posterior(0.9, e, 0, 3).mean, 4)
    assert row["fix_success_rate"] == round(rank.record_fix_rate(raw["fix_success_rate"], e, 2, 3), 4)
    assert row["evidence_count"] == e + 5
    # the "worked" votes' day: the day the test started or, across midnight, the next
    assert row["last_confirmed"] in {day_before, datetime.now(UTC).strftime("%Y-%m-%d")}
    assert row["aliases"] == [*raw["aliases"], "TrainingAbortError: objective went non-finite"]
    assert [d["fail_rate"] for d in row["dead_ends"]] == [d["fail_rate"] for d in raw["dead_ends"]]
    mark = row[FOLDED]
    assert mark["db"] == seeded.instance_id()
    assert mark["votes"] == {k_clip: [2, 0], k_norm: [0, 3]}
    assert mark["aliases"] == ["TrainingAbortError: objective went non-finite"]
    # records nobody voted on or taught anything are exported exactly as imported
    others = [r for rid, r in _export(seeded).items() if rid != SEED_ID]
    assert others == [r.to_json() for r in seeded.records() if r.id != SEED_ID]
    assert all(FOLDED not in r for r in others)


def test_last_confirmed_only_moves_forward(seeded: Store) -> None:
    raw = seed_json()
    raw["last_confirmed"] = "2999-01-01"
    seeded.import_records([Record.model_validate(raw)])
    _vote_on_nan(seeded)
    assert _export(seeded)[SEED_ID]["last_confirmed"] == "2999-01-01"


def test_an_export_imported_into_a_new_database_gives_the_same_rates_and_order(seeded: Store, tmp_path: Path) -> None:
    _vote_on_nan(seeded)
    shown = _shown(seeded)
    fresh = Store(tmp_path / "new.db")
    fresh.import_records(_records(_export(seeded)))
    assert _shown(fresh) == shown
    assert fresh.tallies(SEED_ID) == {}  # the votes are in the rates, not in this database
    assert fresh.get(SEED_ID).model_extra[FOLDED]["db"] == seeded.instance_id()  # kept for the way back
    fresh.close()


def test_reimporting_an_export_into_the_same_database_counts_no_vote_twice(seeded: Store, tmp_path: Path) -> None:
    keys = _vote_on_nan(seeded)
    original = seeded.get(SEED_ID).to_json()
    shown = _shown(seeded)
    twin = Store(copy_db(seeded.path, tmp_path / "twin.db"))  # the same database, never re-imported

    summary = seeded.import_records(_records(_export(seeded)))
    assert SEED_ID in summary.unchanged  # the export's rates, minus our votes, are the record as it was
    assert seeded.get(SEED_ID).to_json() == original
    assert _shown(seeded) == shown

    # and the votes still work exactly as before: a change, a withdrawal, a new vote
    for store in (seeded, twin):
        store.vote("C1:U1", SEED_ID, keys[2], "U1", 1)
        store.vote("C1:U2", SEED_ID, keys[2], "U2", None)
        store.vote("C1:U9", SEED_ID, keys[1], "U9", 1)
    assert _shown(seeded) == _shown(twin) != shown
    twin.close()

    # exporting again after the round trip gives the same file as exporting the twin would
    again = _export(seeded)[SEED_ID]
    assert again[FOLDED]["votes"] == {keys[0]: [2, 0], keys[1]: [1, 0], keys[2]: [1, 1]}


def test_reimporting_an_updated_upstream_record_keeps_the_teams_votes(seeded: Store) -> None:
    k_clip, _, k_norm = _vote_on_nan(seeded)
    upstream = seed_json()
    upstream["root_cause"] = "updated upstream"
    upstream["workarounds"][2]["success_rate"] = 0.95  # upstream is surer of the 0.9 fix now
    upstream["workarounds"].reverse()
    assert seeded.import_records([Record.model_validate(upstream)]).changed == [SEED_ID]
    assert seeded.tallies(SEED_ID) == {k_clip: Tally(2, 0), k_norm: Tally(0, 3)}
    rates = dict(_shown(seeded))
    e = upstream["evidence_count"]
    assert rates[upstream["workarounds"][0]["action"]] == round(rank.posterior(0.95, e, 0, 3).mean, 4)
    assert rates[upstream["workarounds"][2]["action"]] == round(rank.posterior(0.85, e, 2, 0).mean, 4)


def test_a_record_that_went_through_another_database_keeps_its_votes_and_drops_only_ours(
    seeded: Store, tmp_path: Path
) -> None:
    k_clip, k_lr, k_norm = _vote_on_nan(seeded)  # team A
    team_b = Store(tmp_path / "b.db")
    team_b.import_records(_records(_export(seeded)))
    team_b.vote("B:1", SEED_ID, k_lr, "B1", 1)  # team B's own evidence
    team_b.vote("B:2", SEED_ID, k_lr, "B2", 1)
    from_b = _export(team_b)
    team_b.close()
    assert from_b[SEED_ID][FOLDED]["before"][FOLDED]["db"] == seeded.instance_id()  # the marks chain

    seeded.import_records(_records(from_b))
    back = seeded.get(SEED_ID).to_json()
    raw = seed_json()
    e = raw["evidence_count"]
    # team B's two votes are in the rates, team A's five are not (they are still in A's votes table)
    assert back["evidence_count"] == e + 2
    rates = {w["action"]: w["success_rate"] for w in back["workarounds"]}
    assert rates == {
        raw["workarounds"][0]["action"]: 0.85,
        raw["workarounds"][1]["action"]: round(rank.posterior(0.8, e, 2, 0).mean, 4),
        raw["workarounds"][2]["action"]: 0.9,
    }
    assert back[FOLDED]["db"] != seeded.instance_id() and FOLDED not in back[FOLDED]["before"]
    assert seeded.tallies(SEED_ID) == {k_clip: Tally(2, 0), k_norm: Tally(0, 3)}


@pytest.mark.parametrize("mark", ["yes", {"db": None}, {"db": "x", "before": []}, []])
def test_a_mark_that_is_not_ours_or_not_well_formed_is_kept_as_given(seeded: Store, mark: Any) -> None:
    raw = seed_json()
    raw[FOLDED] = mark
    seeded.import_records([Record.model_validate(raw)])
    assert seeded.get(SEED_ID).to_json() == Record.model_validate(raw).to_json()


def test_a_mark_of_ours_with_nonsense_in_it_imports_the_record_as_given(seeded: Store) -> None:
    raw = seed_json()
    raw[FOLDED] = {
        "db": seeded.instance_id(),
        "votes": {},
        "aliases": [],
        "last_worked": None,
        "before": {"fix_success_rate": 7, "evidence_count": -1, "last_confirmed": None, "success_rate": {}},
    }
    seeded.import_records([Record.model_validate(raw)])
    assert seeded.get(SEED_ID).to_json() == Record.model_validate(raw).to_json()


def test_the_instance_id_is_kept_and_shared_by_copies(seeded: Store, tmp_path: Path) -> None:
    first = seeded.instance_id()
    assert len(first) == 32 and seeded.instance_id() == first
    again = Store(seeded.path)
    assert again.instance_id() == first
    again.close()
    copy = Store(copy_db(seeded.path, tmp_path / "copy.db"))
    assert copy.instance_id() == first
    copy.close()
    other = Store(tmp_path / "other.db")
    assert other.instance_id() != first
    other.close()


def test_home_counts_only_this_weeks_worked_votes(seeded: Store) -> None:
    """The Home tab's "fixes that worked most" is this week's, like its frequent errors."""
    wkeys = _keys(seeded)
    seeded.vote("C1:1.0", SEED_ID, wkeys[0], "U1", 1)
    seeded.vote("C1:2.0", SEED_ID, wkeys[1], "U1", 1)
    seeded.vote("C1:2.0", SEED_ID, wkeys[1], "U2", 1)
    assert [n for _, _, n in Errfix(seeded).home().top_fixes] == [2, 1]
    # the two votes on the second fix were cast three weeks ago
    seeded.db.execute("UPDATE votes SET created_at = ? WHERE wkey = ?", [iso_days_ago(21), wkeys[1]])
    seeded.db.commit()
    fixes = Errfix(seeded).home().top_fixes
    assert [(rid, n) for rid, _, n in fixes] == [(SEED_ID, 1)]
    assert fixes[0][1] == seeded.get(SEED_ID).workarounds[0].action


# Fake, secret-shaped values, assembled so no whole token sits in the source.
LEAKS = ("AKIA" + "QX7Z2P4M9R3T8W5N", "sk_live_" + "51H8aBcDeFgHiJkLmNoPqRsT", "Pg" + "Pass_w0rd!9")
LEAKY = (
    'Traceback (most recent call last):\n  File "app.py", line 3, in <module>\n'
    f"psycopg2.OperationalError: connection to postgres://pay:{LEAKS[2]}@db/pay failed key {LEAKS[0]} {LEAKS[1]}"
)


def _file_bytes(path: Path) -> bytes:
    """The database file and its WAL, as they sit on disk."""
    return b"".join(p.read_bytes() for p in (path, path.with_name(path.name + "-wal")) if p.exists())


def test_paste_lines_rejections_and_aliases_are_stored_redacted(seeded: Store, tmp_path: Path) -> None:
    svc = Errfix(seeded)
    d = svc.diagnose(LEAKY)
    logged = svc.log_paste("C1", "1700000000.000001", d, replied=d.reply)
    assert logged is not None
    assert "postgres://pay:[redacted:url-password]@db/pay" in logged.line
    assert "[redacted:aws-access-key]" in logged.line and "[redacted:stripe-key]" in logged.line
    svc.reject(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID, user_id="U1")
    assert svc.learn_alias(SEED_ID, f"OperationalError: password={LEAKS[2]} for {LEAKS[1]}", "U2")
    raw = _file_bytes(tmp_path / "a.db")
    assert b"OperationalError" in raw  # the lines are there, only their secrets are not
    for secret in LEAKS:
        assert secret.encode() not in raw


KEY_A, KEY_B = "AKIA" + "R7QX2M4P9T3W8Z5N", "AKIA" + "J2WV9K4T7Q1M6P3X"  # two key ids of the same kind


def _nan_with(key: str) -> str:
    return NAN + f" (checkpoint upload with key {key})"


def test_a_rejected_paste_with_a_secret_is_recognised_with_another_secret_of_the_same_kind(seeded: Store) -> None:
    svc = Errfix(seeded)
    assert _first(svc, _nan_with(KEY_A))[0] == SEED_ID
    d = svc.diagnose(_nan_with(KEY_A))
    assert svc.log_paste("C1", "1700000000.000001", d, replied=d.reply) is not None
    assert svc.reject(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID, user_id="U1")
    [(line, _)] = Learning(seeded).rejections()[SEED_ID]
    assert KEY_A.lower() not in line and "[redacted:aws-access-key]" in line
    # the same error with another key id: the stored line still reads as the same, so it is lowered
    assert _first(svc, _nan_with(KEY_B))[3]["rejected"] == -PER_USER
    assert _first(svc, _nan_with(KEY_A))[3]["rejected"] == -PER_USER


def test_what_was_learned_from_a_paste_with_a_secret_is_unlearned_by_the_line_as_pasted(seeded: Store) -> None:
    svc = Errfix(seeded)
    d = svc.diagnose(_nan_with(KEY_A))
    svc.log_paste("C1", "1700000000.000001", d, replied=d.reply)
    svc.reject(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID, user_id="U1")
    pasted = _nan_with(KEY_A).splitlines()[-1]
    assert svc.learn_alias(SEED_ID, f"TrainingAbortError: bad key {KEY_A}", "U2")
    assert svc.unlearn_alias(SEED_ID, f"TrainingAbortError: bad key {KEY_A}") == 1
    assert svc.unlearn_rejection(SEED_ID, pasted) == 1
    assert svc.learned() == []
    details = json.dumps([e.to_json() for e in svc.audit()])
    assert KEY_A not in details and "[redacted:aws-access-key]" in details


def _legacy(store: Store, sql: str, params: list[Any]) -> None:
    """A row written by an errfix that did not redact yet (raw SQL: the code would redact it)."""
    store.db.execute(sql, params)
    store.db.commit()


def test_export_and_the_app_home_redact_what_an_older_errfix_kept_as_pasted(seeded: Store) -> None:
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    _legacy(
        seeded,
        "INSERT INTO aliases (record_id, alias, origin, created_by, created_at) VALUES (?, ?, 'learned', 'U1', ?)",
        [SEED_ID, f"TrainingAbortError: bad key {KEY_A}", stamp],
    )
    _legacy(
        seeded,
        "INSERT INTO pastes (channel, ts, line, created_at, channel_type) VALUES ('C1', '1.1', ?, ?, 'channel')",
        [f"UploadError: denied for {KEY_B}", stamp],
    )
    svc = Errfix(seeded)
    exported = json.dumps(list(svc.export_records()))
    assert KEY_A not in exported and "TrainingAbortError: bad key [redacted:aws-access-key]" in exported
    assert svc.home().unmatched[0][0] == "UploadError: denied for [redacted:aws-access-key]"


def test_a_line_cut_by_extraction_is_kept_without_its_last_word(seeded: Store) -> None:
    """A 2,000-character line is cut mid-word; a secret cut in half is no longer recognisable."""
    password = "Hy2k" + "Mn7qXs4b"
    paste = "RuntimeError: " + "loss went bad " * 140 + f"dsn postgres://app:{password}@db/pay"
    cut_at = 2_000  # where extraction cuts a line (this test's own number)
    assert paste.index(password) < cut_at < paste.index(password) + len(password)
    svc = Errfix(seeded)
    d = svc.diagnose(paste)
    logged = svc.log_paste("C1", "1700000000.000001", d, replied=d.reply)
    assert logged is not None and logged.line.endswith("loss went bad dsn …")
    assert password[:4] not in logged.line


# ---- what is logged as a paste ----------------------------------------------------------------------


def test_an_error_no_record_knows_is_logged_unmatched_for_the_app_home(seeded: Store) -> None:
    """Two error lines of equal weight and no candidate: the paste is logged with no record, and
    the line kept is extraction's first (the later line of the two), which the App Home lists."""
    svc = Errfix(seeded)
    d = svc.diagnose("ZorblaxError: the flux capacitor misfired\nQuuxError: the warp coil melted")
    assert d.is_error and d.matches == []
    logged = svc.log_paste("C1", "1700000000.000001", d, replied=False, channel_type="channel")
    assert logged is not None
    assert (logged.line, logged.record_id, logged.score) == ("QuuxError: the warp coil melted", None, None)
    assert [line for line, _ in svc.home().unmatched] == ["QuuxError: the warp coil melted"]


def test_chatter_that_only_resembles_a_record_is_not_logged(seeded: Store) -> None:
    """`hello git world` in a channel is no error, though the git records are weak candidates for
    it: nothing is logged (it would show a record's signature as an unmatched paste). The same
    words answered (a mention, a DM) are logged, with no record since errfix was not sure."""
    svc = Errfix(seeded)
    d = svc.diagnose("hello git world")
    assert not d.is_error and d.matches and not d.reply
    assert svc.log_paste("C1", "1700000000.000002", d, replied=False, channel_type="channel") is None
    assert svc.home().unmatched == []
    logged = svc.log_paste("C1", "1700000000.000003", d, replied=True, channel_type="channel")
    assert logged is not None and logged.record_id is None


# ---- the App Home's lists, with this test's own numbers ---------------------------------------------


def _log(store: Store, n: int, record_id: str | None, line: str = "RuntimeError: x") -> None:
    learning = Learning(store)
    for k in range(n):
        learning.log_paste(Paste("C1", f"1700000000.{k:06d}", line, record_id, None, False, "channel"))


def test_the_home_lists_the_five_most_frequent_errors_most_frequent_first(seeded: Store) -> None:
    ids = sorted(seeded.seed_ids())[:6]
    for n, rid in zip((1, 2, 3, 4, 5, 6), ids, strict=True):
        _log(seeded, n, rid)
    top = Errfix(seeded).home().top_errors
    assert [(rid, n) for rid, _, n in top] == [(ids[5], 6), (ids[4], 5), (ids[3], 4), (ids[2], 3), (ids[1], 2)]


def test_the_home_lists_five_fixes_that_worked_and_none_that_only_failed(seeded: Store) -> None:
    ids = sorted(rid for rid in seeded.seed_ids() if seeded.get(rid).workarounds)[:7]
    seeded.vote("C1:9.0", ids[6], _keys(seeded, ids[6])[0], "U1", -1)  # only "Didn't work"
    seeded.vote("C1:0.0", ids[0], _keys(seeded, ids[0])[0], "U0", 1)
    assert [(rid, n) for rid, _, n in Errfix(seeded).home().top_fixes] == [(ids[0], 1)]
    for k, rid in enumerate(ids[:6]):  # record k: k + 1 people said "Worked"
        for user in range(k + 1):
            seeded.vote(f"C1:{k}.0", rid, _keys(seeded, rid)[0], f"U{user}", 1)
    fixes = Errfix(seeded).home().top_fixes
    assert [(rid, n) for rid, _, n in fixes] == [(ids[5], 6), (ids[4], 5), (ids[3], 4), (ids[2], 3), (ids[1], 2)]


def test_the_home_lists_the_ten_newest_unmatched_pastes(seeded: Store) -> None:
    learning = Learning(seeded)
    for k in range(12):
        learning.log_paste(Paste("C1", f"1.{k}", f"ZorblaxError: case {k:02d}", None, None, False, "channel"))
    lines = [line for line, _ in Errfix(seeded).home().unmatched]
    assert lines == [f"ZorblaxError: case {k:02d}" for k in range(11, 1, -1)]


def test_the_week_counts_pastes_of_the_last_seven_days(seeded: Store) -> None:
    _log(seeded, 3, None)
    _log(seeded, 2, SEED_ID)
    seeded.db.execute("UPDATE pastes SET created_at = ? WHERE id IN (1, 4)", [iso_days_ago(7.01)])
    seeded.db.execute("UPDATE pastes SET created_at = ? WHERE id = 2", [iso_days_ago(6.99)])
    seeded.db.commit()
    week = Errfix(seeded).week()
    assert (week.pastes, week.unmatched, week.answered) == (3, 2, 0)


# ---- "Not this error" and "This one", with this test's own numbers -----------------------------------


def test_the_first_to_say_not_this_error_is_the_one_named(seeded: Store) -> None:
    svc = Errfix(seeded)
    d = svc.diagnose(NAN)
    svc.log_paste("C1", "1700000000.000001", d, replied=d.reply)
    svc.reject(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID, user_id="U_FIRST")
    seeded.db.execute("UPDATE rejections SET created_at = ?", [iso_days_ago(0.5)])
    seeded.db.commit()
    svc.reject(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID, user_id="U_SECOND")
    reply = Learning(seeded).rejected_by(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID)
    assert reply == "U_FIRST"


def test_this_one_is_offered_for_a_rejection_of_the_last_day_only(seeded: Store) -> None:
    """The "This one" button under `/errfix` comes from the user's last "Not this error" of the
    last 24 hours: at 23 hours it is offered, at 25 it is not."""
    svc = Errfix(seeded)
    d = svc.diagnose(NAN)
    svc.log_paste("C1", "1700000000.000001", d, replied=d.reply)
    line = svc.reject(channel="C1", message_ts="1700000000.000001", record_id=SEED_ID, user_id="U1")
    assert line is not None
    for hours, offered in ((23, line), (25, None)):
        seeded.db.execute("UPDATE rejections SET created_at = ?", [iso_days_ago(hours / 24)])
        seeded.db.commit()
        assert svc.last_rejected_line("U1") == offered, hours


def test_a_line_that_is_blank_is_never_learned(seeded: Store) -> None:
    version = seeded.version
    assert Learning(seeded).learn_alias(SEED_ID, " \n\t ", "U1") is False
    assert seeded.learned_aliases() == {} and seeded.version == version
