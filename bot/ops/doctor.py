"""`errfix doctor`: is this errfix ready to serve? One line per check, with what to do when it fails.

It reads the same settings as `errfix serve`, asks Slack (`auth.test`, and `apps.connections.open`
for Socket Mode) and compares the token's scopes (Slack's `x-oauth-scopes` response header) with
the ones errfix needs, then looks at the database without changing it (read-only: integrity,
schema version, records, WAL) and at the last record sync. A check that cannot run because an
earlier one failed is printed as `skip` with the reason.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from bot.config import ConfigError, Settings, load_settings, resolve_db_path
from bot.errors import StoreError
from bot.ops.backup import inspect
from bot.ops.sync import display_url
from bot.store.inbox import events_path
from bot.store.schema import SCHEMA_VERSION, migrations
from bot.store.upstream import state_key

# the bot scopes of deploy/slack-manifest.yml (a test keeps the two equal)
REQUIRED_SCOPES = (
    "app_mentions:read",
    "channels:history",
    "channels:read",
    "groups:history",
    "groups:read",
    "im:history",
    "mpim:history",
    "chat:write",
    "commands",
    "reactions:read",
    "users:read",
    "files:read",
)
REFUSED = frozenset({"invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired"})
MIN_FREE_BYTES = 200 * 1024 * 1024
STALE_OWED_SECONDS = 3600.0
BIG_WAL_BYTES = 256 * 1024 * 1024
REINSTALL = (
    "add them under OAuth & Permissions, Bot Token Scopes (or re-create the app from "
    "deploy/slack-manifest.yml), reinstall the app, and copy the new xoxb- token"
)


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # ok, warn, fail, skip
    detail: str
    fix: str = ""

    def line(self) -> str:
        text = f"{self.status:<4}  {self.name:<13} {self.detail}"
        return text + (f" → {self.fix}" if self.fix and self.status in ("warn", "fail") else "")


def ok(name: str, detail: str) -> Check:
    return Check(name, "ok", detail)


def fail(name: str, detail: str, fix: str) -> Check:
    return Check(name, "fail", detail, fix)


# ---- settings -------------------------------------------------------------------------------------


def check_settings(env_file: str | None, db: str | None, http: bool) -> tuple[Check, Settings | None]:
    """The settings `errfix serve` would start with, or the one line naming what is wrong."""
    try:
        settings = load_settings(env_file=env_file, db=db)
        settings.require_slack(http=http)
    except ConfigError as e:
        return fail("settings", str(e), "set it in .env or the environment (.env.example lists every setting)"), None
    mode = "Socket Mode" if settings.socket_mode and not http else "HTTP (Events API at /slack/events)"
    sync = f", sync from {display_url(settings.sync_url)}" if settings.sync_url else ""
    return ok("settings", f"{mode}, db {settings.db_path}, logs {settings.log_format}{sync}"), settings


# ---- Slack ----------------------------------------------------------------------------------------


async def _call(
    session: aiohttp.ClientSession, base: str, method: str, token: str
) -> tuple[dict[str, Any], str | None]:
    """Slack's JSON answer and its x-oauth-scopes header (HTTP errors raise)."""
    async with session.post(base + method, headers={"Authorization": f"Bearer {token}"}) as resp:
        if resp.status != 200:
            raise aiohttp.ClientResponseError(resp.request_info, (), status=resp.status, message=resp.reason or "")
        body = await resp.json(content_type=None)
        return (body if isinstance(body, dict) else {}), resp.headers.get("x-oauth-scopes")


def _refused(name: str, code: str, what: str) -> Check:
    if code in REFUSED:
        return fail(name, f"Slack refused {what} ({code})", f"copy a current token into {what} and restart")
    if code == "not_allowed_token_type":
        kind = "xapp-" if "APP" in what else "xoxb-"
        return fail(name, f"{what} is the wrong kind of token", f"{what} must be the {kind} token")
    return fail(name, f"Slack answered {code}", "see the Slack API docs for this error code")


SLACK_CHECKS = ("slack.auth", "slack.scopes", "slack.socket")


