"""`errfix match`, `search` and `show`: the JSON shapes other tools read, and the readable answers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bot.core.views import workaround_key
from bot.store.store import Store
from tests.cli.conftest import NAN_PASTE, check_match_shape
from tests.conftest import SEED_ID, Cli, seed_json

# ---- match ------------------------------------------------------------------------------------------


def test_match_json_shape(cli: Cli, seeded_db: Path) -> None:
    r = cli("match", "--json", "--db", seeded_db, stdin=f"Traceback (most recent call last):\n{NAN_PASTE}\n")
    assert r.code == 0
    result = r.json()
    assert set(result) == {"is_error", "reply", "matches"}
    check_match_shape(result)
    assert result["is_error"] is True
    assert result["matches"][0]["id"] == SEED_ID
    assert result["matches"][0]["workarounds"], "the seed has workarounds"


def test_match_text_without_an_error(cli: Cli, seeded_db: Path) -> None:
    r = cli("match", "--json", "--db", seeded_db, stdin="lunch at noon? the new place on 5th street\n")
    assert r.code == 0
    result = r.json()
    check_match_shape(result)
    assert result["is_error"] is False and result["reply"] is False


def test_match_readable_answer_names_the_record(cli: Cli, seeded_db: Path) -> None:
    r = cli("match", "--db", seeded_db, stdin=NAN_PASTE)
    assert r.code == 0 and SEED_ID in r.out


def test_match_jsonl_batch_keeps_order_and_ids(cli: Cli, seeded_db: Path) -> None:
    items = [
        {"id": "first", "text": NAN_PASTE},
        {"id": 2, "text": "good morning everyone"},
        {"id": None, "text": ""},
        {"id": "last", "text": f'Traceback (most recent call last):\n  File "train.py", line 9\n{NAN_PASTE}'},
    ]
    stdin = "\n".join(json.dumps(i) for i in items[:2]) + "\n\n" + "\n".join(json.dumps(i) for i in items[2:]) + "\n"
    r = cli("match", "--jsonl", "--db", seeded_db, stdin=stdin)
    assert r.code == 0, r.err
    rows = [json.loads(line) for line in r.out.splitlines()]
    assert [row["id"] for row in rows] == ["first", 2, None, "last"]
    for row in rows:
        assert set(row) == {"id", "is_error", "reply", "matches"}
        check_match_shape(row)
    assert rows[0]["matches"][0]["id"] == SEED_ID and rows[3]["matches"][0]["id"] == SEED_ID


@pytest.mark.parametrize("bad", ['{"id": 1}', "not json", '{"id": 1, "text": 5}', "[1, 2]", '"text"'])
def test_match_jsonl_bad_line_is_one_line_exit_2(cli: Cli, seeded_db: Path, bad: str) -> None:
    r = cli("match", "--jsonl", "--db", seeded_db, stdin=json.dumps({"id": "ok", "text": "x"}) + "\n" + bad + "\n")
    assert r.code == 2
    assert r.err_lines == ["errfix: stdin:2: expected a JSON object with a string 'text'"]


# ---- show, search ------------------------------------------------------------------------------------


def test_show_json_has_current_rates_and_votes_per_workaround(cli: Cli, seeded_db: Path) -> None:
    before = cli("show", SEED_ID, "--json", "--db", seeded_db).json()
    seed = seed_json()
    assert {k: before[k] for k in seed if k != "workarounds"} == {k: v for k, v in seed.items() if k != "workarounds"}
    assert [w["action"] for w in before["workarounds"]] == [w["action"] for w in seed["workarounds"]]
    for w in before["workarounds"]:
        assert (w["votes_up"], w["votes_down"]) == (0, 0)
        assert 0.0 <= w["success_rate"] <= 1.0

    target = seed["workarounds"][1]["action"]
    store = Store(seeded_db)
    for user in ("U1", "U2", "U3", "U4", "U5"):
        store.vote("C1:9.0", SEED_ID, workaround_key(target), user, 1)
    store.close()
    after = cli("show", SEED_ID, "--json", "--db", seeded_db).json()
    [old] = [w for w in before["workarounds"] if w["action"] == target]
    [new] = [w for w in after["workarounds"] if w["action"] == target]
    assert (new["votes_up"], new["votes_down"]) == (5, 0)
    assert new["success_rate"] > old["success_rate"]  # five "worked" votes raise it


def test_show_readable(cli: Cli, seeded_db: Path) -> None:
    r = cli("show", SEED_ID, "--db", seeded_db)
    assert r.code == 0 and SEED_ID in r.out


def test_search_json(cli: Cli, seeded_db: Path) -> None:
    r = cli("search", "loss", "nan", "--json", "--db", seeded_db)
    assert r.code == 0
    result = r.json()
    assert result["query"] == "loss nan"
    assert result["matches"][0]["id"] == SEED_ID
    for m in result["matches"]:
        assert 0.0 <= m["score"] <= 1.0
    assert result["sure"] is False  # "loss nan" finds the record, but not surely enough to be the answer


def test_search_says_which_results_are_weak_in_the_words_language(cli: Cli, seeded_db: Path) -> None:
    sure = cli("search", "DataFrame", "object", "has", "no", "attribute", "append", "--db", seeded_db).out
    first, second = sure.splitlines()[1:3]
    assert "pandas/dataframe-append-removed" in first and "(weak)" not in first and second.endswith("(weak)")
    zh = cli("search", "训练时损失变成", "nan", "--db", seeded_db).out
    assert zh.startswith("“训练时损失变成 nan”的搜索结果：") and "(弱匹配)" in zh


def test_corpus_db_answers_a_batch(cli: Cli, corpus_db: Path, corpus_records: list[dict[str, Any]]) -> None:
    """Batch mode over the full corpus: every line answered, in order, with well-formed matches."""
    picks = corpus_records[::250]
    stdin = "".join(json.dumps({"id": r["id"], "text": r["signature"]}) + "\n" for r in picks)
    r = cli("match", "--jsonl", "--db", corpus_db, stdin=stdin)
    assert r.code == 0, r.err
    rows = [json.loads(line) for line in r.out.splitlines()]
    assert [row["id"] for row in rows] == [p["id"] for p in picks]
    for row in rows:
        check_match_shape(row)


def test_match_reads_the_last_five_mebibytes_of_stdin(cli: Cli, seeded_db: Path) -> None:
    """Pinned with this test's own numbers (#20): a log piped in keeps its last 5 MiB, of which the
    matcher reads the last 1,000,000 characters; an error 990 kB from the end is still found."""
    progress = "".join(f"batch {n} done in 0.{n % 97:02d} s\n" for n in range(37_000))  # about 990 kB
    assert 950_000 < len(progress) < 990_000
    r = cli("match", "--db", seeded_db, stdin=NAN_PASTE + "\n" + progress)
    assert r.code == 0 and SEED_ID in r.out
