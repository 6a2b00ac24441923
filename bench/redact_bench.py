"""Redaction speed: ms per paste and MB/s, on ordinary text and on text full of secrets.

    python bench/redact_bench.py            # all corpus records, 3 passes
    python bench/redact_bench.py --passes 1

Every paste errfix keeps goes through `redact()` before matching results are stored, so it sits
on the answer path next to matching (whose target is p99 <= 5 ms per paste). Its share should be
small: targets (one core) p99 <= 0.5 ms per clean paste and >= 10 MB/s; with secrets (rare in real
pastes, and each found secret costs Python work) p99 <= 2 ms and >= 5 MB/s.

The pastes are built at run time from ../shared/corpus/deadends-records.jsonl (benchmark input
only): one paste per record, its signature, root cause, dead ends and workarounds joined as a
person would paste a long error report, plus the texts of ../shared/eval/dev.jsonl and
ml-pastes-dev.jsonl. The "secrets" set is the same pastes with five fake secrets (an AWS key id, a
Stripe key, a Slack token, a URL password, `password=`) spliced into each, which makes every
detector run and report. The bench checks that each spliced secret is gone, then times.
Per paste, wall clock and process CPU time; on a shared machine the wall-clock tail includes
waiting for a core, so the targets are checked on CPU time (what one core spends).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from bot.core.redact import redact

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "deadends-records.jsonl"
PASTES = (SHARED / "eval" / "dev.jsonl", SHARED / "eval" / "ml-pastes-dev.jsonl")
TARGETS = {"clean": (0.5, 10.0), "secrets": (2.0, 5.0)}  # set: (p99 ms per paste, min MB/s)
FAKE = (
    "AKIA" + "QX7Z2P4M9R3T8W5N",
    "sk_live_" + "51H8aBcDeFgHiJkLmNoPqRsT",
    "xoxb-" + "2468013579-1357924680-aB3dE5gH7jK9mN1pQ3sT5vW7",
    "Pg" + "Pass_w0rd!9",
    "Hunt3r2-horse",
)
SPLICES = (
    f"boto3 key {FAKE[0]}",
    f"stripe {FAKE[1]}",
    f"SLACK_BOT_TOKEN={FAKE[2]}",
    f"postgres://app:{FAKE[3]}@db/prod",
    f"password={FAKE[4]}",
)


def record_paste(rec: dict[str, object]) -> str:
    """A record's prose as one long paste."""
    parts = [str(rec.get("signature") or ""), str(rec.get("root_cause") or "")]
    for key, fields in (("dead_ends", ("action", "why_fails")), ("workarounds", ("action", "how"))):
        items = rec.get(key)
        for item in items if isinstance(items, list) else []:
            parts += [str(item.get(f) or "") for f in fields if isinstance(item, dict)]
    return "\n".join(p for p in parts if p)


def load_pastes() -> list[str]:
    with CORPUS.open(encoding="utf-8") as fh:
        pastes = [record_paste(json.loads(line)) for line in fh if line.strip()]
    for path in PASTES:
        with path.open(encoding="utf-8") as fh:
            pastes += [json.loads(line)["text"] for line in fh if line.strip()]
    return pastes


def with_secrets(paste: str) -> str:
    """`paste` with the five fake secrets spliced in at spread-out line breaks."""
    lines = paste.split("\n")
    for i, splice in enumerate(SPLICES):
        at = (i * len(lines)) // len(SPLICES)
        lines.insert(at + i, splice)
    return "\n".join(lines)


def quantile(xs: list[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure(pastes: list[str], passes: int) -> dict[str, float]:
    wall: list[float] = []
    cpu: list[float] = []
    total_wall = total_cpu = 0.0
    for _ in range(passes):
        for text in pastes:
            w0, c0 = time.perf_counter(), time.process_time()
            redact(text)
            w1, c1 = time.perf_counter(), time.process_time()
            wall.append((w1 - w0) * 1000)
            cpu.append((c1 - c0) * 1000)
            total_wall += w1 - w0
            total_cpu += c1 - c0
    size = sum(len(t.encode("utf-8")) for t in pastes) * passes
    return {
        "pastes": len(pastes),
        "mean_kb": size / len(wall) / 1000,
        "median_ms": statistics.median(wall),
        "p99_ms": quantile(wall, 0.99),
        "max_ms": max(wall),
        "cpu_p99_ms": quantile(cpu, 0.99),
        "mb_s": size / 1e6 / total_wall,
        "cpu_mb_s": size / 1e6 / max(total_cpu, 1e-9),
    }


def meets(name: str, r: dict[str, float]) -> bool:
    """Whether the figures `r` of set `name` meet its targets (judged on CPU time)."""
    p99_target, mbs_target = TARGETS[name]
    return r["cpu_p99_ms"] <= p99_target and r["cpu_mb_s"] >= mbs_target


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--passes", type=int, default=3)
    args = ap.parse_args(argv)
    clean = load_pastes()
    dirty = [with_secrets(p) for p in clean]
    leaked = [p for p in dirty if any(s in redact(p).text for s in FAKE)]
    changed = [p for p in clean if redact(p).findings]
    print(f"{len(clean)} pastes; clean ones changed by redaction: {len(changed)}; secrets left in: {len(leaked)}")
    ok = not leaked
    for name, pastes in (("clean", clean), ("secrets", dirty)):
        redact(pastes[0])  # compile-time costs are not per paste
        r = measure(pastes, args.passes)
        p99_target, mbs_target = TARGETS[name]
        good = meets(name, r)
        ok &= good
        print(
            f"{name:8s} {r['pastes']:.0f} pastes x {args.passes}, mean {r['mean_kb']:.1f} kB: "
            f"median {r['median_ms']:.3f} ms, p99 {r['p99_ms']:.3f} ms (cpu {r['cpu_p99_ms']:.3f}), "
            f"max {r['max_ms']:.2f} ms, {r['mb_s']:.1f} MB/s (cpu {r['cpu_mb_s']:.1f})  "
            f"[target, on cpu time: p99 <= {p99_target} ms, >= {mbs_target} MB/s: {'ok' if good else 'MISSED'}]"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
