"""Upgrading a database an older errfix wrote: what it kept as pasted is redacted in place, and no
byte of a secret is left in the file or its write-ahead log (#18 "no secret anywhere")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlite_utils import Database

from bot.store.schema import migrations
from bot.store.store import Store

# fake, shaped like the real thing, built from pieces so no whole token sits in the source
AWS_KEY_ID = "AKIA" + "QX7Z2P4M9R3T8W5N"
OTHER_KEY_ID = "AKIA" + "ZZ7Z2P4M9R3T8W5N"
STRIPE = "sk_live_" + "51H8aBcDeFgHiJkLmNoPqRsT"
URL_PASSWORD = "Pg" + "Pass_w0rd!9"
DELETED = "sk_live_" + "99DeletedBeforeUpgrade00"
SECRETS = (AWS_KEY_ID, OTHER_KEY_ID, STRIPE, URL_PASSWORD, DELETED)
NOW = "2026-12-01T10:00:00+00:00"


def old_database(path: Path) -> None:
    """A database as errfix at m008 left it, holding lines as they were pasted."""
    conn = sqlite3.connect(path)
    db = Database(conn)
    db.enable_wal()
    migrations.apply(db, stop_before="m009_scrub_secrets")
    rows = [
        ("C1", "1.1", f"botocore.exceptions.ClientError: invalid key {AWS_KEY_ID}"),
        ("C1", "1.2", f"psycopg2.OperationalError: postgres://app:{URL_PASSWORD}@db/pay refused"),
        ("C2", "2.1", "ValueError: nothing secret here"),
    ]
    # pages' worth of lines with a key, deleted before the upgrade: free pages, which no row holds
    rows += [
        ("C2", f"2.{k}", f"stripe.error.AuthenticationError: Invalid API Key provided: {DELETED}")
        for k in range(2, 200)
    ]
    for channel, ts, line in rows:
        db.execute(
            "INSERT INTO pastes (channel, ts, line, created_at, channel_type) VALUES (?, ?, ?, ?, 'channel')",
            [channel, ts, line, NOW],
        )
    db.execute("PRAGMA secure_delete = OFF")  # as SQLite builds without SQLITE_SECURE_DELETE delete
    db.execute("DELETE FROM pastes WHERE channel = 'C2' AND ts <> '2.1'")  # gone from the table, not the file
    for key in (AWS_KEY_ID, OTHER_KEY_ID):  # two keys of one kind: one rejection once redacted
        db.execute(
            "INSERT INTO rejections (record_id, line, user_id, created_at) VALUES ('aws/x', ?, 'U1', ?)",
            [f"ClientError: invalid key {key}", NOW],
        )
    db.execute(
        "INSERT INTO aliases (record_id, alias, origin, created_by, created_at)"
        " VALUES ('stripe/x', ?, 'learned', 'U1', ?)",
        [f"AuthenticationError: Invalid API Key provided: {STRIPE}", NOW],
    )
    db.execute(
        "INSERT INTO aliases (record_id, alias, origin, created_at) VALUES ('doc/x', ?, 'record', ?)",
        ["token=sk_live_ is how the docs spell it", NOW],
    )
    conn.commit()
    conn.close()


def file_bytes(path: Path) -> bytes:
    return b"".join(p.read_bytes() for p in [path, Path(f"{path}-wal")] if p.exists())


def test_an_old_database_keeps_no_secret_after_the_upgrade(tmp_path: Path) -> None:
    path = tmp_path / "errfix.db"
    old_database(path)
    assert all(s.encode() in file_bytes(path) for s in (AWS_KEY_ID, STRIPE, URL_PASSWORD, DELETED))  # as pasted
    store = Store(path)
    lines = [r[0] for r in store.db.execute("SELECT line FROM pastes ORDER BY ts").fetchall()]
    assert lines == [
        "botocore.exceptions.ClientError: invalid key [redacted:aws-access-key]",
        "psycopg2.OperationalError: postgres://app:[redacted:url-password]@db/pay refused",
        "ValueError: nothing secret here",
    ]
    rejections = store.db.execute("SELECT record_id, line, user_id FROM rejections").fetchall()
    assert rejections == [("aws/x", "ClientError: invalid key [redacted:aws-access-key]", "U1")]
    aliases = store.db.execute("SELECT record_id, alias FROM aliases ORDER BY record_id").fetchall()
    assert aliases == [
        ("doc/x", "token=sk_live_ is how the docs spell it"),  # a record's own wording is not a paste
        ("stripe/x", "AuthenticationError: Invalid API Key provided: [redacted:stripe-key]"),
    ]
    store.close()
    left = file_bytes(path)
    assert [s for s in SECRETS if s.encode() in left] == []


def test_rows_deleted_after_the_upgrade_leave_no_bytes_behind(tmp_path: Path) -> None:
    """secure_delete: what retention or `errfix forget-*` removes is zeroed, not left in a free page.
    (Debian's SQLite turns it on by default; the store sets it for builds that do not.)"""
    path = tmp_path / "errfix.db"
    store = Store(path)
    assert store.db.execute("PRAGMA secure_delete").fetchone() == (1,)
    name = "payroll_admin_" + "7Q2x"  # not a secret any detector knows: it is stored as written
    store.db.execute(
        "INSERT INTO pastes (channel, ts, line, created_at, channel_type) VALUES ('C1', '1.1', ?, ?, 'im')",
        [f"FATAL: role {name} does not exist", NOW],
    )
    store.db.conn.commit()
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert name.encode() in file_bytes(path)
    store.db.execute("DELETE FROM pastes")
    store.db.conn.commit()
    store.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    assert name.encode() not in file_bytes(path)
