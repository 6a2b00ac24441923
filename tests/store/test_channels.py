"""A channel's settings (#38) are kept like the team's data: through a backup and a restart, and
gone with `forget-channel`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from bot.ops.backup import backup
from bot.store import open_store
from bot.store.channels import Channels
from bot.store.privacy import Privacy

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def test_settings_survive_a_backup_and_forget_channel_removes_them(tmp_path: Path) -> None:
    store = open_store(str(tmp_path / "errfix.db"), seed=False)
    try:
        channels = Channels(store)
        assert channels.set_mode("C1", "mention", actor="U1") and not channels.set_mode("C1", "mention", actor="U1")
        channels.set_weekly("C1", True, actor="U1", now=NOW)
        channels.set_mode("C2", "off", actor="U2")
        assert channels.claim_digest("C1", "2026-12-07") and not channels.claim_digest("C1", "2026-12-07")
    finally:
        store.close()
    backup(tmp_path / "errfix.db", tmp_path / "copy.db")
    copy = open_store(str(tmp_path / "copy.db"), seed=False)
    try:
        kept = Channels(copy)
        assert (kept.mode("C1"), kept.get("C1").weekly, kept.mode("C2"), kept.mode("C3")) == (
            "mention",
            True,
            "off",
            "auto",
        )
        assert kept.weekly() == [("C1", "2026-12-02T12:00:00Z")]
        done = Privacy(copy).forget_channel("C1", actor="cli:ops")
        assert (done.counts["channel_settings"], done.counts["digests"]) == (1, 1)
        assert (kept.get("C1").mode, kept.get("C1").weekly, kept.weekly(), kept.unposted()) == ("auto", False, [], [])
        assert kept.mode("C2") == "off"
    finally:
        copy.close()
