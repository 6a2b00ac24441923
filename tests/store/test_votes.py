"""Trustworthy counts at the store: one vote per user per reply and workaround, changes move it,
withdrawing removes it, restarts keep it, and concurrent writers on separate connections add up.

(Bots' votes never reach the store: the Slack layer drops them, see tests/slack/test_feedback_e2e.py.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.core.records import Record
from bot.core.views import MatchView, Tally, rank_workarounds, workaround_key
from bot.store.learning import Learning, Paste
from bot.store.store import Store
from tests.conftest import full

RID = "t/votes"


def _setup(path: Path) -> list[str]:
    """A store at `path` with one record; its workaround keys."""
    rec = Record.model_validate(full(RID))
    store = Store(path)
    store.import_records([rec])
    store.close()
    return [workaround_key(w.action) for w in rec.workarounds]


def _tallies(path: Path) -> dict[str, Tally]:
    store = Store(path)
    try:
        return store.tallies(RID)
    finally:
        store.close()


def _in_threads(path: Path, n: int, work: Callable[[Store, int], None]) -> None:
    """Run `work(store, i)` for i < n, each on its own thread with its own connection, all at once."""
    start = threading.Barrier(n)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        store = Store(path)
        try:
            start.wait()
            work(store, i)
        except BaseException as e:  # collected: an exception on a thread would not fail the test
            errors.append(e)
        finally:
            store.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_one_vote_per_user_per_reply_and_workaround(tmp_path: Path) -> None:
    k0, k1, _ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    store.vote("reply-1", RID, k0, "U1", 1)
    store.vote("reply-1", RID, k0, "U1", 1)  # the same vote again: still one
    store.vote("reply-1", RID, k1, "U1", -1)  # another workaround: a vote of its own
    store.vote("reply-2", RID, k0, "U1", 1)  # another reply (another paste): a vote of its own
    assert store.tallies(RID) == {k0: Tally(2, 0), k1: Tally(0, 1)}
    assert store.stats().votes_up == 2
    store.close()


def test_a_change_moves_the_vote_and_a_withdrawal_removes_it(tmp_path: Path) -> None:
    k0, *_ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    assert store.vote("r", RID, k0, "U1", 1) is None
    assert store.vote("r", RID, k0, "U1", -1) == 1
    assert store.tallies(RID) == {k0: Tally(0, 1)}
    assert store.vote("r", RID, k0, "U1", None) == -1
    assert store.tallies(RID) == {}
    assert store.vote("r", RID, k0, "U1", None) is None  # withdrawing nothing is harmless
    assert list(store.votes()) == []
    store.close()


def test_a_click_sets_the_other_button_changes_the_same_button_withdraws(tmp_path: Path) -> None:
    k0, *_ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    assert Learning(store).click_vote("r", RID, k0, "U1", 1) == 1
    assert Learning(store).click_vote("r", RID, k0, "U1", -1) == -1
    assert store.tallies(RID) == {k0: Tally(0, 1)}
    assert Learning(store).click_vote("r", RID, k0, "U1", -1) is None
    assert store.tallies(RID) == {}
    store.close()


def test_a_reaction_votes_on_the_top_workaround_and_its_removal_withdraws(tmp_path: Path) -> None:
    _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    rec = store.get(RID)
    view = MatchView(rec, 1.0, rank_workarounds(rec, {}))
    top = view.workarounds[0].wkey
    assert Learning(store).reaction_vote("r", view, "U1", 1, added=True)
    assert not Learning(store).reaction_vote("r", view, "U1", 1, added=True)  # the same reaction twice
    assert store.tallies(RID) == {top: Tally(1, 0)}
    assert not Learning(store).reaction_vote("r", view, "U1", -1, added=False)  # she holds no -1
    assert Learning(store).reaction_vote("r", view, "U1", 1, added=False)
    assert store.tallies(RID) == {}
    store.close()


def test_votes_survive_a_restart(tmp_path: Path) -> None:
    k0, k1, _ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    store.vote("r", RID, k0, "U1", 1)
    store.vote("r", RID, k1, "U2", -1)
    store.vote("r", RID, k1, "U3", 1)
    store.vote("r", RID, k1, "U3", None)
    before = list(store.votes())
    store.close()  # the process ends
    again = Store(tmp_path / "db")
    assert list(again.votes()) == before
    assert again.tallies(RID) == {k0: Tally(1, 0), k1: Tally(0, 1)}
    again.close()


def test_votes_on_an_unknown_workaround_or_with_a_bad_value_change_nothing(tmp_path: Path) -> None:
    k0, *_ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    store.vote("r", RID, k0, "U1", 1)
    with pytest.raises(Exception, match="no workaround"):
        store.vote("r", RID, "0000000000000000", "U1", 1)
    with pytest.raises(ValueError):
        store.vote("r", RID, k0, "U1", 0)
    assert store.tallies(RID) == {k0: Tally(1, 0)}
    assert not store.db.conn.in_transaction  # a failed vote leaves no transaction open
    store.close()


def test_many_concurrent_votes_on_one_reply_through_separate_connections_are_exact(tmp_path: Path) -> None:
    path = tmp_path / "db"
    k0, k1, _ = _setup(path)
    n = 40

    def work(store: Store, i: int) -> None:
        user = f"U{i:02d}"
        # up, down, up, ...: each user's last word is up for even i, down for odd i
        for step in range(5 if i % 2 == 0 else 4):
            store.vote("C1:1.0", RID, k0, user, 1 if step % 2 == 0 else -1)
        store.vote("C1:1.0", RID, k1, user, 1)
        if i % 4 == 0:
            store.vote("C1:1.0", RID, k1, user, None)  # and a quarter withdraw their second vote

    _in_threads(path, n, work)
    assert _tallies(path) == {k0: Tally(n // 2, n // 2), k1: Tally(n - n // 4, 0)}


def test_concurrent_button_clicks_through_separate_connections_toggle_exactly(tmp_path: Path) -> None:
    path = tmp_path / "db"
    k0, *_ = _setup(path)
    n = 30

    def work(store: Store, i: int) -> None:
        user = f"U{i:02d}"
        for _ in range(3 if i < 20 else 2):  # three clicks leave the vote on, two take it off again
            Learning(store).click_vote("C1:1.0", RID, k0, user, 1)

    _in_threads(path, n, work)
    assert _tallies(path) == {k0: Tally(20, 0)}


def test_removing_a_reaction_withdraws_the_vote_it_made(tmp_path: Path) -> None:
    """Her reaction voted on the top fix; a button vote on another fix since stays, and when the top
    fix has changed since (others' votes), the removal still finds the vote the reaction made."""
    _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    rec = store.get(RID)
    view = MatchView(rec, 1.0, rank_workarounds(rec, {}))
    top, other = view.workarounds[0].wkey, view.workarounds[1].wkey
    learning = Learning(store)
    assert learning.reaction_vote("r1", view, "U1", 1, added=True)
    assert learning.click_vote("r1", RID, other, "U1", 1) == 1  # later, a "Worked" on another fix
    assert learning.reaction_vote("r1", view, "U1", 1, added=False)
    assert store.tallies(RID) == {other: Tally(1, 0)}

    assert learning.reaction_vote("r2", view, "U1", 1, added=True)
    moved = MatchView(rec, 1.0, rank_workarounds(rec, {top: Tally(0, 10)}))  # ten "Didn't work" on it
    assert moved.workarounds[0].wkey != top
    assert learning.reaction_vote("r2", moved, "U1", 1, added=False)
    assert store.tallies(RID) == {other: Tally(1, 0)}
    store.close()


def test_a_reaction_on_a_record_without_workarounds_changes_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "db")
    rec = Record.model_validate({**full("t/bare"), "workarounds": []})
    store.import_records([rec])
    view = MatchView(rec, 1.0, rank_workarounds(rec, {}))
    assert not Learning(store).reaction_vote("r", view, "U1", 1, added=True)
    assert not Learning(store).reaction_vote("r", view, "U1", 1, added=False)
    assert list(store.votes()) == []
    store.close()


