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

from bot.core.messages import is_zh, t
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

USAGE = t("usage", "en")


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


def how_sure(score: float, sure: bool, locale: str = "en", kind_only: bool = False) -> str:
    """How sure errfix is of the record; for general advice, that it is only that (no percentage:
    the record is not another instance of this error)."""
    if kind_only:
        return t("kind_only", locale)
    return t("match" if sure else "match_unsure", locale, pct=pct(score))


def votes_label(w: WorkaroundView, locale: str = "en") -> str:
    return t("votes", locale, pct=pct(w.success_rate), up=w.votes_up, down=w.votes_down)


def _workaround(view: MatchView, n: int, w: WorkaroundView, locale: str, max_how: int, buttons: bool) -> list[Block]:
    action = action_of(view, w, locale)
    text = f"*{n}.* {escape(cut(action, 600))}\n_{votes_label(w, locale)}_"
    how = w.how.strip()
    if max_how and how and how != w.action.strip() and not (is_zh(locale) and action != w.action):
        text += "\n>" + escape(cut(how, max_how)).replace("\n", "\n>")
    out = [section(text)]
    if buttons:
        value = {"r": view.id, "w": w.wkey}
        out.append(
            actions(
                f"wk:{w.index}",
                button(t("worked", locale), f"{VOTE_UP}:{w.index}", value, "primary"),
                button(t("did_not_work", locale), f"{VOTE_DOWN}:{w.index}", value),
            )
        )
    return out


def _dead_ends(view: MatchView, limit: int, locale: str) -> list[Block]:
    ends = view.record.dead_ends[:limit]
    if not ends:
        return []
    lines = [
        t(
            "dead_end",
            locale,
            action=escape(cut(d.action, 300)),
            why=escape(cut(d.why_fails, 400)),
            pct=pct(d.fail_rate),
        )
        for d in ends
    ]
    return [section(t("dead_ends", locale) + "\n" + "\n".join(lines))]


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
    line: str,
    seen: str = "",
) -> list[Block]:
    r = view.record
    how = how_sure(view.score, sure, locale, view.kind_only)
    if line:  # the person's own error line heads the answer; the record is named under it
        title = escape(cut(line, 300))
        named = escape(cut(signature_of(view, locale), 200))
        blocks = [section(f"*{title}*\n{named} · {how} · `{escape(r.id)}`")]
    else:
        title = escape(cut(signature_of(view, locale), 800))
        blocks = [section(f"*{title}*\n{how} · `{escape(r.id)}`")]
    cause = root_cause_of(view, locale)
    if cause:
        blocks.append(section(t("why", locale, cause=escape(cut(cause, 1200)))))
    if view.workarounds:
        blocks.append(section(t("fixes", locale)))
    for n, w in enumerate(view.workarounds[:max_fixes], 1):
        blocks += _workaround(view, n, w, locale, max_how, buttons)
    blocks += _dead_ends(view, max_dead, locale)
    more = len(view.workarounds) - max_fixes
    command = f"`/errfix {escape(r.id)}`"
    foot = [
        link(r.official_doc_url, t("docs", locale)),
        t("more_fixes" if more > 1 else "more_fix", locale, n=more, command=command)
        if more > 0
        else t("full_record", locale, command=command),
    ]
    blocks.append(context(" · ".join(part for part in foot if part)))
    if others:
        also = ", ".join(
            f"`{escape(o.id)}` {escape(cut(signature_of(o, locale), 80))} ({pct(o.score)})" for o in others[:3]
        )
        blocks.append(context(t("also_possible", locale, items=also)))
    if note:
        blocks.append(context(escape(note)))
    if seen:  # "Seen before in #channel …": errfix's own mrkdwn (a channel mention, a permalink) (#36)
        blocks.append(context(seen))
    if buttons:
        blocks.append(actions("answer", button(t("not_this", locale), NOT_THIS, {"r": r.id}, "danger")))
    return blocks


def answer_blocks(
    view: MatchView,
    *,
    sure: bool,
    locale: str = "en",
    others: Sequence[MatchView] = (),
    note: str = "",
    buttons: bool = True,
    line: str = "",
    seen: str = "",
) -> list[Block]:
    """The thread answer: the pasted error `line` (redacted; else the record's signature) with the
    record and how sure, cause, ranked fixes with votes, dead ends, docs."""
    budgets = [(5, 400, 5), (5, 200, 3), (3, 120, 2), (3, 0, 1), (1, 0, 0)]
    return smallest_fit(
        [partial(_answer, view, sure, locale, others, note, f, h, d, buttons, line, seen) for f, h, d in budgets]
    )


