"""Throughput of one `errfix serve --http` process: signed message events at increasing rates.

Why: a team needs to know how far one process goes before it plans replicas (deploy/SCALING.md),
and the figure must be measured the way Slack drives errfix, not estimated.

What runs, all on 127.0.0.1:
  * the strict fake Slack (bot/slack/fake_api.py) in a thread of this process: it answers the Web
    API and records when each chat.postMessage arrives;
  * `errfix serve --http` as a real child process on a new seeded database in a temporary folder;
  * a load generator that POSTs correctly signed `message` events to /slack/events at a fixed
    rate per step (open loop: sends are scheduled, not paced by answers), over several channels
    and users.
The pastes are the repository's seed examples (tests/seed_examples) that errfix answers
unprompted, checked in-process first, so every event should produce one chat.postMessage.

Per step: events sent, answers received, sustained events/s (answers over the time from the first
send to the last answer), and the time from sending the event to Slack receiving
chat.postMessage: p50, p99, max; and the CPU time errfix itself used per event (from /proc: a
figure that other load on the machine does not distort). Steps stop at the first rate not
sustained (answers < 90% of the offered rate, an event answered twice, or p99 above --max-p99).
Bounded: at most --max-events events per step and --seconds seconds of sending per step; each
step waits at most --drain seconds for answers.

Target (`--target`, default TARGET_RATE events/s): some offered rate at or above it sustained, and
no event answered twice. The run exits 1 when it misses the target.

Run from the repo root with the package installed:
    python bench/serve_bench.py [--rates 10,25,50,100,200] [--seconds 5] [--json]
The load generator and the fake share the machine's cores with errfix, as a sidecar would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import aiohttp

from bot.fakeslack.events import sign
from bot.fakeslack.thread import FakeSlackThread
from bot.fakeslack.web_api import BOT_TOKEN, TEAM_ID, Call, FakeSlack, User
from bot.service.errfix import Errfix
from bot.store import open_store

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "tests" / "seed_examples"
SECRET = "bench-signing-secret"
CHANNELS = [f"C_BENCH{i:02d}" for i in range(20)]
USERS = [User(f"U_BENCH{i:02d}", f"user{i}") for i in range(20)]
TARGET_RATE = 25.0
"""events/s one process must sustain on the shared 2-core machine: half of what deploy/SCALING.md
measured there under competing load (50/s at p99 0.1 s), so a loaded run still passes, a regression
that halves throughput does not."""


@dataclass
class Step:
    rate: float
    sent: int
    answered: int
    sustained: float
    p50_ms: float
    p99_ms: float
    max_ms: float
    cpu_ms_per_event: float  # errfix's own CPU (user + system) over the step, per answered event
    sustained_ok: bool
    doubled: int = 0  # events answered more than once (a retried or re-handled event)


def answered_pastes(tmp: Path) -> list[str]:
    """Seed examples errfix answers unprompted (checked in-process on a seeded database)."""
    svc = Errfix(open_store(tmp / "probe.db"))
    try:
        texts = [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.rglob("*.txt"))]
        return [t for t in texts if svc.diagnose(t).reply]
    finally:
        svc.store.close()


def slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def errfix_command() -> list[str]:
    script = Path(sys.executable).with_name("errfix")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))] if ordered else float("nan")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc), robust to other load on the machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Load:
    def __init__(self, slack: FakeSlackThread, url: str, pastes: list[str], pid: int) -> None:
        self.slack, self.url, self.pastes, self.pid = slack, url, pastes, pid
        self.n = 0

    def messages(self, count: int) -> list[dict[str, Any]]:
        """Store `count` messages in the fake (their threads must exist) before any is sent."""

        async def add() -> list[dict[str, Any]]:
            made = []
            for _ in range(count):
                i = self.n
                self.n += 1
                text = slack_escape(self.pastes[i % len(self.pastes)])
                made.append(self.slack.fake.add_message(CHANNELS[i % len(CHANNELS)], text, USERS[i % len(USERS)].id))
            return made

        return self.slack.run(add(), timeout=120)

    def body(self, message: dict[str, Any]) -> str:
        event = {
            "type": "message",
            "channel": message["channel"],
            "channel_type": "channel",
            "user": message["user"],
            "text": message["text"],
            "ts": message["ts"],
            "team": TEAM_ID,
            "event_ts": message["ts"],
        }
        return json.dumps(
            {
                "token": "legacy",
                "team_id": TEAM_ID,
                "api_app_id": "A_FAKE",
                "type": "event_callback",
                "event_id": f"EvB{message['ts'].replace('.', '')}",
                "event_time": int(time.time()),
                "event": event,
            }
        )

    async def send(self, session: aiohttp.ClientSession, message: dict[str, Any]) -> float:
        body = self.body(message)
        headers = {"Content-Type": "application/json", **sign(SECRET, body)}
        sent = time.time()
        async with session.post(self.url, data=body, headers=headers) as resp:
            if resp.status != 200:
                raise RuntimeError(f"errfix answered HTTP {resp.status}: {await resp.text()}")
        return sent

    def answers(self, threads: set[str]) -> tuple[dict[str, Call], int]:
        """The first answer in each of these threads, and how many threads got more than one."""

        async def calls() -> list[Call]:
            return self.slack.fake.calls("chat.postMessage")

        found: dict[str, Call] = {}
        doubled: set[str] = set()
        for call in self.slack.run(calls()):
            ts = str(call.params.get("thread_ts"))
            if call.ok and ts in threads:
                if ts in found:
                    doubled.add(ts)
                else:
                    found[ts] = call
        return found, len(doubled)

    async def step(self, rate: float, seconds: float, max_events: int, drain: float, max_p99: float) -> Step:
        count = max(1, min(max_events, int(rate * seconds)))
        messages = self.messages(count)
        cpu_before = cpu_seconds(self.pid)
        sent: dict[str, float] = {}
        connector = aiohttp.TCPConnector(limit=256)
        async with aiohttp.ClientSession(connector=connector) as session:
            start = time.monotonic()

            async def one(i: int, message: dict[str, Any]) -> None:
                await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
                sent[message["ts"]] = await self.send(session, message)

            await asyncio.gather(*(one(i, m) for i, m in enumerate(messages)))
        threads = {m["ts"] for m in messages}
        deadline = time.monotonic() + drain
        found, doubled = self.answers(threads)
        while len(found) < len(threads) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            found, doubled = self.answers(threads)
        cpu_ms = (cpu_seconds(self.pid) - cpu_before) * 1000 / max(1, len(found))
        latencies = [(found[ts].time - sent[ts]) * 1000 for ts in found]
        span = (max(c.time for c in found.values()) - min(sent.values())) if found else float("inf")
        sustained = len(found) / span if found else 0.0
        p99 = percentile(latencies, 0.99)
        ok = len(found) == count and not doubled and sustained >= 0.9 * rate and p99 <= max_p99
        return Step(
            rate,
            count,
            len(found),
            round(sustained, 1),
            round(percentile(latencies, 0.5), 1),
            round(p99, 1),
            round(max(latencies, default=float("nan")), 1),
            round(cpu_ms, 2),
            ok,
            doubled,
        )


async def wait_healthy(url: str, proc: subprocess.Popen[bytes], timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"errfix serve exited with {proc.returncode}")
            try:
                async with session.get(url) as resp:
                    if resp.status == 200:
                        return
            except aiohttp.ClientConnectionError:
                pass
            await asyncio.sleep(0.2)
    raise RuntimeError("errfix serve did not become healthy")


async def run(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    pastes = answered_pastes(tmp)
    fake = FakeSlack(token=BOT_TOKEN, channels=CHANNELS, users=USERS)
    with FakeSlackThread(fake) as slack:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ERRFIX_"))}
        env.update(
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SECRET,
            ERRFIX_SLACK_API_URL=slack.base_url,
            ERRFIX_DB=str(tmp / "errfix.db"),
            ERRFIX_MAX_REPLIES_PER_MINUTE="1000000",
        )
        log = (tmp / "serve.log").open("wb")
        proc = subprocess.Popen(
            [
                *errfix_command(),
                "serve",
                "--http",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--env-file",
                os.devnull,
            ],
            env=env,
            cwd=tmp,
            stdout=log,
            stderr=log,
        )
        try:
            await wait_healthy(f"http://127.0.0.1:{port}/healthz", proc)
            load = Load(slack, f"http://127.0.0.1:{port}/slack/events", pastes, proc.pid)
            warm = await load.step(5, 2, 10, args.drain, float("inf"))  # builds the index, fills caches
            steps: list[Step] = []
            for rate in args.rates:
                step = await load.step(rate, args.seconds, args.max_events, args.drain, args.max_p99)
                steps.append(step)
                if not args.json:
                    print(_row(step), flush=True)
                if not step.sustained_ok:
                    break
        finally:
            proc.terminate()
            proc.wait(timeout=60)
            log.close()
    best = max((s for s in steps if s.sustained_ok), key=lambda s: s.sustained, default=None)
    return {
        "pastes": len(pastes),
        "warmup_answered": warm.answered,
        "steps": [asdict(s) for s in steps],
        "sustained_events_per_s": best.sustained if best else 0.0,
        "p99_ms_at_sustained": best.p99_ms if best else None,
        "cores": os.cpu_count(),
        "cpu_ms_per_event": statistics.median(s.cpu_ms_per_event for s in steps) if steps else None,
    }


def _row(s: Step) -> str:
    mark = "ok" if s.sustained_ok else "NOT sustained"
    if s.doubled:
        mark += f", {s.doubled} answered twice"
    return (
        f"| {s.rate:>6g} | {s.sent:>5} | {s.answered:>5} | {s.sustained:>8.1f} | {s.p50_ms:>7.1f} | "
        f"{s.p99_ms:>7.1f} | {s.max_ms:>7.1f} | {s.cpu_ms_per_event:>6.2f} | {mark} |"
    )


def verdict(result: dict[str, Any], target: float) -> tuple[bool, str]:
    """Whether the run met its target: some step at an offered rate >= target sustained, none doubled."""
    best = max((s["rate"] for s in result["steps"] if s["sustained_ok"]), default=0.0)
    doubled = sum(s["doubled"] for s in result["steps"])
    ok = best >= target and doubled == 0 and result["warmup_answered"] > 0
    text = (
        f"target: sustain >= {target:g} events/s offered, every event answered exactly once: "
        f"{'met' if ok else 'MISSED'} (highest sustained offered rate {best:g}/s, {doubled} answered twice)"
    )
    return ok, text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rates", type=lambda s: [float(x) for x in s.split(",")], default=[10, 25, 50, 100, 200])
    parser.add_argument("--seconds", type=float, default=5, help="sending time per step")
    parser.add_argument("--max-events", type=int, default=2000, help="events per step at most")
    parser.add_argument("--drain", type=float, default=30, help="seconds to wait for a step's answers")
    parser.add_argument("--max-p99", type=float, default=2000, help="p99 ms above which a rate is not sustained")
    parser.add_argument(
        "--target",
        type=float,
        default=TARGET_RATE,
        help=f"events/s that must be sustained (default {TARGET_RATE:g}); exit 1 if not",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not args.json:
        print("| events/s offered | sent | answered | sustained/s | p50 ms | p99 ms | max ms | CPU ms/event | |")
        print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory(prefix="errfix-serve-bench-") as tmp:
        result = asyncio.run(run(args, Path(tmp)))
    ok, text = verdict(result, args.target)
    result["target_events_per_s"], result["target_met"] = args.target, ok
    if args.json:
        print(json.dumps(result))
    else:
        p99 = result["p99_ms_at_sustained"]
        print(
            f"\nsustained: {result['sustained_events_per_s']} events/s with p99 {p99} ms to chat.postMessage "
            f"({result['pastes']} distinct pastes, {result['cores']} cores shared with the load and the fake); "
            f"errfix used {result['cpu_ms_per_event']:.2f} ms of CPU per event (median over steps)"
        )
        print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
