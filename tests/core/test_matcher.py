"""Matcher: small record sets built here, pastes written here; outcomes a person would expect.

Assertions are about order and about staying under the reply threshold, not about exact scores,
so they keep their meaning while the weights are refitted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bot.core.matcher as match_module
from bot.core.budget import Budget
from bot.core.extract import extract
from bot.core.matcher import Candidate, Matcher
from bot.core.records import Record
from bot.store.files import load


def rec(rid: str, signature: str, regex: str, **fields: Any) -> Record:
    return Record(id=rid, signature=signature, regex=regex, **fields)


def ids(cands: list[Candidate]) -> list[str]:
    return [c.id for c in cands]


def top(matcher: Matcher, paste: str, limit: int = 5) -> list[Candidate]:
    return matcher.match(extract(paste), limit=limit)


VAGUE = rec("generic/not-found", "NOT_FOUND: resource not found", r"NOT_FOUND|not found", domain="generic")

RECORDS = [
    VAGUE,
    rec(
        "docker/manifest-unknown/docker24-linux",
        "Error response from daemon: manifest for myimage:latest not found: manifest unknown",
        r"manifest for \S+ not found|manifest unknown",
        domain="docker",
    ),
    rec(
        "kubernetes/pod-not-found/k8s1-linux",
        'Error from server (NotFound): pods "web-0" not found',
        r"Error from server \(NotFound\): pods? \"[^\"]+\" not found",
        domain="kubernetes",
    ),
    rec(
        "python/module-not-found/py311-linux",
        "ModuleNotFoundError: No module named 'X'",
        r"ModuleNotFoundError: No module named",
        domain="python",
        tags=["os:linux"],
    ),
    rec(
        "python/module-not-found/py311-windows",
        "ModuleNotFoundError: No module named 'X'",
        r"ModuleNotFoundError: No module named",
        domain="python",
        tags=["os:windows"],
    ),
    rec(
        "python/permission-denied/py311-linux",
        "PermissionError: [Errno 13] Permission denied: 'path'",
        r"PermissionError: \[Errno 13\] Permission denied",
        domain="python",
        tags=["os:linux"],
    ),
    rec(
        "python/permission-denied/py311-windows",
        "PermissionError: [Errno 13] Permission denied: 'path'",
        r"PermissionError: \[Errno 13\] Permission denied",
        domain="python",
        tags=["os:windows"],
    ),
    rec(
        "docker/daemon-not-running/docker24-linux",
        "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?",
        r"Cannot connect to the Docker daemon",
        domain="docker",
    ),
    rec(
        "node/fetch-not-defined/node16-linux",
        "ReferenceError: fetch is not defined",
        r"ReferenceError: fetch is not defined",
        domain="node",
    ),
    rec(
        "git/push-rejected/git2-linux",
        "error: failed to push some refs to 'origin'",
        r"failed to push some refs",
        domain="git",
    ),
    rec(
        "pytorch/cuda-oom/pt2-linux",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
        r"CUDA out of memory",
        domain="pytorch",
    ),
]


@pytest.fixture(scope="module")
def matcher() -> Matcher:
    return Matcher(RECORDS)


# ---- precise beats vague ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("paste", "expected"),
    [
        (
            "$ docker pull registry.example.com/shop/api:1.4.2\n"
            "Error response from daemon: manifest for registry.example.com/shop/api:1.4.2 not found: "
            "manifest unknown: manifest unknown",
            "docker/manifest-unknown/docker24-linux",
        ),
        (
            '$ kubectl logs web-3 -n shop\nError from server (NotFound): pods "web-3" not found',
            "kubernetes/pod-not-found/k8s1-linux",
        ),
    ],
    ids=["docker-manifest", "kubectl-pod"],
)
def test_precise_beats_vague(matcher: Matcher, paste: str, expected: str) -> None:
    cands = top(matcher, paste)
    assert ids(cands)[0] == expected
    assert VAGUE.regex and "generic/not-found" in ids(cands)  # the vague regex matched too, and lost
    assert cands[0].score > next(c.score for c in cands if c.id == "generic/not-found")


def test_vague_record_still_answers_its_own_error(matcher: Matcher) -> None:
    cands = top(matcher, "google.api_core.exceptions.NotFound: 404 NOT_FOUND: bucket gs://logs-archive not found")
    assert ids(cands)[0] == "generic/not-found"


# ---- chit-chat ----------------------------------------------------------------------------------

CHAT = [
    "thanks, that fixed it! have a nice weekend",
    "is anyone else's build slow today or is it just me?",
    "lunch at 12? the usual place is closed",
    "can someone review my PR? it adds docs for the new setup",
    "can someone review my PR? it adds docs for the docker setup",  # one weak candidate: no margin to lean on
    "I'll upgrade pytorch tomorrow and report back",
    "did anyone find the notes from yesterday's meeting? not found them anywhere",
]


@pytest.mark.parametrize("chat", CHAT)
def test_chit_chat_stays_below_the_reply_threshold(matcher: Matcher, chat: str) -> None:
    assert all(c.score < 0.5 for c in top(matcher, chat))


@pytest.fixture(scope="module")
def corpus_matcher(corpus_path: Path) -> Matcher:
    return Matcher([r for _, r in load([corpus_path]).records])


CORPUS_CHAT = [
    *CHAT,
    "the quick brown fox jumps over the lazy dog",
    "my manager denied permission for the offsite, so no trip this year",
    "I think the error was a timeout but I'm not sure, will check tomorrow",
    "we should make the deploy fail fast instead of retrying forever",
]


@pytest.mark.parametrize("chat", CORPUS_CHAT)
def test_chit_chat_against_the_public_corpus_stays_below_the_reply_threshold(
    corpus_matcher: Matcher, chat: str
) -> None:
    assert all(c.score < 0.5 for c in top(corpus_matcher, chat))


# ---- environment hints pick the variant ---------------------------------------------------------


@pytest.mark.parametrize(
    ("paste", "expected"),
    [
        (
            "Traceback (most recent call last):\n"
            '  File "C:\\Users\\bob\\proj\\app.py", line 1, in <module>\n'
            "    import yaml\n"
            "ModuleNotFoundError: No module named 'yaml'",
            "python/module-not-found/py311-windows",
        ),
        (
            "on Ubuntu 22.04:\nTraceback (most recent call last):\n"
            '  File "app.py", line 1, in <module>\n'
            "    import yaml\n"
            "ModuleNotFoundError: No module named 'yaml'",
            "python/module-not-found/py311-linux",
        ),
        (
            "PS C:\\Users\\bob\\proj> python save.py\n"
            "PermissionError: [Errno 13] Permission denied: 'C:\\\\Users\\\\bob\\\\proj\\\\out.csv'",
            "python/permission-denied/py311-windows",
        ),
    ],
    ids=["windows-path", "ubuntu", "powershell-prompt"],
)
def test_environment_hints_prefer_the_matching_variant(matcher: Matcher, paste: str, expected: str) -> None:
    cands = top(matcher, paste)
    assert ids(cands)[0] == expected
    other = expected.replace("windows", "LINUX").replace("linux", "windows").replace("LINUX", "linux")
    assert other in ids(cands)
    assert cands[0].parts["z"] > next(c.parts["z"] for c in cands if c.id == other)  # not an id tie-break


def test_python_version_hint_prefers_the_matching_variant() -> None:
    records = [
        rec(
            f"python/removed-distutils/{v}-linux",
            "ModuleNotFoundError: No module named 'distutils'",
            r"No module named '?distutils",
            domain="python",
        )
        for v in ("py311", "py312")
    ]
    m = Matcher(records)
    paste = "Python 3.12.1 on linux\nModuleNotFoundError: No module named 'distutils'"
    assert ids(top(m, paste))[0] == "python/removed-distutils/py312-linux"


# ---- learned aliases ----------------------------------------------------------------------------

KERNEL = rec(
    "jupyter/kernel-died/jupyter7-linux",
    "Kernel Restarting: The kernel for notebook.ipynb appears to have died. It will restart automatically.",
    r"kernel .{0,40}appears to have died",
    domain="jupyter",
)
TEAM_WORDING = "the ipykernel process vanished without a traceback on the shared gpu box"


def test_learned_aliases_are_matched() -> None:
    filler = [r for r in RECORDS if r.id != VAGUE.id]
    without = Matcher([KERNEL, *filler])
    assert "jupyter/kernel-died/jupyter7-linux" not in ids(top(without, TEAM_WORDING))[:1]
    learned = Matcher([KERNEL, *filler], learned_aliases={KERNEL.id: [TEAM_WORDING]})
    cands = top(learned, TEAM_WORDING)
    assert ids(cands)[0] == KERNEL.id
    without_score = next((c.score for c in top(without, TEAM_WORDING) if c.id == KERNEL.id), 0.0)
    assert cands[0].score > without_score


def test_learned_aliases_for_unknown_ids_are_ignored() -> None:
    m = Matcher([KERNEL], learned_aliases={"no/such/record": ["whatever"]})
    assert ids(top(m, "Kernel Restarting: The kernel for a.ipynb appears to have died."))[0] == KERNEL.id


# ---- seeds yield to the team's record -----------------------------------------------------------

SEED = rec(
    "pytorch/cuda-out-of-memory",
    "RuntimeError: CUDA out of memory. Tried to allocate N MiB",
    r"CUDA out of memory",
    domain="pytorch",
)
TEAM = rec(
    "team/gpu-oom-on-shared-box",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate N GiB",
    r"(?:torch\.)?(?:cuda\.)?OutOfMemoryError|CUDA out of memory",
    domain="pytorch",
)
OOM_PASTE = (
    "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity; "
    "20.51 GiB already allocated)"
)


def test_a_seed_is_shadowed_by_an_imported_record_for_the_same_error() -> None:
    m = Matcher([SEED, TEAM], seeds=frozenset({SEED.id}))
    cands = top(m, OOM_PASTE)
    assert ids(cands)[:2] == [TEAM.id, SEED.id]
    assert cands[0].parts.get("shadows") == 1.0


def test_without_the_seed_flag_the_better_wording_wins() -> None:
    cands = top(Matcher([SEED, TEAM]), OOM_PASTE)
    assert ids(cands)[0] == SEED.id  # the seed's signature is this paste's wording


def test_a_seed_is_not_shadowed_by_a_record_for_another_error() -> None:
    other = rec(
        "team/dataloader-oom-killed",
        "DataLoader worker (pid 4242) is killed by signal: Killed (host out of memory)",
        r"DataLoader worker \(pid \d+\) is killed|out of memory",  # also hits the paste, but is another error
        domain="pytorch",
    )
    m = Matcher([SEED, other], seeds=frozenset({SEED.id}))
    assert m.shadows == {}  # the seed's regex does not recognise the other record's signature
    assert ids(top(m, OOM_PASTE))[0] == SEED.id


def test_a_team_record_that_does_not_recognise_the_paste_leaves_the_seed_first() -> None:
    runbook = rec(
        "team/oom-runbook",
        "CUDA out of memory on the shared box: see the runbook",
        r"see the runbook",  # specific, but it does not match the paste
        domain="ops",
    )
    m = Matcher([SEED, runbook], seeds=frozenset({SEED.id}))
    assert m.shadows == {0: {1: False}}  # the seed's regex recognises it: one-way
    assert ids(top(m, OOM_PASTE))[0] == SEED.id


def test_a_team_record_worded_like_the_paste_takes_the_seeds_place() -> None:
    """One-way (the seed's regex recognises the team's signature) and the team's regex is too
    literal for this paste, but its wording is the paste's: the same error, the team's record."""
    team = rec(
        "team/cuda-oom",
        "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity)",
        r"CUDA out of memory\. Tried to allocate 2\.00 GiB \(GPU 0",  # literal: another size misses
        domain="pytorch",
    )
    m = Matcher([SEED, team], seeds=frozenset({SEED.id}))
    assert m.shadows == {0: {1: False}}
    paste = OOM_PASTE.replace("2.00 GiB", "512.00 MiB")
    cands = top(m, paste)
    assert cands[0].parts["rx_line"] == cands[0].parts["rx_text"] == 0.0 and ids(cands)[:2] == [team.id, SEED.id]


def test_a_team_record_whose_regex_recognises_the_paste_takes_the_seeds_place() -> None:
    """One-way, and the team's wording is not the paste's (fuzzy far under 0.8), but its regex
    matches the paste: the same error, the team's record first."""
    team = rec(
        "team/oom-shared-box",
        "CUDA out of memory on the shared training box, again",
        r"GiB already allocated\)",
        domain="pytorch",
    )
    m = Matcher([SEED, team], seeds=frozenset({SEED.id}))
    assert m.shadows == {0: {1: False}}
    assert ids(top(Matcher([SEED, team]), OOM_PASTE))[0] == SEED.id  # as records alone, the seed wins
    cands = top(m, OOM_PASTE)
    assert cands[0].parts["rx_line"] == 1.0 and cands[0].parts["fuzzy2"] < 0.5
    assert ids(cands)[:2] == [team.id, SEED.id]