async def check_slack(settings: Settings, *, timeout: float = 10) -> list[Check]:
    """auth.test, the token's scopes, and Socket Mode: always one Check per SLACK_CHECKS name."""
    checks = await _slack_checks(settings, timeout)
    reason = "needs a token Slack accepts" if checks[-1].status == "fail" else "not checked"
    return [*checks, *(Check(n, "skip", reason) for n in SLACK_CHECKS[len(checks) :])]


async def _slack_checks(settings: Settings, timeout: float) -> list[Check]:
    base = settings.slack_api_url
    checks: list[Check] = []
    try:
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout)) as session:
            body, scopes = await _call(session, base, "auth.test", settings.bot_token)
            if not body.get("ok"):
                return [_refused("slack.auth", str(body.get("error")), "SLACK_BOT_TOKEN")]
            who = f"team {body.get('team')} ({body.get('team_id')}) as @{body.get('user')} ({body.get('user_id')})"
            checks.append(ok("slack.auth", who))
            checks.append(check_scopes(scopes))
            checks.append(await _check_socket(session, settings))
    except (aiohttp.ClientError, TimeoutError) as e:
        detail = f"cannot reach Slack at {base} ({type(e).__name__}: {e})".replace(": )", ")")
        fix = "check the network or proxy, and ERRFIX_SLACK_API_URL (default https://slack.com/api/)"
        return [*checks, fail(SLACK_CHECKS[len(checks)], detail, fix)]
    return checks


def check_scopes(header: str | None, required: tuple[str, ...] = REQUIRED_SCOPES) -> Check:
    if header is None:
        return Check(
            "slack.scopes",
            "warn",
            "Slack did not list the token's scopes (no x-oauth-scopes header)",
            "compare OAuth & Permissions with deploy/slack-manifest.yml by hand",
        )
    granted = {s.strip() for s in header.split(",") if s.strip()}
    missing = [s for s in required if s not in granted]
    if missing:
        return fail("slack.scopes", f"missing {', '.join(missing)}", REINSTALL)
    extra = len(granted - set(required))
    return ok("slack.scopes", f"all {len(required)} needed" + (f" (and {extra} more)" if extra else ""))


async def _check_socket(session: aiohttp.ClientSession, settings: Settings) -> Check:
    if not settings.app_token:
        return Check("slack.socket", "skip", "HTTP mode (SLACK_APP_TOKEN not set)")
    body, _ = await _call(session, settings.slack_api_url, "apps.connections.open", settings.app_token)
    if not body.get("ok"):
        return _refused("slack.socket", str(body.get("error")), "SLACK_APP_TOKEN")
    return ok("slack.socket", "Socket Mode: Slack hands out a connection for SLACK_APP_TOKEN")


# ---- database -------------------------------------------------------------------------------------


def check_database(db_path: str, sync_url: str | None = None) -> list[Check]:
    """Read-only checks of the database; a missing one is fine (serve creates and seeds it)."""
    path = Path(db_path)
    names = ("db.integrity", "db.schema", "db.records", "db.wal", "db.events", "sync")
    if not path.exists():
        detail = f"{path} does not exist yet; `errfix serve` creates it with the bundled records"
        parent_ok = os.access(path.resolve().parent, os.W_OK)
        first = Check(
            "db.file",
            "ok" if parent_ok else "fail",
            detail,
            "" if parent_ok else f"make {path.resolve().parent} writable for errfix",
        )
        return [first, *(Check(n, "skip", "no database yet") for n in names), check_disk(path)]
    checks = [ok("db.file", f"{path} ({path.stat().st_size / 1e6:.1f} MB)")]
    try:
        info = inspect(path)
    except StoreError as e:
        newer = "newer errfix" in str(e)
        fix = "upgrade errfix" if newer else "restore the last good backup: errfix restore FILE"
        return [
            *checks,
            fail("db.schema" if newer else "db.integrity", str(e), fix),
            *(Check(n, "skip", "database unusable") for n in names[2:]),
            check_disk(path),
        ]
    checks.append(ok("db.integrity", "integrity_check ok"))
    if info.schema_version < SCHEMA_VERSION:
        checks.append(
            Check(
                "db.schema",
                "warn",
                f"v{info.schema_version}, this errfix is v{SCHEMA_VERSION}",
                "it is upgraded on the next start (errfix backup FILE first)",
            )
        )
    else:
        checks.append(ok("db.schema", f"v{info.schema_version} ({migrations.name} migrations all applied)"))
    if info.records:
        checks.append(ok("db.records", f"{info.records} record(s)"))
    else:
        checks.append(
            fail("db.records", "no records: errfix can't answer anything", "errfix import PATH or errfix sync URL")
        )
    checks.append(check_wal(path))
    checks.append(check_events(Path(events_path(str(path)))))
    checks.append(check_sync(path, sync_url))
    checks.append(check_disk(path))
    return checks


