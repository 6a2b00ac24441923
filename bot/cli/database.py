"""`errfix import`, `export` and `stats`: records into and out of the database, and what it holds."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

import click

from bot.cli.options import db_option, errfix, json_option, settings
from bot.errors import InvalidRecords
from bot.store.files import DEFAULT_MAX_BYTES, load

_LINE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def jsonl_line(row: dict[str, Any]) -> str:
    """One JSON line, readable (UTF-8), with the characters some readers treat as line breaks
    (NEL, U+2028, U+2029) escaped so every reader sees one record per line."""
    return json.dumps(row, ensure_ascii=False).translate(_LINE_BREAKS) + "\n"


def _write_lines(rows: Iterable[dict[str, Any]], target: TextIO) -> int:
    n = 0
    for row in rows:
        target.write(jsonl_line(row))
        n += 1
    return n


@click.command("import")
@click.argument("paths", nargs=-1, required=True, metavar="PATH...")
@click.option("--skip-invalid", is_flag=True, help="import the valid records, list the rest")
@click.option("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, show_default=True, help="largest file accepted")
@db_option()
def import_(paths: tuple[str, ...], skip_invalid: bool, max_bytes: int, db: str | None) -> None:
    """import records from .json/.jsonl files or folders (all or nothing)"""
    settings(db)  # a malformed setting stops the import before any file is read
    result = load(list(paths), max_bytes=max_bytes)
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    if result.problems and not skip_invalid:
        raise InvalidRecords(result.problems)
    for p in result.problems:
        click.echo(f"skipped: {p}", err=True)
    svc = errfix(db)
    try:
        report = svc.import_loaded(result)
    finally:
        svc.close()
    click.echo(report.line())
    if report.skipped:
        click.echo(f"{len(report.skipped)} problem(s) skipped")


@click.command()
@click.option("-o", "--output", metavar="FILE", help="file to write (default: stdout)")
@click.option("--votes", is_flag=True, help="export the raw votes instead of records")
@click.option("--team", is_flag=True, help="only the records the team taught (verification_tier team)")
@db_option()
def export(output: str | None, votes: bool, team: bool, db: str | None) -> None:
    """export records (with learned rates) as JSONL"""
    svc = errfix(db)
    rows = (v.to_json() for v in svc.export_votes()) if votes else svc.export_records()
    if team:
        team_ids = svc.team_ids()
        rows = (row for row in rows if row.get("record_id", row.get("id")) in team_ids)
    if output and output != "-":
        tmp = Path(output + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            n = _write_lines(rows, fh)
        tmp.replace(output)  # never leave a half-written export behind
        click.echo(f"wrote {n} {'vote' if votes else 'record'}(s) to {output}", err=True)
    else:
        _write_lines(rows, sys.stdout)


@click.command()
@json_option
@db_option()
def stats(as_json: bool, db: str | None) -> None:
    """counts by domain, votes, replies"""
    counts = errfix(db).stats()
    if as_json:
        click.echo(json.dumps(counts.to_json()))
        return
    click.echo(
        f"records: {counts.records}   votes: +{counts.votes_up} / -{counts.votes_down}   "
        f"replies: {counts.replies}   learned aliases: {counts.learned_aliases}"
    )
    for domain, n in counts.by_domain.items():
        click.echo(f"  {domain or '(none)':<20} {n}")


COMMANDS = (import_, export, stats)