@pytest.mark.parametrize(("fuzzy2", "takes"), [(0.8, True), (0.799, False)])
def test_a_team_records_wording_is_the_pastes_from_a_squared_fuzzy_score_of_0_8(fuzzy2: float, takes: bool) -> None:
    """One-way and no regex hit: the team record takes the seed's place on its wording alone, from 0.8."""
    team = rec("team/oom-notes", "CUDA out of memory: notes of the shared box", r"notes of the box", domain="pytorch")
    m = Matcher([SEED, team], seeds=frozenset({SEED.id}))
    assert m.shadows == {0: {1: False}}
    seed = Candidate(SEED.id, 0.0, {"rx_line": 1.0, "rx_text": 0.0, "fuzzy2": 0.9})
    worded = Candidate(team.id, 0.0, {"rx_line": 0.0, "rx_text": 0.0, "fuzzy2": fuzzy2})
    assert m._may_shadow(seed, worded, mutual=False) is takes
    assert m._may_shadow(seed, worded, mutual=True)  # a mutual relation needs no more


def test_a_vague_team_record_does_not_displace_a_seed() -> None:
    catch_all = rec("team/gpu-trouble", "CUDA out of memory or other GPU trouble", r"CUDA|GPU|memory", domain="ops")
    others = [
        rec("team/gpu-memory-dashboard", "GPU memory dashboard shows red", r"dashboard shows red", domain="ops"),
        rec("team/gpu-fan", "GPU fan stuck at 100%", r"fan stuck", domain="ops"),
        rec("team/gpu-driver", "GPU driver crashed overnight", r"driver crashed", domain="ops"),
    ]
    m = Matcher([SEED, catch_all, *others], seeds=frozenset({SEED.id}))
    assert 1 in m.shadows[0]  # the same error by the seed's regex...
    assert ids(top(m, OOM_PASTE))[0] == SEED.id  # ...but its regex also matches three other errors


