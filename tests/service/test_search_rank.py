"""How `/errfix <words>` ranks: the words' keyword score and the fuzzy score both count (#13.1)."""

from __future__ import annotations

from pathlib import Path

from bot.core.records import Record
from bot.service.errfix import Errfix, query_words
from bot.store.store import Store
from tests.conftest import minimal


def _service(tmp_path: Path, signatures: dict[str, str] | None = None) -> Errfix:
    """A store of records with these ids and signatures (by default two that share words)."""
    signatures = signatures or {
        "t/words": "GizmoError: gizmo overflow gizmo",
        "t/both": "WidgetError: gizmo overflow in the widget pipeline",
    }
    store = Store(tmp_path / "rank.db")
    store.import_records([Record.model_validate(minimal(rid, signature=sig)) for rid, sig in signatures.items()])
    return Errfix(store)


def test_a_record_strong_on_both_signals_beats_one_strong_on_keywords_alone(tmp_path: Path) -> None:
    svc = _service(tmp_path)
    keyword_only = [v.id for v in svc.ranked_search("gizmo overflow", {}, limit=2)]
    assert keyword_only[0] == "t/words"
    ranked = svc.ranked_search("gizmo overflow", {"t/both": 0.8}, limit=2)
    assert [v.id for v in ranked] == ["t/both", "t/words"]


def test_slack_entities_are_not_searched_as_words() -> None:
    assert query_words("a &lt;b&gt; &amp; c") == "a <b> & c"


def test_words_of_three_letters_are_searched_by_keyword_only(tmp_path: Path) -> None:
    """`/errfix git` (no error line, three letters): no fuzzy score, so the best keyword result
    scores exactly the keyword share's half, 0.9 / 2; four letters (`cuda`) get the fuzzy score too."""
    svc = _service(
        tmp_path,
        {
            "t/git": "GitError: not a git repository (or any parent)",
            "t/cuda": "CudaError: cuda driver version is insufficient",
        },
    )
    assert Errfix.fuzzy_search(svc.matcher, "git") == {}
    [git] = svc.search("git")
    assert (git.record.id, git.score) == ("t/git", 0.45)
    fuzzy = Errfix.fuzzy_search(svc.matcher, "cuda")
    assert fuzzy["t/cuda"] > 0.0
    [cuda, *_] = svc.search("cuda")
    assert cuda.record.id == "t/cuda" and cuda.score == round((0.9 + fuzzy["t/cuda"]) / 2, 4)
