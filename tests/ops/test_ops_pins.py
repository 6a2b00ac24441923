"""Operational limits pinned with this test's own numbers (#20): Slack's five-minute replay window
for a signed request, the free space and WAL size doctor warns at, and the HTTP port `errfix serve`
listens on by default. Each was planted (×10 or ÷10) and passed the suite before these tests."""

from __future__ import annotations

import hashlib
import hmac
import os
import shutil
import sqlite3
from collections import namedtuple
from pathlib import Path

import pytest

from bot.ops import doctor
from bot.serve.verify import refusal
from bot.telemetry.metrics import Metrics
from tests.conftest import Cli

SECRET = "s3cret-signing"
BODY = b'{"type":"event_callback"}'
MIB = 1024 * 1024


def signed(stamp: int) -> dict[str, str]:
    mac = hmac.new(SECRET.encode(), f"v0:{stamp}:".encode() + BODY, hashlib.sha256).hexdigest()
    return {"X-Slack-Request-Timestamp": str(stamp), "X-Slack-Signature": f"v0={mac}"}


def test_a_signed_request_is_good_for_five_minutes_either_way() -> None:
    now = 1_700_000_000.0
    for age in (0, 300, -300):
        assert refusal(BODY, signed(int(now) - age), SECRET, now) is None, age
    for age in (301, -301, 3000):
        assert refusal(BODY, signed(int(now) - age), SECRET, now) == "stale timestamp", age


Usage = namedtuple("Usage", "total used free")


def test_doctor_fails_the_disk_below_two_hundred_mebibytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "errfix.db"
    for free, status in ((200 * MIB, "ok"), (200 * MIB - 1, "fail"), (21 * MIB, "fail")):
        monkeypatch.setattr(shutil, "disk_usage", lambda _path, free=free: Usage(10**12, 10**12 - free, free))
        assert doctor.check_disk(db).status == status, free


def test_doctor_warns_of_a_wal_over_two_hundred_fifty_six_mebibytes(tmp_path: Path) -> None:
    db = tmp_path / "errfix.db"
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode = WAL")
    writer.execute("CREATE TABLE t (x)")
    writer.execute("INSERT INTO t VALUES (1)")
    writer.commit()  # the WAL stays while the writer is open (no checkpoint on close yet)
    wal = Path(f"{db}-wal")
    try:
        for size, status in ((256 * MIB, "ok"), (256 * MIB + 1, "warn"), (30 * MIB, "ok")):
            os.truncate(wal, size)  # sparse: no disk used; SQLite reads only the frames it wrote
            check = doctor.check_wal(db)
            assert check.status == status, (size, check)
    finally:
        writer.close()


def test_serve_listens_on_port_3000_by_default(cli: Cli) -> None:
    r = cli("serve", "--help")
    assert r.code == 0 and "(default: 3000)" in " ".join(r.out.split())


def test_match_seconds_are_counted_in_buckets_from_a_millisecond_to_five_seconds() -> None:
    """The buckets a dashboard's queries name (1 ms … 5 s); ×10 of them used to pass the suite."""
    metrics = Metrics()
    metrics.match_seconds.observe(0.003)
    lines = [ln for ln in metrics.render().decode().splitlines() if ln.startswith("errfix_match_seconds_bucket")]
    bounds = [ln.split('le="', 1)[1].split('"', 1)[0] for ln in lines]
    assert bounds == [
        "0.001",
        "0.0025",
        "0.005",
        "0.01",
        "0.025",
        "0.05",
        "0.1",
        "0.25",
        "0.5",
        "1.0",
        "2.5",
        "5.0",
        "+Inf",
    ]
    counts = [float(ln.rsplit(" ", 1)[1]) for ln in lines]
    assert counts[:3] == [0.0, 0.0, 1.0]  # 3 ms: over 2.5 ms, within 5 ms
