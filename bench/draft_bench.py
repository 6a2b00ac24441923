"""How well a record drafted from one paste recognises the next paste of the same error (#17).

    python bench/draft_bench.py           # figures and targets; exit 1 when one is missed
    python bench/draft_bench.py --show    # also every pair missed and every false match

For each positive of ../shared/eval/dev.jsonl, the regex `errfix draft` would prefill (as if the
person accepted the modal unchanged) is searched, as the matcher searches a record's regex
(case-insensitive, on the cleaned paste), in:
  * the other pastes of the same error (same `expected`, or linked through `also_ok`): recall;
  * the pastes of every other error and every null (chat, uncovered): false matches.
Only `expected` labels are read; no row's text is special-cased. bench/eval.py prints these too.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import re2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.core.draft import draft  # noqa: E402
from bot.core.extract import clean  # noqa: E402
from bot.core.regexset import re2_options  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# ../shared beside the checkout, or beside an enclosing folder (a worktree one level down)
SHARED = next((p / "shared" for p in ROOT.parents if (p / "shared" / "eval").is_dir()), ROOT.parent / "shared")
TARGETS = {"recall": 0.7, "false_matches": 0}


@dataclass
class DraftFigures:
    pairs: int = 0  # (paste, other paste of the same error)
    recalled: int = 0
    drafted: int = 0  # positives that gave a draft
    positives: int = 0
    others: int = 0  # (paste, paste of another error or a null) pairs tried
    false_matches: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        return self.recalled / self.pairs if self.pairs else 0.0

    def figures(self) -> dict[str, float]:
        return {"recall": round(self.recall, 3), "false_matches": self.false_matches}

    def lines(self) -> list[str]:
        return [
            f"draft: {self.drafted}/{self.positives} positives drafted; regex recall "
            f"{self.recalled}/{self.pairs} = {self.recall:.3f} (target >= {TARGETS['recall']}); "
            f"false matches {self.false_matches} of {self.others} (target {TARGETS['false_matches']})"
        ]

    def missed(self) -> list[str]:
        out = []
        if self.recall < TARGETS["recall"]:
            out.append("draft recall")
        if self.false_matches > TARGETS["false_matches"]:
            out.append("draft false_matches")
        return out


def groups(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Row id → its error's label: `expected` ids linked through `also_ok` are one error."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for row in rows:
        if row.get("expected"):
            for other in row.get("also_ok") or []:
                parent[find(other)] = find(row["expected"])
    return {row["id"]: find(row["expected"]) for row in rows if row.get("expected")}


def score(rows: list[dict[str, Any]]) -> DraftFigures:
    label = groups(rows)
    texts = {row["id"]: clean(row["text"])[0] for row in rows}
    out = DraftFigures()
    opts = re2_options()
    for row in rows:
        if row["id"] not in label:
            continue
        out.positives += 1
        d = draft(row["text"])
        if d is None:
            out.notes.append(f"{row['id']}: no draft")
            continue
        out.drafted += 1
        rx = re2.compile(d.regex, opts)
        for other in rows:
            if other["id"] == row["id"]:
                continue
            hit = rx.search(texts[other["id"]]) is not None
            if label.get(other["id"]) == label[row["id"]]:
                out.pairs += 1
                out.recalled += hit
                if not hit:
                    out.notes.append(f"{row['id']} -> {other['id']}: missed, regex {d.regex}")
            else:
                out.others += 1
                if hit:
                    out.false_matches += 1
                    out.notes.append(f"{row['id']} -> {other['id']}: false match, regex {d.regex}")
    # a positive whose error has no other paste counts for false matches only
    for row in rows:
        if row["id"] in label and sum(1 for v in label.values() if v == label[row["id"]]) < 2:
            continue
    return out


def run(path: Path | None = None) -> DraftFigures:
    path = path or SHARED / "eval" / "dev.jsonl"
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    return score(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", action="store_true", help="print every missed pair and false match")
    parser.add_argument("--file", type=Path, default=None, help="labelled pastes (default: dev.jsonl)")
    args = parser.parse_args(argv)
    figures = run(args.file)
    if args.show:
        for note in figures.notes:
            print(note)
    for line in figures.lines():
        print(line)
    misses = figures.missed()
    if misses:
        print(f"missed: {', '.join(misses)}")
        return 1
    print("every target met")
    return 0


if __name__ == "__main__":
    sys.exit(main())
