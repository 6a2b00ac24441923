"""How records' regexes recognise other records' signatures, computed once per index (pure).

Two things follow from it: how *vague* each regex is (it also recognises other errors: its hits
are worth less), and which team records *shadow* a bundled seed (a team's own record for the
error a seed covers is the answer in the seed's place).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from bot.core.records import Record
from bot.core.regexset import RegexSet

VAGUENESS_SAMPLE = 20_000  # signatures searched to estimate each regex's vagueness

CrossHit = tuple[int, int, int]  # (regex i, signature j, span): record i's regex matches j's signature, i != j


@dataclass(frozen=True)
class Overlap:
    counts: list[float]  # per record: signatures of other errors its regex matches (estimated past the sample)
    cross_hits: list[CrossHit]  # every hit involving a bundled seed, exact
    # per record: its regex recognises another error's signature or alias (one way): a catch-all
    catch_all: list[bool] = field(default_factory=list)
    # record -> the records beside whose error it recognises a line (git's `failed to push some
    # refs` under `! [rejected] … (fetch first)`): its line is a wrapper of theirs
    wraps: dict[int, tuple[tuple[int, str], ...]] = field(default_factory=dict)


_Pairs = set[tuple[int, int]]  # (regex i, signature j), i != j


def vagueness(records: Sequence[Record], regexes: RegexSet, seeds: frozenset[str]) -> Overlap:
    """How many signatures of *other errors* each regex matches: its vagueness.

    Exact up to VAGUENESS_SAMPLE records; above that, counted on an evenly spaced sample of
    signatures and scaled, so building a 250,000-record index stays linear. Pairs that
    involve a bundled seed (for `seed_shadows`) are always collected exactly, as `cross_hits`.
    """
    n = len(records)
    step = max(1, -(-n // VAGUENESS_SAMPLE))  # ceil(n / sample)
    counts = [0.0] * n
    cross_hits: list[CrossHit] = []
    seed_idx = [i for i, r in enumerate(records) if r.id in seeds]
    pairs: _Pairs = set()  # exact
    aliases: _Pairs = set()  # regex i recognises an alias of j (exact up to the sample size)
    if step == 1:
        _all_pairs(records, regexes, frozenset(seed_idx), pairs, cross_hits)
        _alias_pairs(records, regexes, aliases)
    else:
        _sampled_counts(records, regexes, frozenset(seed_idx), step, counts)
        _seed_pairs(records, regexes, seed_idx, pairs, cross_hits)
    # Two records whose regexes each recognise the other's signature are one error (variants
    # per environment, or a team's record for a seed's error): matching a variant is not vague.
    for i, j in pairs:
        if (j, i) not in pairs:
            counts[i] += 1
    return Overlap(
        counts,
        cross_hits,
        _catch_all(len(records), counts, pairs | aliases),
        wrappers(records, regexes, range(n) if step == 1 else sorted({*range(0, n, step), *seed_idx})),
    )


def wrappers(
    records: Sequence[Record], regexes: RegexSet, read: Iterable[int]
) -> dict[int, tuple[tuple[int, str], ...]]:
    """Which regexes recognise a line another record's wording prints *beside* its error (that
    record and the line, per regex): a line of its multi-line signature or alias that its own
    regex does not take as its identity (git prints `error: failed to push some refs` after any
    refused push; `! [rejected]` says which). Only the multi-line wordings of the records in
    `read` are searched (every record up to VAGUENESS_SAMPLE, then the seeds and an even sample),
    a search per such line."""
    wraps: dict[int, dict[tuple[int, str], None]] = {}
    for j in read:
        rec = records[j]
        for text in (rec.signature, *rec.aliases):
            lines = [ln for ln in text.splitlines() if ln.strip()]
            if len(lines) < 2:
                continue  # one line is the record's own (or its regex's wording is elsewhere)
            own = [regexes.matches(j, line) for line in lines]
            if not any(own):
                continue  # its regex spans the lines: no one line is its error, none a wrapper's
            for line, is_own in zip(lines, own, strict=True):
                if is_own:
                    continue
                for hit in regexes.search(line):  # not j's own: its regex missed this line
                    wraps.setdefault(hit.index, {})[(j, line.strip())] = None
    return {i: tuple(lines) for i, lines in wraps.items()}


def _catch_all(n: int, counts: list[float], examples: _Pairs) -> list[bool]:
    """Records whose regex recognises another error's wording one way; variants of one error
    (each recognising the other) are one error, so one variant's catch-all makes all of them."""
    catch_all = [c > 0 for c in counts]
    variants: dict[int, list[int]] = {}
    for i, j in examples:
        if (j, i) in examples:
            variants.setdefault(i, []).append(j)
        else:
            catch_all[i] = True
    todo = [i for i in range(n) if catch_all[i] and i in variants]
    while todo:
        for j in variants[todo.pop()]:
            if not catch_all[j]:
                catch_all[j] = True
                if j in variants:
                    todo.append(j)
    return catch_all