def answer_fallback(view: MatchView, *, sure: bool, locale: str = "en") -> str:
    """The `text` fallback (notifications, screen readers) for an answer."""
    top = view.workarounds[0] if view.workarounds else None
    fix = t("answer_fallback_fix", locale, fix=cut(action_of(view, top, locale), 300)) if top else ""
    how = how_sure(view.score, sure, locale, view.kind_only)
    return cut(escape(t("answer_fallback", locale, signature=signature_of(view, locale), how=how) + fix), MAX_FALLBACK)


def rejected_blocks(view: MatchView, user_id: str, locale: str = "en") -> list[Block]:
    """The answer after someone said "Not this error"."""
    return [
        section(f"~{escape(cut(signature_of(view, locale), 800))}~"),
        context(t("rejected", locale, user=f"<@{user_id}>", id=f"`{escape(view.id)}`")),
    ]


def rejected_fallback(view: MatchView, locale: str = "en") -> str:
    return t("rejected_fallback", locale, id=escape(view.id))


def no_match_blocks(locale: str = "en") -> list[Block]:
    return [section(t("no_match", locale))]


def no_match_fallback(locale: str = "en") -> str:
    return t("no_match_fallback", locale)


# ---- /errfix ----------------------------------------------------------------------------------


def usage(locale: str = "en") -> str:
    """The help text (`/errfix help`, a DM that is no error, the App Home)."""
    return t("usage", locale)


def usage_blocks(locale: str = "en") -> list[Block]:
    return [section(usage(locale))]


def _record(view: MatchView, locale: str, max_how: int, share: bool) -> list[Block]:
    r = view.record
    domain = escape(r.domain or t("no_domain", locale))
    blocks = [header(signature_of(view, locale)), context(f"`{escape(r.id)}` · {domain}")]
    cause = root_cause_of(view, locale)
    if cause:
        blocks.append(section(t("why", locale, cause=escape(cause))))
    if view.workarounds:
        blocks.append(section(t("fixes", locale)))
    for n, w in enumerate(view.workarounds[:20], 1):
        blocks += _workaround(view, n, w, locale, max_how, buttons=False)
    blocks += _dead_ends(view, 10, locale)
    if docs := link(r.official_doc_url, t("docs", locale)):
        blocks.append(context(docs))
    if share:
        blocks.append(actions("share", button(t("share", locale), SHARE, lang_value({"id": r.id}, locale))))
    return blocks


def record_blocks(view: MatchView, *, locale: str = "en", share: bool = True) -> list[Block]:
    """`/errfix ID`: the whole record, `how` in full as far as Slack's limits allow."""
    return smallest_fit([partial(_record, view, locale, h, share) for h in (2_900, 1_200, 500, 200, 0)])


def record_fallback(view: MatchView, locale: str = "en") -> str:
    """The `text` fallback for a record shown by `/errfix ID`."""
    return cut(escape(f"{view.id}: {signature_of(view, locale)}"), MAX_FALLBACK)


def lang_value(value: dict[str, Any], locale: str) -> dict[str, Any]:
    """A button value that carries the language when it is not English, so whatever the button
    posts (Share in channel) is in the language of the message it was pressed on."""
    return {**value, "lang": "zh"} if is_zh(locale) else value


def _score_label(m: MatchView, weak_below: float, locale: str) -> str:
    return t("result_weak" if m.score < weak_below else "result_score", locale, pct=pct(m.score))


def _search(
    query: str,
    results: Sequence[MatchView],
    learn_line: str | None,
    share: bool,
    locale: str,
    weak_below: float,
    max_results: int,
    max_line: int,
) -> list[Block]:
    shown = escape(cut(query, 200))
    sure = results[0].score >= weak_below
    blocks = [section(t("results_for" if sure else "results_unsure", locale, query=shown))]
    line = cut(learn_line, max_line) if learn_line else None
    for i, m in enumerate(results[:max_results]):
        top = m.workarounds[0] if m.workarounds else None
        fix = (
            "\n" + t("top_fix", locale, fix=escape(cut(action_of(m, top, locale), 300)), pct=pct(top.success_rate))
            if top
            else ""
        )
        signature = escape(cut(signature_of(m, locale), 300))
        item = section(f"`{escape(m.id)}` ({_score_label(m, weak_below, locale)})\n{signature}{fix}")
        if line:
            item["accessory"] = button(t("this_one", locale), f"{THIS_ONE}:{i}", {"r": m.id, "l": line})
        blocks.append(item)
    if line:
        blocks.append(context(t("this_one_hint", locale, line=escape(cut(line, 200)))))
    blocks.append(context(t("details", locale)))
    if share:
        value = lang_value({"q": cut(query, 500)}, locale)
        blocks.append(actions("share", button(t("share", locale), SHARE, value)))
    return blocks


