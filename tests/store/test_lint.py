"""bot.store.lint: each kind of quality problem is found on a small bad record, the bundled seeds are clean
(of overlaps here; of everything in tests/cli/test_lint.py)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.core.records import Record
from bot.store.files import expand, load
from bot.store.lint import adversarial_inputs, lint, literal_runs, redos_problem
from bot.store.overlap import overlap_problems

REPO = Path(__file__).resolve().parents[2]
SEEDS = REPO / "seeds"
USER_SEED = SEEDS / "pytorch" / "loss-nan-step.json"


def good(rid: str = "test/good", **fields: Any) -> dict[str, Any]:
    """A record lint has nothing to say about: the user's example under another id."""
    data: dict[str, Any] = json.loads(USER_SEED.read_text(encoding="utf-8"))
    data["id"] = rid
    data.update(copy.deepcopy(fields))
    return data


def write(path: Path, value: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def problems_of(tmp_path: Path, record: dict[str, Any]) -> list[str]:
    return lint([write(tmp_path / "rec.json", record)]).problems


def test_a_good_record_has_no_problems(tmp_path: Path) -> None:
    assert problems_of(tmp_path, good()) == []


def _drop_workarounds(r: dict[str, Any]) -> None:
    r["workarounds"] = r["workarounds"][:1]
    r["workarounds_zh"] = r["workarounds_zh"][:1]


def _no_how(r: dict[str, Any]) -> None:
    r["workarounds"][1]["how"] = "  "


def _source(url: str) -> Callable[[dict[str, Any]], None]:
    def edit(r: dict[str, Any]) -> None:
        r["dead_ends"][0]["sources"] = ["https://github.com/pytorch/pytorch/issues/1", url]

    return edit


def _set(**fields: Any) -> Callable[[dict[str, Any]], None]:
    return lambda r: r.update(copy.deepcopy(fields))


CASES: list[tuple[str, Callable[[dict[str, Any]], None], str]] = [
    ("invalid record", _set(evidence_count="many"), "evidence_count"),
    ("confidence out of range", _set(confidence=1.5), "confidence"),
    ("fix_success_rate out of range", _set(fix_success_rate=-0.1), "fix_success_rate"),
    ("success_rate out of range", lambda r: r["workarounds"][0].update(success_rate=1.2), "success_rate"),
    ("fail_rate out of range", lambda r: r["dead_ends"][0].update(fail_rate=7), "fail_rate"),
    ("regex not RE2", _set(regex=r"(?<=RuntimeError: )Loss is NaN"), "does not compile in RE2"),
    ("regex not RE2, back-reference", _set(regex=r"(Loss) is NaN.*\1"), "does not compile in RE2"),
    ("regex misses signature", _set(regex="Loss is Infinite"), "regex does not match its signature"),
    ("regex broken everywhere", _set(regex="Loss is (NaN"), "does not compile in RE2"),
    ("regex not Python re: flag mid-pattern", _set(regex=r"Loss is NaN|(?m)Loss is NaN or Inf$"), "Python's re"),
    ("redos nested repeat", _set(regex=r"RuntimeError: (\w+\s?)+$"), "backtrack catastrophically"),
    ("redos dot star star", _set(regex=r"RuntimeError: (.*)*Inf at step"), "backtrack catastrophically"),
    ("signature_zh missing", _set(signature_zh=None), "missing zh: signature_zh"),
    ("root_cause_zh empty", _set(root_cause_zh=" "), "missing zh: root_cause_zh"),
    ("workarounds_zh short", lambda r: r["workarounds_zh"].pop(), "missing zh: 2 workarounds_zh for 3 workarounds"),
    (
        "workarounds_zh long",
        lambda r: r["workarounds_zh"].append("多余的一条"),
        "missing zh: 4 workarounds_zh for 3 workarounds",
    ),
    ("workarounds_zh entry empty", lambda r: r["workarounds_zh"].__setitem__(0, ""), "workarounds_zh[0] is empty"),
    ("one workaround", _drop_workarounds, "1 workaround(s), at least 2 needed"),
    ("no dead end", _set(dead_ends=[]), "0 dead end(s), at least 1 needed"),
    ("workaround without how", _no_how, "workarounds[1] has no `how`"),
    ("doc url without scheme", _set(official_doc_url="pytorch.org/docs/stable/notes/faq.html"), "official_doc_url"),
    ("doc url ftp", _set(official_doc_url="ftp://pytorch.org/faq"), "not an http(s) URL"),
    ("doc url without host", _set(official_doc_url="https:///docs/faq.html"), "no host"),
    ("doc url empty", _set(official_doc_url=""), "malformed URL in official_doc_url"),
    ("doc url with a space", _set(official_doc_url="https://pytorch.org/my docs"), "whitespace"),
    ("doc url bad port", _set(official_doc_url="https://pytorch.org:99999/"), "official_doc_url"),
    ("source not a url", _source("see the forum"), "malformed URL in dead_ends[0].sources[1]"),
    ("source bare host", _source("https://localhostish/x"), "no host"),
    ("link to unknown id", _set(transition_graph={"leads_to": ["pytorch/nope"]}), "leads_to links unknown id"),
    (
        "link object to unknown id",
        _set(transition_graph={"frequently_confused_with": [{"error_id": "cuda/nope", "distinction": "x"}]}),
        "frequently_confused_with links unknown id 'cuda/nope'",
    ),
    ("link to itself", _set(transition_graph={"preceded_by": ["test/good"]}), "links the record to itself"),
    ("resolvable not a known value", _set(resolvable="maybe"), "resolvable is 'maybe'"),
    ("resolvable capitalised", _set(resolvable="True"), "resolvable is 'True'"),
    ("misspelt field", _set(workaround=[]), "workaround: unknown field kept"),
]


@pytest.mark.parametrize(("edit", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_each_kind_of_problem_is_reported(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], expected: str
) -> None:
    record = good()
    edit(record)
    problems = problems_of(tmp_path, record)
    assert any(expected in p for p in problems), problems
    for p in problems:  # `file:line: id: problem`
        assert p.startswith(f"{tmp_path / 'rec.json'}:1: test/good: "), p


def test_a_localhost_source_is_a_url(tmp_path: Path) -> None:
    record = good()
    _source("http://localhost:8080/runbook")(record)
    assert problems_of(tmp_path, record) == []


def test_regex_is_matched_against_the_signature_case_insensitively(tmp_path: Path) -> None:
    assert problems_of(tmp_path, good(regex="runtimeerror: LOSS IS nan")) == []


def test_a_pattern_only_the_fallback_engine_takes_is_still_checked_against_its_signature(tmp_path: Path) -> None:
    problems = problems_of(tmp_path, good(regex=r"(?<=RuntimeError: )Loss is Infinite"))
    assert any("does not compile in RE2" in p for p in problems)
    assert any("does not match its signature" in p for p in problems)


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    write(tmp_path / "a" / "one.json", good("test/same"))
    write(tmp_path / "b" / "two.json", good("test/same"))
    result = lint([tmp_path])
    assert result.records == 2
    assert len(result.problems) == 1
    assert "duplicate id" in result.problems[0]
    assert str(tmp_path / "b" / "two.json") in result.problems[0]


def test_links_between_linted_files_are_known(tmp_path: Path) -> None:
    write(tmp_path / "a.json", good("test/a", transition_graph={"leads_to": ["test/b"]}))
    write(tmp_path / "b.json", good("test/b", transition_graph={"preceded_by": [{"error_id": "test/a"}]}))
    assert lint([tmp_path]).problems == []


def test_a_link_to_an_invalid_record_is_not_also_unknown(tmp_path: Path) -> None:
    write(tmp_path / "a.json", good("test/a", transition_graph={"leads_to": ["test/b"]}))
    write(tmp_path / "b.json", good("test/b", confidence=3))
    problems = lint([tmp_path]).problems
    assert len(problems) == 1 and "confidence" in problems[0] and "b.json" in problems[0]


def test_problems_in_a_jsonl_file_name_their_line(tmp_path: Path) -> None:
    path = tmp_path / "recs.jsonl"
    lines = [good("test/a"), good("test/b", dead_ends=[]), good("test/c", confidence=2)]
    path.write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    result = lint([path])
    assert result.records == 3
    assert [p.split(": ")[:2] for p in result.problems] == [[f"{path}:2", "test/b"], [f"{path}:3", "test/c"]]


def test_an_unreadable_file_is_a_problem(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text('{"id": "test/x",', encoding="utf-8")
    problems = lint([tmp_path]).problems
    assert len(problems) == 1 and "not valid JSON" in problems[0]


# ---- ReDoS ---------------------------------------------------------------------------------------


def test_literal_runs_read_the_pattern_text() -> None:
    runs = literal_runs(r"nvcc fatal\s{0,5}:\s{0,5}(?:Unsupported gpu architecture|Value '[^']{1,20}' is x\.y)")
    assert runs[0] == "Unsupported gpu architecture"
    assert {"nvcc fatal", "Value '", "' is x.y"} <= set(runs)
    assert literal_runs(r"(?P<n>abc)d+e") == ["abc", "e"]  # d may repeat or not: not a fixed part


@pytest.mark.parametrize(
    ("pattern", "signature"),
    [
        (r"(a+)+$", "aaaa"),
        (r"^(a|aa)+$", "aaa"),
        (r"(x+x+)+y", "xxy"),
        (r"(\d+\.?)+ is not", "1.2.3 is not"),
        (r"CUDA error: ([a-z ]+)+\.$", "CUDA error: out of memory."),
        (r"File \"(.+)+\", line", 'File "x.py", line'),
        (r"Error: .*foo.*bar", "Error: foo bar"),  # quadratic: shows on long single-line input
    ],
)
def test_redos_catches_backtracking_patterns(pattern: str, signature: str) -> None:
    problem = redos_problem(pattern, signature)
    assert problem is not None and "backtrack" in problem


@pytest.mark.parametrize(
    "pattern",
    [
        r"RuntimeError: Loss is NaN or Inf",
        r"Loss is (?:NaN|Inf)[^\n]{0,200}step \d+",
        r"(copy|add) failed: stat [^\n]{1,200}: no such file",
    ],
)
def test_redos_passes_bounded_patterns(pattern: str) -> None:
    # 2 s, not the 0.1 s bound: a loaded machine must not fail a linear pattern
    assert redos_problem(pattern, "RuntimeError: Loss is NaN or Inf at step 1000", timeout=2.0) is None


def test_adversarial_inputs_use_the_pattern_and_signature() -> None:
    inputs = dict(adversarial_inputs(r"Loss is (NaN|Inf)", "RuntimeError: Loss is NaN or Inf"))
    assert any(text.startswith("Loss is " + "nan" * 10) for text in inputs.values())
    assert any("RuntimeError: Loss is NaN or Inf RuntimeError" in text for text in inputs.values())


def test_a_backtracking_engine_gets_a_tenth_of_a_second_per_input(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pinned with this test's own number (#20), on a stand-in engine (no clock): each adversarial
    input is searched with a 0.1 s timeout, and running out of it is the problem reported."""
    import regex

    asked: list[float] = []

    class Stalls:
        def search(self, text: str, timeout: float) -> None:
            asked.append(timeout)
            if len(asked) == 3:
                raise TimeoutError

    monkeypatch.setattr(regex, "compile", lambda *_args, **_kw: Stalls())
    problem = redos_problem("(a+)+$", "aaa")
    assert asked == [0.1, 0.1, 0.1]
    assert problem is not None and problem.startswith("regex may backtrack catastrophically: over 0.1s on ")


def test_a_record_that_is_not_a_software_error_is_reported(tmp_path: Path) -> None:
    found = problems_of(tmp_path, good("visa/on-arrival", domain="visa"))
    assert found == [
        f"{tmp_path / 'rec.json'}:1: visa/on-arrival: domain: 'visa' is not a software error: "
        "it imports, and never answers a paste"
    ]


# ---- a regex that reaches past its error (#37) ----------------------------------------------------


def timeout_record(rid: str, **fields: Any) -> dict[str, Any]:
    """A record for a read timeout, its regex as loose as `timed out`: it matches any timeout."""
    base: dict[str, Any] = {
        "signature": "TimeoutError: read timed out after 30 s",
        "signature_zh": "TimeoutError：读取在30秒后超时",
        "regex": "timed out",
        "aliases": [],
        "root_cause_type": "specific",
        "transition_graph": {"leads_to": [], "preceded_by": [], "frequently_confused_with": []},
    }
    return good(rid, **{**base, **fields})


def redis_record(rid: str = "test/redis-timeout", **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "signature": "redis.exceptions.TimeoutError: Timeout reading from socket",
        "signature_zh": "redis.exceptions.TimeoutError：从套接字读取超时",
        "regex": r"redis\.exceptions\.TimeoutError: Timeout reading from socket",
        "aliases": ["redis.exceptions.TimeoutError: timed out"],
        "root_cause_type": "specific",
        "transition_graph": {"leads_to": [], "preceded_by": [], "frequently_confused_with": []},
    }
    return good(rid, **{**base, **fields})


def test_a_regex_matching_another_records_example_is_refused(tmp_path: Path) -> None:
    loose = write(tmp_path / "loose.json", timeout_record("test/any-timeout"))
    write(tmp_path / "redis.json", redis_record())
    assert lint([tmp_path]).problems == [
        f"{loose}:1: test/any-timeout: regex also matches test/redis-timeout's example "
        '"redis.exceptions.TimeoutError: timed out" '
        '(a catch-all? say root_cause_type "generic", or narrow the regex)'
    ]


def test_a_long_example_is_quoted_shortened(tmp_path: Path) -> None:
    write(tmp_path / "loose.json", timeout_record("test/any-timeout"))
    write(tmp_path / "redis.json", redis_record(aliases=["x" * 300 + " timed out"]))
    (problem,) = lint([tmp_path]).problems
    assert "x" * 20 in problem and "x" * 100 not in problem and '…"' in problem


def _timeouts(tmp_path: Path, names: tuple[str, ...]) -> None:
    for name in names:
        write(
            tmp_path / f"{name}.json",
            redis_record(
                f"test/{name}-timeout", signature=f"{name} client: read timed out", regex=f"{name} client: read"
            ),
        )


def test_a_regex_matching_three_records_examples_is_one_catch_all(tmp_path: Path) -> None:
    write(tmp_path / "loose.json", timeout_record("test/any-timeout"))
    _timeouts(tmp_path, ("redis", "pg", "http"))
    assert lint([tmp_path]).problems == [
        f"{tmp_path / 'loose.json'}:1: test/any-timeout: regex matches the examples of 3 other records "
        "(test/http-timeout, test/pg-timeout, test/redis-timeout): a catch-all, "
        'say root_cause_type "generic", or narrow the regex'
    ]


def test_a_regex_matching_two_records_examples_names_each(tmp_path: Path) -> None:
    write(tmp_path / "loose.json", timeout_record("test/any-timeout"))
    _timeouts(tmp_path, ("redis", "pg"))
    problems = lint([tmp_path]).problems
    assert [p.split("'s example ")[0].rsplit(" ", 1)[1] for p in problems] == ["test/pg-timeout", "test/redis-timeout"]
    assert all(p.endswith('(a catch-all? say root_cause_type "generic", or narrow the regex)') for p in problems)


def test_a_generic_record_may_match_specific_records_examples(tmp_path: Path) -> None:
    write(tmp_path / "loose.json", timeout_record("test/any-timeout", root_cause_type="generic"))
    _timeouts(tmp_path, ("redis", "pg", "http"))
    assert lint([tmp_path]).problems == []


@pytest.mark.parametrize("who_links", ["loose", "redis"])
def test_records_confused_with_each_other_are_a_deliberate_pair(tmp_path: Path, who_links: str) -> None:
    graph = {"leads_to": [], "preceded_by": [], "frequently_confused_with": []}
    loose_graph, redis_graph = copy.deepcopy(graph), copy.deepcopy(graph)
    if who_links == "loose":
        loose_graph["frequently_confused_with"] = ["test/redis-timeout"]
    else:
        redis_graph["frequently_confused_with"] = [{"error_id": "test/any-timeout", "distinction": "redis only"}]
    write(tmp_path / "loose.json", timeout_record("test/any-timeout", transition_graph=loose_graph))
    write(tmp_path / "redis.json", redis_record(transition_graph=redis_graph))
    assert lint([tmp_path]).problems == []


def test_a_specific_regex_matching_a_generic_records_example_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "loose.json", timeout_record("test/any-timeout", regex="TimeoutError", root_cause_type="generic"))
    redis = write(tmp_path / "redis.json", redis_record(regex="TimeoutError: "))
    problems = lint([tmp_path]).problems
    assert problems == [
        f"{redis}:1: test/redis-timeout: regex also matches test/any-timeout's example "
        '"TimeoutError: read timed out after 30 s" (a catch-all? say root_cause_type "generic", or narrow the regex)'
    ]


@pytest.mark.parametrize(
    ("regex", "signature"),
    [
        (r"\w+ \w+", "Broken pipe"),  # any two English words
        ("[一-龥]{2}", "错误：连接被拒绝"),  # any two Chinese characters
        (r"[^\n]{3}", "EPIPE"),
    ],
)
@pytest.mark.parametrize("kind", ["specific", "generic"])
def test_a_regex_matching_ordinary_chat_is_refused(tmp_path: Path, regex: str, signature: str, kind: str) -> None:
    problems = problems_of(
        tmp_path, timeout_record("test/broad", regex=regex, signature=signature, root_cause_type=kind)
    )
    assert len(problems) == 1, problems
    assert problems[0].startswith(f'{tmp_path / "rec.json"}:1: test/broad: regex matches ordinary chat "')
    assert "it would answer chat" in problems[0]


def test_a_narrow_regex_matches_no_chat(tmp_path: Path) -> None:
    assert problems_of(tmp_path, redis_record()) == []


def test_records_outside_the_linted_files_count_too(tmp_path: Path) -> None:
    """`--db`: the database's records are `others`; their examples count, the linted copy wins."""
    loose = write(tmp_path / "loose.json", timeout_record("test/any-timeout"))
    stored = Record.model_validate(redis_record())
    assert lint([loose]).problems == []
    (problem,) = lint([loose], others=[stored]).problems
    assert problem.startswith(f"{loose}:1: test/any-timeout: regex also matches test/redis-timeout's example ")
    # a stored record with the linted record's id is the linted record, not another one
    assert lint([loose], others=[Record.model_validate(timeout_record("test/any-timeout"))]).problems == []


def test_the_bundled_seeds_have_no_overlaps() -> None:
    """The bundled seeds, overlap check included (tests/cli/test_lint.py runs all of lint on them)."""
    records = [rec for _, rec in load(expand([SEEDS]), check_regexes=False).records]
    assert len(records) > 500
    assert [(r.id, p) for r, ps in zip(records, overlap_problems(records), strict=True) for p in ps] == []
