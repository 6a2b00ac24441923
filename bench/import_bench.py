"""Import benchmark: the public corpus into a new SQLite database, as `errfix import` does it.

Why: import is all or nothing in one transaction, so its speed decides how long a team's sync or
a first start holds the write lock; the database size is what a deployment has to keep.

Each repetition makes a new database in a temporary folder and times, separately and together:
  * read + validate: `bot.store.files.load` (JSON parsing, pydantic validation, duplicate check);
  * write: `Store.import_records` (one transaction: records, FTS5 index, workarounds, aliases);
  * re-import unchanged: the same records again into the same database (the idempotent upsert
    compares content hashes and writes nothing);
  * export: `Errfix.export_records` back to the file format.
Printed: records/s from the median run, median and p99 of per-run time, the database size.
The bundled seeds are not imported, so the figures are for the corpus alone.

Run from the repo root with the package installed:
    python bench/import_bench.py [--repeat 7] [--corpus ../shared/corpus/deadends-records.jsonl] [--json]
Credit: the corpus is deadends.dev's public error data (see ../shared/corpus/README.md).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.service.errfix import Errfix
from bot.store.files import load
from bot.store.store import Store

DEFAULT_CORPUS = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpus" / "deadends-records.jsonl"


def _p99(values: list[float]) -> float:
    if len(values) < 2:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[98]


def _size_mb(db: Path) -> float:
    files = [db, Path(f"{db}-wal"), Path(f"{db}-shm")]
    return sum(f.stat().st_size for f in files if f.exists()) / 1e6


def run_once(corpus: Path, folder: Path) -> dict[str, Any]:
    db = folder / "bench.db"
    t0 = time.perf_counter()
    result = load([corpus])
    t1 = time.perf_counter()
    if result.problems:
        raise SystemExit(f"the corpus has {len(result.problems)} problem(s), e.g. {result.problems[0]}")
    records = [rec for _, rec in result.records]
    store = Store(db)
    summary = store.import_records(records)
    t2 = time.perf_counter()
    n = len(records)
    assert len(summary.added) == n, summary.line()
    # Drop the first load before timing the second: with 2,460 records still alive, Python's
    # cyclic GC rescans them during the next load and doubles its time, which a fresh
    # `errfix import` process never pays.
    del result, records
    gc.collect()

    r0 = time.perf_counter()
    again = load([corpus])
    rm = time.perf_counter()
    summary = store.import_records([rec for _, rec in again.records])
    r1 = time.perf_counter()
    assert len(summary.unchanged) == n, summary.line()

    e0 = time.perf_counter()
    exported = sum(1 for _ in Errfix(store).export_records())
    e1 = time.perf_counter()
    assert exported == n
    store.close()  # the last connection checkpoints the WAL into the main file
    return {
        "records": n,
        "load_s": t1 - t0,
        "write_s": t2 - t1,
        "total_s": t2 - t0,
        "reimport_s": r1 - r0,
        "reimport_compare_s": r1 - rm,
        "export_s": e1 - e0,
        "db_mb": _size_mb(db),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=7, help="repetitions, each into a new database")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="a .jsonl/.json file or folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        print(f"import_bench: no corpus at {args.corpus} (expected ../shared beside the repo)", file=sys.stderr)
        return 2
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    runs = []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="errfix-bench-") as tmp:
            runs.append(run_once(args.corpus, Path(tmp)))

    n = runs[0]["records"]
    totals = [r["total_s"] for r in runs]
    summary = {
        "corpus": str(args.corpus.resolve()),
        "corpus_mb": round(
            sum(f.stat().st_size for f in ([args.corpus] if args.corpus.is_file() else args.corpus.rglob("*.json*")))
            / 1e6,
            2,
        ),
        "records": n,
        "repeat": args.repeat,
        "cpus": os.cpu_count(),
        "records_per_s_median": round(n / statistics.median(totals)),
        "run_s_median": round(statistics.median(totals), 3),
        "run_s_p99": round(_p99(totals), 3),
        "load_s_median": round(statistics.median(r["load_s"] for r in runs), 3),
        "write_s_median": round(statistics.median(r["write_s"] for r in runs), 3),
        "reimport_unchanged_s_median": round(statistics.median(r["reimport_s"] for r in runs), 3),
        "reimport_compare_s_median": round(statistics.median(r["reimport_compare_s"] for r in runs), 3),
        "export_s_median": round(statistics.median(r["export_s"] for r in runs), 3),
        "db_mb": round(runs[-1]["db_mb"], 2),
    }
    if args.json:
        print(json.dumps(summary))
        return 0
    s = summary
    print(
        f"import of {s['records']} records ({s['corpus_mb']} MB JSONL) into a new SQLite database, "
        f"{s['repeat']} runs, {s['cpus']} CPUs"
    )
    print(f"  {s['records_per_s_median']:,} records/s (median run)")
    print(
        f"  per-run time: median {s['run_s_median']:.3f} s, p99 {s['run_s_p99']:.3f} s "
        f"(read+validate {s['load_s_median']:.3f} s, write {s['write_s_median']:.3f} s)"
    )
    print(
        f"  re-import, unchanged: {s['reimport_unchanged_s_median']:.3f} s (median; of which comparing "
        f"content hashes {s['reimport_compare_s_median']:.3f} s, nothing written)"
    )
    print(f"  export: {s['export_s_median']:.3f} s (median)")
    print(f"  database size: {s['db_mb']:.1f} MB")
    print("  corpus: deadends.dev public error data")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
