"""Answers as Slack Block Kit dicts (pure: no slack imports, no I/O).

Every builder keeps Slack's limits: at most 50 blocks (100 on the Home tab), at most 3,000
characters per text object, a payload well under Slack's ~13k `msg_blocks_too_long`, button
values under 2,000 characters. Long texts are cut with "…"; the full record stays one
`/errfix ID` away. Text from records and users is escaped (`&`, `<`, `>`) before it goes into
mrkdwn, so a traceback's `<module>` shows as typed and nobody can smuggle in `<!channel>`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from bot.core.views import MatchView, WorkaroundView

Block = dict[str, Any]

MAX_BLOCKS = 50
MAX_HOME_BLOCKS = 100
MAX_TEXT = 3_000
MAX_HEADER = 150
MAX_JSON = 11_000  # Slack refuses ~13k characters of blocks with msg_blocks_too_long
MAX_FALLBACK = 3_000  # the `text` that goes with blocks (`*_fallback`): notifications, screen readers
MAX_VALUE = 2_000

# action_id prefixes (an actions block needs unique action ids, so per-item ones get a suffix)
VOTE_UP, VOTE_DOWN, NOT_THIS, SHARE, THIS_ONE = (
    "errfix_vote_up",
    "errfix_vote_down",
    "errfix_not_this",
    "errfix_share",
    "errfix_this_one",
)

USAGE = (
    "*errfix* finds the fix for a pasted error.\n"
    "• `/errfix loss nan`: search the known errors\n"
    "• `/errfix pytorch/loss-nan-step`: one record in full\n"
    "• `/errfix stats`: this team's numbers\n"
    "• `/errfix help`: this text\n"
    "Paste a traceback in a channel I'm in and I answer in its thread when I'm sure; "
    "mention me (@errfix) to get my best guesses anyway."
)


@dataclass(frozen=True)
class HomeSummary:
    """What the App Home shows: (id, signature, count), (id, action, worked), (line, when)."""

    top_errors: list[tuple[str, str, int]] = field(default_factory=list)
    top_fixes: list[tuple[str, str, int]] = field(default_factory=list)
    unmatched: list[tuple[str, str]] = field(default_factory=list)


# ---- text helpers ---------------------------------------------------------------------------


def escape(text: str) -> str:
    """Slack's three control characters, escaped for any mrkdwn or fallback text."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def cut(text: str, limit: int) -> str:
    """`text` in at most `limit` characters, ending in "…" when it was longer.

    Never splits an escape like `&amp;` (the cut moves before it).
    """
    if limit <= 0:
        return ""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    amp = head.rfind("&", max(0, len(head) - 4))
    if amp != -1 and ";" not in head[amp:]:
        head = head[:amp]
    return head.rstrip() + "…"


def section(text: str) -> Block:
    return {"type": "section", "text": {"type": "mrkdwn", "text": cut(text, MAX_TEXT)}}


def context(*texts: str) -> Block:
    return {"type": "context", "elements": [{"type": "mrkdwn", "text": cut(t, MAX_TEXT)} for t in texts[:10] if t]}


def header(text: str) -> Block:
    return {"type": "header", "text": {"type": "plain_text", "text": cut(text, MAX_HEADER), "emoji": True}}


def button(text: str, action_id: str, value: dict[str, Any], style: str | None = None) -> Block:
    raw = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    if len(raw) > MAX_VALUE:
        raise ValueError(f"button value of {len(raw)} characters is over Slack's {MAX_VALUE}")
    b: Block = {"type": "button", "text": {"type": "plain_text", "text": text}, "action_id": action_id, "value": raw}
    if style:
        b["style"] = style
    return b


def actions(block_id: str, *buttons: Block) -> Block:
    return {"type": "actions", "block_id": block_id, "elements": list(buttons)}


def size(blocks: Sequence[Block]) -> int:
    return len(json.dumps(list(blocks), ensure_ascii=False))


def fits(blocks: Sequence[Block], max_blocks: int = MAX_BLOCKS) -> bool:
    return len(blocks) <= max_blocks and size(blocks) <= MAX_JSON