def _read(path: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(f"file:{path.resolve()}?mode=ro", uri=True, timeout=10)
    try:
        return list(conn.execute(sql, params))
    finally:
        conn.close()


def check_wal(path: Path) -> Check:
    mode = str(_read(path, "PRAGMA journal_mode")[0][0]).lower()
    wal = Path(f"{path}-wal")
    size = wal.stat().st_size if wal.exists() else 0
    if mode != "wal":
        return Check(
            "db.wal",
            "warn",
            f"journal mode {mode}, not WAL",
            "start errfix serve once (it turns WAL on); readers then never block answers",
        )
    if size > BIG_WAL_BYTES:
        return Check(
            "db.wal",
            "warn",
            f"WAL is {size / 1e6:.0f} MB",
            "a long-running reader stops checkpoints: look for a stuck backup or sqlite3 shell",
        )
    return ok("db.wal", f"journal mode WAL ({size / 1e6:.1f} MB not yet checkpointed)")


def check_events(path: Path, now: float | None = None) -> Check:
    """The events file (bot/store/inbox.py): how much acknowledged work is still owed. Owed work
    an hour old means errfix is not running, or failing to finish it (its log says why)."""
    if not path.exists():
        return ok("db.events", f"{path.name} not there yet (errfix serve creates it)")
    try:
        owed, oldest = _read(path, "SELECT count(*), min(created_at) FROM jobs")[0]
        seen = _read(path, "SELECT count(*) FROM seen")[0][0]
    except sqlite3.DatabaseError as e:
        return fail(
            "db.events", f"{path.name}: {e}", "stop errfix, delete it (only owed work and dedupe keys are lost)"
        )
    age = (time.time() if now is None else now) - float(oldest) if owed else 0.0
    if owed and age > STALE_OWED_SECONDS:
        return Check(
            "db.events",
            "warn",
            f"{owed} acknowledged event(s) still owed, the oldest {age / 3600:.1f} h old",
            "start errfix serve (it finishes them at start); if it runs, look for 'gave up' in its log",
        )
    return ok("db.events", f"{owed} event(s) owed, {seen} key(s) seen")


def check_sync(path: Path, sync_url: str | None) -> Check:
    if not sync_url:
        return Check("sync", "skip", "ERRFIX_SYNC_URL not set")
    tables = {r[0] for r in _read(path, "SELECT name FROM sqlite_master WHERE type = 'table'")}
    rows = (
        _read(path, "SELECT synced_at, checked_at, records FROM sync_state WHERE url = ?", (state_key(sync_url),))
        if "sync_state" in tables
        else []
    )
    if not rows:
        where = display_url(sync_url)
        return Check(
            "sync",
            "warn",
            f"{where} never synced into this database",
            f"run errfix sync {where} (or start errfix serve) and read what it says",
        )
    synced_at, checked_at, records = rows[0]
    return ok("sync", f"{records} record(s) from {display_url(sync_url)}, written {synced_at}, checked {checked_at}")


def check_disk(path: Path) -> Check:
    free = shutil.disk_usage(path.resolve().parent).free
    if free < MIN_FREE_BYTES:
        return fail("disk", f"{free / 1e6:.0f} MB free beside the database", "free some space: SQLite needs room")
    return ok("disk", f"{free / 1e9:.1f} GB free beside the database")


# ---- all ------------------------------------------------------------------------------------------


async def run(*, env_file: str | None, db: str | None, http: bool) -> list[Check]:
    """Every check, in order."""
    first, settings = check_settings(env_file, db, http)
    checks = [first]
    if settings is None:
        checks += [Check(n, "skip", "needs valid settings") for n in SLACK_CHECKS]
        checks += check_database(resolve_db_path(env_file=env_file, db=db))
    else:
        checks += await check_slack(settings)
        checks += check_database(settings.db_path, settings.sync_url)
    return checks
