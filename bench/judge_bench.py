"""Cost of the store's half of a diagnosis: the candidates' records and votes, and the knowing
decision (bot/core/knows.py, bot/service/errfix.py `_judged`) that says whether errfix answers.

Why: the matcher's own cost is bench/match_bench.py; what follows it on every paste (reading each
candidate's line again, its regex's alternatives, promoting a record that knows the error) is paid
on the store's thread, so it must stay small beside the matcher. Timed here per paste on the real
pastes of the wild sets (bench/wild/train.jsonl, ../shared/eval/wild-dev.jsonl) and dev.jsonl,
over the public corpus plus the bundled seeds; each paste's matching is timed apart.

    python bench/judge_bench.py [--rounds 3]

Prints pastes/s, median, p99 and max in ms, and the same for the matcher's half for scale.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval import SHARED, service  # noqa: E402
from wild_bench import SETS, load_rows  # noqa: E402

from bot.service.errfix import Errfix  # noqa: E402


def pastes() -> list[str]:
    rows = [*load_rows(SETS["train"]), *load_rows(SETS["dev"]), *load_rows(SHARED / "eval" / "dev.jsonl")]
    return [row["text"] for row in rows]


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def line(name: str, ms: list[float]) -> str:
    total = sum(ms) / 1000
    return (
        f"{name:8} {len(ms):6d} pastes  {len(ms) / total:9.0f} pastes/s  median {statistics.median(ms):.3f} ms  "
        f"p99 {quantile(ms, 0.99):.3f} ms  max {max(ms):.3f} ms"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the pastes (default 3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        svc = service(Path(tmp), with_corpus=True)
        texts = pastes()
        svc.diagnose(texts[0])  # warm the caches once
        judge: list[float] = []
        match: list[float] = []
        for _ in range(args.rounds):
            for text in texts:
                m = Errfix.match_paste(svc.matcher, text)
                start = time.perf_counter()
                svc.diagnosis(m)
                judge.append((time.perf_counter() - start) * 1000)
                match.append(m.seconds * 1000)
        print(f"corpus + seeds, {svc.store.count()} records, {len(texts)} pastes x {args.rounds} rounds")
        print(line("judge", judge))
        print(line("match", match))
        svc.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
