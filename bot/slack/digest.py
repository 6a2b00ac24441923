"""Posting a channel's digest (#38): at once (`/errfix digest now`) or weekly (`Digests`).

A digest covers the seven days before it is made, with what the channel's members may see (the
store decides: bot/store/channels.py), in the language most of the channel's pasters use, with a
permalink to one thread per error (`chat.getPermalink`).

Weekly digests are posted exactly once per channel and slot, across restarts and crashes, by the
rules answers follow: the slot is claimed in SQLite first; the digest carries the slot in its
message metadata; a claim left without a posted ts (errfix died, Slack failed) is looked for in the
channel's recent history at the next run: found, it is marked posted; not found, it is released
and posted again. `Digests.run_due` is one pass at its clock's time; `digests_forever` runs a pass
every `interval` seconds, its clock and sleep parameters, so tests drive it without waiting.
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.digest_view import DigestData, Thread, digest_blocks, digest_fallback
from bot.core.messages import language
from bot.core.schedule import Schedule, due
from bot.service.async_errfix import AsyncErrfix
from bot.slack.deps import UNCERTAIN, Outbox, Users

DIGEST_EVENT = "errfix_digest"  # the metadata event type of a weekly digest
WEEK = timedelta(days=7)
HISTORY_LOOKBACK = 200  # how many of the channel's latest messages a lost claim is looked for in
log = logging.getLogger("errfix.digest")
Clock = Callable[[], datetime]
Sleep = Callable[[float], Awaitable[None]]


def utc_now() -> datetime:
    return datetime.now(UTC)


async def permalinks(client: AsyncWebClient, threads: list[Thread]) -> dict[Thread, str]:
    """Each thread's permalink; one Slack refuses (deleted, no access) is shown without a link."""
    links: dict[Thread, str] = {}
    for th in dict.fromkeys(threads):
        try:
            resp = await client.chat_getPermalink(channel=th.channel, message_ts=th.ts)
        except SlackApiError as e:
            log.info("no permalink for %s %s: %s", th.channel, th.ts, e.response.get("error") if e.response else e)
            continue
        if link := resp.get("permalink"):
            links[th] = str(link)
    return links


async def channel_language(users: Users, client: AsyncWebClient, data: DigestData) -> str:
    """The language most of the channel's pasters use (their Slack locale), English by default."""
    langs = Counter([language((await users.get(client, u)).locale) for u in data.people])
    return langs.most_common(1)[0][0] if langs else "en"


async def post_digest(
    errfix: AsyncErrfix,
    outbox: Outbox,
    users: Users,
    client: AsyncWebClient,
    schedule: Schedule,
    *,
    channel: str,
    now: datetime,
    slot: str | None = None,
) -> str | None:
    """Post the digest of the week before `now` in `channel`: a weekly one names its `slot` in
    its metadata. The message's ts, or None when errfix is not in the channel."""
    data = await errfix.digest_data(channel, now - WEEK, now)
    lang = await channel_language(users, client, data)
    links = await permalinks(client, data.threads())
    blocks = digest_blocks(data, links, schedule.label(), lang, weekly=slot is not None)
    fields: dict[str, Any] = {"blocks": blocks}
    if slot is not None:
        fields["metadata"] = {"event_type": DIGEST_EVENT, "event_payload": {"slot": slot}}
    return await outbox.post(client, channel=channel, text=digest_fallback(data, lang), **fields)


class Digests:
    """The weekly digests of every channel that asked for one (see the module docstring)."""

    def __init__(
        self,
        errfix: AsyncErrfix,
        outbox: Outbox,
        users: Users,
        client: AsyncWebClient,
        schedule: Schedule,
        *,
        clock: Clock = utc_now,
    ) -> None:
        self.errfix, self.outbox, self.users, self.client = errfix, outbox, users, client
        self.schedule, self.clock = schedule, clock

    async def run_due(self) -> int:
        """One pass: settle claims left from before, then post every digest due now. How many posted."""
        for claim in await self.errfix.unposted_digests():
            found = await self._in_slack(claim.channel, claim.slot)
            if found is not None:
                await self.errfix.digest_posted(claim.channel, claim.slot, found)
            else:
                await self.errfix.release_digest(claim.channel, claim.slot)
        now, posted = self.clock(), 0
        for channel, since in await self.errfix.weekly_channels():
            slot = due(self.schedule, now, datetime.fromisoformat(since.replace("Z", "+00:00")))
            if slot is None or await self.errfix.channel_mode(channel) == "off":
                continue  # not due, or errfix was told to say nothing there
            if not await self.errfix.claim_digest(channel, slot):
                continue
            try:
                ts = await post_digest(
                    self.errfix,
                    self.outbox,
                    self.users,
                    self.client,
                    self.schedule,
                    channel=channel,
                    now=now,
                    slot=slot,
                )
            except (SlackApiError, *UNCERTAIN) as e:  # left claimed: looked for, then posted, at the next pass
                log.warning("weekly digest for %s may not be posted (%s); settled at the next pass", channel, e)
                continue
            await self.errfix.digest_posted(channel, slot, ts or "")  # "": not in the channel, skipped
            posted += bool(ts)
        return posted

    async def post(self, channel: str, now: datetime, slot: str) -> str | None:
        return await post_digest(
            self.errfix, self.outbox, self.users, self.client, self.schedule, channel=channel, now=now, slot=slot
        )

    async def _in_slack(self, channel: str, slot: str) -> str | None:
        """The ts of the weekly digest for `slot` among the channel's latest messages, if posted."""
        try:
            resp = await self.client.conversations_history(
                channel=channel, limit=HISTORY_LOOKBACK, include_all_metadata=True
            )
        except SlackApiError as e:
            log.warning("could not read %s to settle its digest claim: %s", channel, e.response.get("error"))
            return None
        for message in resp.get("messages") or []:
            meta = message.get("metadata") or {}
            if meta.get("event_type") == DIGEST_EVENT and (meta.get("event_payload") or {}).get("slot") == slot:
                return str(message.get("ts"))
        return None


async def digests_forever(digests: Digests, *, interval: float = 30.0, sleep: Sleep = asyncio.sleep) -> None:
    """A pass now, then every `interval` seconds, until cancelled; a pass the store refuses is retried."""
    while True:
        try:
            await digests.run_due()
        except OSError as e:  # Slack unreachable: the claims wait for the next pass
            log.warning("digest pass failed: %s", e)
        await sleep(interval)
