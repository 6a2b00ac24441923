"""A cold start without a cached index, pinned with this test's own number (#20): a store of up to
5,000 records is indexed before the first answer; a bigger one answers from the bundled seeds
while its full index builds in the background. SMALL_START 5,000 -> 500 passed the suite."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.records import Record
from bot.service.errfix import Errfix
from tests.conftest import minimal


def first_index_has_own_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, total: int) -> bool:
    svc = Errfix.open(tmp_path / f"{total}.db", background_reindex=True)
    try:
        own = total - svc.store.count()  # the seeds are in the count
        svc.store.import_records(
            [Record.model_validate(minimal(f"t/own{k:05d}", signature=f"widget{k} stalled")) for k in range(own)]
        )
        assert svc.store.count() == total
        monkeypatch.setattr(svc, "_rebuild_in_background", lambda: None)  # the full index never comes
        return any(e.id == "t/own00000" for e in svc.matcher.entries)
    finally:
        svc.close()


def test_five_thousand_records_are_indexed_before_the_first_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert first_index_has_own_records(tmp_path, monkeypatch, 5_000)


def test_more_answer_from_the_seeds_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not first_index_has_own_records(tmp_path, monkeypatch, 5_001)
