"""How `/errfix <words>` ranks: the words' keyword score and the fuzzy score both count (#13.1)."""

from __future__ import annotations

from pathlib import Path

from bot.core.records import Record
from bot.service.errfix import Errfix, query_words
from bot.store.store import Store
from tests.conftest import minimal


def _service(tmp_path: Path) -> Errfix:
    store = Store(tmp_path / "rank.db")
    store.import_records(
        [
            Record.model_validate(minimal("t/words", signature="GizmoError: gizmo overflow gizmo")),
            Record.model_validate(minimal("t/both", signature="WidgetError: gizmo overflow in the widget pipeline")),
        ]
    )
    return Errfix(store)


def test_a_record_strong_on_both_signals_beats_one_strong_on_keywords_alone(tmp_path: Path) -> None:
    svc = _service(tmp_path)
    keyword_only = [v.id for v in svc.ranked_search("gizmo overflow", {}, limit=2)]
    assert keyword_only[0] == "t/words"
    ranked = svc.ranked_search("gizmo overflow", {"t/both": 0.8}, limit=2)
    assert [v.id for v in ranked] == ["t/both", "t/words"]


def test_slack_entities_are_not_searched_as_words() -> None:
    assert query_words("a &lt;b&gt; &amp; c") == "a <b> & c"