# ---- scores -------------------------------------------------------------------------------------

PASTES = [
    OOM_PASTE,
    "ModuleNotFoundError: No module named 'yaml'",
    'Error from server (NotFound): pods "web-0" not found',
    "ReferenceError: fetch is not defined\n    at main (/srv/app/index.js:3:1)",
    "error: failed to push some refs to 'git@github.com:a/b.git'",
    "docker: Cannot connect to the Docker daemon at unix:///var/run/docker.sock.",
    "hello world",
    "",
]


@pytest.mark.parametrize("paste", PASTES)
def test_scores_are_probabilities_best_first(matcher: Matcher, paste: str) -> None:
    cands = top(matcher, paste, limit=20)
    assert all(0.0 <= c.score <= 1.0 for c in cands)
    scores = [c.score for c in cands]
    assert scores == sorted(scores, reverse=True)
    assert len(set(ids(cands))) == len(cands)


CORPUS_PASTES = [
    *PASTES[:6],
    'Traceback (most recent call last):\n  File "train.py", line 9, in <module>\n    loss.backward()\n'
    "RuntimeError: Trying to backward through the graph a second time",
    "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
    "error[E0382]: borrow of moved value: `v`",
    "panic: runtime error: index out of range [3] with length 3",
    'ERROR: failed to solve: process "/bin/sh -c pip install -r requirements.txt" did not complete successfully',
    "java.lang.OutOfMemoryError: Java heap space",
    "fatal: refusing to merge unrelated histories",
    "my build is failing since yesterday, any idea?",
]


