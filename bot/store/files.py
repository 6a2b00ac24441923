"""Reading record files: `.json` (object or list), `.jsonl`, or folders of them.

Every problem is reported as `file:line: id: field: message` so a record author can jump to it;
nothing here touches the database, so a bad file can never leave a half-written store. A regex
production cannot run safely (it compiles nowhere, or RE2 rejects it and a backtracking engine
stalls on it: bot/store/redos.py) is a problem like any invalid field.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from bot.core.records import Record
from bot.errors import InvalidInput
from bot.store.redos import unrunnable

DEFAULT_MAX_BYTES = 32 * 1024 * 1024
SUFFIXES = (".json", ".jsonl")


@dataclass(frozen=True)
class Located:
    """A record (or its raw JSON) and where it came from."""

    source: str
    line: int
    raw: Any


@dataclass
class LoadResult:
    records: list[tuple[Located, Record]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def expand(paths: Iterable[str | Path]) -> list[Path]:
    """Files named, plus `.json`/`.jsonl` files found (recursively, sorted) in folders named."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix in SUFFIXES)
        elif p.exists():
            out.append(p)
        else:
            raise InvalidInput(f"{p}: no such file or folder")
    return out


class _Lines:
    """Line numbers of increasing offsets in one text, counted once (a list item costs O(its size))."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _no_constants(name: str) -> Any:
    """NaN and Infinity are not JSON; Python accepts them, then exports them as null."""
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constants)


def _json_values(text: str, source: str) -> Iterator[Located]:
    """A `.json` file: one object, or a list whose items keep the line they start on."""
    decoder = _DECODER
    lines = _Lines(text)
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] != "[":
        value, end = decoder.raw_decode(text, start)
        rest = text[end:]
        if rest.strip():
            where = end + len(rest) - len(rest.lstrip())
            raise json.JSONDecodeError("extra data after the JSON value (one object per line is .jsonl)", text, where)
        yield Located(source, lines.at(start), value)
        return
    pos = start + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if text[pos : pos + 1] == "]":
            if text[pos + 1 :].strip():
                raise json.JSONDecodeError("extra data after the list", text, pos + 1)
            return
        item_start = pos
        value, pos = decoder.raw_decode(text, pos)
        yield Located(source, lines.at(item_start), value)
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if text[pos : pos + 1] == ",":
            pos += 1
        elif text[pos : pos + 1] != "]":
            raise json.JSONDecodeError("expected ',' or ']'", text, pos)


def _read_text(path: Path, max_bytes: int) -> str:
    size = path.stat().st_size
    if size > max_bytes:
        raise InvalidInput(f"{path}: file too large ({size / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB)")
    data = path.read_bytes()
    if not data.strip():
        raise InvalidInput(f"{path}: empty file, no records in it")
    if b"\x00" in data:
        raise InvalidInput(f"{path}: binary data, not a JSON text file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise InvalidInput(f"{path}: not UTF-8 text (byte {e.start})") from None


def iter_raw(path: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> Iterator[Located]:
    """Raw JSON values with their line, raising InvalidInput for unreadable files."""
    text = _read_text(path, max_bytes)
    source = str(path)
    n = 0
    try:
        if path.suffix == ".jsonl":
            # Only "\n" ends a JSONL line: str.splitlines() would also split inside strings at
            # U+2028, U+0085 and friends, which json.dumps(ensure_ascii=False) writes raw.
            for n, line in enumerate(text.split("\n"), 1):
                if line.strip():
                    yield Located(source, n, _DECODER.decode(line))
        else:
            yield from _json_values(text, source)
    except json.JSONDecodeError as e:
        lineno = n if path.suffix == ".jsonl" else e.lineno
        raise InvalidInput(f"{source}:{lineno}: not valid JSON: {e.msg}") from None
    except ValueError as e:  # NaN / Infinity, see _no_constants
        where = f"{source}:{n}" if path.suffix == ".jsonl" else source
        raise InvalidInput(f"{where}: not valid JSON: {e}") from None
    except RecursionError:
        raise InvalidInput(f"{source}: JSON nested too deeply") from None


def _one_line(text: str, limit: int = 120) -> str:
    """An id (or other value) as it can appear inside a one-line problem message."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _encodable(raw: Any) -> bool:
    """False if a string holds a lone surrogate (a JSON escape like \\ud800 without its pair)."""
    try:
        json.dumps(raw, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _describe(loc: Located, rid: str, err: ValidationError) -> list[str]:
    out = []
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(record)"
        out.append(f"{loc.source}:{loc.line}: {rid}: {where}: {e['msg']}")
    return out


def validate(located: Iterable[Located], *, check_regexes: bool = True) -> LoadResult:
    """Validate raw values into Records; duplicates within one load are problems too.

    `check_regexes=False` lets `errfix lint` report unrunnable regexes in its own words.
    """
    result = LoadResult()
    seen: dict[str, Located] = {}
    safe: set[tuple[str, str]] = set()  # (regex, signature) already found runnable: files repeat them
    for loc in located:
        raw = loc.raw
        rid = _one_line(str(raw.get("id", "?"))) if isinstance(raw, dict) else "?"
        if not isinstance(raw, dict):
            kind = type(raw).__name__
            result.problems.append(f"{loc.source}:{loc.line}: ?: (record): expected an object, got {kind}")
            continue
        try:
            rec = Record.model_validate(raw)
        except ValidationError as err:
            result.problems += _describe(loc, rid, err)
            continue
        if rec.unknown_fields() and not _encodable(raw):  # known fields are checked by pydantic
            msg = "text is not valid Unicode (a lone surrogate escape)"
            result.problems.append(f"{loc.source}:{loc.line}: {rid}: (record): {msg}")
            continue
        if check_regexes and (rec.regex, rec.signature) not in safe:
            problem = unrunnable(rec.regex, rec.signature)
            if problem is not None:
                result.problems.append(f"{loc.source}:{loc.line}: {rid}: regex: {problem}")
                continue
            safe.add((rec.regex, rec.signature))
        if rec.id in seen:
            first = seen[rec.id]
            result.problems.append(
                f"{loc.source}:{loc.line}: {rec.id}: id: duplicate id (first at {first.source}:{first.line})"
            )
            continue
        seen[rec.id] = loc
        result.warnings += [f"{loc.source}:{loc.line}: {rec.id}: {f}: unknown field kept" for f in rec.unknown_fields()]
        result.records.append((loc, rec))
    return result


def load(paths: Iterable[str | Path], max_bytes: int = DEFAULT_MAX_BYTES, *, check_regexes: bool = True) -> LoadResult:
    """Read and validate every record under `paths`; unreadable files become problems."""
    located: list[Located] = []
    unreadable: list[str] = []
    for path in expand(paths):
        try:
            located += list(iter_raw(path, max_bytes))  # a file fails whole: no items before the error
        except InvalidInput as e:
            unreadable.append(str(e))
    result = validate(located, check_regexes=check_regexes)
    result.problems = unreadable + result.problems
    return result
