"""Reading record files: `.json` (object or list), `.jsonl`, or folders of them.

Every problem is reported as `file:line: id: field: message` so a record author can jump to it;
nothing here touches the database, so a bad file can never leave a half-written store.
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


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _json_values(text: str, source: str) -> Iterator[Located]:
    """A `.json` file: one object, or a list whose items keep their own line numbers."""
    decoder = json.JSONDecoder()
    start = len(text) - len(text.lstrip())
    if text[start : start + 1] != "[":
        value, end = decoder.raw_decode(text, start)
        if text[end:].strip():
            raise json.JSONDecodeError("extra data after the JSON value", text, end)
        yield Located(source, _line_of(text, start), value)
        return
    pos = start + 1
    while True:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if text[pos : pos + 1] == "]":
            if text[pos + 1 :].strip():
                raise json.JSONDecodeError("extra data after the list", text, pos + 1)
            return
        value, pos = decoder.raw_decode(text, pos)
        yield Located(source, _line_of(text, pos), value)
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        if text[pos : pos + 1] == ",":
            pos += 1
        elif text[pos : pos + 1] != "]":
            raise json.JSONDecodeError("expected ',' or ']'", text, pos)


def _read_text(path: Path, max_bytes: int) -> str:
    size = path.stat().st_size
    if size > max_bytes:
        raise InvalidInput(
            f"{path}: file too large ({size / 1e6:.1f} MB; the limit is {max_bytes / 1e6:.0f} MB)"
        )
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
    try:
        if path.suffix == ".jsonl":
            for n, line in enumerate(text.splitlines(), 1):
                if line.strip():
                    yield Located(source, n, json.loads(line))
        else:
            yield from _json_values(text, source)
    except json.JSONDecodeError as e:
        raise InvalidInput(f"{source}:{e.lineno}: not valid JSON: {e.msg}") from None
    except RecursionError:
        raise InvalidInput(f"{source}: JSON nested too deeply") from None


def _describe(loc: Located, rid: str, err: ValidationError) -> list[str]:
    out = []
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(record)"
        out.append(f"{loc.source}:{loc.line}: {rid}: {where}: {e['msg']}")
    return out


def validate(located: Iterable[Located]) -> LoadResult:
    """Validate raw values into Records; duplicates within one load are problems too."""
    result = LoadResult()
    seen: dict[str, Located] = {}
    for loc in located:
        raw = loc.raw
        rid = str(raw.get("id", "?")) if isinstance(raw, dict) else "?"
        if not isinstance(raw, dict):
            kind = type(raw).__name__
            result.problems.append(f"{loc.source}:{loc.line}: ?: (record): expected an object, got {kind}")
            continue
        try:
            rec = Record.model_validate(raw)
        except ValidationError as err:
            result.problems += _describe(loc, rid, err)
            continue
        if rec.id in seen:
            first = seen[rec.id]
            result.problems.append(
                f"{loc.source}:{loc.line}: {rec.id}: id: duplicate id (first at {first.source}:{first.line})"
            )
            continue
        seen[rec.id] = loc
        result.warnings += [
            f"{loc.source}:{loc.line}: {rec.id}: {f}: unknown field kept" for f in rec.unknown_fields()
        ]
        result.records.append((loc, rec))
    return result


def load(paths: Iterable[str | Path], max_bytes: int = DEFAULT_MAX_BYTES) -> LoadResult:
    """Read and validate every record under `paths`; unreadable files become problems."""
    located: list[Located] = []
    unreadable: list[str] = []
    for path in expand(paths):
        try:
            located += iter_raw(path, max_bytes)
        except InvalidInput as e:
            unreadable.append(str(e))
    result = validate(located)
    result.problems = unreadable + result.problems
    return result
