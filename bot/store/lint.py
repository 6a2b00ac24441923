"""Quality checks for record files: what `errfix lint PATH…` (bot.cli.lint) reports.

Import only refuses records that are *invalid*; lint also reports records that are valid but would
answer badly: a regex that does not compile in RE2 or does not match its own signature, a regex that
a backtracking engine can be made to stall on, missing Chinese text, too few workarounds or dead
ends, malformed URLs, transition-graph links to ids nobody defines, and a regex that reaches past its own
error: it matches ordinary chat, or another record's examples without saying it is generic advice
(bot/store/overlap.py).

Every problem is one line, `file:line: id: problem`, like the problems of `errfix import`.
"""

from __future__ import annotations

import contextlib
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import re2
import regex

from bot.core.knows import is_software
from bot.core.records import Record
from bot.errors import InvalidInput
from bot.store.files import DEFAULT_MAX_BYTES, Located, expand, iter_raw, load
from bot.store.overlap import overlap_problems
from bot.store.redos import adversarial_inputs, compile_re2, literal_runs, redos_problem

__all__ = ["adversarial_inputs", "lint", "literal_runs", "redos_problem"]  # redos's, as lint reports them

MIN_WORKAROUNDS = 2
MIN_DEAD_ENDS = 1
RESOLVABLE = ("true", "partial", "false")
GRAPH_KINDS = ("leads_to", "preceded_by", "frequently_confused_with")


@dataclass(frozen=True)
class Problem:
    """One quality problem of one record (or of one unreadable file)."""

    where: str  # `file:line`
    id: str
    message: str

    def line(self) -> str:
        return f"{self.where}: {self.id}: {self.message}"


@dataclass
class LintResult:
    records: int = 0  # records read (valid or not)
    problems: list[str] = field(default_factory=list)  # one line each, in file order


# ---- regexes -------------------------------------------------------------------------------------


