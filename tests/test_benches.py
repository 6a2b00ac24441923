"""The benches keep their word: each exits non-zero when it misses the target it prints.

The eval bench runs for real on the seeds-only set (about two seconds); the timing benches are
judged through their verdict functions with figures of our own, never on this machine's clock.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from types import ModuleType
from typing import Any

from tests.conftest import REPO


def bench(name: str) -> ModuleType:
    """bench/<name>.py as a module (bench/ is scripts, not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", REPO / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO, timeout=600)


def test_eval_meets_its_bars_and_fails_on_a_bar_it_cannot_meet() -> None:
    ok = run("bench/eval.py", "--set", "ml")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "every bar met" in ok.stdout
    raised = run("bench/eval.py", "--set", "ml", "--bar", "ml.channel_accuracy=1.01")
    assert raised.returncode == 1, raised.stdout + raised.stderr
    assert "missed: ml channel_accuracy" in raised.stdout


def test_eval_scores_optional_rows_and_same_error_records() -> None:
    ev = bench("eval")

    class Rec:
        def __init__(self, rid: str, signature: str, regex: str) -> None:
            self.id, self.signature, self.regex = rid, signature, regex

    nan = Rec("team/nan", "Loss went NaN in step 3", r"loss went nan")
    twin = Rec("seed/nan", "RuntimeError: loss went NaN", r"runtimeerror: loss")
    other = Rec("seed/oom", "CUDA out of memory", r"out of memory")
    assert ev.same_error(nan, twin) and ev.same_error(twin, nan)
    assert not ev.same_error(nan, other)
    assert ev.names(r"out of mem", other) and ev.names(r"seed/oo", other) and not ev.names(r"nan", other)


def test_eval_overrides_keep_each_figures_direction() -> None:
    ev = bench("eval")
    bars = ev.override(ev.CURRENT, ["dev.false_replies=0.2", "ml.precision=0.5"], argparse.ArgumentParser())
    assert bars["dev"]["false_replies"] == ("<=", 0.2) and bars["ml"]["precision"] == (">=", 0.5)
    assert ev.missed(0.21, ("<=", 0.2)) and not ev.missed(0.2, ("<=", 0.2))
    assert ev.missed(0.49, (">=", 0.5)) and not ev.missed(0.5, (">=", 0.5))


def match_figures(**over: float) -> dict[str, Any]:
    figures: dict[str, Any] = {"warm_cpu_p99_ms": 4.0, "cold_cpu_p99_ms": 9.0, "rss_peak_mb": 300.0}
    figures.update(over)
    return figures


def test_match_bench_misses_a_p99_or_memory_over_its_target() -> None:
    mb = bench("match_bench")
    assert mb.misses(match_figures(), (5.0, 500.0)) == []
    assert mb.misses(match_figures(warm_cpu_p99_ms=5.01), (5.0, None)) == ["CPU p99 5.01 ms > 5 ms"]
    assert mb.misses(match_figures(rss_peak_mb=501.0), (None, 500.0)) == ["memory +501 MB > 500 MB"]
    cold_only = match_figures()
    del cold_only["warm_cpu_p99_ms"]
    assert mb.misses(cold_only, (5.0, None)) == ["CPU p99 9.00 ms > 5 ms"]  # no warm pass: the cold one counts


def serve_result(*steps: tuple[float, bool, int]) -> dict[str, Any]:
    return {
        "warmup_answered": 10,
        "steps": [{"rate": rate, "sustained_ok": ok, "doubled": doubled} for rate, ok, doubled in steps],
    }


def test_serve_bench_needs_the_target_rate_sustained_and_nothing_answered_twice() -> None:
    sb = bench("serve_bench")
    assert sb.verdict(serve_result((10, True, 0), (25, True, 0), (50, False, 0)), 25)[0]
    assert not sb.verdict(serve_result((10, True, 0), (25, False, 0)), 25)[0]
    assert not sb.verdict(serve_result((10, True, 0), (25, True, 1)), 25)[0]
    ok, line = sb.verdict(serve_result((10, True, 0)), 25)
    assert not ok and "MISSED" in line and "10/s" in line


def test_redact_bench_judges_cpu_figures_against_its_targets() -> None:
    """p99 <= 0.5 ms and >= 10 MB/s on clean pastes; p99 <= 2 ms and >= 5 MB/s with secrets."""
    meets = bench("redact_bench").meets
    assert meets("clean", {"cpu_p99_ms": 0.5, "cpu_mb_s": 10.0})
    assert not meets("clean", {"cpu_p99_ms": 0.51, "cpu_mb_s": 30.0})
    assert not meets("clean", {"cpu_p99_ms": 0.1, "cpu_mb_s": 9.9})
    assert meets("secrets", {"cpu_p99_ms": 2.0, "cpu_mb_s": 5.0})
    assert not meets("secrets", {"cpu_p99_ms": 2.1, "cpu_mb_s": 8.0})
    assert not meets("secrets", {"cpu_p99_ms": 0.3, "cpu_mb_s": 4.9})


def test_feedback_sim_needs_the_chosen_rule_to_beat_static_rates_where_the_record_is_wrong() -> None:
    fs = bench("feedback_sim")
    out = fs.Outcome

    def runs(*regrets: tuple[float, bool]) -> list[Any]:
        return [out(settle=0.0, regret=r, prior_top_wrong=w) for r, w in regrets]

    static = runs((6.0, True), (5.0, True), (7.0, True), (1.0, False), (1.0, False))
    learns = runs((3.0, True), (2.5, True), (3.5, True), (1.1, False), (0.9, False))
    assert fs.verdict(learns, static, "flat")[0]
    assert not fs.verdict(learns, static, "flat", min_gain=4.0)[0]  # saves 3 on average, not 4
    no_gain = runs((6.0, True), (5.0, True), (7.0, True), (1.0, False), (1.0, False))
    assert not fs.verdict(no_gain, static, "flat")[0]
    static6 = runs((6.0, True), (5.0, True), (7.0, True), *[(1.0, False)] * 6)
    worse_elsewhere = runs((5.9, True), (4.9, True), (6.9, True), *[(3.0, False)] * 6)
    ok, lines = fs.verdict(worse_elsewhere, static6, "flat")
    assert not ok and "met" in lines[0] and "MISSED" in lines[1]


def test_burst_bench_fails_on_one_late_ack_a_doubled_or_a_missing_answer() -> None:
    verdict = bench("burst_bench").verdict
    good = {"events": 400, "to_answer": 320, "answered": 320, "doubled": 0, "acks_over_3s": 0}
    good |= {"clicks": 80, "votes_counted": 80}
    assert verdict(good)[0] is True
    assert verdict(good | {"acks_over_3s": 1}) == (False, "1 acks over 3 s")
    assert verdict(good | {"doubled": 1})[0] is False
    assert verdict(good | {"answered": 319}) == (False, "1 not answered")
    assert verdict(good | {"votes_counted": 79}) == (False, "1 clicks not counted")


def test_the_dev_queries_search_as_well_as_today() -> None:
    """`/errfix WORDS` on the seeds, scored on ../shared/eval/queries-dev.jsonl with this test's
    own numbers: 43 of the 52 right first (0.827), 48 in the first three (0.923), MRR@3 0.8558,
    no uncovered query answered (41, 46 and 0.814 before #37's respelled words, Chinese pairs
    segmented into words and half-weight root cause and tags; 46, 49 and 0.907 with the 201 seeds
    before #37 added 439: see bench/eval.py's bars; the 34 records of its last wave brought one more
    query into the first three and the MRR from 0.872 down to 0.865; the 9 of the wave after moved
    'ubuntu 22.04 conda 安装deepspeed 出错', which names no error, from third to fourth by the words'
    weights alone, none of them ranking above it; the 23 of wave 10 moved 'Archivo demasiado pesado
    para git push', which names no error, from second to third behind a git-lfs push record; 44, 49
    and 0.8621 before a word in up to 500 records, not 200, was kept in a query: `pip`, in 206 of
    the 687 seeds, had been left out of `C++14 Missing when using pip install`; 45, 50 and 0.8718
    before the 8 held-back records of wave 11 shipped: the detached-HEAD records rank first for
    `can't git pull` and third for 'Archivo demasiado pesado para git push', both vague; 44 before
    wave 12's 14 records: its disk-offload record ranks first for 'Error loading pretrained model
    weights', whose labelled answer, a state_dict size mismatch, is second; 49 in the first three
    before its second half: 'ubuntu 22.04 conda 安装deepspeed 出错', which names no error, ranks nvcc
    11's clash with GCC 11 on Ubuntu 22.04 first and its labelled CUDA_HOME record fourth). One
    query fewer right first, or the MRR down by one rank, fails: how the search merges keyword
    and fuzzy scores (ties to two decimals, twice the limit fetched from each side, fuzzy from four
    letters) moved them by that much and passed every other test (#20)."""
    bars = ["queries.top1=0.82", "queries.top3=0.92", "queries.mrr3=0.8557", "queries.nulls_answered=0"]
    r = run("bench/eval.py", "--set", "queries", *(arg for bar in bars for arg in ("--bar", bar)))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "every bar met" in r.stdout
