"""Team memory (#36): does a duplicate report find its original's thread, and what does it cost?

    python bench/memory_bench.py                 # the replay, then the cost at 100,000 remembered errors
    python bench/memory_bench.py --size 20000    # the cost at another size

1. *Replay* of bench/memory/dups-dev.jsonl through the service (the same calls the Slack listener
   makes: `Errfix.diagnose`, then `Errfix.remember` for a paste that is an error, `Errfix.resolve`),
   with the bundled records loaded and the history in the order it happened: every original is pasted in public channel
   C_HISTORY with a reply marked solved, then every duplicate and every single is pasted in
   C_NEW. Printed: recall@1 (the duplicate's first earlier thread is its original's) and the
   false-link rate (a single, which duplicates nothing, gets any earlier thread). The issue's bars
   (held-out): recall@1 >= 0.80, false links <= 0.02.
2. *Cost*: a store holding `--size` remembered errors (made-up identities, one in ten solved),
   then every paste of the set remembered and looked up again: median and p99 ms of the memory
   step per paste (`Errfix.remember`: identities, lookup, insert). Bar: p99 <= 2 ms at 100,000.
   As `errfix serve` runs the store: commits leave the write-ahead log to a checkpoint taken off
   the writes' path (bot/serve/checkpoint.py, every 5 s), here one every CHECKPOINT_EVERY pastes,
   timed apart and printed too.
Exit 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bot.core.extract import extract
from bot.core.team_memory import Seen, memorable
from bot.service.errfix import Errfix

DATA = Path(__file__).resolve().parent / "memory" / "dups-dev.jsonl"


def _number(url: str) -> int:
    """An issue's number, from its URL (`.../issues/4042`)."""
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def history(pairs: list[dict]) -> list[dict]:
    """The pairs in the order their originals happened: within a repository, issue numbers are in
    the order they were filed (two reports of one error that are both originals: the later is the
    one seen last, as in a channel)."""
    return sorted(pairs, key=lambda p: (p["repo"], _number(p["original"]["url"])))


def replay(svc: Errfix, rows: list[dict]) -> tuple[float, float, int, int]:
    pairs = [r for r in rows if r["kind"] == "pair"]
    singles = [r for r in rows if r["kind"] == "single"]

    def paste(text: str, channel: str, ts: str, user: str) -> list[Seen]:
        """What the channel listener does with a message: a paste that is an error (or a logged
        warning) is remembered."""
        d = svc.diagnose(text)
        if not (d.is_error or memorable(d.extracted)):
            return []
        return svc.remember(d.extracted, channel=channel, channel_type="channel", ts=ts, thread_ts=ts, user_id=user)

    originals: dict[str, str] = {}
    for n, p in enumerate(history(pairs)):
        url = p["original"]["url"]
        if url in originals:
            continue
        ts = f"1000.{n:06d}"
        originals[url] = ts
        paste(p["original"]["text"], "C_HISTORY", ts, "U_OLD")
        svc.resolve(channel="C_HISTORY", thread_ts=ts, kind="check", ts=ts + "1", user_id="U_FIX", excerpt="the fix")
    right = 0
    for n, p in enumerate(pairs):
        seen = paste(p["duplicate"]["text"], "C_NEW", f"2000.{n:06d}", "U")
        right += bool(seen) and seen[0].ts == originals[p["original"]["url"]]
    linked = 0
    for n, s in enumerate(singles):
        seen = paste(s["text"], "C_NEW", f"3000.{n:06d}", "U")
        linked += any(x.channel == "C_HISTORY" for x in seen)
    return right / len(pairs), linked / len(singles), len(pairs), len(singles)


def fill(svc: Errfix, size: int) -> None:
    """`size` remembered errors with made-up identities, in one transaction."""
    db = svc.store.db
    with svc.store.write_transaction():
        db.conn.executemany(
            "INSERT INTO memory (id, channel, channel_type, ts, thread_ts, user_id, line, created_at) "
            "VALUES (?, 'C_FILL', 'channel', ?, ?, 'U', 'x', '2026-12-01T00:00:00Z')",
            [(i + 1, f"5.{i}", f"5.{i}") for i in range(size)],
        )
        db.conn.executemany(
            "INSERT INTO memory_keys (key, memory_id) VALUES (?, ?)",
            [(f"fillererror: widget {i} stalled on {i % 977}", i + 1) for i in range(size)],
        )
        db.conn.executemany(
            "INSERT INTO memory_resolutions (channel, thread_ts, kind, created_at) "
            "VALUES ('C_FILL', ?, 'check', '2026-12-01T00:00:00Z')",
            [(f"5.{i}",) for i in range(0, size, 10)],
        )


CHECKPOINT_EVERY = 50  # pastes between two checkpoints (a busy channel's 5 s hold far fewer)


def cost(svc: Errfix, rows: list[dict], copies: list[float]) -> list[float]:
    """ms per paste remembered and looked up; the checkpoints' ms go to `copies`."""
    texts = [
        t
        for r in rows
        for t in ([r["original"]["text"], r["duplicate"]["text"]] if r["kind"] == "pair" else [r["text"]])
    ]
    extracted = [extract(t) for t in texts]
    svc.store.defer_checkpoints()
    svc.store.checkpoint()  # the fill's log: copied before the clock starts
    ms = []
    for rnd in range(3):
        for n, ex in enumerate(extracted):
            ts = f"9{rnd}.{n:06d}"
            start = time.perf_counter()
            svc.remember(ex, channel="C_T", channel_type="channel", ts=ts, thread_ts=ts, user_id="U")
            ms.append((time.perf_counter() - start) * 1000)
            if len(ms) % CHECKPOINT_EVERY == 0:
                start = time.perf_counter()
                svc.store.checkpoint()
                copies.append((time.perf_counter() - start) * 1000)
    return ms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines() if line.strip()]
    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        svc = Errfix.open(Path(tmp) / "replay.db")  # with the bundled records, as `errfix serve` starts
        recall, false_rate, n_pairs, n_singles = replay(svc, rows)
        svc.close()
        print(f"replay: recall@1 {recall:.3f} of {n_pairs} duplicates, ", end="")
        print(f"false links {false_rate:.3f} of {n_singles} singles")
        failed += [f"recall@1 {recall:.3f} < 0.80"] if recall < 0.80 else []
        failed += [f"false links {false_rate:.3f} > 0.02"] if false_rate > 0.02 else []
        svc = Errfix.open(Path(tmp) / "cost.db", seed=False)
        fill(svc, args.size)
        copies: list[float] = []
        ms = sorted(cost(svc, rows, copies))
        svc.close()
    p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
    print(
        f"cost at {args.size:,} remembered errors: median {statistics.median(ms):.3f} ms, p99 {p99:.3f} ms "
        f"per paste ({len(ms)} pastes remembered and looked up)"
    )
    print(
        f"  checkpoint off the paste path, every {CHECKPOINT_EVERY} pastes: median {statistics.median(copies):.3f} ms, "
        f"max {max(copies):.3f} ms ({len(copies)} taken)"
    )
    failed += [f"p99 {p99:.3f} ms > 2 ms"] if p99 > 2.0 and args.size <= 100_000 else []
    if failed:
        print("missed: " + "; ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
