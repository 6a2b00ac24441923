"""How sure a search is (#13.3): words get a result as their answer only at 0.65 and above.

Below it `/errfix` labels a result weak and `@errfix words` (or a DM) says "not sure" with the
closest records, so a feature request or a how-to question is never answered as if it were an error.
"""

from __future__ import annotations

from pathlib import Path

from bot.core.records import Record
from bot.core.views import MatchView
from bot.service.errfix import Errfix, search_is_sure
from tests.conftest import minimal


def _at(*scores: float) -> list[MatchView]:
    rec = Record.model_validate(minimal("t/one", signature="GizmoError: gizmo overflow"))
    return [MatchView(rec, s, []) for s in scores]


def test_the_best_result_must_score_at_least_sixty_five_hundredths() -> None:
    assert search_is_sure(_at(0.65, 0.2))
    assert not search_is_sure(_at(0.6499, 0.6499))
    assert search_is_sure(_at(0.9))
    assert not search_is_sure([])


def test_only_the_first_result_counts() -> None:
    assert not search_is_sure(_at(0.5, 0.9))  # results come best first: a later one never decides


def test_the_service_gives_the_same_bar_to_every_adapter(tmp_path: Path) -> None:
    svc = Errfix.open(tmp_path / "seeds.db")
    try:
        assert svc.search_threshold == 0.65
        sure = svc.search("DataFrame object has no attribute append", limit=3)
        assert sure[0].id == "pandas/dataframe-append-removed" and search_is_sure(sure, svc.search_threshold)
        unsure = svc.search("which laptop should I buy", limit=3)
        assert unsure and not search_is_sure(unsure, svc.search_threshold)
    finally:
        svc.close()
