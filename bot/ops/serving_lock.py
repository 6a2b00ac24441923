"""An advisory lock that says "errfix serve is using this database" (`DB.serve-lock`).

`errfix serve` holds a shared `flock` on the lock file for as long as it runs; `errfix restore`
needs it exclusively, so it refuses while a server holds the database open (a restore under a
live server silently rolled back thousands of acknowledged votes). The kernel drops the lock
when its process dies, even on `kill -9`, so a crashed server never blocks a restore. A server
that starts while a restore runs waits for it.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from bot.errors import StoreError


def lock_path(db_path: str | Path) -> Path:
    return Path(f"{db_path}.serve-lock")


@contextlib.contextmanager
def serving(db_path: str | Path) -> Iterator[None]:
    """Held by `errfix serve` around its whole run (shared: two servers may share a database)."""
    if str(db_path) == ":memory:":
        yield
        return
    path = lock_path(db_path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)  # blocks only while a restore holds it
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        yield
    finally:
        os.close(fd)  # releases the lock


@contextlib.contextmanager
def exclusive(db_path: str | Path) -> Iterator[None]:
    """Held by `errfix restore`; raises StoreError at once while a server holds the database."""
    path = lock_path(db_path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode(errors="replace").strip()
            who = f" (pid {holder})" if holder.isdigit() else ""
            raise StoreError(f"{db_path}: errfix serve is using this database{who}; stop it before restoring") from None
        yield
    finally:
        os.close(fd)