def python_re_problem(pattern: str) -> str | None:
    """Why Python's `re` refuses `pattern`, or None. Records are shared with tools that use `re`
    (and `re` rejects things RE2 accepts, such as a global flag in the middle), so a bundled regex
    must compile in both."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # re warns, then errors in a later Python, on some syntax
        try:
            re.compile(pattern)
        except (re.error, FutureWarning, DeprecationWarning) as e:
            return f"regex does not compile in Python's re (tools sharing records use it): {e}"
    return None


def regex_problems(rec: Record) -> list[str]:
    out: list[str] = []
    matched: object = True  # unknown when no engine compiles it (redos_problem says so)
    try:
        matched = compile_re2(rec.regex).search(rec.signature)
    except re2.error as e:
        out.append(f"regex does not compile in RE2: {e}")
        # still say whether it matches, with the engine production falls back to
        with contextlib.suppress(regex.error, ValueError, OverflowError, RecursionError, TimeoutError):
            matched = regex.compile(rec.regex, regex.IGNORECASE | regex.V0).search(rec.signature, timeout=1.0)
    if not matched:
        out.append("regex does not match its signature")
    portable = python_re_problem(rec.regex)
    if portable:
        out.append(portable)
    redos = redos_problem(rec.regex, rec.signature)
    if redos:
        out.append(redos)
    return out


# ---- the other checks ----------------------------------------------------------------------------


def url_problem(url: str) -> str | None:
    """Why `url` is not an http(s) URL with a host, or None."""
    if url != url.strip() or any(c.isspace() for c in url):
        return "contains whitespace"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a bad port)
    except ValueError as e:
        return str(e)
    if parts.scheme not in ("http", "https"):
        return "not an http(s) URL"
    host = parts.hostname or ""
    if not host or ("." not in host and host != "localhost"):
        return "no host"
    return None


def text_problems(rec: Record) -> list[str]:
    out: list[str] = []
    if not (rec.signature_zh or "").strip():
        out.append("missing zh: signature_zh is empty")
    if not (rec.root_cause_zh or "").strip():
        out.append("missing zh: root_cause_zh is empty")
    if len(rec.workarounds_zh) != len(rec.workarounds):
        out.append(f"missing zh: {len(rec.workarounds_zh)} workarounds_zh for {len(rec.workarounds)} workarounds")
    for i, text in enumerate(rec.workarounds_zh):
        if not text.strip():
            out.append(f"missing zh: workarounds_zh[{i}] is empty")
    if len(rec.workarounds) < MIN_WORKAROUNDS:
        out.append(f"{len(rec.workarounds)} workaround(s), at least {MIN_WORKAROUNDS} needed")
    if len(rec.dead_ends) < MIN_DEAD_ENDS:
        out.append(f"{len(rec.dead_ends)} dead end(s), at least {MIN_DEAD_ENDS} needed")
    for i, w in enumerate(rec.workarounds):
        if not w.how.strip():
            out.append(f"workarounds[{i}] has no `how`")
    if rec.resolvable not in RESOLVABLE:
        out.append(f"resolvable is {rec.resolvable!r}, not one of {', '.join(map(repr, RESOLVABLE))}")
    return out


def link_problems(rec: Record, known: Callable[[str], bool]) -> list[str]:
    out: list[str] = []
    urls: list[tuple[str, str]] = []
    if rec.official_doc_url is not None:
        urls.append(("official_doc_url", rec.official_doc_url))
    for name in ("workarounds", "dead_ends"):
        for i, part in enumerate(getattr(rec, name)):
            urls += [(f"{name}[{i}].sources[{k}]", u) for k, u in enumerate(part.sources)]
    for where, url in urls:
        why = url_problem(url)
        if why:
            out.append(f"malformed URL in {where}: {url!r} ({why})")
    for kind in GRAPH_KINDS:
        for target in rec.transition_graph.ids(kind):
            if target == rec.id:
                out.append(f"transition_graph.{kind} links the record to itself")
            elif not known(target):
                out.append(f"transition_graph.{kind} links unknown id {target!r}")
    return out


def domain_problems(rec: Record) -> list[str]:
    """A record that is not a software error imports, and never answers a paste (bot/core/knows.py)."""
    if is_software(rec):
        return []
    return [f"domain: {rec.domain!r} is not a software error: it imports, and never answers a paste"]


def record_problems(rec: Record, known: Callable[[str], bool]) -> list[str]:
    """Everything lint finds wrong with one valid record, as messages."""
    return regex_problems(rec) + text_problems(rec) + link_problems(rec, known) + domain_problems(rec)


# ---- files ---------------------------------------------------------------------------------------


def _raw_ids(paths: Iterable[Path], max_bytes: int) -> tuple[int, set[str]]:
    """How many values the readable files hold, and the ids among them, valid or not (a link to a
    broken record is not also a link to an unknown one)."""
    count, ids = 0, set()
    for path in paths:
        try:
            values = list(iter_raw(path, max_bytes))
        except InvalidInput:
            continue
        count += len(values)
        ids |= {v.raw["id"] for v in values if isinstance(v.raw, dict) and isinstance(v.raw.get("id"), str)}
    return count, ids


def lint(
    paths: Iterable[str | Path],
    known: Callable[[str], bool] | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    others: Iterable[Record] = (),
) -> LintResult:
    """Lint every record under `paths`.

    Args:
        paths: record files or folders, as `errfix import` takes them.
        known: says whether an id outside the linted files exists (e.g. `Store.has`), for
            transition-graph links; by default only the linted ids are known.
        max_bytes: largest file read.
        others: records outside the linted files (e.g. `Store.records()`) whose examples a linted
            regex must not match either.

    Raises:
        InvalidInput: a path does not exist.
    """
    files = expand(paths)
    loaded = load(files, max_bytes=max_bytes, check_regexes=False)  # reported below, in more detail
    count, ids = _raw_ids(files, max_bytes)
    outside = known or (lambda _id: False)

    def is_known(rid: str) -> bool:
        return rid in ids or outside(rid)

    overlaps = overlap_problems([rec for _, rec in loaded.records], others)
    found: list[tuple[Located | None, str]] = []
    for (loc, rec), overlap in zip(loaded.records, overlaps, strict=True):
        messages = record_problems(rec, is_known) + overlap
        found += [(loc, Problem(f"{loc.source}:{loc.line}", rec.id, m).line()) for m in messages]
    result = LintResult(records=count)
    # load's problems and warnings are already `file:line: id: field: message` lines
    result.problems = _in_file_order(
        [*((None, p) for p in loaded.problems), *((None, f"{w} (a misspelt field?)") for w in loaded.warnings), *found]
    )
    return result


_LOCATION = re.compile(r"^(.*?):(\d+): ")


def _in_file_order(items: list[tuple[Located | None, str]]) -> list[str]:
    """Problems sorted by file then line (stable, so a record's problems keep their order)."""

    def key(item: tuple[Located | None, str]) -> tuple[str, int]:
        loc, text = item
        if loc is not None:
            return loc.source, loc.line
        m = _LOCATION.match(text)
        return (m.group(1), int(m.group(2))) if m else (text.split(": ", 1)[0], 0)

    return [text for _, text in sorted(items, key=key)]
