"""The whole text of the files a message shares: long pastes arrive as snippets.

Slack puts only a preview of a snippet in the event (its first lines, while a traceback's
exception line is at the end), and in Slack Connect channels only the file's id
(`file_access: check_file_info`). `FileReader` reads the rest with the bot token: a snippet's
`content` from `files.info`, else a GET of `url_private_download`. It reads at most
`max_bytes`; a bigger file is read as its head and its tail (where the exception is), and the
answer says so. Only text-like files are read (snippets, text/*, .log, .py, ...); images and
binaries are skipped. A file errfix cannot read (deleted, no access) is logged once and
skipped: the message's own text, and the preview if there is one, are still matched.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.core.messages import Note, t
from bot.core.redact import redact_text

MAX_BYTES = 1_000_000
TAIL_SHARE = 0.75  # of a file read in part, the share taken from its end
HARD_CAP = 32_000_000  # a server that ignores Range: read no further than this
RATE_LIMIT_RETRIES, MAX_RETRY_AFTER = 3, 30.0  # a download answered 429 waits Retry-After
TEXT_FILETYPES = frozenset(
    {"text", "python", "log", "javascript", "typescript", "shell", "bash", "json", "yaml", "toml", "markdown"}
    | {"diff", "java", "kotlin", "c", "cpp", "csharp", "go", "rust", "ruby", "php", "sql", "xml", "csv"}
    | {"dockerfile", "ini", "perl", "r", "scala", "swift", "post", "space"}
)
TEXT_SUFFIXES = (".txt", ".log", ".out", ".err", ".py", ".trace", ".tb", ".json", ".yaml", ".yml", ".md", ".csv")
TEXT_MIMETYPES = ("text/", "application/json", "application/x-yaml", "application/x-sh", "application/xml")
PREVIEW_NOTE = t("note_preview", "en")


@dataclass(frozen=True)
class Paste:
    """What to match for a message: its text and its files' texts, and a note for the answer
    when some of it could not be read in full."""

    text: str
    notes: tuple[Note, ...] = ()


def text_like(file: dict[str, Any]) -> bool:
    """A snippet, or a file whose type, mimetype or name says it is text."""
    mimetype = str(file.get("mimetype") or "").lower()
    if mimetype.startswith(("image/", "video/", "audio/")):
        return False
    name = str(file.get("name") or file.get("title") or "").lower()
    return (
        file.get("mode") == "snippet"
        or str(file.get("filetype") or "").lower() in TEXT_FILETYPES
        or mimetype.startswith(TEXT_MIMETYPES)
        or name.endswith(TEXT_SUFFIXES)
    )


def needs_reading(file: dict[str, Any]) -> bool:
    """Slack Connect's bare ids, and text files whose event shows only part of them."""
    if file.get("file_access") == "check_file_info":
        return True
    shown = file.get("plain_text") or file.get("preview")
    return text_like(file) and (not shown or bool(file.get("preview_is_truncated")))


def _join(head: bytes, tail: bytes) -> bytes:
    """A file's head and tail, each cut at a line end, with a mark where the middle was."""
    head = head[: head.rfind(b"\n") + 1] or head
    tail = tail[tail.find(b"\n") + 1 :] or tail
    return head.rstrip(b"\n") + b"\n[...]\n" + tail


def head_and_tail(data: bytes, limit: int) -> tuple[bytes, bool]:
    """`data` itself when it fits in `limit` bytes, else its head and its tail (True: only
    part of it)."""
    if len(data) <= limit:
        return data, False
    tail_size = int(limit * TAIL_SHARE)
    return _join(data[: limit - tail_size], data[-tail_size:]), True


def _size(value: object) -> str:
    size = int(value) if isinstance(value, int | float | str) and str(value).isdigit() else 0
    return f"{size / 1_000_000:.1f} MB" if size >= 100_000 else f"{size / 1_000:.0f} kB"


