"""Search speed: `/errfix <words>` (keyword index + fuzzy matcher + ranking) at 25,000 records.

    python bench/search_bench.py                    # 25,000 records, target p99 <= 20 ms
    python bench/search_bench.py --size 5000 --p99-target 10

The store: the bundled seeds and the public corpus (../shared/corpus/deadends-records.jsonl), then
variants of them (as bench/match_bench.py makes: a made-up word per variant in id, signature,
aliases and regex) until the size is reached, imported into a real SQLite store as `errfix import`
does. Variants keep every text field (Chinese ones and keywords too), so the keyword index is as
large as a real one. The queries are the texts of ../shared/eval/queries-dev.jsonl (benchmark input
only: nothing here looks at their labels), two passes after one warm-up pass. Prints median, p99
and queries/s (wall clock); exits 1 when p99 misses the target.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from bench.match_bench import variant_word, vary_id, vary_regex
from bot.core.records import Record
from bot.service.errfix import Errfix
from bot.store import bundled_seeds, open_store
from bot.store.files import load

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus" / "deadends-records.jsonl"
QUERIES = SHARED / "eval" / "queries-dev.jsonl"


def records(size: int) -> list[Record]:
    """`size` records: seeds and corpus first, then their variants."""
    seeds = bundled_seeds()
    base = [rec for _, rec in load([CORPUS, *([seeds] if seeds else [])]).records]
    out = base[:size]
    n = 0
    while len(out) < size:
        rec, word = base[n % len(base)], variant_word(n)
        update = {
            "id": vary_id(rec.id, word),
            "signature": f"{rec.signature} {word}",
            "regex": vary_regex(rec.regex, word),
            "aliases": [f"{a} {word}" for a in rec.aliases],
        }
        out.append(rec.model_copy(update=update))
        n += 1
    return out


def queries() -> list[str]:
    with QUERIES.open(encoding="utf-8") as fh:
        return [json.loads(line)["query"] for line in fh if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=25_000)
    parser.add_argument("--p99-target", type=float, default=20.0, help="ms")
    args = parser.parse_args(argv)
    texts = queries()
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "search.db")
        store.import_records(records(args.size))
        svc = Errfix(store)
        _ = svc.matcher  # the index is built once, not per query
        for text in texts:  # warm-up pass: page cache, DFA caches
            svc.search(text)
        times = []
        for _ in range(2):
            for text in texts:
                t0 = time.perf_counter()
                svc.search(text)
                times.append(1000 * (time.perf_counter() - t0))
        count = store.count()
        store.close()
    times.sort()
    median, p99 = times[len(times) // 2], times[min(len(times) - 1, int(len(times) * 0.99))]
    ok = p99 <= args.p99_target
    print(
        f"{count} records, {len(times)} searches: median {median:.2f} ms, p99 {p99:.2f} ms "
        f"(target <= {args.p99_target} ms: {'met' if ok else 'MISSED'}), {1000 * len(times) / sum(times):.0f} queries/s"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
