"""`errfix learned` and `errfix unlearn`: what the team taught errfix in Slack, and undoing it.

Two kinds of lessons (`Errfix.learned`, over bot/store/learning.py): a *learned alias* ("This one": a pasted error line
that now matches a record) and a *rejection* ("Not this error": a record scored lower for pastes
like that one). `learned` lists both with who taught them and when, each with the `unlearn`
command that removes it; removing one bumps the store version, so the next match uses an index
without it. Kept out of bot/cli.py so the commands are one `register(add)` call there.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Callable

from bot.config import load_settings
from bot.errors import InvalidInput, NotFound
from bot.service.errfix import Errfix, Learned

EXIT_OK = 0

Handler = Callable[[argparse.Namespace], int]
Add = Callable[[str, Handler, str], argparse.ArgumentParser]


def undo_command(item: Learned) -> str:
    """The shell command that removes `item` (as `errfix learned` prints it)."""
    cmd = ["errfix", "unlearn", item.kind, item.record_id, item.text]
    if item.kind == "rejection":
        cmd += ["--user", item.user_id]
    return shlex.join(cmd)


def learned_text(items: list[Learned]) -> str:
    out: list[str] = []
    for kind, title in (("alias", "learned aliases"), ("rejection", "rejections (Not this error)")):
        these = [i for i in items if i.kind == kind]
        out.append(f"{title}: {len(these)}")
        for i in these:
            out.append(f"  {i.record_id}  {json.dumps(i.text, ensure_ascii=False)}")
            out.append(f"      by {i.user_id or '?'} at {i.created_at}; undo: {undo_command(i)}")
    return "\n".join(out)


def cmd_learned(args: argparse.Namespace) -> int:
    svc = Errfix.open(load_settings(db=args.db).db_path)
    try:
        items = svc.learned(args.record)
    finally:
        svc.close()
    if args.json:
        data = {
            "aliases": [i.to_json() for i in items if i.kind == "alias"],
            "rejections": [i.to_json() for i in items if i.kind == "rejection"],
        }
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(learned_text(items) + "\n")
    return EXIT_OK


def cmd_unlearn(args: argparse.Namespace) -> int:
    svc = Errfix.open(load_settings(db=args.db).db_path)
    try:
        if args.kind == "alias":
            if args.user is not None:
                raise InvalidInput("--user is for rejections; an alias is removed for everyone")
            n = svc.unlearn_alias(args.record_id, args.text)
        else:
            n = svc.unlearn_rejection(args.record_id, args.text, args.user)
    finally:
        svc.close()
    if n == 0:
        who = f" by {args.user}" if args.user is not None else ""
        raise NotFound(f"no learned {args.kind} {args.text!r}{who} for {args.record_id!r} (see errfix learned)")
    sys.stdout.write(f"forgot {n} {args.kind}{'s' if n > 1 else ''} of {args.record_id}\n")
    return EXIT_OK


def register(add: Add) -> None:
    """Add `learned` and `unlearn` with bot/cli.py's `add(name, handler, help)`."""
    p = add("learned", cmd_learned, "list learned aliases and rejections (Not this error), with who and when")
    p.add_argument("--record", metavar="ID", help="only this record's")
    p.add_argument("--json", action="store_true", help='one JSON object: {"aliases": [...], "rejections": [...]}')

    p = add("unlearn", cmd_unlearn, "remove a learned alias or a rejection (as `errfix learned` lists them)")
    p.add_argument("kind", choices=("alias", "rejection"))
    p.add_argument("record_id", metavar="RECORD_ID")
    p.add_argument("text", metavar="TEXT", help="the alias, or the rejected error line (as listed or as pasted)")
    p.add_argument("--user", help="rejection only: remove just this user's (default: every user's)")
