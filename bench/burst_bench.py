"""A burst of events at once against `errfix serve --http`: are they all acknowledged within
Slack's 3 s, even while the store is busy? (#12)

Why: Slack retries an event whose ack takes over 3 s and disables delivery for apps that fail
over 5 % of deliveries in an hour. An ack must wait on nothing but the events file
(`bot.store.inbox`): not on matching, a vote, a re-index or a sync holding the store's lock.

What runs, all on 127.0.0.1: the strict fake Slack in a thread of this process; `errfix serve
--http` as a child process on a store of --records records (the public corpus, grown with the
benches' synthetic records); --events signed deliveries POSTed all at once (open loop), over 20
channels: 60 % pastes, 10 % @errfix mentions, 10 % long tracebacks shared as snippets (preview
truncated: errfix reads the file), 20 % Worked / Didn't work clicks on earlier answers. With
--busy (default on) an `errfix import` of --busy-records records runs in
another process at the same moment, holding the store's write lock as a large sync does.

Prints ack latency (POST to HTTP 200) p50 / p99 / max per kind and overall, how many took over
3 s, and event to answer (Slack receiving chat.postMessage) p50 / p99, answered and doubled
counts (clicks are not answers: they are counted as votes in the store afterwards). Exits 1 when
an ack took over 3 s, an event was answered twice, or one was not answered within --drain s.

    python bench/burst_bench.py [--events 400] [--records 25000] [--no-busy] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

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
from bot.fakeslack.events import event_body, message_event, sign  # noqa: E402
from bot.fakeslack.thread import FakeSlackThread  # noqa: E402
from bot.fakeslack.web_api import BOT_TOKEN, TEAM_ID, FakeSlack  # noqa: E402
from bot.store import open_store  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / ".." / "shared" / "corpus" / "deadends-records.jsonl"
ACK_DEADLINE_MS = 3000.0


def build_store(db: Path, size: int) -> None:
    base = [Record.model_validate(json.loads(x)) for x in CORPUS.read_text(encoding="utf-8").splitlines() if x.strip()]
    store = open_store(str(db))  # a new database gets the bundled seeds (--records 0: only them)
    try:
        if size:
            store.import_records(base[:size] if size <= len(base) else synthetic_store(base, size))
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


def mention_body(message: dict[str, Any]) -> str:
    event = {**message_event(message), "type": "app_mention"}
    event.pop("channel_type", None)  # app_mention events carry none
    return json.dumps(event_body(event))


def snippet_body(message: dict[str, Any]) -> str:
    return json.dumps(event_body(message_event(message)))


def click_body(answer: dict[str, Any], user: str, n: int) -> str:
    button = next(
        el
        for block in answer.get("blocks", [])
        if block.get("type") == "actions"
        for el in block.get("elements", [])
        if str(el.get("action_id", "")).startswith(("errfix_vote_up", "errfix_vote_down"))
    )
    payload = {
        "type": "block_actions",
        "user": {"id": user, "team_id": TEAM_ID},
        "api_app_id": "A_FAKE",
        "team": {"id": TEAM_ID},
        "channel": {"id": answer["channel"]},
        "trigger_id": f"trigger.{n}",
        "container": {"type": "message", "message_ts": answer["ts"], "channel_id": answer["channel"]},
        "actions": [
            {
                "type": "button",
                "action_id": button["action_id"],
                "block_id": "b",
                "value": button["value"],
                "action_ts": f"{time.time():.6f}{n}",
            }
        ],
        "message": {"ts": answer["ts"], "type": "message"},
    }
    return urlencode({"payload": json.dumps(payload)})


async def ack(session: aiohttp.ClientSession, url: str, body: str, form: bool) -> tuple[float, float]:
    """(sent at, ack ms) of one delivery."""
    kind = "application/x-www-form-urlencoded" if form else "application/json"
    headers = {"Content-Type": kind, **sign(SECRET, body)}
    sent, start = time.time(), time.monotonic()
    async with session.post(url, data=body, headers=headers) as resp:
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
            answers = slack.run(_bot_messages(fake))
            n_clicks = args.events * 2 // 10 if answers else 0
            n_mentions = n_snippets = args.events // 10
            n_pastes = args.events - n_clicks - n_mentions - n_snippets
            messages = load.messages(n_pastes + n_mentions)
            pastes, mentions = messages[:n_pastes], messages[n_pastes:]
            snippets = slack.run(_snippets(fake, load.pastes, n_snippets))
            deliveries: list[tuple[str, str, bool, str | None]] = [
                *(("paste", load.body(m), False, m["ts"]) for m in pastes),
                *(("mention", mention_body(m), False, m["ts"]) for m in mentions),
                *(("snippet", snippet_body(m), False, m["ts"]) for m in snippets),
                *(
                    # one click per (person, answer): each is one new vote, none withdraws another
                    (
                        "click",
                        click_body(answers[(k // len(USERS)) % len(answers)], USERS[k % len(USERS)].id, k),
                        True,
                        None,
                    )
                    for k in range(n_clicks)
                ),
            ]
            votes_before = _votes(db)
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
                acks = await asyncio.gather(*(ack(session, load.url, body, form) for _, body, form, _ in deliveries))
            sent = {ts: at for (_, _, _, ts), (at, _) in zip(deliveries, acks, strict=True) if ts}
            ack_ms = [ms for _, ms in acks]
            by_kind: dict[str, list[float]] = {}
            for (kind, _, _, _), (_, ms) in zip(deliveries, acks, strict=True):
                by_kind.setdefault(kind, []).append(ms)
            threads = set(sent)
            deadline = time.monotonic() + args.drain
            found, doubled = load.answers(threads)
            while len(found) < len(threads) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
                found, doubled = load.answers(threads)
            answer_ms = [(found[ts].time - sent[ts]) * 1000 for ts in found]
            import_rc = importer.wait(timeout=600) if importer is not None else None
            deadline = time.monotonic() + args.drain
            while _votes(db) - votes_before < n_clicks and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
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
        "mix": {k: len(v) for k, v in by_kind.items()},
        "busy_import_records": args.busy_records if busy else 0,
        "busy_import_exit": import_rc,
        "ack_p50_ms": round(percentile(ack_ms, 0.5), 1),
        "ack_p99_ms": round(percentile(ack_ms, 0.99), 1),
        "ack_max_ms": round(max(ack_ms), 1),
        "acks_over_3s": sum(ms > ACK_DEADLINE_MS for ms in ack_ms),
        "ack_p99_ms_by_kind": {k: round(percentile(v, 0.99), 1) for k, v in by_kind.items()},
        "answered": len(found),
        "to_answer": len(threads),
        "clicks": n_clicks,
        "votes_counted": _votes(db) - votes_before,
        "doubled": doubled,
        "answer_p50_ms": round(percentile(answer_ms, 0.5), 1),
        "answer_p99_ms": round(percentile(answer_ms, 0.99), 1),
        "cores": os.cpu_count(),
    }


async def _bot_messages(fake: FakeSlack) -> list[dict[str, Any]]:
    """errfix's answers so far (the warm-up's), as clicks need them."""
    return [m for ch in CHANNELS for m in fake.messages(ch) if m.get("bot_id") and m.get("blocks")]


async def _snippets(fake: FakeSlack, pastes: list[str], n: int) -> list[dict[str, Any]]:
    """n messages sharing a long log whose error is past the preview."""
    out = []
    for k in range(n):
        log = "epoch 1 step 10 loss 0.52\n" * 300 + pastes[k % len(pastes)]
        shared = fake.add_file(USERS[k % len(USERS)].id, log, name=f"train-{k}.log", filetype="text")
        out.append(
            fake.add_message(
                CHANNELS[k % len(CHANNELS)], "", USERS[k % len(USERS)].id, files=[shared], subtype="file_share"
            )
        )
    return out


def _votes(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM votes").fetchone()[0])


def verdict(result: dict[str, Any]) -> tuple[bool, str]:
    """Every ack within 3 s, every event answered once, every click counted."""
    problems = []
    if result["acks_over_3s"]:
        problems.append(f"{result['acks_over_3s']} acks over 3 s")
    if result["doubled"]:
        problems.append(f"{result['doubled']} answered twice")
    if result.get("votes_counted", 0) != result.get("clicks", 0):
        problems.append(f"{result['clicks'] - result['votes_counted']} clicks not counted")
    if result["answered"] < result["to_answer"]:
        problems.append(f"{result['to_answer'] - result['answered']} not answered")
    return (not problems, "; ".join(problems) or "every ack within 3 s, every event answered once, every click counted")


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
