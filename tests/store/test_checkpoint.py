"""A store whose checkpoints are deferred (`errfix serve`'s): commits leave the write-ahead log
to `checkpoint()`, which copies all of it; a store that does not defer copies it at commit."""

from __future__ import annotations

from pathlib import Path

from bot.store.store import Store

ROW = "x" * 4_000  # about one 4 KiB page a row


def write(store: Store, rows: int, start: int) -> None:
    with store.write_transaction():
        store.db.conn.executemany(
            "INSERT INTO pastes (channel, ts, line, created_at) VALUES ('C1', ?, ?, '2026-12-01T00:00:00Z')",
            [(f"{start + n}.1", ROW) for n in range(rows)],
        )


def test_deferred_checkpoints_leave_the_log_to_checkpoint_which_copies_all_of_it(tmp_path: Path) -> None:
    logs = {}
    for deferred in (True, False):
        store = Store(tmp_path / f"{deferred}.db")
        if deferred:
            assert store.defer_checkpoints() == 0  # commits copy at 0 pages: never
        write(store, 700, 0)
        write(store, 700, 1_000)  # past 1,000 pages: the commit copies them unless deferred
        write(store, 1, 2_000)  # a store that copied starts its log again here
        logs[deferred] = store.checkpoint()
        store.close()
    frames, copied = logs[True]
    assert frames >= 1_400 and copied == frames
    assert logs[False][0] < 100
