"""Team memory (#36) as the issue's "Done when" measures it: real duplicate reports replayed over
signed HTTP into a real `errfix serve --http`, against the strict fake Slack.

    python bench/memory_replay.py [--data bench/memory/dups-dev.jsonl]

Each original is pasted in public channel C_HISTORY, someone replies in its thread with a fix and
the paster marks that reply ✅; then each duplicate, and each report that duplicates nothing, is
pasted in public channel C_NEW. Printed: recall@1 (a duplicate's answer links its original's
thread first) and the false-link rate (a single's answer links any C_HISTORY thread). Bars
(held-out): recall@1 >= 0.80, false links <= 0.02. The fake's posting rate limit is lifted (the
bench measures what is linked, not how fast). Exit 1 when a bar is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sqlite3
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.fakeslack.events import EventsLink, slack_escape  # noqa: E402
from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, User  # noqa: E402
from tests.procs import clean_env, errfix_command, free_port  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from memory_bench import history  # noqa: E402

DATA = Path(__file__).resolve().parent / "memory" / "dups-dev.jsonl"
SECRET = "replay-signing-secret"
HISTORY, NEW = "C_HISTORY", "C_NEW"
OLD, FIXER, ASKER = "U_OLD", "U_FIXER", "U_NEW"


async def until(probe, seconds: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not probe():
        if time.monotonic() > deadline:
            raise TimeoutError("errfix did not catch up")
        await asyncio.sleep(0.05)


def owed(tmp: Path) -> int:
    """Jobs acknowledged and not finished yet (the events file errfix keeps beside its database)."""
    with sqlite3.connect(tmp / "errfix.db-events") as conn:
        return int(conn.execute("SELECT count(*) FROM jobs").fetchone()[0])


def healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as resp:
            return bool(resp.status == 200)
    except OSError:
        return False


async def replay(rows: list[dict], tmp: Path, show: bool = False) -> tuple[float, float, int, int]:
    fake = FakeSlack(channels=(HISTORY, NEW), users=[User(u, u.lower()) for u in (OLD, FIXER, ASKER)], post_rate=None)
    await fake.start()
    port, db = free_port(), tmp / "errfix.db"
    env = clean_env(
        SLACK_BOT_TOKEN=BOT_TOKEN,
        SLACK_SIGNING_SECRET=SECRET,
        ERRFIX_SLACK_API_URL=fake.base_url,
        ERRFIX_DB=str(db),
        ERRFIX_MAX_REPLIES_PER_MINUTE="100000",
    )
    log = (tmp / "serve.log").open("wb")
    proc = await asyncio.create_subprocess_exec(
        *errfix_command(), "serve", "--http", "--host", "127.0.0.1", "--port", str(port),
        env=env, stdout=log, stderr=log,
    )  # fmt: skip
    link = EventsLink(fake, f"http://127.0.0.1:{port}/slack/events", SECRET, ack_deadline=None)
    try:
        await until(lambda: healthy(port))
        pairs = [r for r in rows if r["kind"] == "pair"]
        singles = [r for r in rows if r["kind"] == "single"]
        originals: dict[str, str] = {}
        for p in history(pairs):
            url = p["original"]["url"]
            if url in originals:
                continue
            paste, _ = await link.message(HISTORY, OLD, slack_escape(p["original"]["text"]))
            await until(lambda: owed(tmp) == 0)  # people reply after errfix has seen the paste
            fix, _ = await link.message(HISTORY, FIXER, "fixed it: see the maintainers' note", thread_ts=paste["ts"])
            await until(lambda: owed(tmp) == 0)
            await link.react(HISTORY, OLD, fix["ts"], "white_check_mark")
            originals[url] = paste["ts"]
        await until(lambda: owed(tmp) == 0)  # every event's work done (bot/slack/jobs.py)
        asked: list[tuple[dict, str]] = []
        for r in [*pairs, *singles]:
            text = r["duplicate"]["text"] if r["kind"] == "pair" else r["text"]
            message, _ = await link.message(NEW, ASKER, slack_escape(text))
            asked.append((r, message["ts"]))
        await until(lambda: owed(tmp) == 0)
        right = linked = 0
        for r, ts in asked:
            answers = [m for m in fake.messages(NEW, ts) if m.get("bot_id")]
            text = json.dumps(answers)
            if r["kind"] == "pair":
                want = f"/archives/{HISTORY}/p{originals[r['original']['url']].replace('.', '')}"
                first = text.find(f"/archives/{HISTORY}/p")
                hit = first != -1 and text[first:].startswith(want)
                right += hit
                if show and not hit:
                    print(f"missed {r['duplicate']['url']} (original {r['original']['url']}): {text[:300]}")
            else:
                linked += f"/archives/{HISTORY}/p" in text
                if show and f"/archives/{HISTORY}/p" in text:
                    print(f"linked a single {r.get('url')}")
        return right / len(pairs), linked / len(singles), len(pairs), len(singles)
    finally:
        await link.close()
        proc.terminate()
        await proc.wait()
        log.close()
        await fake.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--show", action="store_true", help="print each duplicate missed and each single linked")
    args = parser.parse_args(argv)
    rows = [json.loads(line) for line in args.data.read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        recall, false_rate, n_pairs, n_singles = asyncio.run(replay(rows, Path(tmp), args.show))
    print(f"over signed HTTP into errfix serve: recall@1 {recall:.3f} of {n_pairs} duplicates, ", end="")
    print(f"false links {false_rate:.3f} of {n_singles} singles")
    missed = [f"recall@1 {recall:.3f} < 0.80"] * (recall < 0.80) + [f"false links {false_rate:.3f} > 0.02"] * (
        false_rate > 0.02
    )
    if missed:
        print("missed: " + "; ".join(missed))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
