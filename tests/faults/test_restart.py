"""Fast restarts (#14.9): the index is saved next to the database and loaded on the next start
instead of being built; a damaged, foreign or stale cache never answers wrongly (it is ignored
and rebuilt, or, when stale, answers only until the background rebuild is done).

Whether an index was built is counted through the observer's on_rebuild, never timed."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest

import bot.core
from bot.core.records import Record
from bot.service import index_cache
from bot.service.errfix import Errfix
from bot.service.index_cache import MAGIC, cache_path
from bot.service.observer import Quiet
from tests.conftest import minimal

PASTE = "ValueError: fresh/new broke"  # the error of minimal("fresh/new")


class Builds(Quiet):
    """Counts the indexes built."""

    def __init__(self) -> None:
        self.builds: list[int] = []
        self.done = threading.Event()
        self.loads: list[int] = []
        self.loaded = threading.Event()

    def on_rebuild(self, version: int, records: int, seconds: float) -> None:
        self.builds.append(version)
        self.done.set()

    def on_index_loaded(self, version: int, records: int, seconds: float) -> None:
        self.loads.append(version)
        self.loaded.set()


def start(db: Path, **options: bool) -> tuple[Errfix, Builds]:
    seen = Builds()
    return Errfix.open(db, observer=seen, index_cache=True, **options), seen


def settle() -> None:
    """Wait for errfix's background indexing threads (by their name) to end."""
    for t in threading.enumerate():
        if t.name == "errfix-reindex":
            t.join(120)  # hang guard only


def top(svc: Errfix, text: str) -> str | None:
    found = svc.diagnose(text).matches
    return found[0].id if found else None


def test_a_restart_loads_the_index_instead_of_building_it(db: Path) -> None:
    first, seen = start(db)
    answer = top(first, "RuntimeError: Loss is NaN at step 1200")
    assert seen.builds == [first.store.version] and cache_path(db).exists()
    first.close()

    again, seen = start(db)
    assert top(again, "RuntimeError: Loss is NaN at step 1200") == answer
    assert seen.builds == []  # loaded, not built
    again.close()


def test_without_the_option_nothing_is_cached(db: Path) -> None:
    svc = Errfix.open(db)
    svc.diagnose("RuntimeError: Loss is NaN")
    svc.close()
    assert not cache_path(db).exists()


def _damage(path: Path, how: str) -> None:
    data = path.read_bytes()
    if how == "truncated":
        path.write_bytes(data[: len(data) // 2])
    elif how == "flipped":
        at = len(data) - 100
        path.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :])
    elif how == "other-code":
        end = data.index(b"\n", len(MAGIC))
        header = json.loads(data[len(MAGIC) : end])
        header["code"] = "0" * 16
        path.write_bytes(MAGIC + json.dumps(header).encode() + data[end:])
    else:
        path.write_bytes(b"not an index at all")


def test_a_damaged_or_foreign_cache_is_ignored_and_rebuilt(db: Path) -> None:
    for how in ("truncated", "flipped", "other-code", "garbage"):
        svc, _ = start(db)
        top(svc, "warm")
        svc.close()
        _damage(cache_path(db), how)
        svc, seen = start(db)
        assert top(svc, "RuntimeError: Loss is NaN at step 1200") is not None
        assert seen.builds == [svc.store.version], how  # rebuilt, and saved again
        svc.close()
        reloaded, seen = start(db)
        top(reloaded, "warm")
        assert seen.builds == [], how
        reloaded.close()


def test_a_stale_cache_answers_until_the_background_rebuild_is_done(db: Path) -> None:
    svc, _ = start(db)
    top(svc, "warm")
    svc.close()
    svc = Errfix.open(db)
    svc.store.import_records([Record.model_validate(minimal("fresh/new"))])  # the store moves on
    svc.close()

    svc, seen = start(db, background_reindex=True)
    assert top(svc, PASTE) != "fresh/new"  # the previous index answers at once
    assert seen.done.wait(120)  # hang guard only
    assert seen.builds == [svc.store.version]
    assert top(svc, PASTE) == "fresh/new"
    svc.close()


def test_a_stale_cache_is_not_used_without_a_background_rebuild(db: Path) -> None:
    svc, _ = start(db)
    top(svc, "warm")
    svc.close()
    svc = Errfix.open(db)
    svc.store.import_records([Record.model_validate(minimal("fresh/new"))])
    svc.close()
    svc, seen = start(db)
    assert top(svc, PASTE) == "fresh/new"
    assert seen.builds == [svc.store.version]
    svc.close()


