"""Choose the knowing decision's thresholds (bot/core/knows.py `Knows`) on judged real pastes (#35).

    python bench/fit_knows.py            # every threshold pair: kept good / bad answers per set, the chosen one marked
    python bench/fit_knows.py --dump F   # every sample's features and label as JSONL

Samples: each paste's first candidate that errfix is sure of (P(right record) >= 0.5, after the
ecosystem rules), with what `knowing` reads and a label:
  * wild (../shared/eval/wild-dev.jsonl and bench/wild/{train,check,check2}.jsonl, on corpus +
    seeds and on the seeds only): good when the judged verdict is *specific* (helpful),
    bad for *generic* or *wrong*; pairs nobody judged are left out;
  * dev.jsonl (corpus + seeds) and ml-pastes-dev.jsonl (seeds only): good when the record is right
    for the paste (bench/eval.py's definition), bad when it is not. These keep what works: a record
    that is this paste's error must stay an answer.
The grid is small on purpose (two thresholds, then the imported records' bar at the chosen
pair, then their bar when a wildcard holds the line's name): the rule must hold for records and
pastes nobody has seen, and the held-out sets are twice the dev sets. A choice is read off the
`train` rows; the other rows (wild-dev, the check sets, dev, ml) check it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from eval import Judge, corpus_ids, dev_judge, ml_judge, names, rows_of, service  # noqa: E402
from wild_bench import SETS, load_rows, verdicts  # noqa: E402

from bot.core.knows import Knowing, Knows, curated, knowing  # noqa: E402
from bot.service.errfix import Errfix  # noqa: E402


@dataclass(frozen=True)
class Sample:
    group: str  # wild-train, wild-dev, dev, ml
    key: str  # paste id, record id and db
    k: Knowing
    good: bool


# the judged sets, then the labelled ones, as the figures print them
GROUPS = ("wild-train", "wild-dev", *(f"wild-{name}" for name in SETS if name.startswith("check")), "dev", "ml")


def first(svc: Errfix, text: str) -> tuple[Any, Knowing] | None:
    """The paste's sure first candidate (as a channel would answer it, before knowing) and its features."""
    d = svc.diagnose(text)
    if not d.matches or d.matches[0].score < svc.reply_threshold or d.extracted.deprecation_only:
        return None
    top = d.matches[0]
    m = svc._matcher
    assert m is not None
    return top, knowing(
        top.record,
        d.extracted,
        lambda line: m.regex_matches(top.id, line),
        m.rarity,
        m.catch_all(top.id),
        m.wrapped_lines(top.id, d.extracted.searchable),
        curated(top.record, m.seeds),
        m.wordings(top.id),
    )


def samples(tmp: Path) -> list[Sample]:
    out: list[Sample] = []
    for db in ("corpus", "seeds"):
        (tmp / db).mkdir()
        svc = service(tmp / db, with_corpus=db == "corpus")
        for name in SETS:
            rows = load_rows(SETS[name])
            judged = verdicts(rows)
            for row in rows:
                got = first(svc, row["text"])
                if got is None:
                    continue
                top, k = got
                j = judged.get((row["id"], top.id))
                if j is not None:
                    out.append(Sample(f"wild-{name}", f"{row['id']} {top.id} {db}", k, j["verdict"] == "specific"))
        labelled: list[tuple[str, list[dict[str, Any]], Any, Judge]] = []
        if db == "corpus":
            labelled.append(
                ("dev", rows_of("dev.jsonl"), lambda r: r["expected"] is not None, dev_judge(svc, corpus_ids()))
            )
        else:
            labelled.append(("ml", rows_of("ml-pastes-dev.jsonl"), lambda r: r["concept"] is not None, ml_judge))
        for group, rows, positive, right in labelled:
            for row in rows:
                got = first(svc, row["text"])
                if got is None:
                    continue
                top, k = got
                if positive(row):
                    good = right(row, top.record)
                else:
                    good = bool(row.get("optional") and row.get("must_match") and names(row["must_match"], top.record))
                out.append(Sample(group, f"{row['id']} {top.id} {db}", k, good))
    return out


def line(knows: Knows, data: list[Sample]) -> str:
    parts = []
    for group in GROUPS:
        rows = [s for s in data if s.group == group]
        kept = [s for s in rows if knows.knows(s.k)]
        good = sum(s.good for s in rows)
        kg = sum(s.good for s in kept)
        parts.append(f"{group} {kg}/{good} good {len(kept) - kg}/{len(rows) - good} bad ({kg / max(1, len(kept)):.2f})")
    return "; ".join(parts)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dump", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        data = samples(Path(tmp))
    if args.dump:
        with args.dump.open("w") as fh:
            for s in data:
                fh.write(json.dumps({"group": s.group, "key": s.key, "good": s.good, **asdict(s.k)}) + "\n")
    groups = GROUPS
    print(f"{len(data)} samples: " + ", ".join(f"{g} {sum(1 for s in data if s.group == g)}" for g in groups))
    shipped = Knows()
    for words in (1.0, 1.1, 1.15, 1.2, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 3.0):
        for commands in (0.34, 0.5, 0.67, 1.01):
            knows = Knows(words, commands)
            mark = " <- shipped" if knows == shipped else ""
            print(f"template_words={words} commands={commands:.2f}: {line(knows, data)}{mark}")
    # the bar for a record imported as found, at the shipped pair (0: no bar of its own)
    for imported in (0.0, 1.5, 1.75, 2.0, 2.25, 2.5):
        knows = Knows(shipped.template_words, shipped.commands, imported)
        mark = " <- shipped" if knows == shipped else ""
        print(f"imported_words={imported}: {line(knows, data)}{mark}")
    # and its bar when the line holds a name the regex leaves to a wildcard (at or below the
    # imported bar: no bar of its own)
    for named in (2.0, 2.5, 3.0, 3.5, 4.0):
        knows = Knows(shipped.template_words, shipped.commands, shipped.imported_words, named)
        mark = " <- shipped" if knows == shipped else ""
        print(f"imported_named_words={named}: {line(knows, data)}{mark}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
