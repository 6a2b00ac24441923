"""The built index, kept next to the database (`DB.index`) so a restart does not rebuild it.

Building the index is most of a start: about 4 s at 1,200 records and 150 s at 250,000, during
which pastes waited. Loading a pickled one takes a small fraction of that. The file says which
store it was built from (the database's instance id, its store version and record count) and with
which code (a digest of bot/core's sources, so a new errfix never loads an old layout); its
payload is checked against a SHA-256 before it is unpickled, so a torn or damaged file is never
read. Anything that does not check out is ignored (and rebuilt by the caller).

The file is written by errfix for errfix, beside the database, with the database's permissions:
whoever can write it can already write the database. It is replaced atomically (written to
DB.index.tmp, then renamed), so a crash while saving leaves the previous one.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import logging
import os
import pickle
from dataclasses import asdict, dataclass
from pathlib import Path

import bot.core
from bot.core.matcher import Matcher

MAGIC = b"errfix-index 1\n"
log = logging.getLogger("errfix.index")


@dataclass(frozen=True)
class IndexKey:
    """Which store an index was built from."""

    instance: str
    version: int
    records: int


def cache_path(db_path: str | Path) -> Path:
    return Path(f"{db_path}.index")


@functools.cache
def code_digest() -> str:
    """A digest of the matching code: an index pickled by other code is not loaded."""
    h = hashlib.sha256()
    for path in sorted(Path(bot.core.__file__).parent.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def save(db_path: str | Path, key: IndexKey, matcher: Matcher) -> None:
    """Write the index for `key` (atomically); a failure to write is logged, never raised."""
    target = cache_path(db_path)
    tmp = target.with_name(target.name + ".tmp")
    payload = pickle.dumps(matcher, protocol=pickle.HIGHEST_PROTOCOL)
    header = {
        **asdict(key),
        "code": code_digest(),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "bytes": len(payload),
    }
    try:
        with tmp.open("wb") as out:
            out.write(MAGIC + json.dumps(header).encode() + b"\n")
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        tmp.replace(target)
    except OSError as e:
        log.warning("index not cached: %s", e)
        tmp.unlink(missing_ok=True)


def load(db_path: str | Path) -> tuple[IndexKey, Matcher] | None:
    """The cached index and the store it was built from, or None when there is none or it does
    not check out (other code, damaged, truncated)."""
    path = cache_path(db_path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as e:
        log.warning("index cache unreadable, rebuilding: %s", e)
        return None
    why, found = _parse(data)
    if found is None:
        log.warning("index cache ignored, rebuilding: %s", why)
    return found


def _parse(data: bytes) -> tuple[str, tuple[IndexKey, Matcher] | None]:
    if not data.startswith(MAGIC):
        return "not an errfix index", None
    end = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC) : end])
        key = IndexKey(str(header["instance"]), int(header["version"]), int(header["records"]))
        code, digest, size = str(header["code"]), str(header["sha256"]), int(header["bytes"])
    except (ValueError, KeyError, TypeError):
        return "damaged header", None
    if code != code_digest():
        return "built by another version of errfix", None
    payload = data[end + 1 :]
    if len(payload) != size or hashlib.sha256(payload).hexdigest() != digest:
        return "damaged (checksum)", None
    # Unpickling makes millions of objects, none of them garbage: with the cyclic collector on,
    # each allocation burst triggers a collection walking everything loaded so far.
    collecting = gc.isenabled()
    gc.disable()
    try:
        matcher = pickle.loads(payload)
    except (pickle.UnpicklingError, EOFError, AttributeError, ImportError, IndexError, TypeError, ValueError) as e:
        return f"unreadable ({type(e).__name__})", None
    finally:
        if collecting:
            gc.enable()
    if not isinstance(matcher, Matcher):
        return "not an index", None
    return "", (key, matcher)
