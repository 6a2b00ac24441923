"""`respond()` that honours 429 Retry-After (and retries 5xx and dropped connections).

bolt's own `respond` posts to the response_url with a bare webhook client: no retry handlers,
so a rate-limited slash-command answer or "Share in channel" would be lost. `RetryResponses`
middleware gives every request a `respond` whose webhook client has the app client's retry
handlers; the listeners' code does not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_bolt.context.respond.async_respond import AsyncRespond
from slack_bolt.context.respond.internals import _build_message
from slack_bolt.middleware.async_middleware import AsyncMiddleware
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.webhook import WebhookResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.slack.middleware import Next


class RetryingRespond(AsyncRespond):
    """bolt's `respond`, sent through a webhook client with `retry_handlers`."""

    def __init__(self, *, response_url: str | None, retry_handlers: Sequence[AsyncRetryHandler]) -> None:
        super().__init__(response_url=response_url)
        self.retry_handlers = list(retry_handlers)

    async def __call__(self, text: str | dict[str, Any] = "", **fields: Any) -> WebhookResponse:  # type: ignore[override]
        if self.response_url is None:
            raise ValueError("respond is unsupported here as there is no response_url")
        webhook = AsyncWebhookClient(url=self.response_url, retry_handlers=self.retry_handlers)
        message = _build_message(**text) if isinstance(text, dict) else _build_message(text=text, **fields)
        return await webhook.send_dict(message)


class RetryResponses(AsyncMiddleware):
    def __init__(self, retry_handlers: Sequence[AsyncRetryHandler]) -> None:
        self.retry_handlers = list(retry_handlers)

    async def async_process(self, *, req: AsyncBoltRequest, resp: BoltResponse, next: Next) -> BoltResponse | None:
        if req.context.response_url:
            req.context["respond"] = RetryingRespond(
                response_url=req.context.response_url, retry_handlers=self.retry_handlers
            )
        await next()
        return resp