@pytest.mark.parametrize("paste", CORPUS_PASTES)
def test_scores_never_rise_down_the_ranking_on_the_corpus(corpus_matcher: Matcher, paste: str) -> None:
    cands = top(corpus_matcher, paste, limit=10)
    scores = [c.score for c in cands]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == sorted(scores, reverse=True)


def test_limit_is_respected(matcher: Matcher) -> None:
    assert len(top(matcher, "not found not found CUDA out of memory", limit=2)) <= 2


def test_a_paste_with_lone_surrogates_is_matched(matcher: Matcher) -> None:
    cands = top(matcher, "ModuleNotFoundError: No module named 'yaml' \udcff")
    assert ids(cands)[0].startswith("python/module-not-found/")


def test_an_empty_store_matches_nothing() -> None:
    assert Matcher([]).match(extract("ValueError: x")) == []


_WORDS = st.sampled_from(
    [
        "Error:",
        "not found",
        "CUDA out of memory",
        "ModuleNotFoundError: No module named 'x'",
        "the",
        "pods",
        "manifest unknown",
        "\n",
        "Traceback (most recent call last):",
        "fetch is not defined",
        "C:\\Users\\a",
        "torch 2.1",
        "win32",
        "failed to push some refs",
        "Permission denied",
        "[Errno 13]",
        "lol",
        "daemon",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.one_of(_WORDS, st.text(max_size=20)), max_size=30).map(" ".join))
