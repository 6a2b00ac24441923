"""The demo's one-click pastes: copies of tests/seed_examples that errfix answers with their record."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.demo.examples import CHOSEN, EXAMPLES_DIR, examples
from bot.service.errfix import Errfix
from bot.store import open_store
from tests.conftest import REPO

SEED_EXAMPLES = REPO / "tests" / "seed_examples"


@pytest.fixture(scope="module")
def errfix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Errfix]:
    store = open_store(tmp_path_factory.mktemp("examples") / "errfix.db")  # the bundled seeds only
    yield Errfix(store)
    store.close()


def test_every_shipped_example_is_a_copy_of_a_seed_example() -> None:
    shipped = sorted(p.relative_to(EXAMPLES_DIR).as_posix() for p in EXAMPLES_DIR.rglob("*.txt"))
    assert shipped == sorted(f"{rid}.txt" for rid, _ in CHOSEN)  # nothing shipped that is not offered
    for name in shipped:
        assert (EXAMPLES_DIR / name).read_bytes() == (SEED_EXAMPLES / name).read_bytes(), name


@pytest.mark.parametrize("index", range(len(CHOSEN)))
def test_each_example_is_answered_unprompted_with_its_record(errfix: Errfix, index: int) -> None:
    example = examples()[index]
    diagnosis = errfix.diagnose(example.text)
    assert diagnosis.reply, f"errfix would stay quiet on the {example.title!r} example"
    assert diagnosis.matches[0].id == example.record_id


def test_examples_have_short_distinct_titles() -> None:
    titles = [e.title for e in examples()]
    assert len(set(titles)) == len(titles) and all(len(t) <= 24 for t in titles)