def test_a_cache_of_another_database_is_not_used(db: Path, tmp_path: Path) -> None:
    svc, _ = start(db)
    top(svc, "warm")
    svc.close()
    other = tmp_path / "other.db"
    cache_path(other).write_bytes(cache_path(db).read_bytes())
    svc, seen = start(other)
    top(svc, "warm")
    assert seen.builds == [svc.store.version]
    svc.close()


def test_a_large_store_without_a_cache_starts_on_the_seeds_while_the_full_index_builds(db: Path) -> None:
    svc = Errfix.open(db)
    svc.store.import_records([Record.model_validate(minimal(f"team/{k}")) for k in range(6_000)])
    svc.close()
    svc, seen = start(db, background_reindex=True)
    assert top(svc, "ValueError: team/42 broke") != "team/42"  # not indexed yet: the build takes seconds
    assert top(svc, "RuntimeError: Loss is NaN or Inf at step 1000") == "pytorch/loss-nan-step"  # a seed
    assert seen.done.wait(300)  # hang guard only
    assert top(svc, "ValueError: team/42 broke") == "team/42"
    svc.close()


def test_a_large_store_answers_from_the_seeds_while_its_cache_loads(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """At 250,000 records loading the cache takes seconds: the first paste must not wait for it.
    The load is held on a gate here, so "meanwhile" is certain, not a race."""
    svc = Errfix.open(db, index_cache=True)
    svc.store.import_records([Record.model_validate(minimal(f"team/{k}")) for k in range(6_000)])
    assert top(svc, "ValueError: team/42 broke") == "team/42"  # builds the full index and caches it
    svc.close()

    gate = threading.Event()
    real_load = index_cache.load

    def held(path: str | Path) -> tuple[index_cache.IndexKey, object] | None:
        assert gate.wait(120)  # hang guard only
        return real_load(path)

    monkeypatch.setattr(index_cache, "load", held)
    svc, seen = start(db, background_reindex=True)
    assert top(svc, "ValueError: team/42 broke") != "team/42"  # the cache is not loaded yet
    assert top(svc, "RuntimeError: Loss is NaN or Inf at step 1000") == "pytorch/loss-nan-step"  # a seed
    gate.set()
    assert seen.loaded.wait(120)  # hang guard only
    assert top(svc, "ValueError: team/42 broke") == "team/42"
    settle()  # the background start is over: a build after a fresh load would be counted now
    assert seen.loads == [svc.store.version] and seen.builds == []  # loaded, not built
    svc.close()


def test_an_older_copy_of_the_database_put_back_is_reindexed(db: Path, tmp_path: Path) -> None:
    """A database copied back by hand over a newer one (same instance, an earlier version) keeps
    the newer one's cached index beside it: it may answer meanwhile (answers of records the store
    no longer has are dropped), and is rebuilt from the store put back."""
    svc, _ = start(db)
    top(svc, "warm")
    svc.close()
    older = tmp_path / "older.db"
    shutil.copy(db, older)
    svc, _ = start(db)
    svc.store.import_records([Record.model_validate(minimal("fresh/new"))])
    assert top(svc, PASTE) == "fresh/new"  # built and cached at the newer version
    svc.close()
    shutil.copy(older, db)

    svc, seen = start(db, background_reindex=True)
    assert top(svc, PASTE) != "fresh/new"  # the store put back has no such record
    assert seen.done.wait(120)  # hang guard only
    assert seen.builds == [svc.store.version]
    svc.close()


def test_a_change_to_any_core_module_makes_the_cached_index_another_versions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pickled index holds objects of every module of bot/core (records, extraction, regexes,
    the model): a change to any one of them must make an old cache "another version"."""
    core = Path(bot.core.__file__).parent
    copy = tmp_path / "core"
    shutil.copytree(core, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(bot.core, "__file__", str(copy / "__init__.py"))
    try:
        index_cache.code_digest.cache_clear()
        digests = {index_cache.code_digest()}
        modules = sorted(copy.glob("*.py"))
        assert len(modules) > 20  # the whole package, not a few files
        for module in modules:
            module.write_text(module.read_text() + "\n# changed\n")
            index_cache.code_digest.cache_clear()
            digests.add(index_cache.code_digest())
        assert len(digests) == len(modules) + 1
    finally:
        index_cache.code_digest.cache_clear()
