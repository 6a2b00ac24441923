"""Words, not a paste: `@errfix kernel keeps dying` or a DM that describes an error (#13).

They get the search `/errfix` runs, and its confidence: a result at or above the search
threshold is answered like a paste (buttons, votes), anything weaker is "not sure" with the
closest records listed, never one of them presented as the answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.core import blocks as kit
from bot.core.messages import Note, is_chinese, language
from bot.core.views import Diagnosis
from bot.service.errfix import search_is_sure
from bot.slack.answers import post_answer
from bot.slack.deps import Deps, answer_key

SHOWN = 3  # closest records listed when errfix is not sure


async def answer_words(
    deps: Deps,
    client: AsyncWebClient,
    event: dict[str, Any],
    words: str,
    diagnosis: Diagnosis,
    notes: Sequence[Note],
    *,
    claim: Callable[[], Awaitable[bool]] | None = None,
) -> bool:
    """Answer `words` in the message's thread; False (nothing posted) when they look like chatter:
    nothing sure, and neither the matcher (`diagnosis`) nor, for Chinese, the keywords found a
    candidate (English small talk shares words with any record's prose; Chinese small talk
    shares no two-character word with them). `claim`, when given, is asked before posting: a
    message it refuses was answered already."""
    results = await deps.errfix.search(words, limit=SHOWN)
    sure = search_is_sure(results, deps.errfix.search_threshold)
    if not results or not (sure or diagnosis.matches or is_chinese(words)):
        return False
    if claim is not None and not await claim():
        return True
    if sure:
        found = dataclasses.replace(diagnosis, reply=True, matches=results[:1])
        await post_answer(deps, client, event=event, diagnosis=found, sure=True, notes=notes)
        return True
    locale = language((await deps.users.get(client, str(event.get("user") or ""))).locale, words)
    channel, ts = str(event["channel"]), str(event["ts"])
    await deps.outbox.post(
        client,
        channel=channel,
        thread_ts=str(event.get("thread_ts") or ts),
        key=answer_key(channel, ts),  # posted once even if the connection drops (a replay finds it)
        text=kit.unsure_words_fallback(results, locale),
        blocks=kit.unsure_words_blocks(words, results, locale),
    )
    return True
