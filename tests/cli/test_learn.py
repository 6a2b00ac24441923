"""`errfix learned` / `errfix unlearn`, export and import of what was learned, and the issue's
done-when check, all through the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.core.fold import FOLDED
from bot.core.views import workaround_key
from bot.store import open_store
from bot.store.learning import Learning, Paste
from bot.store.store import Store
from tests.conftest import SEED_ID, Cli, read_jsonl, run_module, seed_json

LINE = "TrainingAbortError: objective went non-finite after 1000 steps"


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A seeded database with one learned alias and one rejection."""
    path = tmp_path / "team.db"
    store = open_store(path)
    Learning(store).learn_alias(SEED_ID, LINE, "U_ALICE")
    Learning(store).log_paste(
        Paste(
            channel="C1",
            ts="1.0",
            line="RuntimeError: CUDA error: out of memory",
            record_id=SEED_ID,
            score=0.7,
            replied=True,
        )
    )
    Learning(store).reject(channel="C1", message_ts="1.0", record_id=SEED_ID, user_id="U_BOB")
    store.close()
    return path


def _show(cli: Cli, db: Path) -> list[tuple[str, float, int]]:
    """`errfix show SEED --json`: (action, success_rate, rank) per workaround, in record order."""
    r = cli("show", SEED_ID, "--json", "--db", db)
    assert r.code == 0, r.err
    return [(w["action"], w["success_rate"], w["rank"]) for w in r.json()["workarounds"]]


def _top_first(cli: Cli, db: Path) -> str:
    return min(_show(cli, db), key=lambda w: w[2])[0]


def _vote(db: Path, votes: list[tuple[str, int, int]]) -> None:
    """(user, workaround index in the record, +1/-1) votes, one reply each, through the store."""
    store = Store(db)
    keys = [workaround_key(w.action) for w in store.get(SEED_ID).workarounds]
    for user, index, value in votes:
        store.vote(f"C1:{user}", SEED_ID, keys[index], user, value)
    store.close()


# ---- the done-when ---------------------------------------------------------------------------


def test_three_didnt_work_on_the_top_workaround_put_another_above_it(tmp_path: Path) -> None:
    db = tmp_path / "done.db"
    first = run_module("show", SEED_ID, "--json", "--db", db)  # the real entry point; seeds the database
    assert first.code == 0, first.err
    before = {w["action"]: w["rank"] for w in json.loads(first.out)["workarounds"]}
    top = min(before, key=lambda a: before[a])
    index = [w["action"] for w in seed_json()["workarounds"]].index(top)
    _vote(db, [(user, index, -1) for user in ("U_ALICE", "U_BOB", "U_CAROL")])

    after = json.loads(run_module("show", SEED_ID, "--json", "--db", db).out)["workarounds"]
    ranks = {w["action"]: w["rank"] for w in after}
    assert ranks[top] > 1  # another workaround is above it now
    shown = next(w for w in after if w["action"] == top)
    assert (shown["votes_up"], shown["votes_down"]) == (0, 3)
    assert shown["success_rate"] < min(w["success_rate"] for w in after if w["action"] != top)


# ---- learned / unlearn ----------------------------------------------------------------------------------


def test_learned_lists_aliases_and_rejections_with_who_when_and_how_to_undo(cli: Cli, db: Path) -> None:
    r = cli("learned", "--db", db)
    assert r.code == 0, r.err
    assert "learned aliases: 1" in r.out and "rejections (Not this error): 1" in r.out
    assert f'{SEED_ID}  "{LINE}"' in r.out and "by U_ALICE at 20" in r.out and "by U_BOB at 20" in r.out
    assert f"undo: errfix unlearn alias {SEED_ID} '{LINE}'" in r.out
    assert f"undo: errfix unlearn rejection {SEED_ID} 'runtimeerror: cuda error: out of memory' --user U_BOB" in r.out

    data = cli("learned", "--json", "--db", db).json()
    assert [(a["record_id"], a["text"], a["user_id"]) for a in data["aliases"]] == [(SEED_ID, LINE, "U_ALICE")]
    assert [(a["record_id"], a["user_id"]) for a in data["rejections"]] == [(SEED_ID, "U_BOB")]
    assert set(data["rejections"][0]) == {"kind", "record_id", "text", "user_id", "created_at"}
    assert cli("learned", "--json", "--record", "python/keyerror", "--db", db).json() == {
        "aliases": [],
        "rejections": [],
    }


