"""Telling a person, privately and once per message, that their paste holds a likely secret (#18).

The check runs on the text errfix read (message, snippets, files); only the kinds go out, in a
chat.postEphemeral to the author, never a public post. `ERRFIX_SECRET_NOTICE=0` turns it off.
"""

from __future__ import annotations

from typing import Any

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.leak_notice import secret_notice
from bot.core.messages import language
from bot.core.redact import redact
from bot.slack.deps import Deps


async def warn_of_secrets(deps: Deps, client: AsyncWebClient, event: dict[str, Any], text: str) -> bool:
    """Send the author the notice when `text` holds a likely secret; True if it was sent.

    Once per message: an edit, or a mention answered after the paste, does not repeat it."""
    user = str(event.get("user") or "")
    if not deps.settings.secret_notice or not user:
        return False
    kinds = redact(text).kinds
    if not kinds:
        return False
    channel, ts = str(event["channel"]), str(event["ts"])
    if not await deps.errfix.first_seen([f"secret-notice:{channel}:{ts}"]):
        return False
    fields: dict[str, Any] = {"thread_ts": event["thread_ts"]} if event.get("thread_ts") else {}
    locale = language((await deps.users.get(client, user)).locale, text)
    try:
        await client.chat_postEphemeral(channel=channel, user=user, text=secret_notice(kinds, locale), **fields)
    except SlackApiError as error:
        code = error.response.get("error") if error.response is not None else None
        deps.logger.warning("errfix: could not tell %s of a secret in their message (%s)", user, code)
        return False
    return True