def smallest_fit(builds: Sequence[Callable[[], list[Block]]], max_blocks: int = MAX_BLOCKS) -> list[Block]:
    """The first (richest) build that fits Slack's limits; the last one, cut to the block limit, else."""
    for build in builds:
        blocks = build()
        if fits(blocks, max_blocks):
            return blocks
    return blocks[:max_blocks]


def link(url: str | None, label: str) -> str:
    if not url or not url.startswith(("https://", "http://")) or any(c in url for c in "<>| \n"):
        return ""
    return f"<{url}|{label}>"


def pct(x: float) -> str:
    return f"{round(x * 100)}%"


# ---- locale ---------------------------------------------------------------------------------


def is_zh(locale: str | None) -> bool:
    return bool(locale) and str(locale).lower().replace("_", "-").startswith("zh")


def signature_of(view: MatchView, locale: str) -> str:
    r = view.record
    return r.signature_zh if is_zh(locale) and r.signature_zh else r.signature


def root_cause_of(view: MatchView, locale: str) -> str:
    r = view.record
    return r.root_cause_zh if is_zh(locale) and r.root_cause_zh else r.root_cause


def action_of(view: MatchView, w: WorkaroundView, locale: str) -> str:
    zh = view.record.workarounds_zh
    if is_zh(locale) and w.index < len(zh) and zh[w.index].strip():
        return zh[w.index]
    return w.action


# ---- an answer ------------------------------------------------------------------------------


def how_sure(score: float, sure: bool) -> str:
    return f"{pct(score)} match" if sure else f"{pct(score)} match, unsure: my best guess"


def votes_label(w: WorkaroundView) -> str:
    return f"{pct(w.success_rate)} worked · :+1: {w.votes_up} · :-1: {w.votes_down}"


def _workaround(view: MatchView, n: int, w: WorkaroundView, locale: str, max_how: int, buttons: bool) -> list[Block]:
    action = action_of(view, w, locale)
    text = f"*{n}.* {escape(cut(action, 600))}\n_{votes_label(w)}_"
    how = w.how.strip()
    if max_how and how and how != w.action.strip() and not (is_zh(locale) and action != w.action):
        text += "\n>" + escape(cut(how, max_how)).replace("\n", "\n>")
    out = [section(text)]
    if buttons:
        value = {"r": view.id, "w": w.wkey}
        out.append(
            actions(
                f"wk:{w.index}",
                button("Worked", f"{VOTE_UP}:{w.index}", value, "primary"),
                button("Didn't work", f"{VOTE_DOWN}:{w.index}", value),
            )
        )
    return out


def _dead_ends(view: MatchView, limit: int) -> list[Block]:
    ends = view.record.dead_ends[:limit]
    if not ends:
        return []
    lines = [
        f"• ~{escape(cut(d.action, 300))}~ {escape(cut(d.why_fails, 400))} ({pct(d.fail_rate)} failed)" for d in ends
    ]
    return [section("*Don't bother:*\n" + "\n".join(lines))]


def _answer(
    view: MatchView,
    sure: bool,
    locale: str,
    others: Sequence[MatchView],
    note: str,
    max_fixes: int,
    max_how: int,
    max_dead: int,
    buttons: bool,
) -> list[Block]:
    r = view.record
    title = escape(cut(signature_of(view, locale), 800))
    blocks = [section(f"*{title}*\n{how_sure(view.score, sure)} · `{escape(r.id)}`")]
    cause = root_cause_of(view, locale)
    if cause:
        blocks.append(section(f"*Why:* {escape(cut(cause, 1200))}"))
    if view.workarounds:
        blocks.append(section("*Fixes, best first:*"))
    for n, w in enumerate(view.workarounds[:max_fixes], 1):
        blocks += _workaround(view, n, w, locale, max_how, buttons)
    blocks += _dead_ends(view, max_dead)
    more = len(view.workarounds) - max_fixes
    foot = [
        link(r.official_doc_url, "Official docs"),
        f"{more} more fix{'es' if more > 1 else ''} and the full record: `/errfix {escape(r.id)}`"
        if more > 0
        else f"Full record: `/errfix {escape(r.id)}`",
    ]
    blocks.append(context(" · ".join(t for t in foot if t)))
    if others:
        also = ", ".join(f"`{escape(o.id)}` {escape(cut(o.record.signature, 80))} ({pct(o.score)})" for o in others[:3])
        blocks.append(context(f"Also possible: {also}"))
    if note:
        blocks.append(context(escape(note)))
    if buttons:
        blocks.append(actions("answer", button("Not this error", NOT_THIS, {"r": r.id}, "danger")))
    return blocks


