"""The weekly digest and a channel's settings as Block Kit (#38), pure like bot/core/blocks.py.

`DigestData` is what the store found for one channel's week (only what that channel's members may
see: public channels' pastes and the channel's own); `digest_blocks` renders it within Slack's
limits, in English or Chinese; `here_text` says a channel's mode and digest. Links are built by
the adapter (it knows the workspace's permalinks) and passed in as `links`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.core.blocks import MAX_BLOCKS, button, context, cut, escape, header, section, smallest_fit
from bot.core.messages import t
from bot.core.teach_view import TEACH_OPEN

MODES = ("auto", "mention", "off")
Block = dict[str, Any]


@dataclass(frozen=True)
class Thread:
    """One message a digest line points at: where it is."""

    channel: str
    ts: str


@dataclass(frozen=True)
class DigestData:
    """One channel's week: counts and the lists the digest shows, each longest first."""

    since: str
    until: str
    pastes: int = 0
    answered: int = 0
    top_errors: list[tuple[str, str, int, Thread]] = field(default_factory=list)  # id, signature, n
    top_fixes: list[tuple[str, str, int]] = field(default_factory=list)  # id, action, worked
    unanswered: list[tuple[str, int, Thread]] = field(default_factory=list)  # line, n, latest paste
    saved: list[str] = field(default_factory=list)  # records the team saved this week
    voted: list[tuple[str, int, int]] = field(default_factory=list)  # id, up, down
    people: list[str] = field(default_factory=list)  # who pasted in the channel (their language)

    def threads(self) -> list[Thread]:
        """Every message the digest links to (the adapter fetches their permalinks)."""
        return [th for *_, th in self.top_errors] + [th for *_, th in self.unanswered]


@dataclass(frozen=True)
class ChannelView:
    """A channel's settings as shown: its mode, whether the digest is weekly, who changed it."""

    channel: str
    mode: str = "auto"
    weekly: bool = False
    changed_by: str = ""
    changed_at: str = ""


def _link(url: str | None, label: str) -> str:
    return f"<{url}|{escape(label)}>" if url else escape(label)


def digest_blocks(
    data: DigestData, links: Mapping[Thread, str], schedule: str, lang: str = "en", *, weekly: bool = True
) -> list[Block]:
    """The digest: the week's numbers, most frequent errors (one thread each), fixes that worked,
    errors pasted again that no record answers (with "Save as errfix record"), the team's records."""
    head = [
        header(t("digest_title", lang)),
        context(t("digest_period", lang, since=data.since[:10], until=data.until[:10])),
        section(t("digest_counts", lang, pastes=data.pastes, answered=data.answered)),
    ]
    errors: list[Block] = []
    if data.top_errors:
        rows = [
            f"• *{n}×* `{escape(rid)}` {escape(cut(sig, 120))} · {_link(links.get(th), t('digest_thread', lang))}"
            for rid, sig, n, th in data.top_errors
        ]
        errors = [section(t("digest_top_errors", lang) + "\n" + "\n".join(rows))]
    fixes: list[Block] = []
    if data.top_fixes:
        rows = [f"• :+1: {up} `{escape(rid)}`: {escape(cut(action, 160))}" for rid, action, up in data.top_fixes]
        fixes = [section(t("digest_top_fixes", lang) + "\n" + "\n".join(rows))]
    unanswered: list[Block] = []
    if data.unanswered:
        unanswered.append(section(t("digest_unanswered", lang)))
        for n, (line, count, th) in enumerate(data.unanswered):
            text = f"*{count}×* `{escape(cut(line, 200))}` · {_link(links.get(th), t('digest_latest', lang))}"
            value = {"c": th.channel, "t": th.ts, "m": th.ts}
            # the teach flow's button; action ids are unique per message, so each carries its :n
            save = button(t("teach_title", lang), f"{TEACH_OPEN}:{n}", value)
            unanswered.append(
                {
                    "type": "section",
                    "text": {"type": "mrkdwn", "text": cut(text, 3000)},
                    "accessory": save,
                }
            )
    team: list[Block] = []
    if data.saved or data.voted:
        rows = [f"• {t('digest_saved_one', lang)} `{escape(rid)}`" for rid in data.saved]
        rows += [f"• :+1: {up} :-1: {down} `{escape(rid)}`" for rid, up, down in data.voted]
        team = [section(t("digest_team", lang) + "\n" + "\n".join(rows))]
    if not (errors or fixes or unanswered or team):
        errors = [context(t("digest_quiet", lang))]
    tail = [context(t("digest_footer", lang, when=schedule) if weekly else t("digest_footer_now", lang))]

    def full() -> list[Block]:
        return [*head, *errors, *fixes, *unanswered, *team, *tail]

    def fewer() -> list[Block]:  # the lines with buttons go first when the whole does not fit
        return [*head, *errors, *fixes, *unanswered[:4], *team, *tail]

    def least() -> list[Block]:
        return [*head, *errors, *unanswered[:2], *tail]

    return smallest_fit([full, fewer, least], MAX_BLOCKS)


def digest_fallback(data: DigestData, lang: str = "en") -> str:
    """The notification text of a digest."""
    return t("digest_fallback", lang, pastes=data.pastes, answered=data.answered)


def here_text(view: ChannelView, schedule: str, lang: str = "en") -> str:
    """`/errfix here`: the channel's mode and digest, and the commands that change them."""
    mode = t(f"mode_{view.mode}", lang)
    digest = t("digest_weekly_at", lang, when=schedule) if view.weekly else t("digest_off_short", lang)
    who = f"<@{view.changed_by}>"
    changed = t("here_changed", lang, user=who, when=view.changed_at[:10]) if view.changed_by else ""
    return "\n".join(x for x in (t("here_status", lang, mode=mode, digest=digest), changed, t("here_how", lang)) if x)


def mode_note(mode: str, user: str, lang: str = "en") -> str:
    """The short note in the channel after someone changes its mode."""
    return t("here_note", lang, user=f"<@{user}>", mode=t(f"mode_{mode}", lang), cmd="/errfix here auto")


def home_channels_blocks(channels: list[ChannelView], schedule: str, lang: str = "en") -> list[Block]:
    """The App Home's list of the channels errfix is in (those the person looking is in), with
    each one's mode and digest and the commands to change them."""
    blocks: list[Block] = [header(t("home_channels", lang))]
    if not channels:
        return [*blocks, context(t("home_no_channels", lang))]
    rows = []
    for ch in channels[:40]:
        digest = t("digest_weekly_at", lang, when=schedule) if ch.weekly else t("digest_off_short", lang)
        rows.append(f"• <#{ch.channel}>: {t(f'mode_{ch.mode}', lang)} · {digest}")
    return [*blocks, section("\n".join(rows)), context(t("home_channels_how", lang))]


__all__ = [
    "MODES",
    "ChannelView",
    "DigestData",
    "Thread",
    "digest_blocks",
    "digest_fallback",
    "here_text",
    "home_channels_blocks",
    "mode_note",
]
