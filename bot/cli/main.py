"""The `errfix` command line: parse arguments, call the library, map errors to exit codes.

Every command opens the store, calls one library function and prints. Library errors
(`ErrfixError`) become one line on stderr and exit code 2; nothing here prints a traceback for
bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TextIO

from bot.cli import demo as demo_cli
from bot.cli import learn as learn_cli
from bot.cli import lint as lint_cli
from bot.cli import ops as ops_cli
from bot.config import load_settings
from bot.core import render
from bot.errors import ErrfixError, InvalidInput, InvalidRecords
from bot.serve import run as slack_cli
from bot.service.errfix import Errfix
from bot.store.files import DEFAULT_MAX_BYTES, load

EXIT_OK, EXIT_FAIL, EXIT_BAD_INPUT = 0, 1, 2
MAX_STDIN = 5 * 1024 * 1024  # a pasted log bigger than this keeps its tail (extract keeps 1 MB)

Handler = Callable[[argparse.Namespace], int]


def _out(text: str) -> None:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _err(text: str) -> None:
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def _service(args: argparse.Namespace) -> Errfix:
    return Errfix.open(load_settings(db=args.db).db_path)


def _read_stdin() -> str:
    data = sys.stdin.buffer.read()
    if len(data) > MAX_STDIN:
        data = data[-MAX_STDIN:]
    return data.decode("utf-8", errors="replace")


# ---- commands ------------------------------------------------------------------------------


def cmd_import(args: argparse.Namespace) -> int:
    result = load(args.paths, max_bytes=args.max_bytes)
    for w in result.warnings:
        _err(f"warning: {w}")
    if result.problems and not args.skip_invalid:
        raise InvalidRecords(result.problems)
    for p in result.problems:
        _err(f"skipped: {p}")
    report = _service(args).import_loaded(result)
    _out(report.line())
    if report.skipped:
        _out(f"{len(report.skipped)} problem(s) skipped")
    return EXIT_OK


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


def cmd_export(args: argparse.Namespace) -> int:
    svc = _service(args)
    rows = (v.to_json() for v in svc.export_votes()) if args.votes else svc.export_records()
    if args.output and args.output != "-":
        tmp = Path(args.output + ".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            n = _write_lines(rows, fh)
        tmp.replace(args.output)  # never leave a half-written export behind
        _err(f"wrote {n} {'vote' if args.votes else 'record'}(s) to {args.output}")
    else:
        _write_lines(rows, sys.stdout)
    return EXIT_OK


def cmd_match(args: argparse.Namespace) -> int:
    svc = _service(args)
    if args.jsonl:
        return _match_batch(svc, args)
    diagnosis = svc.diagnose(_read_stdin(), limit=args.limit)
    if args.json:
        _out(json.dumps(diagnosis.to_json(), ensure_ascii=False))
    elif args.explain:
        _out(render.explain_text(diagnosis))
    else:
        _out(render.diagnosis_text(diagnosis))
    return EXIT_OK


def _match_batch(svc: Errfix, args: argparse.Namespace) -> int:
    for n, line in enumerate(sys.stdin, 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            text = item["text"]
            if not isinstance(text, str):
                raise TypeError
        except (json.JSONDecodeError, KeyError, TypeError):
            raise InvalidInput(f"stdin:{n}: expected a JSON object with a string 'text'") from None
        d = svc.diagnose(text, limit=args.limit).to_json()
        _out(json.dumps({"id": item.get("id"), **d}, ensure_ascii=False))
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    svc = _service(args)
    words = " ".join(args.words)
    if not words.strip():
        raise InvalidInput("search needs some words, e.g. errfix search loss nan")
    results = svc.search(words, limit=args.limit)
    if args.json:
        _out(json.dumps({"query": words, "matches": [m.to_json() for m in results]}, ensure_ascii=False))
    else:
        _out(render.search_text(words, results))
    return EXIT_OK


def cmd_show(args: argparse.Namespace) -> int:
    svc = _service(args)
    view = svc.view(args.id)
    if args.json:
        data = view.record.to_json()
        by_index = {w.index: w for w in view.workarounds}
        for i, w in enumerate(data["workarounds"]):
            v = by_index[i]
            w.update(
                success_rate=round(v.success_rate, 4),
                prior_rate=v.prior_rate,
                votes_up=v.votes_up,
                votes_down=v.votes_down,
                rank=view.workarounds.index(v) + 1,
            )
        _out(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _out(render.match_text(view))
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    stats = _service(args).stats()
    if args.json:
        _out(json.dumps(stats.to_json()))
        return EXIT_OK
    _out(
        f"records: {stats.records}   votes: +{stats.votes_up} / -{stats.votes_down}   "
        f"replies: {stats.replies}   learned aliases: {stats.learned_aliases}"
    )
    for domain, n in stats.by_domain.items():
        _out(f"  {domain or '(none)':<20} {n}")
    return EXIT_OK


# ---- parser ----------------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errfix", description="Turn a pasted error into the fix that works.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, handler: Handler, help_text: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("--db", help="database path (default: $ERRFIX_DB or ./errfix.db)")
        p.set_defaults(handler=handler)
        return p

    p = add("import", cmd_import, "import records from .json/.jsonl files or folders (all or nothing)")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument("--skip-invalid", action="store_true", help="import the valid records, list the rest")
    p.add_argument("--max-bytes", type=int, default=DEFAULT_MAX_BYTES, help="largest file accepted")

    p = add("export", cmd_export, "export records (with learned rates) as JSONL")
    p.add_argument("-o", "--output", help="file to write (default: stdout)")
    p.add_argument("--votes", action="store_true", help="export the raw votes instead of records")

    p = add("match", cmd_match, "match a pasted error read from stdin")
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--jsonl", action="store_true", help="batch: lines of {id, text} in, one result line each out")
    p.add_argument("--explain", action="store_true", help="show extracted lines and each score part")
    p.add_argument("--limit", type=int, default=3, help="how many candidates")

    p = add("search", cmd_search, "keyword and fuzzy search, as /errfix WORDS does")
    p.add_argument("words", nargs="*")
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, default=5)

    p = add("show", cmd_show, "show one record with current success rates and votes")
    p.add_argument("id")
    p.add_argument("--json", action="store_true")

    p = add("stats", cmd_stats, "counts by domain, votes, replies")
    p.add_argument("--json", action="store_true")

    lint_cli.register(add)
    learn_cli.register(add)
    slack_cli.register(add)
    ops_cli.register(add)
    demo_cli.register(add)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code: int = args.handler(args)
        return code
    except InvalidRecords as e:
        for p in e.problems:
            _err(p)
        _err(f"errfix: {e}")
        return EXIT_BAD_INPUT
    except ErrfixError as e:
        _err(f"errfix: {e}")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return EXIT_OK
    except OSError as e:  # an unreadable input or unwritable output path: bad input, not a crash
        _err(f"errfix: {e}")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
