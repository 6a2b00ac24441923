"""Matching quality on labelled real pastes, counted as ../shared/eval/README.md says.

    python bench/eval.py                 # both sets: dev.jsonl on corpus+seeds, ml-pastes on seeds only
    python bench/eval.py --set dev -v    # one set, printing every miss and false reply

dev.jsonl is scored on a database holding the public corpus (imported as `errfix import` does,
so the bundled seeds are in it too); ml-pastes-dev.jsonl on a database holding only the seeds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bot.service.errfix import Errfix
from bot.store import open_store
from bot.store.files import load

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
BARS = {"dev": (0.85, 0.92, 0.05), "ml": (0.80, None, 0.05)}


def _service(tmp: Path, with_corpus: bool) -> Errfix:
    store = open_store(tmp / ("corpus.db" if with_corpus else "seeds.db"))
    if with_corpus:
        result = load([SHARED / "corpus" / "deadends-records.jsonl"])
        store.import_records([rec for _, rec in result.records])
    return Errfix(store)


def _right_dev(row: dict[str, Any], match: dict[str, Any]) -> bool:
    return match["id"] in [row["expected"], *row.get("also_ok", [])]


def _right_ml(row: dict[str, Any], match: dict[str, Any]) -> bool:
    pattern = re.compile(row["must_match"], re.I)
    return bool(pattern.search(match["signature"]) or pattern.search(match["id"]))


def evaluate(svc: Errfix, rows: list[dict[str, Any]], kind: str, verbose: bool) -> dict[str, float]:
    right = _right_dev if kind == "dev" else _right_ml
    label = "expected" if kind == "dev" else "concept"
    pos = acc = top3 = neg = false = 0
    times = []
    for row in rows:
        t0 = time.perf_counter()
        d = svc.diagnose(row["text"])
        times.append(time.perf_counter() - t0)
        out = d.to_json()
        first = out["matches"][0] if out["matches"] else None
        if row[label] is None:
            neg += 1
            if out["reply"]:
                false += 1
                if verbose:
                    print(f"FALSE  {row['id']} {row['kind']}: {first and first['id']} {first and first['score']}")
            continue
        pos += 1
        ok_first = bool(out["reply"] and first and right(row, first))
        acc += ok_first
        top3 += any(right(row, m) for m in out["matches"][:3])
        if verbose and not ok_first:
            got = [(m["id"], m["score"]) for m in out["matches"][:3]]
            print(f"MISS   {row['id']} want {row[label]} reply={out['reply']} got {got}")
    times.sort()
    return {
        "channel_accuracy": acc / max(1, pos),
        "top3": top3 / max(1, pos),
        "false_replies": false / max(1, neg),
        "positives": pos,
        "nulls": neg,
        "median_ms": 1000 * times[len(times) // 2],
        "p99_ms": 1000 * times[min(len(times) - 1, int(len(times) * 0.99))],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=["dev", "ml", "both"], default="both")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for kind, file, with_corpus in (("dev", "dev.jsonl", True), ("ml", "ml-pastes-dev.jsonl", False)):
            if args.set not in (kind, "both"):
                continue
            rows = [json.loads(line) for line in (SHARED / "eval" / file).open(encoding="utf-8")]
            svc = _service(Path(tmp), with_corpus)
            _ = svc.matcher  # build the index first: latency below is per paste, not per index build
            r = evaluate(svc, rows, kind, args.verbose)
            acc_bar, top3_bar, false_bar = BARS[kind]
            print(
                f"{file}: {r['positives']} positives, {r['nulls']} nulls "
                f"({'corpus + seeds' if with_corpus else 'bundled seeds only'}, {svc.store.count()} records)"
            )
            print(f"  channel accuracy {r['channel_accuracy']:.3f}  (bar >= {acc_bar})")
            if top3_bar is not None:
                print(f"  top-3            {r['top3']:.3f}  (bar >= {top3_bar})")
            else:
                print(f"  top-3            {r['top3']:.3f}")
            print(f"  false replies    {r['false_replies']:.3f}  (bar <= {false_bar})")
            print(f"  latency          median {r['median_ms']:.2f} ms, p99 {r['p99_ms']:.2f} ms per paste")
            failed |= r["channel_accuracy"] < acc_bar or r["false_replies"] > false_bar
            failed |= top3_bar is not None and r["top3"] < top3_bar
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
