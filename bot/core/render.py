"""Answers as plain text for the terminal (pure). Slack Block Kit, and the short `text` fallbacks
that go with it, live in bot/core/blocks.py."""

from __future__ import annotations

import textwrap

from bot.core.views import Diagnosis, MatchView


def confidence_label(score: float, sure: bool) -> str:
    pct = round(score * 100)
    return f"{pct}% match" if sure else f"{pct}% match, unsure"


def match_text(m: MatchView, sure: bool = True, max_how: int = 400) -> str:
    r = m.record
    out = [f"{r.signature}  [{r.id}]  ({confidence_label(m.score, sure)})"]
    if r.root_cause:
        out.append(textwrap.fill(f"Why: {r.root_cause}", 100, subsequent_indent="     "))
    if m.workarounds:
        out.append("Fixes, best first:")
        for n, w in enumerate(m.workarounds, 1):
            votes = f", team +{w.votes_up}/-{w.votes_down}" if (w.votes_up or w.votes_down) else ""
            out.append(f"  {n}. {w.action}  ({round(w.success_rate * 100)}% worked{votes})")
            if w.how and w.how.strip() != w.action.strip():
                how = w.how if len(w.how) <= max_how else w.how[: max_how - 1] + "…"
                out.append(textwrap.indent(how, "       "))
    if r.dead_ends:
        out.append("Don't bother:")
        for d in r.dead_ends:
            out.append(f"  ✗ {d.action}: {d.why_fails} ({round(d.fail_rate * 100)}% failed)")
    if r.official_doc_url:
        out.append(f"Docs: {r.official_doc_url}")
    return "\n".join(out)


def diagnosis_text(d: Diagnosis) -> str:
    if not d.matches:
        return "No known error recognised." if d.is_error else "No error found in the text."
    head = (
        "errfix would answer this in a channel:" if d.reply else "Not sure enough to answer unprompted; best guesses:"
    )
    parts = [head, ""]
    for i, m in enumerate(d.matches):
        parts.append(match_text(m, sure=d.reply and i == 0))
        parts.append("")
    return "\n".join(parts).rstrip()


def explain_text(d: Diagnosis) -> str:
    ex = d.extracted
    out = [f"is_error: {d.is_error}   reply: {d.reply}   truncated: {ex.truncated}"]
    out.append(f"environment: {', '.join(sorted(ex.env)) or '-'}")
    out.append("error lines (best first):")
    for ln in ex.lines:
        out.append(f"  [{ln.kind} {ln.weight:.2f}] {ln.raw[:200]}")
        out.append(f"      norm: {ln.norm[:200]}")
    out.append("candidates:")
    for m in d.matches:
        parts = "  ".join(f"{k}={v:g}" for k, v in m.parts.items())
        out.append(f"  {m.score:.3f}  {m.id}\n      {parts}\n      signature: {m.record.signature[:160]}")
    if not d.matches:
        out.append("  (none above the floor)")
    return "\n".join(out)


def search_text(words: str, results: list[MatchView]) -> str:
    """`errfix search`: one line per result, best first."""
    if not results:
        return f"Nothing found for “{words}”."
    lines = [f"Results for “{words}”:"]
    for m in results:
        lines.append(f"  {m.score:.2f}  {m.id}: {m.record.signature[:120]}")
    return "\n".join(lines)