def test_a_bad_vote_value_says_what_a_vote_is(tmp_path: Path) -> None:
    k0, *_ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    with pytest.raises(ValueError, match=r"^a vote is \+1, -1 or None \(withdraw\)$"):
        store.vote("r", RID, k0, "U1", 2)
    store.close()


def test_a_replayed_click_changes_nothing_and_answers_the_vote_held(tmp_path: Path) -> None:
    """A click carries its id; replayed after a crash (bot/slack/jobs.py) it must not toggle again."""
    k0, *_ = _setup(tmp_path / "db")
    store = Store(tmp_path / "db")
    learning = Learning(store)
    assert learning.click_vote("r", RID, k0, "U1", 1, click_id="c1") == 1
    assert learning.click_vote("r", RID, k0, "U1", 1, click_id="c1") == 1  # replayed: not withdrawn
    assert store.tallies(RID) == {k0: Tally(1, 0)}
    assert learning.click_vote("r", RID, k0, "U1", 1, click_id="c2") is None  # a new click withdraws
    assert learning.click_vote("r", RID, k0, "U1", 1, click_id="c2") is None  # and its replay holds none
    assert learning.click_vote("r", RID, k0, "U1", 1, click_id="c1") is None  # nor does the first's
    assert store.tallies(RID) == {}
    assert learning.click_vote("r", RID, k0, "U1", -1, click_id="c3") == -1
    assert learning.click_vote("r", RID, k0, "U1", 1, click_id="c3") == -1  # the replay answers what is held
    assert store.tallies(RID) == {k0: Tally(0, 1)}
    store.close()


def test_a_stored_paste_line_and_a_learned_alias_keep_their_first_thousand_characters(tmp_path: Path) -> None:
    """Pinned with this test's own number (#20): what errfix keeps of a long line, in the pastes
    log (and the rejection made from it) and as an alias, is its first 1,000 characters."""
    _setup(tmp_path / "db")
    learning = Learning(Store(tmp_path / "db"))
    long = "ValueError: " + " ".join(f"w{n:04d}" for n in range(300))  # 1,811 characters
    learning.log_paste(Paste("C1", "1.0", long, RID, 0.9, True))
    assert learning.paste_line("C1", "1.0") == long[:1000]
    assert learning.reject(channel="C1", message_ts="1.0", record_id=RID, user_id="U1") == long[:1000]
    assert learning.learn_alias(RID, long, "U1")
    [alias] = [x.text for x in learning.learned(RID) if x.kind == "alias"]
    assert alias == long[:1000]
    [rejection] = [x.text for x in learning.learned(RID) if x.kind == "rejection"]
    assert len(rejection) <= 1000 and rejection.startswith("valueerror")