class FileReader:
    """Reads shared files with the bot token (see the module docstring)."""

    def __init__(
        self,
        logger: logging.Logger,
        *,
        max_bytes: int = MAX_BYTES,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.logger, self.max_bytes, self.sleep = logger, max_bytes, sleep
        self._warned: set[str] = set()

    async def paste(self, client: AsyncWebClient, event: dict[str, Any]) -> Paste:
        """The message's text followed by each file's text (whole, in part, or its preview)."""
        parts = [str(event.get("text") or "")]
        notes: list[Note] = []
        for file in event.get("files") or []:
            if not isinstance(file, dict):
                continue
            read = await self.read(client, file) if needs_reading(file) else None
            if read is not None:
                text, partial, info = read
                parts.append(text)
                if partial:
                    name = redact_text(str(info.get("name") or info.get("title") or ""))  # shown, kept (#18)
                    size = _size(info.get("size"))
                    notes.append(
                        Note("note_partial", (("name", name), ("size", size)))
                        if name
                        else Note("note_partial_unnamed", (("size", size),))
                    )
                continue
            shown = file.get("plain_text") or file.get("preview") or ""
            if shown and (text_like(file) or file.get("plain_text")):
                parts.append(str(shown))
                if not file.get("plain_text") and file.get("preview_is_truncated"):
                    notes.append(Note("note_preview"))
        return Paste("\n".join(p for p in parts if p), tuple(notes))

    async def read(self, client: AsyncWebClient, file: dict[str, Any]) -> tuple[str, bool, dict[str, Any]] | None:
        """(text, read only in part, files.info's file) of a text file; None if it is not text
        or cannot be read (logged once per file)."""
        file_id = str(file.get("id") or "")
        if not file_id:
            return None
        try:
            answer = await client.files_info(file=file_id)
        except SlackApiError as error:
            self._skip(file_id, str(error.response.get("error") if error.response is not None else "error"))
            return None
        info = answer.get("file") or {}
        if not isinstance(info, dict) or not text_like(info):
            return None
        content = answer.get("content")
        if isinstance(content, str) and content and not answer.get("is_truncated"):
            data, partial = head_and_tail(content.encode(), self.max_bytes)
        else:
            url = str(info.get("url_private_download") or info.get("url_private") or "")
            fetched = await self._download(client, file_id, url, info) if url else None
            if fetched is None:
                return None
            data, partial = fetched
        if b"\x00" in data:
            return None  # a binary with a text-like name
        return data.decode("utf-8", "replace"), partial, info

    async def _download(
        self, client: AsyncWebClient, file_id: str, url: str, info: dict[str, Any]
    ) -> tuple[bytes, bool] | None:
        """The file's bytes (head and tail past `max_bytes`), with the bot token. Slack answers
        a request it does not accept with a sign-in page (HTML, status 200): that is a skip."""
        headers = {"Authorization": f"Bearer {client.token}"}
        size = int(info.get("size") or 0)
        tail = int(self.max_bytes * TAIL_SHARE)
        try:
            async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=60)) as http:
                if size > self.max_bytes:
                    head = await self._get(http, url, headers, f"bytes=0-{self.max_bytes - tail - 1}", info)
                    end = await self._get(http, url, headers, f"bytes=-{tail}", info)
                    if head is None or end is None:
                        return None
                    for body, ranged in (head, end):
                        if not ranged:  # the server ignored Range and sent the whole file
                            return head_and_tail(body, self.max_bytes)
                    return _join(head[0], end[0]), True
                whole = await self._get(http, url, headers, "", info)
                return None if whole is None else head_and_tail(whole[0], self.max_bytes)
        except (aiohttp.ClientError, TimeoutError) as error:
            self._skip(file_id, type(error).__name__)
            return None

    async def _get(
        self, http: aiohttp.ClientSession, url: str, headers: dict[str, str], byte_range: str, info: dict[str, Any]
    ) -> tuple[bytes, bool] | None:
        """(body, was it the range asked for) of one GET, at most HARD_CAP bytes; None if refused."""
        sent = {**headers, "Range": byte_range} if byte_range else headers
        for attempt in range(RATE_LIMIT_RETRIES + 1):
            async with http.get(url, headers=sent) as resp:
                if resp.status != 429 or attempt == RATE_LIMIT_RETRIES:
                    return await self._body(resp, info, url)
                wait = resp.headers.get("Retry-After", "1")
            await self.sleep(min(float(wait) if wait.isdigit() else 1.0, MAX_RETRY_AFTER))
        return None

    async def _body(self, resp: aiohttp.ClientResponse, info: dict[str, Any], url: str) -> tuple[bytes, bool] | None:
        html = resp.content_type == "text/html" and "html" not in str(info.get("mimetype") or "")
        if resp.status not in (200, 206) or html:
            self._skip(str(info.get("id") or url), "signed out (HTML page)" if html else f"HTTP {resp.status}")
            return None
        body = bytearray()
        async for chunk in resp.content.iter_chunked(65_536):
            body += chunk
            if len(body) >= HARD_CAP:
                break
        return bytes(body), resp.status == 206

    def _skip(self, file_id: str, why: str) -> None:
        if file_id not in self._warned:
            self._warned.add(file_id)
            self.logger.warning("errfix: cannot read file %s (%s); matching the message without it", file_id, why)
