"""`Errfix`, the one service every adapter calls: typed results and observer hooks, over real SQLite.

Each use case is driven the way an adapter drives it (diagnose, log the paste, record the reply,
vote, import, sync, lint) and checked by what the store holds and what the observer heard.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.core.extract import extract
from bot.core.matcher import Matcher
from bot.core.model import CALIBRATION_FEATURES, Calibration
from bot.core.records import Record
from bot.core.views import Diagnosis
from bot.service.errfix import Errfix, Reply
from bot.service.observer import VoteCast
from bot.store import open_store
from bot.store.files import load
from bot.store.learning import Paste
from bot.store.lint import lint
from bot.store.upstream import Fetched
from tests.conftest import SEED_ID, SeededCopy, full, minimal, write_json, write_jsonl

NAN = (
    'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n'
    "RuntimeError: Loss is NaN or Inf at step 1000"
)
ODD = "epoch 3 went bad:\nTrainingAbortError: objective went non-finite after 1000 steps (see run 7f3a)"
HANG_GUARD = 60.0  # seconds; only against a hang, never a timing assertion


class Recorder:
    """An observer that writes down what it heard (rebuilds arrive from the re-index thread)."""

    def __init__(self) -> None:
        self.answers: list[Diagnosis] = []
        self.pastes: list[Paste] = []
        self.votes: list[VoteCast] = []
        self.rebuilds: list[tuple[int, int]] = []
        self.rebuilt = threading.Event()

    def on_answer(self, diagnosis: Diagnosis, seconds: float) -> None:
        assert seconds >= 0
        self.answers.append(diagnosis)

    def on_paste(self, paste: Paste) -> None:
        self.pastes.append(paste)

    def on_vote(self, vote: VoteCast) -> None:
        self.votes.append(vote)

    def on_rebuild(self, version: int, records: int, seconds: float) -> None:
        self.rebuilds.append((version, records))
        self.rebuilt.set()


@pytest.fixture
def heard() -> Recorder:
    return Recorder()


@pytest.fixture
def svc(seeded_copy: SeededCopy, heard: Recorder) -> Iterator[Errfix]:
    errfix = Errfix.open(seeded_copy("team.db"), observer=heard)
    yield errfix
    errfix.close()


def _wkeys(svc: Errfix) -> list[str]:
    return [w.wkey for w in svc.view(SEED_ID).workarounds]


def test_the_observer_hears_the_index_build_the_answer_and_the_paste(svc: Errfix, heard: Recorder) -> None:
    d = svc.diagnose(NAN)
    assert d.reply and d.matches[0].id == SEED_ID
    assert heard.rebuilds == [(svc.store.version, svc.store.count())]  # built once, on first use
    assert heard.answers == [d]
    svc.diagnose(NAN)
    assert len(heard.rebuilds) == 1 and len(heard.answers) == 2

    paste = svc.log_paste("C1", "1.0", d, replied=True)
    assert paste == Paste(
        "C1", "1.0", "RuntimeError: Loss is NaN or Inf at step 1000", SEED_ID, d.matches[0].score, True
    )
    assert heard.pastes == [paste]
    assert svc.log_paste("C1", "2.0", svc.diagnose("good morning, team"), replied=False) is None  # not an error
    assert heard.pastes == [paste]


def test_an_unsure_paste_is_logged_as_matching_nothing(svc: Errfix) -> None:
    d = svc.diagnose(ODD)
    assert d.is_error and not d.reply
    paste = svc.log_paste("C1", "3.0", d, replied=False, channel_type="channel")
    assert paste is not None and (paste.record_id, paste.score, paste.replied) == (None, None, False)
    assert svc.home().unmatched[0][0] == paste.line


@pytest.mark.parametrize("kind", ["im", "mpim", "group", ""])
def test_shared_views_leave_out_pastes_from_dms_private_channels_and_unknown_places(svc: Errfix, kind: str) -> None:
    svc.log_paste("D1", "4.0", svc.diagnose(ODD), replied=False, channel_type=kind)
    svc.log_paste("D1", "5.0", svc.diagnose(NAN), replied=True, channel_type=kind)
    home, week = svc.home(), svc.week()
    assert (home.unmatched, home.top_errors) == ([], [])
    assert (week.pastes, week.answered, week.unmatched) == (0, 0, 0)
    svc.log_paste("C1", "6.0", svc.diagnose(ODD), replied=False, channel_type="channel")
    assert len(svc.home().unmatched) == 1 and svc.week().pastes == 1


def test_button_and_reaction_votes_are_heard_with_the_vote_now_held(svc: Errfix, heard: Recorder) -> None:
    first, second = _wkeys(svc)[:2]
    assert svc.click_vote("C1:2.0", SEED_ID, second, "U1", 1) == 1
    assert svc.click_vote("C1:2.0", SEED_ID, second, "U1", 1) is None  # the same button again withdraws
    assert svc.reaction_vote("C1:2.0", SEED_ID, "U2", 1, added=True)
    assert not svc.reaction_vote("C1:2.0", SEED_ID, "U2", 1, added=True)  # nothing changed: nothing heard
    assert heard.votes == [
        VoteCast("button", SEED_ID, "U1", 1),
        VoteCast("button", SEED_ID, "U1", None),
        VoteCast("reaction", SEED_ID, "U2", 1),
    ]
    assert [v.to_json() for v in svc.export_votes()] == [
        {
            "reply_key": "C1:2.0",
            "record_id": SEED_ID,
            "wkey": first,
            "user_id": "U2",
            "value": 1,
            "created_at": next(svc.export_votes()).created_at,
        }
    ]


def test_a_reply_comes_back_with_its_paste_line_and_who_rejected_it(svc: Errfix) -> None:
    d = svc.diagnose(NAN)
    svc.log_paste("C1", "1.0", d, replied=True)
    svc.record_reply(Reply("C1", "2.0", "1.0", "1.0", SEED_ID, 0.875, "fr"))
    reply = svc.reply("C1", "2.0")
    assert reply == Reply(
        "C1", "2.0", "1.0", "1.0", SEED_ID, 0.875, "fr", line="RuntimeError: Loss is NaN or Inf at step 1000"
    )
    assert svc.reject(channel="C1", message_ts="1.0", record_id=SEED_ID, user_id="U_BOB") == reply.line
    again = svc.reply("C1", "2.0")
    assert again is not None and again.rejected_by == "U_BOB"
    assert svc.reply("C1", "9.9") is None


def test_stats_week_and_home_count_what_happened(svc: Errfix) -> None:
    before = svc.stats()
    d = svc.diagnose(NAN)
    svc.log_paste("C1", "1.0", d, replied=True, channel_type="channel")
    svc.record_reply(Reply("C1", "2.0", "1.0", "1.0", SEED_ID, d.matches[0].score))
    svc.click_vote("C1:2.0", SEED_ID, _wkeys(svc)[0], "U1", 1)
    stats = svc.stats()
    assert (stats.replies, stats.votes_up, stats.votes_down) == (before.replies + 1, 1, 0)
    assert stats.records == before.records and stats.to_json()["records"] == stats.records
    week = svc.week()
    assert (week.pastes, week.answered, week.unmatched) == (1, 1, 0)
    home = svc.home()
    assert [(rid, n) for rid, _, n in home.top_errors] == [(SEED_ID, 1)]
    assert [(rid, n) for rid, _, n in home.top_fixes] == [(SEED_ID, 1)]
    assert svc.ping()


def test_an_import_reports_what_it_wrote_and_skipped_and_the_next_match_uses_it(svc: Errfix, tmp_path: Path) -> None:
    svc.diagnose(NAN)  # an index exists before the import
    good = write_jsonl(tmp_path / "new.jsonl", [minimal("t/new"), {"id": "t/broken"}])
    report = svc.import_loaded(load([good]))
    assert (report.loaded, report.summary.added) == (1, ["t/new"])
    assert len(report.skipped) == 2 and all("t/broken" in p for p in report.skipped)  # no signature, no regex
    assert report.line() == "imported 1 record(s): 1 added, 0 changed, 0 unchanged, 0 removed"
    assert svc.diagnose("ValueError: t/new broke").matches[0].id == "t/new"


def test_lint_also_knows_the_records_in_the_store(svc: Errfix, tmp_path: Path) -> None:
    path = write_json(tmp_path / "linked.json", full("t/linked", transition_graph={"leads_to": [SEED_ID]}))
    unknown = f"leads_to links unknown id {SEED_ID!r}"
    assert any(unknown in p for p in lint([path]).problems)  # on its own, the link goes nowhere
    assert not any(unknown in p for p in svc.lint([path]).problems)


def test_a_sync_in_the_background_is_indexed_off_to_the_side(tmp_path: Path, heard: Recorder) -> None:
    svc = Errfix.open(tmp_path / "team.db", observer=heard, background_reindex=True)
    try:
        assert svc.diagnose(NAN).reply  # the first index is built in the foreground
        heard.rebuilt.clear()
        fetched = Fetched("http://upstream.test/records.jsonl", b"one upstream body", etag='"v1"')
        report = svc.sync_apply(fetched, [Record.model_validate(minimal("up/one"))])
        assert (report.status, report.added) == ("updated", ["up/one"])
        assert heard.rebuilt.wait(HANG_GUARD), "the re-index did not finish"
        assert heard.rebuilds[-1] == (svc.store.version, svc.store.count())
        assert svc.diagnose("ValueError: up/one broke").matches[0].id == "up/one"

        state = svc.sync_state(fetched.url)
        assert state is not None and (state.etag, state.body_hash, state.records) == ('"v1"', fetched.body_hash, 1)
        assert svc.sync_same_body(fetched).status == "unchanged"
        assert (
            svc.sync_not_modified(fetched.url)
            .line()
            .endswith("not modified since the last sync (HTTP 304); nothing to do")
        )
    finally:
        svc.close()


# ---- the reply decision on its edges, with a calibration that gives every candidate one score -----


def _flat(tmp_path: Path, score: float, n: int = 6) -> tuple[Errfix, Matcher]:
    """A store of `n` records that all match PASTE_R, and a matcher scoring each of them `score`."""
    svc = Errfix.open(tmp_path / "flat.db", seed=False)
    team = {"verification_tier": "team"}  # not imported as found: its few words are no bar here
    svc.store.import_records(
        [Record.model_validate(minimal(f"t/r{i}", signature=f"ValueError: t/r{i} broke", **team)) for i in range(n)]
    )
    flat = Calibration(**dict.fromkeys(CALIBRATION_FEATURES, 0.0), bias=math.log(score / (1 - score)))
    matcher = Matcher(list(svc.store.records()), calibration=flat)
    svc.install_matcher(svc.store.version, matcher)
    return svc, matcher


PASTE_R = "ValueError: t/r0 broke"


def test_a_paste_shows_three_candidates_unless_told_otherwise(tmp_path: Path) -> None:
    """Three more are matched than shown, so look-alikes can go after the others (#37)."""
    svc, matcher = _flat(tmp_path, 0.6)
    assert len(Errfix.match_paste(matcher, PASTE_R).candidates) == 6
    assert len(svc.diagnose(PASTE_R).matches) == 3
    assert len(svc.diagnosis(Errfix.match_paste(matcher, PASTE_R, limit=1)).matches) == 1
    svc.close()


@pytest.mark.parametrize(("score", "shown"), [(0.15, 3), (0.1499, 0)])
def test_candidates_are_shown_from_a_score_of_exactly_fifteen_percent(tmp_path: Path, score: float, shown: int) -> None:
    svc, matcher = _flat(tmp_path, score)
    shown_ = svc.diagnosis(Errfix.match_paste(matcher, PASTE_R)).matches
    assert [m.score for m in shown_] == [score] * shown
    svc.close()


@pytest.mark.parametrize(("score", "reply"), [(0.5, True), (0.4999, False)])
def test_a_paste_is_answered_from_a_score_of_exactly_one_half(tmp_path: Path, score: float, reply: bool) -> None:
    svc, _ = _flat(tmp_path, score)
    d = svc.diagnose(PASTE_R)
    assert d.matches[0].score == score and d.reply is reply
    svc.close()


@pytest.mark.parametrize(("score", "reply"), [(0.6, True), (0.5999, False)])
def test_a_record_found_by_its_wording_alone_is_answered_from_six_tenths(
    tmp_path: Path, score: float, reply: bool
) -> None:
    """#35: its regex missed the paste (`t-r0`, not `t/r0`), so the paste is likelier in no record."""
    svc, _ = _flat(tmp_path, score)
    d = svc.diagnose("ValueError: t-r0 broke")
    assert d.matches[0].score == score and d.matches[0].by_wording and d.reply is reply
    svc.close()


@pytest.mark.parametrize(
    ("bundled", "score", "reply"), [(False, 0.7, True), (False, 0.6999, False), (True, 0.6999, True)]
)
def test_an_imported_catch_all_is_answered_unprompted_from_seven_tenths(
    tmp_path: Path, bundled: bool, score: float, reply: bool
) -> None:
    """#35: `KeyError: '\\w+'` also recognises the two records of named keys: its regex matching a
    paste says little about which error it is, unless it is a bundled seed someone reviewed."""
    svc = Errfix.open(tmp_path / "any.db", seed=False)
    fix = {"action": "Reinstall it", "how": "pip install --force-reinstall x", "success_rate": 0.8}
    # the team's (an imported one of only the class's words would not know the error at all)
    any_key = minimal("k/any", signature="KeyError: 'a'", regex=r"KeyError: '\w+'", workarounds=[fix])
    records = [{**any_key, "verification_tier": "team"}]
    records += [minimal(f"k/{w}", signature=f"KeyError: '{w}'", regex=f"KeyError: '{w}'") for w in ("alpha", "beta")]
    svc.store.import_records([Record.model_validate(r) for r in records])
    flat = Calibration(**dict.fromkeys(CALIBRATION_FEATURES, 0.0), bias=math.log(score / (1 - score)))
    seeds = frozenset({"k/any"}) if bundled else frozenset()
    svc.install_matcher(svc.store.version, Matcher(list(svc.store.records()), calibration=flat, seeds=seeds))
    d = svc.diagnose("KeyError: 'gamma'")
    assert d.matches[0].id == "k/any" and d.matches[0].score == score and d.matches[0].knows
    assert d.reply is reply
    svc.close()


def test_the_time_a_match_took_is_its_own(tmp_path: Path) -> None:
    """`seconds` (metrics, logs) is the time spent in this match: within the time around the call."""
    svc, matcher = _flat(tmp_path, 0.6)
    before = time.perf_counter()
    matched = Errfix.match_paste(matcher, PASTE_R)
    around = time.perf_counter() - before
    assert 0.0 <= matched.seconds <= around
    svc.close()


def test_a_look_alike_found_by_wording_goes_after_the_record_whose_regex_matched(tmp_path: Path) -> None:
    """'jax.random' … has no attribute 'KeyArray' is worded like the paste but quotes other names:
    the matcher scores it first (0.65 against 0.56), the diagnosis puts it after the record that
    matched (#37: 'openai' … 'OpenAI' is a local openai.py shadowing the package)."""
    store = open_store(tmp_path / "look-alike.db", seed=False)
    specific = [
        ("jax/key", "jax\\.random", "jax.random", "KeyArray"),
        ("plt/cmap", "matplotlib\\.cm", "matplotlib.cm", "get_cmap"),
    ]
    recs = [
        {
            "id": rid,
            "signature": f"AttributeError: module '{name}' has no attribute '{attr}'",
            "regex": f"module '{pattern}' has no attribute '{attr}'",
            "workarounds": [{"action": "use the new API", "how": f"# {attr} was removed"}],
        }
        for rid, pattern, name, attr in specific
    ]
    recs.append(
        {
            "id": "python/shadow",
            "signature": "AttributeError: module 'x' has no attribute 'y' (a local file shadows the module)",
            "regex": "module '[^'\\n]{1,80}' has no attribute '[^'\\n]{1,80}'",
            "workarounds": [{"action": "rename your file", "how": "mv openai.py my_openai.py"}],
        }
    )
    store.import_records([Record.model_validate(r) for r in recs])
    svc = Errfix(store)
    try:
        paste = (
            'Traceback (most recent call last):\n  File "/home/u/openai.py", line 4, in <module>\n'
            "    client = openai.OpenAI()\nAttributeError: module 'openai' has no attribute 'OpenAI'\n"
        )
        assert [c.id for c in svc.matcher.match(extract(paste), limit=3)][0] == "jax/key"
        assert [m.id for m in svc.diagnose(paste).matches] == ["python/shadow", "jax/key", "plt/cmap"]
    finally:
        svc.close()


def fixed(rid: str, signature: str, regex: str, action: str, how: str) -> dict[str, object]:
    """A record with one fix (`how` is a command or code, which the knowing decision reads); one
    under `team/` is the team's (its verification_tier), the rest are imported as found."""
    tier = "team" if rid.startswith("team/") else "ai_generated"
    workarounds = [{"action": action, "how": how}]
    return {"id": rid, "signature": signature, "regex": regex, "workarounds": workarounds, "verification_tier": tier}


def test_a_record_of_the_same_line_that_knows_the_error_answers_before_a_template(tmp_path: Path) -> None:
    """#35: the public corpus holds a class's template once per environment, and they outscore a
    record that knows the error by wording; when the first only knows the kind of error (a bare
    class, code-side advice), a record whose regex found the very same line and knows it answers.
    One that found another line of the paste (a pip notice) is another error, and one whose regex
    missed the paste is a look-alike: the paste stays unanswered."""
    paste = (
        'Traceback (most recent call last):\n  File "/srv/app/run.py", line 2, in <module>\n'
        "    import diffusers\nModuleNotFoundError: No module named 'diffusers'\n"
    )
    template = fixed(
        "corpus/no-module",
        "ModuleNotFoundError: No module named 'requests'",
        "ModuleNotFoundError",
        "check the spelling of the import",
        "# import requests, not request",
    )
    same_line = fixed(
        "team/wrong-python",
        "ModuleNotFoundError: No module named",
        "No module named",
        "install it where the code runs",
        "python -m pip install <package>",
    )
    other_line = fixed(
        "team/resolver",
        "ERROR: pip's dependency resolver does not currently take into account all the packages",
        "dependency resolver does not currently take into account",
        "list the conflicts",
        "python -m pip check",
    )
    look_alike = fixed(
        "team/frozen",
        "ModuleNotFoundError: No module named 'diffusers' (in a frozen app)",
        r"No module named 'diffusers' \(in a frozen app\)",
        "bundle it",
        "pyinstaller --collect-all diffusers app.py",
    )
    also_knows = fixed(
        "team/conda",
        "ModuleNotFoundError: No module named 'x' (conda env)",
        "ModuleNotFoundError: No module",
        "install it in the env",
        "conda install <package>",
    )
    also_kind = fixed(  # the same line, and it too only knows the kind of error
        "corpus/import-error",
        "ImportError: No module named requests",
        "ImportError|ModuleNotFoundError",
        "check the import",
        "# from x import y",
    )
    notice = "pip's dependency resolver does not currently take into account all\n"
    answers = []
    for name, recs, text in [
        ("same", [template, same_line], paste),
        ("other", [template, other_line], notice + paste),
        ("wording", [template, look_alike], paste),
        ("both", [same_line, also_knows], paste),  # the first knows: it stays first
        ("kinds", [template, also_kind], paste),  # neither knows: nothing goes first
    ]:
        store = open_store(tmp_path / f"{name}.db", seed=False)
        store.import_records([Record.model_validate(r) for r in recs])
        svc = Errfix(store)
        try:
            assert svc.matcher.match(extract(text), limit=2)[0].id == recs[0]["id"]  # scored first
            d = svc.diagnose(text)
            answers.append((d.reply, d.matches[0].id))
        finally:
            svc.close()
    assert answers == [
        (True, "team/wrong-python"),
        (False, "corpus/no-module"),
        (False, "corpus/no-module"),
        (True, "team/wrong-python"),
        (False, "corpus/no-module"),
    ]


def test_a_wrapper_line_first_gives_way_to_a_record_that_knows_another_line(tmp_path: Path) -> None:
    """#35: `failed to push some refs` says a push failed, not why (git prints it under each
    refusal, here under `! [rejected] … (fetch first)` in that record's wording); the paste's own
    refusal, LFS disabled on the server, is the error, found on another line by a record that
    knows it."""
    push = "error: failed to push some refs to 'https://github.com/o/r.git'"
    recs = [
        {"id": "git/push-failed", "signature": push, "regex": "failed to push some refs"},
        {
            "id": "git/fetch-first",
            "signature": "! [rejected] main -> main (fetch first)\n" + push,
            "regex": r"\[rejected\][^\n]{0,200}\(fetch first\)",
        },
        {
            "id": "git/lfs-off",
            "signature": "batch response: Git LFS is disabled for this repository.",
            "regex": "LFS is disabled for this repository",
            "workarounds": [{"action": "enable LFS on the server", "how": "git lfs env"}],
        },
    ]
    store = open_store(tmp_path / "wrapper.db", seed=False)
    store.import_records([Record.model_validate(r) for r in recs])
    svc = Errfix(store)
    paste = (
        "Uploading LFS objects:   0% (0/1), 0 B | 0 B/s, done.\n"
        "batch response: Git LFS is disabled for this repository.\n"
        "error: failed to push some refs to 'https://github.com/u/r.git'\n"
    )
    try:
        assert svc.matcher.match(extract(paste), limit=2)[0].id == "git/push-failed"  # scored first
        d = svc.diagnose(paste)
        assert (d.reply, [m.id for m in d.matches]) == (True, ["git/lfs-off", "git/push-failed", "git/fetch-first"])
    finally:
        svc.close()


def test_a_bundled_record_that_explains_the_error_answers_before_an_imported_one_that_names_it(
    tmp_path: Path,
) -> None:
    """#35: an imported record that states its cause in a sentence gives its place to the bundled
    record of the same error (one regex recognises the other's signature) that says how it comes
    about; a bundled record of another error does not take it."""
    paste = "ValueError: not enough values to unpack (expected 3, got 2)\n"
    terse = {
        "id": "corpus/unpack",
        "signature": "ValueError: not enough values to unpack (expected 2, got 1)",
        "regex": r"not enough values to unpack \(expected \d+, got \d+\)",
        "root_cause": "Tuple unpacking mismatch. Common in for loops over dicts without .items().",
        "workarounds": [{"action": "unpack items", "how": "for k, v in d.items():"}],
    }
    explained = {
        "id": "python/unpack",
        "signature": "ValueError: not enough values to unpack",
        "regex": r"not enough values to unpack",
        "root_cause": " ".join(["The right-hand side yields fewer items than the names on the left:"] * 3),
        "workarounds": [{"action": "print what is unpacked", "how": "print(len(row), row)"}],
    }
    # another error's record: neither regex recognises the other's signature, though it finds the line
    other = {
        **explained,
        "id": "python/three-names",
        "signature": "three names on the left: values to unpack, expected 3",
        "regex": r"values to unpack \(expected 3",
    }
    # recognised one way only: the imported regex recognises the bundled signature
    narrow = {
        **explained,
        "id": "python/unpack-3-2",
        "signature": "for a, b, c in rows: a short row gives not enough values to unpack (expected 3, got 2)",
        "regex": r"values to unpack \(expected 3, got 2\)",
    }
    answers = []
    for name, bundled in [("same", explained), ("other", other), ("one-way", narrow)]:
        store = open_store(tmp_path / f"{name}.db", seed=False)
        store.import_records([Record.model_validate(terse)])
        store.import_records([Record.model_validate(bundled)], origin="seed")
        svc = Errfix(store)
        try:
            assert svc.matcher.match(extract(paste), limit=2)[0].id == "corpus/unpack"  # scored first
            d = svc.diagnose(paste)
            answers.append((d.reply, d.matches[0].id))
        finally:
            svc.close()
    assert answers == [(True, "python/unpack"), (True, "corpus/unpack"), (True, "python/unpack-3-2")]


def test_a_products_regex_that_matched_only_an_os_message_or_common_words_is_not_that_products_error(
    tmp_path: Path,
) -> None:
    """#35: a gRPC record whose regex is `connection refused` (the OS's message, which every
    program prints) is not a Celery worker's AMQP broker refusing; a gRPC record whose regex
    matched its own `StatusCode.UNAVAILABLE` is gRPC's error though the paste never says gRPC.
    A Terraform record whose regex matched only words every plugin host prints (`plugin … exited`)
    is not a Helm plugin's install hook failing, and is Terraform's error where the paste says so."""

    def tool(rid: str, domain: str, signature: str, regex: str) -> Record:
        return Record.model_validate(
            {
                "id": rid,
                "domain": domain,
                "signature": signature,
                "regex": regex,
                "workarounds": [{"action": "check the server", "how": "ss -tlnp"}],
            }
        )

    store = open_store(tmp_path / "tools.db", seed=False)
    store.import_records(
        [
            tool("grpc/refused", "grpc", "failed to connect: connection refused", "connection refused"),
            tool("grpc/unavailable", "grpc", "StatusCode.UNAVAILABLE: server gone", r"StatusCode\.UNAVAILABLE"),
            tool("pg/refused", "postgres", "could not connect: Connection refused. Is the server up", "server up"),
            tool("node/refused", "node", "connect ECONNREFUSED 127.0.0.1:3000 connection refused", "ECONNREFUSED"),
            tool("terraform/plugin", "terraform", "Error: plugin process exited unexpectedly", r"plugin.*exited"),
            # other hosts' plugins exiting: `plugin` and `exited` are common words in this database
            *(
                tool(f"{host}/plugin", host, f"{host} plugin exited with code 1", f"{host} plugin exited")
                for host in ("vscode", "gradle", "webpack", "vim", "obs")
            ),
        ]
    )
    svc = Errfix(store)
    try:
        amqp = (
            "[10:49:50: ERROR/MainProcess] consumer: Cannot connect to "
            "amqp://guest:**@127.0.0.1:5672//: [Errno 111] Connection refused.\n"
        )
        assert "grpc/refused" not in [m.id for m in svc.diagnose(amqp).matches]
        d = svc.diagnose('status = StatusCode.UNAVAILABLE\n\tdetails = "upstream went away"\n')
        assert (d.reply, d.matches[0].id) == (True, "grpc/unavailable")
        hook = 'Unsupported OS type\nError: plugin install hook for "s3" exited with error\n'
        assert "terraform/plugin" not in [m.id for m in svc.diagnose(hook).matches]
        # named, it is a candidate (imported, and matched by common words: not sure enough to
        # answer); the same record bundled is an answer
        named = "terraform apply\nError: plugin process exited unexpectedly\n"
        d = svc.diagnose(named)
        assert (d.reply, d.matches[0].id) == (False, "terraform/plugin")
        bundled = Matcher(list(svc.store.records()), seeds=frozenset({"terraform/plugin"}))
        svc.install_matcher(svc.store.version, bundled)
        d = svc.diagnose(named)
        assert (d.reply, d.matches[0].id) == (True, "terraform/plugin")
    finally:
        svc.close()
