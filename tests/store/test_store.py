"""The SQLite store: schema and migrations, upserting imports, votes that survive re-imports."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from bot.core.records import Record
from bot.core.views import Tally, workaround_key
from bot.errors import NotFound, StoreError
from bot.store import bundled_seeds, open_store
from bot.store.files import load
from bot.store.schema import MIGRATION_NAMES, SCHEMA_VERSION, migrations, unknown_migrations
from bot.store.store import Reply, Store
from tests.conftest import SEED_ID, full, minimal


def _rec(rid: str, **fields: object) -> Record:
    return Record.model_validate(full(rid, **fields))


def _table_names(store: Store) -> set[str]:
    return set(store.db.table_names())


# ---- schema ----------------------------------------------------------------------------------


def test_a_new_store_is_migrated_in_wal_mode(tmp_path: Path) -> None:
    store = Store(tmp_path / "new.db")
    assert store.schema_version() == SCHEMA_VERSION
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert {"records", "records_fts", "workarounds", "dead_ends", "aliases", "votes", "replies", "meta"} <= (
        _table_names(store)
    )
    assert (store.count(), store.version) == (0, 0)
    store.close()


def test_reopening_applies_no_migration_twice(tmp_path: Path) -> None:
    path = tmp_path / "db.db"
    Store(path).close()
    store = Store(path)
    rows = store.db.execute("SELECT name FROM _sqlite_migrations WHERE migration_set = 'errfix'").fetchall()
    assert len(rows) == SCHEMA_VERSION == len({r[0] for r in rows})
    store.close()


def test_a_database_from_a_newer_errfix_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "db.db"
    Store(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "INSERT INTO _sqlite_migrations (migration_set, name, applied_at) VALUES ('errfix', 'm999_future', 'x')"
        )
    conn.close()
    with pytest.raises(StoreError, match="newer errfix"):
        Store(path)


def test_a_file_that_is_not_a_database_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "notes.db"
    path.write_text("these are my notes, not a database\n" * 100)
    with pytest.raises(StoreError, match="not a usable errfix database"):
        Store(path)


# ---- import ----------------------------------------------------------------------------------


def test_import_summary_and_version(store: Store) -> None:
    first = store.import_records([_rec("t/a"), _rec("t/b")])
    assert (first.added, first.changed, first.unchanged) == (["t/a", "t/b"], [], [])
    assert (store.count(), store.version) == (2, 1)

    second = store.import_records([_rec("t/a"), _rec("t/b", root_cause="now known"), _rec("t/c")])
    assert (second.added, second.changed, second.unchanged) == (["t/c"], ["t/b"], ["t/a"])
    assert second.line() == "1 added, 1 changed, 1 unchanged, 0 removed"
    assert (store.count(), store.version) == (3, 2)
    assert store.get("t/b").root_cause == "now known"


def test_reimporting_the_same_records_changes_nothing(store: Store) -> None:
    records = [_rec("t/a"), _rec("t/b")]
    store.import_records(records)
    before = (store.version, list(store.db.execute("SELECT id, data, content_hash, imported_at FROM records")))
    summary = store.import_records(records)
    assert summary.unchanged == ["t/a", "t/b"] and not summary.added and not summary.changed
    assert (store.version, list(store.db.execute("SELECT id, data, content_hash, imported_at FROM records"))) == before


def test_workarounds_dead_ends_and_aliases_follow_the_record(store: Store) -> None:
    store.import_records([_rec("t/a", aliases=["Loss became NaN"])])
    store.import_records(
        [_rec("t/a", workarounds=[{"action": "only this", "success_rate": 0.7}], dead_ends=[], aliases=["other"])]
    )
    q = store.db.execute
    assert q("SELECT action, prior_rate FROM workarounds WHERE record_id = 't/a'").fetchall() == [("only this", 0.7)]
    assert q("SELECT count(*) FROM dead_ends WHERE record_id = 't/a'").fetchone()[0] == 0
    assert q("SELECT alias FROM aliases WHERE record_id = 't/a'").fetchall() == [("other",)]


def test_replace_all_removes_records_not_given(store: Store) -> None:
    store.import_records([_rec("t/a"), _rec("t/b")])
    summary = store.import_records([_rec("t/a")], replace_all=True)
    assert summary.removed == ["t/b"]
    assert [r.id for r in store.records()] == ["t/a"]
    assert store.db.execute("SELECT count(*) FROM workarounds WHERE record_id = 't/b'").fetchone()[0] == 0


def test_get_and_has(store: Store) -> None:
    store.import_records([_rec("t/a")])
    assert store.has("t/a") and not store.has("t/zzz")
    assert store.get("t/a").to_json() == full("t/a")
    with pytest.raises(NotFound, match="t/zzz"):
        store.get("t/zzz")


def test_keyword_search_finds_by_words_and_survives_fts_syntax(store: Store) -> None:
    store.import_records(
        [
            _rec("t/nan"),
            Record.model_validate(minimal("t/oom", signature="CUDA out of memory", root_cause="batch too large")),
        ]
    )
    assert [rid for rid, _ in store.search_fts("loss nan")][0] == "t/nan"
    assert [rid for rid, _ in store.search_fts("memory")] == ["t/oom"]
    for hostile in ['"unclosed', "NEAR(a b)", "* OR AND", "col:value", "^x", ""]:
        store.search_fts(hostile)  # plain words only: must not raise an FTS syntax error


def test_search_vocabulary_in_both_languages_is_searched(store: Store) -> None:
    store.import_records(
        [
            Record.model_validate(
                minimal("t/oom", signature="CUDA out of memory", keywords=["vram full"], keywords_zh=["爆显存"])
            ),
            Record.model_validate(minimal("t/other", signature="Unrelated failure")),
        ]
    )
    assert [rid for rid, _ in store.search_fts("vram")] == ["t/oom"]
    assert [rid for rid, _ in store.search_fts("爆显存")] == ["t/oom"]
    assert store.get("t/oom").keywords_zh == ["爆显存"]
    # a Chinese phrase is found by the words inside it, not only as the whole run
    assert [rid for rid, _ in store.search_fts("我的显存满了")] == ["t/oom"]


def test_keyword_index_follows_changed_and_removed_records(store: Store) -> None:
    store.import_records(
        [
            Record.model_validate(minimal("t/a", signature="AlphaError: first wording")),
            Record.model_validate(minimal("t/b", signature="GammaError: stays")),
        ]
    )
    assert [rid for rid, _ in store.search_fts("alphaerror")] == ["t/a"]
    store.import_records([Record.model_validate(minimal("t/a", signature="BetaError: second wording"))])
    assert store.search_fts("alphaerror") == []
    assert [rid for rid, _ in store.search_fts("betaerror")] == ["t/a"]
    store.import_records([Record.model_validate(minimal("t/b", signature="GammaError: stays"))], replace_all=True)
    assert store.search_fts("betaerror") == []
    # the external-content FTS5 index agrees with the records table, row for row
    store.db.execute("INSERT INTO records_fts (records_fts, rank) VALUES ('integrity-check', 1)")


# ---- votes -------------------------------------------------------------------------------------


def _keys(rec: Record) -> list[str]:
    return [workaround_key(w.action) for w in rec.workarounds]


def test_votes_set_change_withdraw(store: Store) -> None:
    rec = _rec("t/a")
    store.import_records([rec])
    k = _keys(rec)[0]
    assert store.vote("r1", "t/a", k, "U1", 1) is None
    assert store.vote("r1", "t/a", k, "U2", 1) is None
    assert store.vote("r1", "t/a", k, "U1", -1) == 1  # changed, not added
    assert store.tallies("t/a") == {k: Tally(1, 1)}
    assert store.vote("r1", "t/a", k, "U1", None) == -1
    assert store.tallies("t/a") == {k: Tally(1, 0)}
    with pytest.raises(NotFound):
        store.vote("r1", "t/a", "no-such-key", "U1", 1)
    with pytest.raises(ValueError):
        store.vote("r1", "t/a", k, "U1", 2)


def test_reimport_keeps_votes_and_tallies(store: Store) -> None:
    rec = _rec("t/a")
    store.import_records([rec])
    k0, k1, k2 = _keys(rec)
    for user, key, value in [("U1", k0, 1), ("U2", k0, 1), ("U3", k0, -1), ("U1", k2, -1), ("U4", k1, 1)]:
        store.vote("reply-1", "t/a", key, user, value)
    votes_before = list(store.votes())
    tallies_before = store.tallies("t/a")
    assert tallies_before == {k0: Tally(2, 1), k1: Tally(1, 0), k2: Tally(0, 1)}

    # a changed record: new root cause, workarounds reordered, one reworded only in case/spacing
    data = full("t/a", root_cause="a better explanation")
    w = data["workarounds"]
    w[0]["action"] = "  " + w[0]["action"].upper() + " "
    data["workarounds"] = [w[2], w[0], w[1]]
    summary = store.import_records([Record.model_validate(data)])
    assert summary.changed == ["t/a"]
    assert list(store.votes()) == votes_before
    assert store.tallies("t/a") == tallies_before

    # and the unchanged re-import, the common case
    assert store.import_records([Record.model_validate(data)]).unchanged == ["t/a"]
    assert store.tallies("t/a") == tallies_before


def test_replace_all_keeps_votes_for_a_record_that_comes_back(store: Store) -> None:
    rec = _rec("t/a")
    store.import_records([rec, _rec("t/b")])
    store.vote("r", "t/a", _keys(rec)[0], "U1", 1)
    store.import_records([_rec("t/b")], replace_all=True)
    store.import_records([rec])
    assert store.tallies("t/a") == {_keys(rec)[0]: Tally(1, 0)}


# ---- replies, dedupe, stats ---------------------------------------------------------------------


def test_replies_are_recorded_and_found(store: Store) -> None:
    store.record_reply(Reply("C1", "2.0", "1.0", "1.0", "t/a", 0.9, "de"))
    assert store.reply("C1", "2.0") == Reply(
        channel="C1", reply_ts="2.0", message_ts="1.0", thread_ts="1.0", record_id="t/a", score=0.9, locale="de"
    )
    assert store.reply("C1", "3.0") is None
    shown = Reply("C1", "4.0", "3.5", "3.5", "t/a", 0.31, sure=False, others=(("t/b", 0.22), ("t/c", 0.2)), note="n.b.")
    store.record_reply(shown)
    assert store.reply("C1", "4.0") == shown  # what it was rendered from comes back as it went in


def test_stats_count_by_domain_votes_and_replies(store: Store) -> None:
    rec = _rec("t/a", domain="pytorch")
    store.import_records([rec, _rec("t/b", domain="pytorch"), _rec("t/c", domain="node")])
    store.vote("r", "t/a", _keys(rec)[0], "U1", 1)
    store.vote("r", "t/a", _keys(rec)[1], "U1", -1)
    store.vote("r", "t/a", _keys(rec)[2], "U2", -1)
    store.record_reply(Reply("C", "2", "1", "1", "t/a", 0.8))
    stats = store.stats()
    assert stats.records == 3
    assert stats.by_domain == {"pytorch": 2, "node": 1}
    assert (stats.votes_up, stats.votes_down, stats.replies) == (1, 2, 1)
    assert stats.schema_version == SCHEMA_VERSION == 13
    assert stats.to_json()["by_domain"] == {"pytorch": 2, "node": 1}


def test_the_migration_names_are_the_ones_a_new_database_applies(tmp_path: Path) -> None:
    store = Store(tmp_path / "new.db")
    applied = [m.name for m in migrations.applied(store.db)]
    store.close()
    assert applied == list(MIGRATION_NAMES)
    assert unknown_migrations([*applied, "m999_from_the_future"]) == ["m999_from_the_future"]


def test_ping_answers_while_the_database_is_open(store: Store) -> None:
    assert store.ping() is True


# ---- open_store: seeds on first use --------------------------------------------------------------


def test_a_new_database_gets_the_bundled_seeds_once(tmp_path: Path) -> None:
    path = tmp_path / "seeded.db"
    seeds = bundled_seeds()
    assert seeds is not None
    expected = sorted(rec.id for _, rec in load([seeds]).records)
    store = open_store(path)
    assert SEED_ID in expected
    assert [r.id for r in store.records()] == expected
    assert store.db.execute("SELECT DISTINCT origin FROM records").fetchall() == [("seed",)]
    version = store.version
    store.close()
    again = open_store(path)
    assert (again.count(), again.version) == (len(expected), version)
    again.close()


def test_a_database_emptied_on_purpose_is_not_reseeded(tmp_path: Path) -> None:
    path = tmp_path / "emptied.db"
    store = open_store(path)
    store.import_records([], replace_all=True)
    assert store.count() == 0
    store.close()
    again = open_store(path)
    assert again.count() == 0
    again.close()


def test_open_store_without_seed(tmp_path: Path) -> None:
    store = open_store(tmp_path / "bare.db", seed=False)
    assert store.count() == 0
    store.close()


def test_keyword_search_leaves_out_words_most_records_hold(store: Store) -> None:
    # 501 records say "widget": more than 500 and than a twentieth of them, so it is left out when
    # a rarer word is asked for too; alone, it is among the rarest three and kept
    recs = [Record.model_validate(minimal(f"t/w{k:03d}", signature=f"widget failure number{k}")) for k in range(500)]
    recs.append(Record.model_validate(minimal("t/sprocket", signature="widget sprocket jammed")))
    store.import_records(recs)
    assert [rid for rid, _ in store.search_fts("widget sprocket", limit=600)] == ["t/sprocket"]
    assert len(store.search_fts("widget", limit=600)) == 501


def test_keyword_search_weighs_a_synonym_less_than_the_users_own_word(store: Store) -> None:
    store.import_records(
        [
            Record.model_validate(minimal("t/words", signature="Ran out of memory on the card")),
            Record.model_validate(minimal("t/short", signature="Process got OOM")),
        ]
    )
    # "oom" and "out of memory" are synonyms (bot/core/synonyms.py): the one typed counts more
    assert [rid for rid, _ in store.search_fts("oom")] == ["t/short", "t/words"]
    assert [rid for rid, _ in store.search_fts("out of memory")] == ["t/words", "t/short"]


def test_a_synonym_with_a_word_most_records_hold_is_not_searched(store: Store) -> None:
    # "timeout" names the group (timed out, 超时, ...): 60 of 61 records say "timed out", more
    # than 50 and than 30% of them, so that synonym is left out; 超时 (one record) is searched
    recs = [Record.model_validate(minimal(f"t/w{k:02d}", signature=f"job number{k} timed out")) for k in range(60)]
    recs.append(Record.model_validate(minimal("t/zh", signature="Job stalled", keywords_zh=["任务超时了"])))
    store.import_records(recs)
    assert [rid for rid, _ in store.search_fts("timeout", limit=100)] == ["t/zh"]
    # typed, the same words are the user's own: the rarest three are kept however common
    assert {f"t/w{k:02d}" for k in range(60)} <= {rid for rid, _ in store.search_fts("timed out", limit=100)}


def test_the_newest_team_records_come_first_and_five_by_default(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The App Home's "newest team records": most recently saved first (ties by id), five of
    them; records that are not the team's are never listed. The clock is the test's."""
    import bot.store.store as store_module

    stamps = iter(f"2026-12-0{day}T09:00:00Z" for day in range(1, 9))
    monkeypatch.setattr(store_module, "now_iso", lambda: next(stamps))
    for rid in ["team/b", "team/a", "upstream/x", "team/d", "team/c", "team/f", "team/e"]:
        tier = "community" if rid.startswith("upstream") else "team"
        store.import_records([Record.model_validate(minimal(rid, verification_tier=tier))])
    assert store.newest_team_ids() == ["team/e", "team/f", "team/c", "team/d", "team/a"]
    assert store.newest_team_ids(limit=7) == ["team/e", "team/f", "team/c", "team/d", "team/a", "team/b"]
    store.import_records(
        [Record.model_validate(minimal(rid, verification_tier="team")) for rid in ["team/h", "team/g"]]
    )
    assert store.newest_team_ids(limit=3) == ["team/g", "team/h", "team/e"]  # saved together: by id


def test_a_reply_keeps_whether_it_was_general_advice(store: Store) -> None:
    """#35: a re-render after a vote must say "general advice" again (m011_reply_kind_only)."""
    store.record_reply(Reply("C", "2", "1", "1", "t/a", 0.9, kind_only=True))
    store.record_reply(Reply("C", "3", "1", "1", "t/a", 0.9))
    assert [store.reply("C", ts).kind_only for ts in ("2", "3")] == [True, False]  # type: ignore[union-attr]
