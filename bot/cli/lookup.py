"""`errfix match`, `search` and `show`: what errfix answers for a paste, some words, or a record id."""

from __future__ import annotations

import json
import sys

import click

from bot.cli.options import db_option, echo, errfix, json_option
from bot.core import render
from bot.core.messages import language
from bot.errors import InvalidInput
from bot.service.errfix import Errfix, search_is_sure

MAX_STDIN = 5 * 1024 * 1024  # a pasted log bigger than this keeps its tail (extract keeps 1 MB)


def _read_stdin() -> str:
    data = sys.stdin.buffer.read()
    if len(data) > MAX_STDIN:
        data = data[-MAX_STDIN:]
    return data.decode("utf-8", errors="replace")


@click.command()
@json_option
@click.option("--jsonl", is_flag=True, help="batch: lines of {id, text} in, one result line each out")
@click.option("--explain", is_flag=True, help="show extracted lines and each score part")
@click.option("--limit", type=int, default=3, show_default=True, help="how many candidates")
@db_option()
def match(as_json: bool, jsonl: bool, explain: bool, limit: int, db: str | None) -> None:
    """match a pasted error read from stdin"""
    svc = errfix(db)
    if jsonl:
        _match_batch(svc, limit)
        return
    text = _read_stdin()
    diagnosis = svc.diagnose(text, limit=limit)
    if as_json:
        click.echo(json.dumps(diagnosis.to_json(), ensure_ascii=False))
    elif explain:
        echo(render.explain_text(diagnosis))
    else:
        echo(render.diagnosis_text(diagnosis, language(None, text)))  # a Chinese paste: the words in Chinese


def _match_batch(svc: Errfix, limit: int) -> None:
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
        d = svc.diagnose(text, limit=limit).to_json()
        click.echo(json.dumps({"id": item.get("id"), **d}, ensure_ascii=False))


@click.command()
@click.argument("words", nargs=-1)
@json_option
@click.option("--limit", type=int, default=5, show_default=True, help="how many records")
@db_option()
def search(words: tuple[str, ...], as_json: bool, limit: int, db: str | None) -> None:
    """keyword and fuzzy search, as /errfix WORDS does"""
    svc = errfix(db)
    query = " ".join(words)
    if not query.strip():
        raise InvalidInput("search needs some words, e.g. errfix search loss nan")
    results = svc.search(query, limit=limit)
    if as_json:
        sure = search_is_sure(results, svc.search_threshold)  # what @errfix would give as the answer
        found = {"query": query, "sure": sure, "matches": [m.to_json() for m in results]}
        click.echo(json.dumps(found, ensure_ascii=False))
    else:
        echo(render.search_text(query, results, language(None, query), svc.search_threshold))


@click.command()
@click.argument("record_id", metavar="ID")
@json_option
@db_option()
def show(record_id: str, as_json: bool, db: str | None) -> None:
    """show one record with current success rates and votes"""
    view = errfix(db).view(record_id)
    if not as_json:
        echo(render.match_text(view))
        return
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
    click.echo(json.dumps(data, ensure_ascii=False, indent=2))


COMMANDS = (match, search, show)
