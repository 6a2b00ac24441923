"""A burst of events at once against `errfix serve --http`: are they all acknowledged within
Slack's 3 s, even while the store is busy? (#12)

Why: Slack retries an event whose ack takes over 3 s and disables delivery for apps that fail
over 5 % of deliveries in an hour. An ack must wait on nothing but the events file
(`bot.store.inbox`): not on matching, a vote, a re-index or a sync holding the store's lock.

What runs, all on 127.0.0.1: the strict fake Slack in a thread of this process; `errfix serve
--http` as a child process on a store of --records records (the public corpus, grown with the
benches' synthetic records); --events signed message events POSTed all at once (open loop),
over 20 channels. With --busy (default on) an `errfix import` of --busy-records records runs in
another process at the same moment, holding the store's write lock as a large sync does.

Prints ack latency (POST to HTTP 200) p50 / p99 / max and how many took over 3 s, and event to
answer (Slack receiving chat.postMessage) p50 / p99, answered and doubled counts. Exits 1 when
an ack took over 3 s, an event was answered twice, or one was not answered within --drain s.

    python bench/burst_bench.py [--events 400] [--records 25000] [--no-busy] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from match_bench import synthetic_store  # noqa: E402 - the benches' one synthetic store
from serve_bench import (  # noqa: E402 - the same load generator and process helpers
    CHANNELS,
    SECRET,
    USERS,
    Load,
    answered_pastes,
    errfix_command,
    free_port,
    percentile,
    wait_healthy,
)

from bot.core.records import Record  # noqa: E402
from bot.fakeslack.events import sign  # noqa: E402
from bot.fakeslack.thread import FakeSlackThread  # noqa: E402
from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack  # noqa: E402
from bot.store import open_store  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".." / "shared" / "corpus" / "deadends-records.jsonl"
ACK_DEADLINE_MS = 3000.0


def build_store(db: Path, size: int) -> None:
    base = [Record.model_validate(json.loads(x)) for x in CORPUS.read_text(encoding="utf-8").splitlines() if x.strip()]
    store = open_store(str(db))  # a new database gets the bundled seeds
    try:
        store.import_records(base if size <= len(base) else synthetic_store(base, size))
    finally:
        store.close()


def busy_file(tmp: Path, size: int) -> Path:
    """Records for the concurrent import (new ids, so every one is a write)."""
    base = [Record.model_validate(json.loads(x)) for x in CORPUS.read_text(encoding="utf-8").splitlines() if x.strip()]
    records = synthetic_store(base, size)
    path = tmp / "busy.jsonl"
    with path.open("w", encoding="utf-8") as out:
        for r in records:
            data = r.model_dump(mode="json", exclude_none=True)
            data["id"] = f"busy/{data['id']}"
            out.write(json.dumps(data, ensure_ascii=False) + "\n")
    return path


async def ack(session: aiohttp.ClientSession, load: Load, message: dict[str, Any]) -> tuple[float, float]:
    """(sent at, ack ms) of one event."""
    body = load.body(message)
    headers = {"Content-Type": "application/json", **sign(SECRET, body)}
    sent, start = time.time(), time.monotonic()
    async with session.post(load.url, data=body, headers=headers) as resp:
        await resp.read()
        if resp.status != 200:
            raise RuntimeError(f"errfix answered HTTP {resp.status}")
    return sent, (time.monotonic() - start) * 1000


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    db = tmp / "errfix.db"
    t0 = time.monotonic()
    build_store(db, args.records)
    built_s = time.monotonic() - t0
    pastes = answered_pastes(tmp)
    busy = busy_file(tmp, args.busy_records) if args.busy else None
    fake = FakeSlack(token=BOT_TOKEN, channels=CHANNELS, users=USERS, post_rate=None)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ERRFIX_"))}
    with FakeSlackThread(fake) as slack:
        port = free_port()
        env.update(
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SECRET,
            ERRFIX_SLACK_API_URL=slack.base_url,
            ERRFIX_DB=str(db),
            ERRFIX_MAX_REPLIES_PER_MINUTE="1000000",
        )
        log = (tmp / "serve.log").open("wb")
        cmd = [*errfix_command(), "serve", "--http", "--host", "127.0.0.1", "--port", str(port)]
        proc = subprocess.Popen([*cmd, "--env-file", os.devnull], env=env, cwd=tmp, stdout=log, stderr=log)
        importer: subprocess.Popen[bytes] | None = None
        try:
            await wait_healthy(f"http://127.0.0.1:{port}/healthz", proc, timeout=600)
            load = Load(slack, f"http://127.0.0.1:{port}/slack/events", pastes, proc.pid)
            await load.step(5, 2, 10, args.drain, float("inf"))  # builds (or loads) the index
            messages = load.messages(args.events)
            if busy is not None:
                importer = subprocess.Popen(
                    [*errfix_command(), "import", str(busy), "--db", str(db)],
                    env=env,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                await asyncio.sleep(args.busy_head_start)  # the import holds the write lock first
            connector = aiohttp.TCPConnector(limit=0)
            async with aiohttp.ClientSession(connector=connector) as session:
                acks = await asyncio.gather(*(ack(session, load, m) for m in messages))
            sent = {m["ts"]: s for m, (s, _) in zip(messages, acks, strict=True)}
            ack_ms = [ms for _, ms in acks]
            threads = set(sent)
            deadline = time.monotonic() + args.drain
            found, doubled = load.answers(threads)
            while len(found) < len(threads) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
                found, doubled = load.answers(threads)
            answer_ms = [(found[ts].time - sent[ts]) * 1000 for ts in found]
            import_rc = importer.wait(timeout=600) if importer is not None else None
        finally:
            if importer is not None and importer.poll() is None:
                importer.kill()
            proc.terminate()
            proc.wait(timeout=60)
            log.close()
    return {
        "records": args.records,
        "store_built_s": round(built_s, 1),
        "events": args.events,
        "busy_import_records": args.busy_records if busy else 0,
        "busy_import_exit": import_rc,
        "ack_p50_ms": round(percentile(ack_ms, 0.5), 1),
        "ack_p99_ms": round(percentile(ack_ms, 0.99), 1),
        "ack_max_ms": round(max(ack_ms), 1),
        "acks_over_3s": sum(ms > ACK_DEADLINE_MS for ms in ack_ms),
        "answered": len(found),
        "doubled": doubled,
        "answer_p50_ms": round(percentile(answer_ms, 0.5), 1),
        "answer_p99_ms": round(percentile(answer_ms, 0.99), 1),
        "cores": os.cpu_count(),
    }


def verdict(result: dict[str, Any]) -> tuple[bool, str]:
    """Every ack within 3 s, every event answered once."""
    problems = []
    if result["acks_over_3s"]:
        problems.append(f"{result['acks_over_3s']} acks over 3 s")
    if result["doubled"]:
        problems.append(f"{result['doubled']} answered twice")
    if result["answered"] < result["events"]:
        problems.append(f"{result['events'] - result['answered']} not answered")
    return (not problems, "; ".join(problems) or "every ack within 3 s, every event answered once")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=400)
    parser.add_argument("--records", type=int, default=25_000)
    parser.add_argument("--busy", action=argparse.BooleanOptionalAction, default=True)
    parser.add_argument("--busy-records", type=int, default=20_000)
    parser.add_argument("--busy-head-start", type=float, default=0.5, help="seconds the import runs before the burst")
    parser.add_argument("--drain", type=float, default=300, help="seconds to wait for the answers")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="errfix-burst-") as tmp:
        result = asyncio.run(run(args, Path(tmp)))
    ok, why = verdict(result)
    if args.json:
        print(json.dumps({**result, "ok": ok, "verdict": why}))
    else:
        for key, value in result.items():
            print(f"{key:<22} {value}")
        print(f"{'ok' if ok else 'FAIL'}: {why}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