def _alias_pairs(records: Sequence[Record], regexes: RegexSet, aliases: _Pairs) -> None:
    """Every regex on every other wording of a signature (`aliases`): who recognises whose."""
    for j, rec in enumerate(records):
        for alias in rec.aliases:
            for hit in regexes.search(alias):
                if hit.index != j:
                    aliases.add((hit.index, j))


def _all_pairs(
    records: Sequence[Record], regexes: RegexSet, seed_pos: frozenset[int], pairs: _Pairs, cross_hits: list[CrossHit]
) -> None:
    """Every regex on every signature: each pair, and the hits involving a seed."""
    for j in range(len(records)):
        for hit in regexes.search(records[j].signature):
            if hit.index != j:
                pairs.add((hit.index, j))
                if hit.index in seed_pos or j in seed_pos:
                    cross_hits.append((hit.index, j, hit.span))


def _sampled_counts(
    records: Sequence[Record], regexes: RegexSet, seed_pos: frozenset[int], step: int, counts: list[float]
) -> None:
    """Team regexes on every `step`-th team signature, each one-way hit counted `step` times."""
    for j in range(0, len(records), step):
        if j in seed_pos:
            continue
        for hit in regexes.search(records[j].signature):
            i = hit.index
            if i != j and i not in seed_pos and not regexes.matches(j, records[i].signature):
                counts[i] += step


def _seed_pairs(
    records: Sequence[Record], regexes: RegexSet, seed_idx: list[int], pairs: _Pairs, cross_hits: list[CrossHit]
) -> None:
    """Seed regexes on every signature, and every regex on seed signatures: exact."""
    seed_pos = frozenset(seed_idx)
    seed_set = RegexSet([records[i].regex for i in seed_idx])
    for j, rec in enumerate(records):
        for hit in seed_set.search(rec.signature):
            i = seed_idx[hit.index]
            if i != j:
                pairs.add((i, j))
                cross_hits.append((i, j, hit.span))
    for i in seed_idx:
        for hit in regexes.search(records[i].signature):
            if hit.index != i and hit.index not in seed_pos:
                pairs.add((hit.index, i))
                cross_hits.append((hit.index, i, hit.span))


def seed_shadows(
    records: Sequence[Record], seeds: frozenset[str], cross_hits: Sequence[CrossHit]
) -> dict[int, dict[int, bool]]:
    """Bundled seed → the team's imported records for the same error, and whether the
    relation is mutual (each regex recognises the other's signature) or one-way.

    When a team imports its own record for an error the bundled seeds also cover, the team's
    record is the answer: seeds are the out-of-the-box fallback, not a competitor.
    """
    pairs = {(i, j) for i, j, _ in cross_hits}
    shadows: dict[int, dict[int, bool]] = {}
    for i, j, span in cross_hits:  # regex i matches signature j
        if records[i].id in seeds and records[j].id not in seeds:
            shadows.setdefault(i, {})[j] = (j, i) in pairs
        elif records[j].id in seeds and records[i].id not in seeds and 3 * span >= len(records[j].signature):
            # a team regex that recognises much of the seed's wording describes the same error
            shadows.setdefault(j, {})[i] = (j, i) in pairs
    return shadows
