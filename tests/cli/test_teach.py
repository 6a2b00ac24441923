"""`errfix draft`, `errfix export --team` and `errfix forget` (#17), in-process over real SQLite."""

from __future__ import annotations

import json
from pathlib import Path

from bot.core.draft import TeachForm
from bot.core.views import workaround_key
from bot.service.errfix import Errfix
from tests.conftest import Cli, read_jsonl

PASTE = 'Traceback (most recent call last):\n  File "x.py", line 2\nQuarryLockError: shard 17 is held by pid 4412\n'


def test_draft_prints_the_prefilled_record(cli: Cli, tmp_path: Path) -> None:
    r = cli("draft", "--json", "--fix", "run `quarry unlock`", "--db", tmp_path / "a.db", stdin=PASTE)
    assert r.code == 0, r.err
    data = r.json()
    assert data["signature"] == "QuarryLockError: shard 17 is held by pid 4412"
    assert data["id"].startswith("team/") and data["domain"]
    assert data["fix"] == "run `quarry unlock`" and data["how"] == "quarry unlock"
    assert set(data) == {"id", "signature", "regex", "domain", "fix", "how"}
    text = cli("draft", "--db", tmp_path / "a.db", stdin=PASTE)
    assert text.code == 0 and f"regex:     {data['regex']}" in text.out


def test_draft_without_an_error_line_is_one_line_and_exit_2(cli: Cli, tmp_path: Path) -> None:
    r = cli("draft", "--db", tmp_path / "a.db", stdin="see you at lunch\n")
    assert r.code == 2 and r.out == ""
    assert r.err_lines == ["errfix: no error line in the paste: nothing to draft a record from"]


def test_export_team_then_forget(cli: Cli, tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    svc = Errfix.open(db)
    try:
        d = svc.draft(PASTE, fix="quarry unlock")
        assert d is not None
        rec = svc.teach(TeachForm.from_draft(d), submitter="U1", permalink="https://x.slack.com/archives/C1/p1")
    finally:
        svc.close()
    svc = Errfix.open(db)
    try:  # a vote on the team record and one on a seed: only the team's is a team vote
        svc.vote("C1:1.0", rec.id, workaround_key(rec.workarounds[0].action), "U2", 1)
        seed = svc.store.get("pytorch/loss-nan-step")
        svc.vote("C1:2.0", seed.id, workaround_key(seed.workarounds[0].action), "U2", 1)
    finally:
        svc.close()
    out = tmp_path / "team.jsonl"
    assert cli("export", "--team", "-o", out, "--db", db).code == 0
    assert [row["id"] for row in read_jsonl(out)] == [rec.id]
    votes = cli("export", "--votes", "--team", "--db", db)
    assert votes.code == 0 and [json.loads(line)["record_id"] for line in votes.out.splitlines()] == [rec.id]
    everything = cli("export", "--db", db)
    assert len(everything.out.splitlines()) > 1
    assert cli("forget", rec.id, "--db", db).out == f"forgot {rec.id}\n"
    assert cli("export", "--team", "--db", db).out == ""
    gone = cli("forget", rec.id, "--db", db)
    assert gone.code == 2 and gone.err_lines == [f"errfix: no record with id {json.dumps(rec.id)[1:-1]!r}"]
    seed = cli("forget", "pytorch/loss-nan-step", "--db", db)
    assert seed.code == 2 and "not a team record" in seed.err
