"""Export's vote folding: a team's votes and learned aliases written into a record's rates, and
taken out again when that export comes back to the same database (pure).

Export must not lose what the team learned, and re-importing one's own export must not count the
same votes twice: so each fold leaves a mark (FOLDED) saying whose votes are in the rates and
what the fields were before, and `unfold_record` undoes exactly that database's fold.
"""

from __future__ import annotations

import copy
from typing import Any

from bot.core import rank
from bot.core.records import Record
from bot.core.views import Tally, workaround_key

FOLDED = "errfix_votes_folded"
"""The field export adds to a record whose rates it changed: which database's votes are in them.

    {"db": <Store.instance_id>, "votes": {<workaround key>: [up, down]}, "aliases": [learned],
     "last_worked": <ISO time or null>, "before": {the changed fields as they were}}

"before" also keeps an earlier mark (votes folded in by another database), so marks chain.
"""


def updated_record(
    rec: Record,
    tallies: dict[str, Tally],
    learned_aliases: list[str],
    *,
    source: str = "",
    last_worked: str | None = None,
) -> dict[str, Any]:
    """One record as export writes it: this team's votes folded into its rates, learned aliases added.

    * each voted workaround's ``success_rate``: its posterior mean (``rank.posterior``);
    * ``fix_success_rate``: ``rank.record_fix_rate`` over all votes on the record's workarounds;
    * ``evidence_count``: plus every vote (``rank.updated_evidence_count``);
    * ``last_confirmed``: the date of the latest "worked" vote (`last_worked`), if later;
    * ``aliases``: plus the learned ones;
    * dead ends' ``fail_rate``: unchanged, there are no votes on dead ends.

    `source` (the database's instance id) goes into the FOLDED mark, so that importing the
    record into the same database again takes those votes out (`unfold_record`). A record with
    nothing to add is returned exactly as it was imported (an earlier mark included).
    """
    votes: dict[str, Tally] = {}
    for w in rec.workarounds:
        t = tallies.get(workaround_key(w.action))
        if t is not None and (t.up or t.down):
            votes[workaround_key(w.action)] = t
    return fold_votes(rec.to_json(), votes, learned_aliases, last_worked, source)


def fold_votes(
    data: dict[str, Any], votes: dict[str, Tally], aliases: list[str], last_worked: str | None, source: str
) -> dict[str, Any]:
    """`data` (a record's JSON) with `votes` and `aliases` folded in and marked (see FOLDED)."""
    new_aliases = [a for a in dict.fromkeys(aliases) if a not in data["aliases"]]
    if not votes and not new_aliases:
        return data
    out = copy.deepcopy(data)
    before: dict[str, Any] = {k: data[k] for k in ("fix_success_rate", "evidence_count", "last_confirmed")}
    before["success_rate"] = rates = {}
    if FOLDED in data:
        before[FOLDED] = data[FOLDED]
    evidence = data["evidence_count"]
    up = down = 0
    for w in out["workarounds"]:
        key = workaround_key(w["action"])
        t = votes.get(key)
        if t is None or key in rates:  # a repeated action is one workaround to the votes
            continue
        rates[key] = w.get("success_rate")
        w["success_rate"] = round(rank.posterior(w.get("success_rate", 0.5), evidence, t.up, t.down).mean, 4)
        up, down = up + t.up, down + t.down
    if up or down:
        out["fix_success_rate"] = round(rank.record_fix_rate(data["fix_success_rate"], evidence, up, down), 4)
        out["evidence_count"] = rank.updated_evidence_count(evidence, up, down)
    if up and last_worked:
        day, confirmed = last_worked[:10], data["last_confirmed"]
        if not confirmed or day > confirmed[:10]:
            out["last_confirmed"] = day
    out["aliases"] = [*data["aliases"], *new_aliases]
    out[FOLDED] = {
        "db": source,
        "votes": {k: [votes[k].up, votes[k].down] for k in sorted(rates)},
        "aliases": new_aliases,  # learned here: unfolding takes them out of "aliases" again
        "last_worked": last_worked if up else None,
        "before": before,
    }
    return out


def unfold_record(data: dict[str, Any], source: str) -> dict[str, Any] | None:
    """`data` as if database `source` had never folded its votes and aliases into it.

    None when `source` is not in the record's FOLDED marks (or they are not well-formed): then
    the record is new evidence for that database, to keep as it is. When other databases folded
    theirs in later, their votes are folded in again on top of what `source` started from.
    """
    levels: list[dict[str, Any]] = []  # newest first, down to the one `source` made
    mark = data.get(FOLDED)
    try:
        while isinstance(mark, dict):
            levels.append(mark)
            if mark["db"] == source:
                break
            mark = mark["before"].get(FOLDED)
        else:
            return None
        out = copy.deepcopy(data)
        for level in levels:
            out = _restore(out, level)
        for later in reversed(levels[:-1]):
            votes = {str(k): Tally(int(u), int(d)) for k, (u, d) in later["votes"].items()}
            out = fold_votes(out, votes, [str(a) for a in later["aliases"]], later["last_worked"], str(later["db"]))
        return out
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _restore(data: dict[str, Any], mark: dict[str, Any]) -> dict[str, Any]:
    """Undo one fold (the newest, whose `mark` is data's FOLDED): its rates, counts and aliases."""
    before = mark["before"]
    rates = before["success_rate"]
    for w in data["workarounds"]:
        key = workaround_key(w["action"])
        if key in rates:
            if rates[key] is None:
                w.pop("success_rate", None)
            else:
                w["success_rate"] = rates[key]
    for k in ("fix_success_rate", "evidence_count", "last_confirmed"):
        data[k] = before[k]
    data["aliases"] = [a for a in data["aliases"] if a not in mark["aliases"]]
    data.pop(FOLDED)
    if FOLDED in before:
        data[FOLDED] = before[FOLDED]
    return data