def answer_blocks(
    view: MatchView,
    *,
    sure: bool,
    locale: str = "en",
    others: Sequence[MatchView] = (),
    note: str = "",
    buttons: bool = True,
) -> list[Block]:
    """The thread answer: signature and how sure, cause, ranked fixes with votes, dead ends, docs."""
    budgets = [(5, 400, 5), (5, 200, 3), (3, 120, 2), (3, 0, 1), (1, 0, 0)]
    return smallest_fit([partial(_answer, view, sure, locale, others, note, f, h, d, buttons) for f, h, d in budgets])


def answer_fallback(view: MatchView, *, sure: bool, locale: str = "en") -> str:
    """The `text` fallback (notifications, screen readers) for an answer."""
    top = view.workarounds[0] if view.workarounds else None
    fix = f" Top fix: {cut(action_of(view, top, locale), 300)}" if top else ""
    return cut(escape(f"{signature_of(view, locale)} ({how_sure(view.score, sure)}).{fix}"), MAX_FALLBACK)


def rejected_blocks(view: MatchView, user_id: str) -> list[Block]:
    """The answer after someone said "Not this error"."""
    return [
        section(f"~{escape(cut(view.record.signature, 800))}~"),
        context(
            f"<@{user_id}> marked this as *not this error*; "
            f"errfix will rank `{escape(view.id)}` lower for pastes like it. "
            "Know the right one? Find it with `/errfix some words` and press *This one*."
        ),
    ]


def no_match_blocks() -> list[Block]:
    return [
        section(
            "I don't know this error yet. Try `/errfix` with a few words from it to search; "
            "if you find the fix, it can become a record."
        )
    ]


# ---- /errfix ----------------------------------------------------------------------------------


def usage_blocks() -> list[Block]:
    return [section(USAGE)]


def _record(view: MatchView, locale: str, max_how: int, share: bool) -> list[Block]:
    r = view.record
    blocks = [header(signature_of(view, locale)), context(f"`{escape(r.id)}` · {escape(r.domain or 'no domain')}")]
    cause = root_cause_of(view, locale)
    if cause:
        blocks.append(section(f"*Why:* {escape(cause)}"))
    if view.workarounds:
        blocks.append(section("*Fixes, best first:*"))
    for n, w in enumerate(view.workarounds[:20], 1):
        blocks += _workaround(view, n, w, locale, max_how, buttons=False)
    blocks += _dead_ends(view, 10)
    if docs := link(r.official_doc_url, "Official docs"):
        blocks.append(context(docs))
    if share:
        blocks.append(actions("share", button("Share in channel", SHARE, {"id": r.id})))
    return blocks


def record_blocks(view: MatchView, *, locale: str = "en", share: bool = True) -> list[Block]:
    """`/errfix ID`: the whole record, `how` in full as far as Slack's limits allow."""
    return smallest_fit([partial(_record, view, locale, h, share) for h in (2_900, 1_200, 500, 200, 0)])


def record_fallback(view: MatchView, locale: str = "en") -> str:
    """The `text` fallback for a record shown by `/errfix ID`."""
    return cut(escape(f"{view.id}: {signature_of(view, locale)}"), MAX_FALLBACK)


