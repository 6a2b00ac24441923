"""Answers as plain text for the terminal (pure). Slack Block Kit, and the short `text` fallbacks
that go with it, live in bot/core/blocks.py."""

from __future__ import annotations

import textwrap

from bot.core.messages import t
from bot.core.views import Diagnosis, MatchView


def _pct(x: float) -> str:
    return f"{round(x * 100)}%"


def confidence_label(score: float, sure: bool, lang: str = "en") -> str:
    return t("match" if sure else "match_unsure_short", lang, pct=_pct(score))


def match_text(m: MatchView, sure: bool = True, max_how: int = 400, lang: str = "en") -> str:
    r = m.record
    out = [f"{r.signature}  [{r.id}]  ({confidence_label(m.score, sure, lang)})"]
    if r.root_cause:
        out.append(textwrap.fill(t("cli_why", lang, cause=r.root_cause), 100, subsequent_indent="     "))
    if m.workarounds:
        out.append(t("cli_fixes", lang))
        for n, w in enumerate(m.workarounds, 1):
            votes = t("cli_team_votes", lang, up=w.votes_up, down=w.votes_down) if (w.votes_up or w.votes_down) else ""
            out.append(f"  {n}. {w.action}  {t('cli_worked', lang, pct=_pct(w.success_rate), votes=votes)}")
            if w.how and w.how.strip() != w.action.strip():
                how = w.how if len(w.how) <= max_how else w.how[: max_how - 1] + "…"
                out.append(textwrap.indent(how, "       "))
    if r.dead_ends:
        out.append(t("cli_dead_ends", lang))
        for d in r.dead_ends:
            out.append(t("cli_dead_end", lang, action=d.action, why=d.why_fails, pct=_pct(d.fail_rate)))
    if r.official_doc_url:
        out.append(t("cli_docs", lang, url=r.official_doc_url))
    return "\n".join(out)


def diagnosis_text(d: Diagnosis, lang: str = "en") -> str:
    if not d.matches:
        return t("cli_no_known_error" if d.is_error else "cli_no_error", lang)
    parts = [t("cli_would_answer" if d.reply else "cli_best_guesses", lang), ""]
    for i, m in enumerate(d.matches):
        parts.append(match_text(m, sure=d.reply and i == 0, lang=lang))
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


def search_text(words: str, results: list[MatchView], lang: str = "en", weak_below: float = 0.0) -> str:
    """`errfix search`: one line per result, best first; those under `weak_below` marked weak."""
    if not results:
        return t("cli_nothing_found", lang, query=words)
    lines = [t("cli_results_for", lang, query=words)]
    for m in results:
        weak = f" ({t('cli_weak', lang)})" if m.score < weak_below else ""
        lines.append(f"  {m.score:.2f}  {m.id}: {m.record.signature[:120]}{weak}")
    return "\n".join(lines)
