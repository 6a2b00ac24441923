"""Log lines for `errfix serve`: one JSON object per line, or readable text; never a secret.

Every line carries the Slack channel and event id of the request being handled. They travel in a
`ContextVar` (the one module-level object here: it is how a value follows one asyncio task and the
tasks it starts, which is exactly "the event being handled"), set by the Slack adapter's
middleware through `bind_event()`.

Redaction is done on the finished line, so it also covers exceptions and third-party loggers:
the configured token and secret values, anything shaped like a Slack token, (unless
ERRFIX_LOG_PASTES=1) the text of the message being handled, whole or any long line of it, and
then every likely secret the paste detector finds (bot/core/redact.py), which also covers what
the paste context does not hold (a snippet's content, a query, an exception's message) and
pastes logged on purpose (#18).
"""

from __future__ import annotations

import functools
import json
import logging
import re
import sys
from collections.abc import Iterable
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from bot.core.redact import redact_text

REDACTED = "[redacted]"
PASTE_REDACTED = "[paste redacted]"
MIN_SECRET = 6  # shorter configured values are not searched for (they would redact ordinary words)
MIN_PASTE_PART = 16  # the paste, or a line of it, this long or longer is redacted wherever it shows up
SLACK_TOKEN = re.compile(r"\b(xox[abposre]|xapp)-[A-Za-z0-9-]+")
# LogRecord attributes of logging itself; anything else passed with `extra=` is written as a field
_STANDARD = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "taskName"}


@dataclass(frozen=True)
class EventContext:
    channel: str = ""
    event_id: str = ""
    paste: str = ""


_CONTEXT: ContextVar[EventContext | None] = ContextVar("errfix_event", default=None)
_NO_EVENT = EventContext()


def bind_event(channel: str = "", event_id: str = "", paste: str = "") -> None:
    """From now on in this task (and the tasks it starts), log lines carry `channel` and `event_id`.

    Call it where a request starts being handled: each Slack request (HTTP or Socket Mode) is
    handled in a task of its own, so the values end with it.
    """
    _CONTEXT.set(EventContext(channel, event_id, paste))


def current_event() -> EventContext:
    return _CONTEXT.get() or _NO_EVENT


class Redactor:
    """Removes secrets (and pastes) from a finished log line."""

    def __init__(self, secrets: Iterable[str], *, log_pastes: bool = False) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len, reverse=True)
        self.log_pastes = log_pastes

    def __call__(self, line: str, paste: str = "") -> str:
        for secret in self.secrets:
            line = line.replace(secret, REDACTED)
        line = SLACK_TOKEN.sub(lambda m: f"{m.group(1)}-{REDACTED}", line)
        if paste and not self.log_pastes:
            line = self._without_paste(line, paste)
        return redact_text(line)

    @staticmethod
    def _without_paste(line: str, paste: str) -> str:
        for part in _paste_parts(paste):
            # as written, and as json.dumps or repr() writes it (escaped quotes, newlines)
            for shown in (part, json.dumps(part, ensure_ascii=False)[1:-1], repr(part)[1:-1]):
                line = line.replace(shown, PASTE_REDACTED)
        return line


@functools.lru_cache(maxsize=8)
def _paste_parts(paste: str) -> tuple[str, ...]:
    """The paste and its lines, longest first, as pasted and as redacted (a JSON line's fields are
    redacted before the paste is looked for). Cached: every line logged for one event asks."""
    raw = [paste.strip(), *sorted((p.strip() for p in paste.splitlines()), key=len, reverse=True)]
    both = dict.fromkeys([*raw, *(redact_text(p) for p in raw)])
    return tuple(sorted((p for p in both if len(p) >= MIN_PASTE_PART), key=len, reverse=True))


def _scrubbed(value: Any) -> Any:
    """`value` with its texts redacted before JSON escapes them (`password=\\"x\\"` no longer reads
    as an assignment once dumped)."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {k: _scrubbed(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_scrubbed(v) for v in value]
    return value


def _fields(record: logging.LogRecord) -> dict[str, object]:
    return {k: v for k, v in vars(record).items() if k not in _STANDARD and not k.startswith("_")}


class JsonFormatter(logging.Formatter):
    """`{"ts", "level", "logger", "msg", "channel", "event_id", …extra fields, "exc"?}` on one line."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        ctx = current_event()
        data: dict[str, object] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        if ctx.channel:
            data["channel"] = ctx.channel
        if ctx.event_id:
            data["event_id"] = ctx.event_id
        data.update(_fields(record))
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return self.redact(json.dumps(_scrubbed(data), ensure_ascii=False, default=str), ctx.paste)


class TextFormatter(logging.Formatter):
    """`2026-11-01T10:00:00.123Z INFO errfix.slack [C123 Ev456] message key=value`."""

    def __init__(self, redact: Redactor) -> None:
        super().__init__()
        self.redact = redact

    def format(self, record: logging.LogRecord) -> str:
        ctx = current_event()
        when = datetime.fromtimestamp(record.created, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        where = " ".join(x for x in (ctx.channel, ctx.event_id) if x)
        parts = [when, record.levelname, record.name, f"[{where}]" if where else "", record.getMessage()]
        parts += [f"{k}={v}" for k, v in _fields(record).items()]
        line = " ".join(p for p in parts if p)
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return self.redact(line, ctx.paste)


def configure(
    *,
    fmt: str = "text",
    secrets: Iterable[str] = (),
    log_pastes: bool = False,
    stream: TextIO | None = None,
    level: int = logging.INFO,
) -> logging.Handler:
    """Send every logger's lines to `stream` (stderr) in `fmt` ("json" or "text"), redacted.

    Replaces the root logger's handlers, so it is safe to call again; returns the handler.
    """
    redact = Redactor(secrets, log_pastes=log_pastes)
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter(redact) if fmt == "json" else TextFormatter(redact))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    return handler