def test_any_paste_gets_scores_in_unit_interval(matcher: Matcher, paste: str) -> None:
    cands = matcher.match(extract(paste), limit=10)
    assert all(0.0 <= c.score <= 1.0 for c in cands)
    assert len(cands) <= 10


def test_token_candidate_ties_break_by_record_order_not_hash_order() -> None:
    """Ties at the candidate cutoff used to follow set iteration order (PYTHONHASHSEED)."""
    words = [f"zq{chr(97 + n)}word" for n in range(26)]  # one rare word per record: equal IDF
    records = [rec(f"team/w{n:02d}", f"Failure: {w} broke", rf"{w} broke") for n, w in enumerate(words)]
    m = Matcher(records)
    picked = m._token_candidates(set(reversed(words)), limit=10)
    assert sorted(picked) == list(range(10))


# ---- bounded work per paste -----------------------------------------------------------------------


@pytest.mark.parametrize("paste", CORPUS_PASTES)
def test_fuzzy_scoring_cut_keeps_the_top_exact(
    corpus_matcher: Matcher, paste: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Fuzzy parts are computed only while a candidate could still reach the top SCORED or be the
    best different error; the answer, the runners-up and the margin (over that rival, which
    decides whether errfix replies) are those of scoring every candidate in full."""
    cut = top(corpus_matcher, paste, limit=3)
    monkeypatch.setattr(match_module, "SCORED", 10**6)
    full = top(corpus_matcher, paste, limit=3)
    assert [(c.id, c.parts["z"], c.parts["margin"]) for c in cut] == [
        (c.id, c.parts["z"], c.parts["margin"]) for c in full
    ]


@pytest.mark.parametrize("paste", CORPUS_PASTES)
def test_a_longer_list_than_four_is_scored_exactly_too(
    corpus_matcher: Matcher, paste: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search asks the matcher for twice the list it shows (ten for `errfix search`'s five):
    each of them is scored in full, not only the four the reply needs."""
    cut = top(corpus_matcher, paste, limit=8)
    monkeypatch.setattr(match_module, "SCORED", 10**6)
    full = top(corpus_matcher, paste, limit=8)
    assert len(cut) == 8
    assert [(c.id, c.parts["z"]) for c in cut] == [(c.id, c.parts["z"]) for c in full]


@pytest.mark.parametrize("paste", CORPUS_PASTES)
def test_no_full_score_is_above_its_bound(corpus_matcher: Matcher, paste: str) -> None:
    """The cuts are exact only if no candidate's full score exceeds the bound it was ordered by
    (its cheap parts plus the most the fuzzy parts can add): each of the pool's is checked, up
    to the logit's rounding to four places. And the bounds come best first, ties by id, so the
    cuts can stop at the first that cannot win, whatever a set's order."""
    m = corpus_matcher
    hits = m._hits(extract(paste), Budget())
    bounds = m._cheap(hits, m._pool(hits))
    over = [
        (b.id, b.bound, z) for b in bounds if (z := m._full_score(b.record, hits, b.parts).parts["z"]) > b.bound + 5e-5
    ]
    assert len(bounds) > 5 and over == []
    keys = [(-b.bound, b.id) for b in bounds]
    assert keys == sorted(keys)  # best first, ties by id
    assert [b.id for b in bounds] == [m.entries[b.record].id for b in bounds]


@pytest.mark.parametrize("paste", CORPUS_PASTES)
def test_pool_cut_keeps_the_answer(corpus_matcher: Matcher, paste: str, monkeypatch: pytest.MonkeyPatch) -> None:
    cut = top(corpus_matcher, paste, limit=3)
    monkeypatch.setattr(match_module, "POOL", 10**6)
    assert ids(cut) == ids(top(corpus_matcher, paste, limit=3))


@pytest.mark.parametrize(
    ("vague_regex", "shared"),
    [
        # copies share the vague alternative: it is searched once for all, and exactly
        (r"911.*no|zzq{n}", True),
        # each copy is a different pattern: at most REGEX_BUDGET run, the most selective first
        (r"911.*(?:no|zzq{n})", False),
    ],
)
def test_hundreds_of_vague_patterns_cannot_crowd_out_the_answer(vague_regex: str, shared: bool) -> None:
    """A large store may hold hundreds of records whose regex a paste selects through one vague
    alternative (`911.*no`); searching stays bounded and the specific record still wins."""
    copies = 3 * match_module.REGEX_BUDGET
    vague = [rec(f"junk/v{n:04d}", f"some number {n}", vague_regex.format(n=n)) for n in range(copies)]
    oom = rec("pytorch/oom", "torch.cuda.OutOfMemoryError: CUDA out of memory", r"CUDA out of memory")
    m = Matcher([*vague, oom])
    ex = extract("call 911 now\ntorch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    found = {h.index for h in m.regexes.search(ex.text, match_module.REGEX_BUDGET)}
    assert copies in found  # the specific pattern always runs
    if shared:
        assert found == set(range(copies + 1))
    else:
        assert len(found) <= match_module.REGEX_BUDGET
    assert ids(m.match(ex, limit=1)) == ["pytorch/oom"]


def test_a_hard_wrapped_error_matches_its_regex() -> None:
    oom = rec("pytorch/oom", "RuntimeError: CUDA out of memory", r"CUDA out of memory\. Tried to allocate")
    m = Matcher([oom, rec("x/other", "ValueError: bad thing", r"bad thing")])
    cands = m.match(extract("RuntimeError: CUDA out of\nmemory. Tried to allocate 20.00 MiB"), limit=2)
    assert cands[0].id == "pytorch/oom" and cands[0].parts["rx_text"] + cands[0].parts["rx_line"] == 1.0


def test_a_team_record_ranked_low_still_takes_the_seeds_place() -> None:
    """Only the top SCORED candidates get fuzzy scores; a team record that shadows the seed must
    be scored wherever it ranks, or it could never take the seed's place."""
    seed = rec("python/foo-error", "FooError: widget frobnication failed", r"frobnication failed|Frobnizieren")
    team = rec("team/foo-error", "Fehler beim Frobnizieren widget", r"frobnication failed$")
    fillers = [
        rec(f"team/filler{k}", f"BarError: widget zorp code 7 item{k}", rf"widget zorp code 7 item{k}|\(code 7\)")
        for k in range(2 * match_module.SCORED)
    ]
    m = Matcher([seed, team, *fillers], seeds=frozenset({seed.id}))
    paste = "Traceback (most recent call last):\nFooError: widget frobnication failed (code 7)\n"
    assert ids(m.match(extract(paste), limit=2)) == [team.id, seed.id]


def test_the_margin_is_over_the_best_different_error_even_past_the_scored_top(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    variants = [
        rec(f"python/foo-error/v{k}", "FooError: widget frobnication failed", "FooError: widget frobnication failed")
        for k in range(match_module.SCORED + 4)
    ]
    other = rec("python/bar-error/x", "BarError: widget frobnication stalled", "widget frobnication")
    m = Matcher([*variants, other])
    paste = "FooError: widget frobnication failed\n"
    cut = m.match(extract(paste), limit=1)[0]
    monkeypatch.setattr(match_module, "SCORED", 10**6)
    full = m.match(extract(paste), limit=1)[0]
    assert cut.parts["margin"] == full.parts["margin"] < 5.0


def test_building_an_index_leaves_no_cyclic_garbage() -> None:
    """errfix freezes the index after installing it (gc.freeze): cyclic garbage made while
    building would be frozen with it and never freed."""
    import gc

    records = [rec(f"t/r{k}", f"Failure number {k}: widget broke", rf"widget broke|failure {k}") for k in range(50)]
    gc.collect()
    gc.disable()  # no automatic collection may hide what the build leaves behind
    try:
        m = Matcher(records)
        m.match(extract("Failure number 3: widget broke"))
        del m
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_record_whose_regex_matches_the_paste_misses_none_of_its_words() -> None:
    """The error line the extractor picks may be a header; a record whose regex matches the rest
    of the paste has its wording in the paste: its rare words are not missing."""
    wanted = rec("lib/gateway-throttled", "gateway throttled bucket uploads", r"gateway throttled bucket")
    other = rec("lib/other", "unrelated parser failure", r"zzqq never matches")
    m = Matcher([wanted, other])
    paste = "RuntimeError: upload stopped\nthe gateway throttled bucket uploads tonight\n"
    first = top(m, paste)[0]
    assert first.id == wanted.id
    assert first.parts["rx_line"] == 0.0 and first.parts["rx_text"] == 1.0
    assert first.parts["miss"] == 0.0


def test_variants_of_one_error_share_their_wording_from_ninety_percent() -> None:
    """The margin is over the best *different* error: variants (signatures 90% alike or more) are skipped."""
    m = Matcher(
        [
            rec("t/linux", "Quux abcde", r"Quux a"),
            rec("t/macos", "Quux abcdX", r"Quux b"),  # one letter of ten apart: ratio 90
            rec("t/near", "Quux abcXY", r"Quux c"),  # two: 80
        ]
    )
    assert m.same_error("t/linux", "t/macos") and m.same_error("t/macos", "t/linux")
    assert not m.same_error("t/linux", "t/near")
    assert m.rival(["t/linux", "t/macos", "t/near"]) == 2
    assert m.rival(["t/linux", "t/near", "t/macos"]) == 1
    assert m.rival(["t/linux", "t/macos"]) is None


def test_a_record_without_wording_is_no_variant_of_anything() -> None:
    """A blank signature (the record format allows it) and no aliases: no text to compare, no crash."""
    m = Matcher([rec("t/blank", "   ", r"Quux a"), rec("t/worded", "Quux abcde", r"Quux b")])
    assert not m.same_error("t/blank", "t/worded") and not m.same_error("t/worded", "t/blank")


def test_the_first_candidates_margin_is_over_the_best_other_error_the_others_over_the_first() -> None:
    m = Matcher(
        [
            rec("t/linux", "QuuxError: frob abcde", r"QuuxError: frob"),
            rec("t/macos", "QuuxError: frob abcdX", r"QuuxError: frob"),  # a variant of t/linux
            rec("t/near", "QuuxError: frob abXYZ", r"QuuxError"),  # another error
        ]
    )
    first, variant, other = top(m, "QuuxError: frob abcde")
    assert [first.id, variant.id, other.id] == ["t/linux", "t/macos", "t/near"]
    z = {c.id: c.parts["z"] for c in (first, variant, other)}
    assert first.parts["margin"] == round(z["t/linux"] - z["t/near"], 4) > 0  # not over its own variant
    assert variant.parts["margin"] == round(z["t/macos"] - z["t/linux"], 4) < 0
    assert other.parts["margin"] == round(z["t/near"] - z["t/linux"], 4) < 0
    assert first.parts["strong"] == 1.0  # a `QuuxError: …` line is a strong one
    assert all(c.score == round(c.score, 4) for c in (first, variant, other))  # P(right record), 4 decimals
