"""No pasted secret is kept, logged, exported or sent anywhere (#18), end to end: a real
`errfix serve --http` process (pastes logged on purpose, JSON logs) against the strict fake Slack.

An AWS key id, a Stripe live key, a GitHub token and a postgres password are pasted in a channel
message, a DM and a snippet; the answers are rejected and re-taught, the App Home opened, `/errfix`
run with them in the query and shared; then `errfix export`, `learned` and `audit`. Every byte of
the database and its WAL, the events file, the index cache, the process log, the export, the
commands' output and every call errfix made to Slack is searched for each secret: none may hold
one. (Slack's own copy of the person's message, in the fake's store, is the only place they are.)
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest_asyncio

from bot.core.blocks import THIS_ONE, button
from bot.fakeslack.events import EventsLink
from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack, User
from tests.ops.conftest import metric, wait_until
from tests.ops.test_serve import Served, serve  # noqa: F401  (the `serve` fixture: errfix serve as a process)
from tests.procs import clean_env, errfix_command
from tests.slack.conftest import ALICE, BOB, CHANNEL, DM, RECORD, SECRET, buttons

# Fake, secret-shaped values, assembled at run time so no whole token sits in the source.
AWS = "AKIA" + "R7QX2M4P9T3W8Z5N"
STRIPE = "sk_" + "live_" + "Zq4Lm8Rt2Vx7Np3Kd6Wb9Hs1"
GITHUB = "ghp_" + "R2d8Kq7Lm3Np9Xs4Tv6Wy1Zb5Cf0Hj2Gk8Qe"
PG_PASSWORD = "Wq8z" + "Lp3vRt6n"
SECRETS = {"aws-access-key": AWS, "stripe-key": STRIPE, "github-token": GITHUB, "url-password": PG_PASSWORD}

CONTEXT = (
    f"aws_access_key_id = {AWS}\n"
    f"STRIPE_KEY={STRIPE}\n"
    f"remote: https://x-access-token:{GITHUB}@github.com/acme/pay.git\n"
    f"DATABASE_URL=postgres://payroll:{PG_PASSWORD}@db.internal:5432/pay\n"
)
IN_CHANNEL = (  # answered unprompted (the loss-NaN record), its error line holding two secrets
    'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
    f"RuntimeError: Loss is NaN or Inf at step 1000 (upload key {AWS}, token {GITHUB})\n" + CONTEXT
)
IN_DM = (
    "psycopg2.OperationalError: connection to server failed: FATAL:  password authentication failed for "
    f'user "payroll" (dsn postgres://payroll:{PG_PASSWORD}@db.internal:5432/pay, key {STRIPE})\n' + CONTEXT
)
FRAMES = "".join(f'  File "/srv/pay/step{n}.py", line {n}, in charge\n    client.step{n}()\n' for n in range(12))
SNIPPET = (  # matches nothing: the App Home lists its line; the secrets are past the event's preview
    "Traceback (most recent call last):\n" + FRAMES + CONTEXT + "stripe.error.AuthenticationError: Invalid API Key "
    f"provided: {STRIPE} (account key {AWS}, dsn postgres://payroll:{PG_PASSWORD}@db.internal/pay)\n"
)
QUERY = f"fatal: Authentication failed for 'https://x-access-token:{GITHUB}@github.com/acme/pay.git/' key {STRIPE}"


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeSlack]:
    slack = FakeSlack(channels=(CHANNEL, DM), users=[User(ALICE, "alice"), User(BOB, "bob")])
    await slack.start()
    yield slack
    await slack.stop()


class Workspace:
    """People in the fake workspace, talking to the served errfix; waits on what errfix did."""

    def __init__(self, served: Served, fake: FakeSlack) -> None:
        self.served, self.fake = served, fake
        self.link = EventsLink(fake, served.url("/slack/events"), SECRET, ack_deadline=None)

    async def settled(self, pastes: int) -> None:
        """errfix logged `pastes` pastes in all and no listener is running."""

        async def done() -> bool:
            text = await self.served.metrics()
            seen = metric(text, "errfix_errors_detected_total")
            return seen >= pastes and metric(text, "errfix_events_in_flight") == 0

        await wait_until(done, f"{pastes} pastes handled and nothing in flight")

    async def answer(self, message: dict[str, Any]) -> dict[str, Any]:
        call = await self.fake.wait_for(
            "chat.postMessage", lambda c: c.ok and c.params.get("thread_ts") == message["ts"], timeout=60
        )
        return self.fake.message(str(message["channel"]), str(call.response["ts"]))

    async def responded(self, count: int) -> dict[str, Any]:
        """The newest ephemeral once there are `count` of them."""

        async def enough() -> bool:
            return len(self.fake.ephemerals) >= count

        await wait_until(enough, f"{count} ephemeral messages")
        return self.fake.ephemerals[-1]


def errfix_cli(tmp_path: Path, *args: str) -> str:
    """Run an `errfix` command on the served database, as an operator would; its stdout and stderr."""
    done = subprocess.run(
        [*errfix_command(), *args, "--db", str(tmp_path / "errfix.db")],
        cwd=tmp_path,
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return done.stdout + done.stderr


def kept_files(tmp_path: Path) -> dict[str, bytes]:
    """Every file errfix keeps next to its database: the store, its WAL and shm, the events file
    (and its WAL and shm), the index cache."""
    return {p.name: p.read_bytes() for p in sorted(tmp_path.glob("errfix.db*")) if p.is_file()}


def sent_to_slack(fake: FakeSlack) -> str:
    """Every call errfix made to Slack: method, target and parameters (what it sent, not Slack's answers)."""
    return "\n".join(json.dumps([c.method, c.target, c.params]) for c in fake.calls())


def leaks(where: dict[str, bytes]) -> list[str]:
    return [f"{kind} in {name}" for name, data in where.items() for kind, s in SECRETS.items() if s.encode() in data]


async def test_no_secret_pasted_in_slack_is_kept_logged_exported_or_sent(
    serve: Any,  # noqa: F811  (the fixture imported above)
    fake: FakeSlack,
    tmp_path: Path,
) -> None:
    served: Served = await serve("--http", ERRFIX_LOG_PASTES="1", ERRFIX_LOG_FORMAT="json")
    ws = Workspace(served, fake)
    try:
        # a channel message, a DM and a snippet, each holding all four secrets
        pasted, _ = await ws.link.message(CHANNEL, ALICE, IN_CHANNEL)
        in_channel = await ws.answer(pasted)
        assert RECORD in json.dumps(in_channel["blocks"])
        dm, _ = await ws.link.message(DM, ALICE, IN_DM)
        in_dm = await ws.answer(dm)
        shared, _ = await ws.link.share_file(CHANNEL, ALICE, SNIPPET, name="pay.log")
        assert shared["files"][0]["preview_is_truncated"] is True
        await ws.settled(pastes=3)
        notices = [e for e in fake.ephemerals if "rotate" in e.get("text", "")]
        assert len(notices) == 3 and {n["user"] for n in notices} == {ALICE}

        # Not this error on both answers; This one on the first candidate offered for the channel paste
        shown = len(fake.ephemerals)
        await ws.link.click(CHANNEL, BOB, buttons(in_channel, "errfix_not_this")[0], message_ts=in_channel["ts"])
        offer = await ws.responded(shown + 1)
        [pick, *_] = buttons(offer, "errfix_this_one")
        await ws.link.click(CHANNEL, BOB, pick, message_ts=offer["ts"], ephemeral=True)
        learned = await ws.responded(shown + 2)
        assert learned["text"].startswith("Learned") and "[redacted:aws-access-key]" in learned["text"]
        await ws.link.click(DM, ALICE, buttons(in_dm, "errfix_not_this")[0], message_ts=in_dm["ts"])
        await ws.responded(shown + 3)

        # the App Home lists the public pastes that matched nothing, redacted
        await ws.link.event({"type": "app_home_opened", "user": ALICE, "channel": DM, "tab": "home"})
        home = (await fake.wait_for("views.publish", timeout=60)).params
        listed = json.dumps(home)
        assert "Invalid API Key provided: [redacted:stripe-key]" in listed
        assert "Loss is NaN or Inf at step 1000 (upload key [redacted:aws-access-key]" in listed

        # /errfix with secrets in the query: its results, This one, and Share in channel
        await ws.link.command(CHANNEL, ALICE, "/errfix", QUERY)
        results = await ws.responded(shown + 4)
        assert "x-access-token:[redacted:github-token]@github.com" in json.dumps(results["blocks"])
        await ws.link.click(
            CHANNEL, ALICE, buttons(results, "errfix_this_one")[0], message_ts=results["ts"], ephemeral=True
        )
        await ws.responded(shown + 5)
        [share] = buttons(results, "errfix_share")
        await ws.link.click(CHANNEL, ALICE, share, message_ts=results["ts"], ephemeral=True)
        await wait_until(lambda: _shared(fake), "the shared results in the channel")
        # a This one button from an older errfix, holding a line as pasted: kept as owed work, then learned
        line = f"RuntimeError: key {AWS} token {GITHUB} stripe {STRIPE} dsn postgres://pay:{PG_PASSWORD}@db/pay"
        old = {**button("This one", f"{THIS_ONE}:0", {"r": RECORD, "l": line}), "block_id": "pick"}
        await ws.link.click(CHANNEL, ALICE, old, message_ts=results["ts"], ephemeral=True)
        assert (await ws.responded(shown + 6))["text"].startswith("Learned")
        await ws.settled(pastes=3)
        running = kept_files(tmp_path)  # the WAL as it is while errfix serves

        # what an operator runs
        out_file = tmp_path / "export.jsonl"
        said = {
            "export": errfix_cli(tmp_path, "export", "-o", str(out_file)),
            "learned": errfix_cli(tmp_path, "learned"),
            "learned --json": errfix_cli(tmp_path, "learned", "--json"),
            "audit": errfix_cli(tmp_path, "audit"),
            "audit --json": errfix_cli(tmp_path, "audit", "--json"),
        }
    finally:
        await ws.link.close()
    assert await served.stop() == 0

    exported = out_file.read_text()
    assert "[redacted:aws-access-key]" in exported and "[redacted:github-token]" in exported  # learned aliases
    assert said["learned"].count("[redacted:") >= 4 and "learn-alias" in said["audit"]
    log = served.log.read_bytes()
    assert b"[redacted:aws-access-key]" in log and b"[redacted:url-password]" in log  # pastes were logged
    stored = b"".join(kept_files(tmp_path).values()) + b"".join(running.values())
    for kind in SECRETS:
        assert f"[redacted:{kind}]".encode() in stored, kind  # each kind was kept, as its marker
    for name in ("errfix.db", "errfix.db-events", "errfix.db.index"):
        assert name in running, sorted(running)

    # the test would see them: Slack's copy of what people posted holds every secret
    theirs = json.dumps([fake.messages(CHANNEL), fake.messages(DM), list(fake.files.values())], default=str)
    assert all(s in theirs for s in SECRETS.values())
    places = {
        **{f"{name} (while serving)": data for name, data in running.items()},
        **kept_files(tmp_path),
        "the process log": log,
        "the export": exported.encode(),
        **{f"errfix {cmd}": text.encode() for cmd, text in said.items()},
        "the calls to Slack": sent_to_slack(fake).encode(),
    }
    assert leaks(places) == []
    assert BOT_TOKEN.encode() not in log and SECRET.encode() not in log


async def _shared(fake: FakeSlack) -> bool:
    return any(m.get("bot_id") and "Shared by" in json.dumps(m.get("blocks")) for m in fake.messages(CHANNEL))
