"""Teaching errfix (#17): the checks a team record must pass before it is stored.

The modal (bot/slack/teach_modal.py) and `errfix draft` share the draft (bot/core/draft.py); this module
holds what needs more than the paste: the store's other records (a regex that matches another
record's signature is too broad, or the error is known already) and the regex engines' verdicts,
the same `errfix lint` gives a bundled record (RE2, Python's `re`, the ReDoS check). The problems
are said in `lang` (the catalogue's), because the modal shows them under its boxes.
"""

from __future__ import annotations

from collections.abc import Iterable

import re2

from bot.core.chat import ORDINARY_CHAT
from bot.core.draft import TeachForm
from bot.core.literals import required_atoms
from bot.core.messages import t
from bot.store.lint import python_re_problem
from bot.store.redos import compile_re2, redos_problem

MAX_FIELD = 3000  # Slack's plain_text_input limit; the modal enforces it, the CLI and tests here
REQUIRED = ("error_line", "regex", "fix")  # named by their labels, `teach_label_<field>`


def form_problems(
    form: TeachForm, signatures: Iterable[tuple[str, str]], own_id: str | None = None, lang: str | None = "en"
) -> dict[str, str]:
    """Per field, what is wrong with `form` (empty when it can be stored).

    Args:
        form: what the person confirmed.
        signatures: (id, signature) of every record in the store.
        own_id: the record being edited, whose own signature may match.
        lang: the language (or Slack locale) the problems are said in.
    """
    out: dict[str, str] = {}
    for name in REQUIRED:
        if not getattr(form, name).strip():
            out[name] = t("teach_required", lang, label=t(f"teach_label_{name}", lang))
    for name in ("error_line", "regex", "fix", "root_cause", "how"):
        if len(getattr(form, name)) > MAX_FIELD:
            out[name] = t("teach_too_long", lang, n=MAX_FIELD)
    if "regex" in out or "error_line" in out:
        return out
    why = regex_problem(form.regex.strip(), form.error_line.strip(), signatures, own_id, lang)
    if why:
        out["regex"] = why
    return out


def regex_problem(
    pattern: str, line: str, signatures: Iterable[tuple[str, str]], own_id: str | None = None, lang: str | None = "en"
) -> str | None:
    """Why `pattern` cannot be a team record's regex for `line`, or None."""
    try:
        compiled = compile_re2(pattern)
    except re2.error as e:
        arg = e.args[0] if e.args else ""
        reason = arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
        return t("teach_re2", lang, reason=reason)
    portable = python_re_problem(pattern)
    if portable:
        return t("teach_python_re", lang)
    if compiled.search(line) is None:
        return t("teach_no_match", lang)
    if required_atoms(pattern) is None:
        return t("teach_no_literal", lang)
    redos = redos_problem(pattern, line)
    if redos:
        return t("teach_redos", lang)
    chat = next((c for c in ORDINARY_CHAT if compiled.search(c)), None)
    if chat is not None:
        return t("teach_chat", lang, chat=repr(chat))
    for rid, signature in signatures:
        if rid != own_id and compiled.search(signature):
            return t("teach_known", lang, id=rid)
    return None
