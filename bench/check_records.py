"""Check new records before they join the bundled seeds (issue 37): a staged folder laid out like
the repo, `STAGE/seeds/<domain>/<slug>.json` and `STAGE/seed_examples/<domain>/<slug>[.N].txt`.

For each staged record it prints what would block it: lint problems, fewer than two example pastes,
an example that does not rank its own record first or would not be answered unprompted, and a
staged regex that matches a bundled example or a line of ordinary chat (a regex that reaches past
its error). Exit 1 when anything blocks.

    .venv/bin/python bench/check_records.py STAGE
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import re2

from bot.core.chat import ORDINARY_CHAT
from bot.service.errfix import Errfix
from bot.store.files import load
from bot.store.lint import lint

ROOT = Path(__file__).resolve().parents[1]
BUNDLED_EXAMPLES = ROOT / "tests" / "seed_examples"
_NUMBERED = re.compile(r"\.\d+$")

# ordinary chat (what `errfix lint` checks too) and prose about errors: a staged record's regex must
# not fire on any of these
CHAT = [
    *ORDINARY_CHAT,
    "hey, did the build pass for you?",
    "I got a KeyError yesterday, not sure why",
    "docker says permission denied sometimes",
    "the model is out of memory again lol",
    "can someone review my PR about the import error handling",
    "we should pin numpy before the release",
    "kubectl get pods shows everything running now",
    "ollama is slow today, anyone else?",
    "npm install takes forever on CI",
    "git push worked after I rebased",
    "the error is gone after restarting the kernel",
    "fixed the connection refused thing by restarting redis",
    "Error: something went wrong",
    "failed",
    "Traceback (most recent call last):",
]


def examples_of(folder: Path) -> dict[str, list[Path]]:
    out: dict[str, list[Path]] = {}
    for p in sorted(folder.rglob("*.txt")):
        rid = _NUMBERED.sub("", p.relative_to(folder).with_suffix("").as_posix())
        out.setdefault(rid, []).append(p)
    return out


def main(stage: Path) -> int:
    seeds_dir, ex_dir = stage / "seeds", stage / "seed_examples"
    loaded = load([seeds_dir])
    blocking: list[str] = [f"invalid: {p}" for p in loaded.problems]
    staged = {rec.id: rec for _, rec in loaded.records}
    examples = examples_of(ex_dir)
    bundled = examples_of(BUNDLED_EXAMPLES)
    with tempfile.TemporaryDirectory() as tmp:
        svc = Errfix.open(Path(tmp) / "check.db")
        try:
            # links in transition_graph may name bundled records: lint knows the store's ids
            blocking += [f"lint: {p}" for p in lint([seeds_dir], known=svc.store.has).problems]
            clash = sorted(set(staged) & {r.id for r in svc.store.records()})
            blocking += [f"{rid}: id already bundled" for rid in clash]
            svc.import_loaded(loaded)
            for rid, rec in sorted(staged.items()):
                pastes = examples.get(rid, [])
                if len(pastes) < 2:
                    blocking.append(f"{rid}: {len(pastes)} example paste(s), need 2 from different sources")
                for p in pastes:
                    d = svc.diagnose(p.read_text(encoding="utf-8"))
                    top = d.matches[0].id if d.matches else "nothing"
                    if top != rid:
                        shown = ", ".join(f"{m.id} {m.score:.2f}" for m in d.matches) or "no candidate"
                        blocking.append(f"{p.relative_to(stage)}: ranked {shown}")
                    elif not d.reply:
                        m = d.matches[0]
                        why = "kind-only (catch-all)" if m.kind_only else f"score {m.score:.2f} < threshold"
                        blocking.append(f"{p.relative_to(stage)}: own record first but no unprompted answer: {why}")
                try:
                    rx = re2.compile(rec.regex)
                except re2.error as e:
                    blocking.append(f"{rid}: regex does not compile in RE2: {e}")
                    continue
                for other, paths in bundled.items():
                    for p in paths:
                        if rx.search(p.read_text(encoding="utf-8")):
                            blocking.append(f"{rid}: regex matches bundled example {p.relative_to(ROOT)} ({other})")
                for other, paths in examples.items():
                    if other == rid:
                        continue
                    for p in paths:
                        if rx.search(p.read_text(encoding="utf-8")):
                            blocking.append(f"{rid}: regex matches staged example of {other}")
                blocking += [f"{rid}: regex matches chat {c!r}" for c in CHAT if rx.search(c)]
        finally:
            svc.close()
    orphans = sorted(set(examples) - set(staged))
    blocking += [f"examples without a staged record: {o}" for o in orphans]
    for line in blocking:
        print(line)
    print(f"{len(staged)} staged records, {sum(map(len, examples.values()))} examples, {len(blocking)} blocking")
    return 1 if blocking else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
