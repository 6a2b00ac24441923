"""`errfix doctor` against the strict fake Slack and real database files: every check prints one
line, and a failing one says what to do."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest

from bot.fakeslack.web_api import APP_TOKEN, BOT_TOKEN, FakeSlack
from bot.ops import doctor
from bot.store import open_store
from tests.conftest import Cli
from tests.slack.test_manifest import listed

CHECKS = [
    "settings",
    "slack.auth",
    "slack.scopes",
    "slack.socket",
    "db.file",
    "db.integrity",
    "db.schema",
    "db.records",
    "db.wal",
    "db.events",
    "sync",
    "disk",
]
LINE = re.compile(r"^(ok|warn|fail|skip)\s+([\w.]+)\s+\S")


def env_for(fake: FakeSlack, **extra: str) -> dict[str, str]:
    return {
        "SLACK_BOT_TOKEN": BOT_TOKEN,
        "SLACK_SIGNING_SECRET": "s3cret-signing",
        "ERRFIX_SLACK_API_URL": fake.base_url,
        **extra,
    }


SETTINGS = ("SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "ERRFIX_SLACK_API_URL", "ERRFIX_DB")


def environ(monkeypatch: pytest.MonkeyPatch, env: dict[str, str]) -> None:
    """The environment doctor reads: exactly `env` among the settings it looks at."""
    for name in SETTINGS:
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)


def by_name(checks: list[doctor.Check]) -> dict[str, doctor.Check]:
    assert [c.name for c in checks] == CHECKS
    return {c.name: c for c in checks}


def test_the_scopes_doctor_wants_are_the_manifests() -> None:
    assert set(doctor.REQUIRED_SCOPES) == listed("bot")


async def test_every_check_passes_against_the_fake_slack(
    fake: FakeSlack, db: Path, cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(db).close()
    env_file = tmp_path / ".env"
    env_file.write_text("".join(f"{k}={v}\n" for k, v in env_for(fake).items()), encoding="utf-8")
    environ(monkeypatch, {})
    r = await asyncio.to_thread(cli, "doctor", "--env-file", env_file, "--db", db)
    assert r.code == 0, r.out + r.err
    lines = r.out.splitlines()
    assert [LINE.match(line).group(2) for line in lines[:-1]] == CHECKS  # type: ignore[union-attr]
    assert lines[-1] == "all checks passed"
    checks = {LINE.match(line).group(2): line for line in lines[:-1]}  # type: ignore[union-attr]
    assert checks["slack.auth"].startswith("ok") and "U_BOT" in checks["slack.auth"]
    assert checks["slack.scopes"].startswith("ok") and checks["slack.socket"].startswith("skip")
    assert "integrity_check ok" in checks["db.integrity"] and "WAL" in checks["db.wal"]
    assert BOT_TOKEN not in r.out and "s3cret-signing" not in r.out


async def test_missing_scopes_are_named_with_what_to_do(
    fake: FakeSlack, db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(db).close()
    environ(monkeypatch, env_for(fake))
    fake.scopes = ("chat:write", "commands", "channels:history")
    checks = by_name(await doctor.run(env_file=None, db=str(db), http=True))
    scopes = checks["slack.scopes"]
    assert scopes.status == "fail" and "missing app_mentions:read, channels:read, groups:history" in scopes.detail
    assert "reinstall" in scopes.line() and "deploy/slack-manifest.yml" in scopes.line()


async def test_socket_mode_and_a_refused_token(fake: FakeSlack, db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    open_store(db).close()
    environ(monkeypatch, env_for(fake, SLACK_APP_TOKEN=APP_TOKEN))
    checks = by_name(await doctor.run(env_file=None, db=str(db), http=False))
    assert checks["slack.socket"].status == "ok"
    environ(monkeypatch, env_for(fake, SLACK_BOT_TOKEN="xoxb-revoked"))
    checks = by_name(await doctor.run(env_file=None, db=str(db), http=False))
    assert checks["slack.auth"].status == "fail" and "invalid_auth" in checks["slack.auth"].detail
    assert checks["slack.scopes"].status == "skip"
    assert "xoxb-revoked" not in "\n".join(c.line() for c in checks.values())


async def test_an_unreachable_slack_and_bad_settings_still_check_the_database(
    db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": "s", "ERRFIX_SLACK_API_URL": "http://127.0.0.1:9/api/"}
    environ(monkeypatch, env)
    checks = by_name(await doctor.run(env_file=None, db=str(db), http=True))
    assert checks["slack.auth"].status == "fail" and "cannot reach Slack" in checks["slack.auth"].line()
    assert checks["db.file"].status == "ok" and "does not exist yet" in checks["db.file"].detail

    environ(monkeypatch, {"ERRFIX_DB": str(db)})
    checks = by_name(await doctor.run(env_file=None, db=None, http=True))
    assert checks["settings"].status == "fail" and "SLACK_BOT_TOKEN" in checks["settings"].line()
    assert checks["slack.auth"].status == "skip"


def test_database_problems_say_what_to_do(tmp_path: Path) -> None:
    broken = tmp_path / "broken.db"
    broken.write_bytes(b"SQLite format 3\x00" + b"\x01" * 5000)
    checks = {c.name: c for c in doctor.check_database(str(broken))}
    assert checks["db.integrity"].status == "fail" and "errfix restore" in checks["db.integrity"].line()

    empty = tmp_path / "empty.db"
    open_store(empty, seed=False).close()
    checks = {c.name: c for c in doctor.check_database(str(empty), "https://kb.example/records.jsonl?token=x")}
    assert checks["db.records"].status == "fail" and "errfix import" in checks["db.records"].line()
    assert checks["sync"].status == "warn" and "token=x" not in checks["sync"].line()


async def test_a_malformed_setting_still_checks_the_database_errfix_db_names(
    db: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_store(db).close()
    environ(monkeypatch, {"SLACK_BOT_TOKEN": BOT_TOKEN, "ERRFIX_DB": str(db)})
    monkeypatch.setenv("ERRFIX_SYNC_INTERVAL", "hourly")
    checks = by_name(await doctor.run(env_file=None, db=None, http=True))
    assert (
        checks["settings"].status == "fail"
        and "ERRFIX_SYNC_INTERVAL must be a whole number" in checks["settings"].detail
    )
    assert checks["db.file"].status == "ok" and str(db) in checks["db.file"].detail


def test_the_events_file_says_what_is_owed_and_warns_when_it_is_old(tmp_path: Path) -> None:
    from bot.ops.doctor import check_events
    from bot.store.inbox import Inbox

    path = tmp_path / "errfix.db-events"
    assert check_events(path).status == "ok"  # not there yet
    inbox = Inbox(path, clock=lambda: 1_000_000.0)
    inbox.accept(["event:E1", "msg:C1:1.0"], ("event:E1", {}))
    inbox.close()
    fresh = check_events(path, now=1_000_000.0 + 3600)
    assert (fresh.status, fresh.detail) == ("ok", "1 event(s) owed, 2 key(s) seen")
    stale = check_events(path, now=1_000_000.0 + 3601)
    assert stale.status == "warn" and "1 acknowledged event(s) still owed" in stale.detail
    path.write_bytes(b"junk" * 1000)
    assert check_events(path).status == "fail"


def test_the_scopes_are_read_from_a_comma_list_with_or_without_spaces() -> None:
    needed = ("chat:write", "reactions:read")
    assert doctor.check_scopes("chat:write,reactions:read,users:read", needed).detail == "all 2 needed (and 1 more)"
    assert doctor.check_scopes("chat:write, reactions:read", needed).status == "ok"
    missing = doctor.check_scopes("chat:write", needed)
    assert missing.status == "fail" and missing.detail == "missing reactions:read"