def test_unlearn_removes_one_lesson_and_the_matcher_forgets_it(cli: Cli, db: Path) -> None:
    paste = f"epoch 3:\n{LINE}"
    assert cli("match", "--json", "--db", db, stdin=paste).json()["matches"][0]["id"] == SEED_ID
    r = cli("unlearn", "alias", SEED_ID, LINE, "--db", db)
    assert (r.code, r.out) == (0, f"forgot 1 alias of {SEED_ID}\n")
    assert SEED_ID not in [m["id"] for m in cli("match", "--json", "--db", db, stdin=paste).json()["matches"]]

    r = cli("unlearn", "rejection", SEED_ID, "RuntimeError: CUDA error: out of memory", "--db", db)  # raw line
    assert (r.code, r.out) == (0, f"forgot 1 rejection of {SEED_ID}\n")
    assert cli("learned", "--json", "--db", db).json() == {"aliases": [], "rejections": []}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["unlearn", "alias", SEED_ID, "never learned"], "errfix: no learned alias 'never learned' for"),
        (
            ["unlearn", "rejection", SEED_ID, "runtimeerror: cuda error: out of memory", "--user", "U_ALICE"],
            "errfix: no learned rejection 'runtimeerror: cuda error: out of memory' by U_ALICE for",
        ),
        (["unlearn", "alias", SEED_ID, LINE, "--user", "U_ALICE"], "errfix: --user is for rejections"),
    ],
)
def test_unlearning_what_is_not_there_is_one_line_and_exit_2(cli: Cli, db: Path, argv: list[str], message: str) -> None:
    r = cli(*argv, "--db", db)
    assert r.code == 2 and r.out == "" and r.err.startswith(message) and len(r.err_lines) == 1
    assert len(cli("learned", "--json", "--db", db).json()["aliases"]) == 1  # nothing removed


# ---- export and import of what was learned ---------------------------------------------------------------


def _voted(tmp_path: Path, cli: Cli) -> Path:
    db = tmp_path / "a.db"
    assert cli("stats", "--db", db).code == 0  # seeds it
    _vote(db, [("U1", 2, -1), ("U2", 2, -1), ("U3", 2, -1), ("U1", 0, 1), ("U4", 1, 1), ("U5", 1, -1)])
    return db


def _export(cli: Cli, db: Path, out: Path) -> dict[str, dict[str, Any]]:
    r = cli("export", "--db", db, "-o", out)
    assert r.code == 0, r.err
    return {row["id"]: row for row in read_jsonl(out)}


def test_an_export_imported_into_a_new_database_shows_the_same_rates_and_order(tmp_path: Path, cli: Cli) -> None:
    db = _voted(tmp_path, cli)
    shown = _show(cli, db)
    rows = _export(cli, db, tmp_path / "export.jsonl")
    assert rows[SEED_ID][FOLDED]["votes"]  # marked: these rates have votes in them

    new = tmp_path / "new.db"
    r = cli("import", tmp_path / "export.jsonl", "--db", new)
    assert r.code == 0, r.err
    assert _show(cli, new) == shown
    assert cli("stats", "--json", "--db", new).json()["votes_down"] == 0


def test_reimporting_an_export_into_the_same_database_changes_nothing(tmp_path: Path, cli: Cli) -> None:
    db = _voted(tmp_path, cli)
    shown = _show(cli, db)
    _export(cli, db, tmp_path / "export.jsonl")
    r = cli("import", tmp_path / "export.jsonl", "--db", db)
    assert r.code == 0, r.err
    assert ", 0 changed," in r.out  # every record comes back as it was imported
    assert _show(cli, db) == shown  # the votes are counted once
    assert _export(cli, db, tmp_path / "again.jsonl") == _export(cli, db, tmp_path / "export.jsonl")


def test_reimporting_an_updated_upstream_record_keeps_the_teams_votes(tmp_path: Path, cli: Cli) -> None:
    db = _voted(tmp_path, cli)
    upstream = seed_json()
    upstream["root_cause"] = "updated upstream"
    (tmp_path / "upstream.json").write_text(json.dumps(upstream), encoding="utf-8")
    r = cli("import", tmp_path / "upstream.json", "--db", db)
    assert r.out.strip() == "imported 1 record(s): 0 added, 1 changed, 0 unchanged, 0 removed"
    after = cli("show", SEED_ID, "--json", "--db", db).json()
    assert after["root_cause"] == "updated upstream"
    assert [(w["votes_up"], w["votes_down"]) for w in after["workarounds"]] == [(1, 0), (1, 1), (0, 3)]


def test_export_votes_is_one_json_object_per_vote(tmp_path: Path, cli: Cli) -> None:
    db = _voted(tmp_path, cli)
    r = cli("export", "--votes", "--db", db, "-o", tmp_path / "votes.jsonl")
    assert r.code == 0 and r.err == f"wrote 6 vote(s) to {tmp_path / 'votes.jsonl'}\n"
    votes = read_jsonl(tmp_path / "votes.jsonl")
    assert [set(v) for v in votes] == [{"reply_key", "record_id", "wkey", "user_id", "value", "created_at"}] * 6
    assert sorted(v["value"] for v in votes) == [-1, -1, -1, -1, 1, 1]
    assert {v["record_id"] for v in votes} == {SEED_ID}
