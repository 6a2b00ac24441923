"""Whether a record's regex reaches past its own error (#37): `errfix lint` reports it.

A record's *examples* are its `signature` and `aliases`. A regex should recognise its error across
versions and paths and nothing else, so lint compares each linted record's regex (RE2,
case-insensitive, as production runs it) with every other record's examples and with ordinary chat
(bot/core/chat.py):

* matching ordinary chat is always a problem: the record would answer chat;
* a record whose `root_cause_type` is "generic" says it is general advice for a class of errors:
  it may match more specific records' examples;
* two records that link each other in `transition_graph.frequently_confused_with` (either way)
  are a deliberate pair of look-alikes;
* any other match is a problem: the regex also catches another record's error. Matching the
  examples of several other records makes it a catch-all, reported once.

One RegexSet (bot/core/regexset.py) holds the linted regexes, so each example is one
Aho-Corasick pass plus the few RE2 searches its literals select, not one search per regex.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import re2

from bot.core.chat import ORDINARY_CHAT
from bot.core.records import Record
from bot.core.regexset import RegexSet
from bot.store.redos import compile_re2

CATCH_ALL = 3  # other records whose examples one non-generic regex matches: reported as a catch-all
SHOWN = 60  # characters of an example quoted in a problem
ADVICE = 'say root_cause_type "generic", or narrow the regex'


def examples(rec: Record) -> list[str]:
    """The texts a record says are its error: the signature and its other wordings."""
    return [rec.signature, *(a for a in rec.aliases if a.strip())]


def _quoted(text: str) -> str:
    text = " ".join(text.split())
    return '"' + (text if len(text) <= SHOWN else text[: SHOWN - 1] + "…") + '"'


def _confused(a: Record, b: Record) -> bool:
    """Whether the two records name each other as look-alikes (either direction is enough)."""
    return b.id in a.transition_graph.ids("frequently_confused_with") or a.id in b.transition_graph.ids(
        "frequently_confused_with"
    )


def _problems(rec: Record, hits: dict[str, str], chat: list[str], pool: dict[str, Record]) -> list[str]:
    out: list[str] = []
    if chat:
        more = f" (and {len(chat) - 1} more chat line(s))" if len(chat) > 1 else ""
        out.append(f"regex matches ordinary chat {_quoted(chat[0])}{more}: it would answer chat, narrow the regex")
    if rec.root_cause_type == "generic":
        return out
    others = {oid: text for oid, text in hits.items() if not _confused(rec, pool[oid])}
    if len(others) >= CATCH_ALL:
        names = ", ".join(sorted(others))
        out.append(f"regex matches the examples of {len(others)} other records ({names}): a catch-all, {ADVICE}")
    else:
        out += [
            f"regex also matches {oid}'s example {_quoted(text)} (a catch-all? {ADVICE})"
            for oid, text in sorted(others.items())
        ]
    return out


def overlap_problems(records: Sequence[Record], others: Iterable[Record] = ()) -> list[list[str]]:
    """For each of `records` (the linted ones), its overlap problems as messages.

    The examples compared are those of `records` and `others` (e.g. a database's records); a record
    in both counts once, as linted. A regex RE2 rejects is skipped: lint reports that already.
    """
    pool = {r.id: r for r in others}
    pool.update((r.id, r) for r in records)
    usable: list[int] = []  # index in `records` of each pattern in the set
    for i, rec in enumerate(records):
        try:
            compile_re2(rec.regex)
        except re2.error:
            continue
        usable.append(i)
    found: list[dict[str, str]] = [{} for _ in records]  # other id -> first example matched
    chat: list[list[str]] = [[] for _ in records]
    if usable:
        regexes = RegexSet([records[i].regex for i in usable])
        owners: dict[str, list[str]] = {}  # example text -> ids of the records it belongs to
        for rec in pool.values():
            for text in examples(rec):
                owners.setdefault(text, []).append(rec.id)
        for text, ids in owners.items():
            for hit in regexes.search(text):
                i = usable[hit.index]
                for oid in ids:
                    if oid != records[i].id:
                        found[i].setdefault(oid, text)
        for line in ORDINARY_CHAT:
            for hit in regexes.search(line):
                chat[usable[hit.index]].append(line)
    return [_problems(rec, found[i], chat[i], pool) for i, rec in enumerate(records)]
