"""SQLite storage: schema, record files, and the Store."""

from __future__ import annotations

from pathlib import Path

from bot.errors import InvalidRecords
from bot.store import audit
from bot.store.files import load
from bot.store.store import Store

__all__ = ["Store", "bundled_seeds", "open_store"]


def bundled_seeds() -> Path | None:
    """The seeds shipped with errfix: `seeds/` beside the package, or inside a wheel install."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "seeds", here / "_seeds"):
        if candidate.is_dir():
            return candidate
    return None


def open_store(path: str | Path, *, seed: bool = True) -> Store:
    """Open (creating and migrating) a store; a new, empty one gets the bundled seeds."""
    store = Store(path)
    if seed and store.count() == 0 and store.version == 0:
        seeds = bundled_seeds()
        if seeds is not None:
            result = load([seeds])
            if result.problems:
                store.close()
                raise InvalidRecords(result.problems)
            with store.write_transaction():
                summary = store.import_records([rec for _, rec in result.records], origin="seed")
                detail = {"origin": "seed", "added": len(summary.added)}
                audit.write(store.db, actor=audit.SYSTEM, action="import", target=str(seeds.name), detail=detail)
    return store