def _search(
    query: str, results: Sequence[MatchView], learn_line: str | None, share: bool, max_results: int, max_line: int
) -> list[Block]:
    blocks = [section(f"*Results for “{escape(cut(query, 200))}”:*")]
    line = cut(learn_line, max_line) if learn_line else None
    for i, m in enumerate(results[:max_results]):
        top = m.workarounds[0] if m.workarounds else None
        fix = f"\nTop fix: {escape(cut(top.action, 300))} ({pct(top.success_rate)})" if top else ""
        item = section(f"`{escape(m.id)}` ({pct(m.score)})\n{escape(cut(m.record.signature, 300))}{fix}")
        if line:
            item["accessory"] = button("This one", f"{THIS_ONE}:{i}", {"r": m.id, "l": line})
        blocks.append(item)
    if line:
        blocks.append(context(f"*This one* teaches errfix that “{escape(cut(line, 200))}” is that error."))
    blocks.append(context("Details of one: `/errfix ID`"))
    if share:
        blocks.append(actions("share", button("Share in channel", SHARE, {"q": cut(query, 500)})))
    return blocks


def search_blocks(
    query: str, results: Sequence[MatchView], *, learn_line: str | None = None, share: bool = True
) -> list[Block]:
    """Search results; "This one" buttons teach errfix that `learn_line` means the picked record."""
    if not results:
        return [section(f"Nothing found for “{escape(cut(query, 200))}”."), *usage_blocks()]
    budgets = [(10, 400), (5, 400), (5, 150), (3, 100), (1, 60)]
    return smallest_fit([partial(_search, query, results, learn_line, share, n, w) for n, w in budgets])


def search_fallback(query: str, results: Sequence[MatchView]) -> str:
    """The `text` fallback for search results: the ids found."""
    if not results:
        return escape(f"Nothing found for “{cut(query, 200)}”.")
    return cut(escape(f"Results for “{cut(query, 200)}”: " + ", ".join(m.id for m in results)), MAX_FALLBACK)


def stats_blocks(stats: dict[str, Any]) -> list[Block]:
    domains = ", ".join(f"{escape(d or '(none)')} {n}" for d, n in list(stats.get("by_domain", {}).items())[:15])
    return [
        section(
            f"*errfix for this team*\n"
            f"Known errors: {stats.get('records', 0)} ({domains})\n"
            f"Votes: :+1: {stats.get('votes_up', 0)} · :-1: {stats.get('votes_down', 0)}\n"
            f"Answers given: {stats.get('replies', 0)} · learned aliases: {stats.get('learned_aliases', 0)}\n"
            f"This week: {stats.get('pastes_week', 0)} pastes, {stats.get('answered_week', 0)} answered, "
            f"{stats.get('unmatched_week', 0)} matched nothing"
        )
    ]


# ---- App Home ---------------------------------------------------------------------------------


def home_blocks(summary: HomeSummary) -> list[Block]:
    blocks: list[Block] = [header("errfix"), section(USAGE)]
    blocks.append(header("Most frequent errors this week"))
    if summary.top_errors:
        rows = [f"• *{n}×* `{escape(rid)}` {escape(cut(sig, 150))}" for rid, sig, n in summary.top_errors]
        blocks.append(section("\n".join(rows)))
    else:
        blocks.append(context("No matched pastes this week."))
    blocks.append(header("Fixes that worked most this week"))
    if summary.top_fixes:
        rows = [f"• :+1: {up} `{escape(rid)}`: {escape(cut(action, 200))}" for rid, action, up in summary.top_fixes]
        blocks.append(section("\n".join(rows)))
    else:
        blocks.append(context("No fixes voted up this week: press *Worked* on an answer."))
    blocks.append(header("Recent pastes that matched nothing"))
    if summary.unmatched:
        rows = [f"• `{escape(cut(line, 200))}` ({when[:10]})" for line, when in summary.unmatched]
        blocks.append(section("\n".join(rows)))
        blocks.append(context("Candidates for new records."))
    else:
        blocks.append(context("Nothing unmatched recently."))
    return smallest_fit([lambda: blocks], MAX_HOME_BLOCKS)


def home_view(summary: HomeSummary) -> dict[str, Any]:
    return {"type": "home", "blocks": home_blocks(summary)}