def search_blocks(
    query: str,
    results: Sequence[MatchView],
    *,
    learn_line: str | None = None,
    share: bool = True,
    locale: str = "en",
    weak_below: float = 0.0,
) -> list[Block]:
    """Search results, best first; those scored under `weak_below` are labelled weak (and when the
    first is, the heading says errfix is not sure). "This one" buttons teach errfix that
    `learn_line` means the picked record."""
    if not results:
        return [section(t("nothing_found", locale, query=escape(cut(query, 200)))), *usage_blocks(locale)]
    budgets = [(10, 400), (5, 400), (5, 150), (3, 100), (1, 60)]
    return smallest_fit(
        [partial(_search, query, results, learn_line, share, locale, weak_below, n, w) for n, w in budgets]
    )


def search_fallback(query: str, results: Sequence[MatchView], locale: str = "en", weak_below: float = 0.0) -> str:
    """The `text` fallback for search results: the ids found."""
    shown = cut(query, 200)
    if not results:
        return escape(t("nothing_found", locale, query=shown))
    key = "results_for_fallback" if results[0].score >= weak_below else "results_unsure_fallback"
    return cut(escape(t(key, locale, query=shown, ids=", ".join(m.id for m in results))), MAX_FALLBACK)


def unsure_words_blocks(query: str, results: Sequence[MatchView], locale: str = "en") -> list[Block]:
    """The answer to words that name no error errfix is sure of (`@errfix kernel keeps dying`, a
    DM): "not sure" and the closest records, never one of them presented as the answer."""
    rows = [
        f"• `{escape(m.id)}` {escape(cut(signature_of(m, locale), 200))} ({t('result_weak', locale, pct=pct(m.score))})"
        for m in results[:3]
    ]
    return [
        section(t("unsure_words", locale, query=escape(cut(query, 200))) + "\n" + "\n".join(rows)),
        context(t("unsure_words_hint", locale)),
    ]


def unsure_words_fallback(results: Sequence[MatchView], locale: str = "en") -> str:
    return cut(escape(t("unsure_words_fallback", locale, ids=", ".join(m.id for m in results[:3]))), MAX_FALLBACK)


def stats_blocks(stats: dict[str, Any], locale: str = "en") -> list[Block]:
    none = t("none", locale)
    domains = ", ".join(f"{escape(d or none)} {n}" for d, n in list(stats.get("by_domain", {}).items())[:15])
    counts = {
        "records": stats.get("records", 0),
        "up": stats.get("votes_up", 0),
        "down": stats.get("votes_down", 0),
        "replies": stats.get("replies", 0),
        "aliases": stats.get("learned_aliases", 0),
        "pastes": stats.get("pastes_week", 0),
        "answered": stats.get("answered_week", 0),
        "unmatched": stats.get("unmatched_week", 0),
    }
    return [section(t("stats", locale, domains=domains, **counts))]


def stats_fallback(locale: str = "en") -> str:
    return t("stats_fallback", locale)


# ---- App Home ---------------------------------------------------------------------------------


def home_blocks(summary: HomeSummary, locale: str = "en") -> list[Block]:
    blocks: list[Block] = [header("errfix"), section(usage(locale))]
    blocks.append(header(t("home_top_errors", locale)))
    if summary.top_errors:
        rows = [f"• *{n}×* `{escape(rid)}` {escape(cut(sig, 150))}" for rid, sig, n in summary.top_errors]
        blocks.append(section("\n".join(rows)))
    else:
        blocks.append(context(t("home_no_errors", locale)))
    blocks.append(header(t("home_top_fixes", locale)))
    if summary.top_fixes:
        rows = [f"• :+1: {up} `{escape(rid)}`: {escape(cut(action, 200))}" for rid, action, up in summary.top_fixes]
        blocks.append(section("\n".join(rows)))
    else:
        blocks.append(context(t("home_no_fixes", locale)))
    blocks.append(header(t("home_unmatched", locale)))
    if summary.unmatched:
        rows = [f"• `{escape(cut(line, 200))}` ({when[:10]})" for line, when in summary.unmatched]
        blocks.append(section("\n".join(rows)))
        blocks.append(context(t("home_candidates", locale)))
    else:
        blocks.append(context(t("home_nothing_unmatched", locale)))
    return smallest_fit([lambda: blocks], MAX_HOME_BLOCKS)


def home_view(summary: HomeSummary, locale: str = "en") -> dict[str, Any]:
    return {"type": "home", "blocks": home_blocks(summary, locale)}
