"""What errfix shows or posts of a query or a learned line never holds its secrets (#18): the
`/errfix` echo, its "This one" and "Share in channel" buttons, the "Learned" reply. The real app
over signed HTTP against the strict fake Slack; assertions on every call the fake received."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from slack_sdk.web.async_client import AsyncWebClient

from bot.core.blocks import SHARE, THIS_ONE, button
from bot.core.messages import notes_text
from bot.fakeslack.web_api import BOT_TOKEN, FakeSlack
from bot.slack.snippets import FileReader
from bot.store.store import Store
from tests.slack.conftest import ALICE, CHANNEL, RECORD, Bot, all_text, buttons

# Fake, secret-shaped values, assembled at run time so no whole token sits in the source.
GITHUB = "ghp_" + "R2d8Kq7Lm3Np9Xs4Tv6Wy1Zb5Cf0Hj2Gk8Qe"
STRIPE = "sk_" + "live_" + "Zq4Lm8Rt2Vx7Np3Kd6Wb9Hs1"
QUERY = f"fatal: Authentication failed for 'https://x-access-token:{GITHUB}@github.com/acme/pay.git/' key {STRIPE}"


def sent(fake: FakeSlack) -> str:
    """Everything errfix sent to Slack: each call's parameters."""
    return "\n".join(json.dumps(c.params) for c in fake.calls())


async def test_slash_search_with_secrets_echoes_teaches_and_shares_them_redacted(
    bot: Bot, fake: FakeSlack, read_store: Callable[[], Store]
) -> None:
    assert await bot.command(QUERY) == 200
    await bot.idle()
    results = fake.ephemerals[-1]
    shown = all_text(results)
    assert "https://x-access-token:[redacted:github-token]@github.com" in shown and "[redacted:stripe-key]" in shown
    picks = buttons(results, "errfix_this_one")
    assert picks, shown
    assert json.loads(picks[0]["value"])["l"].startswith("fatal: Authentication failed for 'https://x-access-token:")
    await bot.click({**results, "channel": CHANNEL}, picks[0], ephemeral=True)
    await bot.idle()
    assert fake.ephemerals[-1]["text"].startswith("Learned")
    [alias] = [a for aliases in read_store().learned_aliases().values() for a in aliases]
    assert "[redacted:github-token]" in alias and "[redacted:stripe-key]" in alias
    [share] = buttons(results, "errfix_share")
    await bot.click({**results, "channel": CHANNEL}, share, ephemeral=True)
    await bot.idle()
    [posted] = [m for m in fake.messages(CHANNEL) if m.get("bot_id")]
    assert "[redacted:github-token]" in all_text(posted)
    for secret in (GITHUB, STRIPE):
        assert secret not in sent(fake)


async def test_a_share_button_holding_a_secret_posts_it_redacted(bot: Bot, fake: FakeSlack) -> None:
    """A button from before queries were redacted still holds one: the channel never sees it."""
    old = {**button("Share in channel", SHARE, {"q": QUERY}), "block_id": "share"}
    ephemeral = {"channel": CHANNEL, "user": ALICE, "ts": fake.next_ts()}
    assert await bot.click(ephemeral, old, ephemeral=True) == 200
    await bot.idle()
    [posted] = [m for m in fake.messages(CHANNEL) if m.get("bot_id")]
    assert "[redacted:stripe-key]" in all_text(posted)
    assert GITHUB not in sent(fake) and STRIPE not in sent(fake)


async def test_a_this_one_button_holding_a_secret_answers_with_the_line_redacted(
    bot: Bot, fake: FakeSlack, read_store: Callable[[], Store]
) -> None:
    line = f"stripe.error.AuthenticationError: Invalid API Key provided: {STRIPE}"
    old = {**button("This one", f"{THIS_ONE}:0", {"r": RECORD, "l": line}), "block_id": "pick"}
    ephemeral = {"channel": CHANNEL, "user": ALICE, "ts": fake.next_ts()}
    assert await bot.click(ephemeral, old, ephemeral=True) == 200
    await bot.idle()
    said = fake.ephemerals[-1]["text"]
    assert said.startswith("Learned") and "Invalid API Key provided: [redacted:stripe-key]" in said
    assert read_store().learned_aliases() == {RECORD: [line.replace(STRIPE, "[redacted:stripe-key]")]}
    assert STRIPE not in sent(fake)


async def test_a_partly_read_file_named_with_a_secret_is_noted_with_the_name_redacted(fake: FakeSlack) -> None:
    key = "AKIA" + "R7QX2M4P9T3W8Z5N"
    log = ("step 1: fine\n" * 400 + "RuntimeError: Loss is NaN or Inf at step 1000\n").encode()
    shared = fake.add_file(ALICE, log, name=f"upload-{key}.log", filetype="text")
    client = AsyncWebClient(token=BOT_TOKEN, base_url=fake.base_url)
    reader = FileReader(logging.getLogger("errfix.test"), max_bytes=2_000)  # this test's own budget: read in part
    paste = await reader.paste(client, {"text": "", "files": [shared]})
    assert "Loss is NaN" in paste.text
    note = notes_text(paste.notes, "en")
    assert note.startswith("upload-[redacted:aws-access-key].log is ") and key not in note
