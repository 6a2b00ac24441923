"""Teaching errfix (#17): the checks a team record must pass before it is stored.

The modal (bot/slack/teach_modal.py) and `errfix draft` share the draft (bot/core/draft.py); this module
holds what needs more than the paste: the store's other records (a regex that matches another
record's signature is too broad, or the error is known already) and the regex engines' verdicts,
the same `errfix lint` gives a bundled record (RE2, Python's `re`, the ReDoS check).
"""

from __future__ import annotations

from collections.abc import Iterable

import re2

from bot.core.draft import ORDINARY_CHAT, TeachForm
from bot.core.literals import required_atoms
from bot.store.lint import python_re_problem
from bot.store.redos import compile_re2, redos_problem

MAX_FIELD = 3000  # Slack's plain_text_input limit; the modal enforces it, the CLI and tests here
REQUIRED = {"error_line": "Error line", "regex": "Regex", "fix": "Fix that worked"}


def form_problems(form: TeachForm, signatures: Iterable[tuple[str, str]], own_id: str | None = None) -> dict[str, str]:
    """Per field, what is wrong with `form` (empty when it can be stored).

    Args:
        form: what the person confirmed.
        signatures: (id, signature) of every record in the store.
        own_id: the record being edited, whose own signature may match.
    """
    out: dict[str, str] = {}
    for name, label in REQUIRED.items():
        if not getattr(form, name).strip():
            out[name] = f"{label} is required."
    for name in ("error_line", "regex", "fix", "root_cause", "how"):
        if len(getattr(form, name)) > MAX_FIELD:
            out[name] = f"At most {MAX_FIELD} characters."
    if "regex" in out or "error_line" in out:
        return out
    why = regex_problem(form.regex.strip(), form.error_line.strip(), signatures, own_id)
    if why:
        out["regex"] = why
    return out


def regex_problem(
    pattern: str, line: str, signatures: Iterable[tuple[str, str]], own_id: str | None = None
) -> str | None:
    """Why `pattern` cannot be a team record's regex for `line`, or None."""
    try:
        compiled = compile_re2(pattern)
    except re2.error as e:
        arg = e.args[0] if e.args else ""
        reason = arg.decode("utf-8", "replace") if isinstance(arg, bytes) else str(arg)
        return f"RE2 cannot compile it: {reason}."
    portable = python_re_problem(pattern)
    if portable:
        return "Python's re cannot compile it."
    if compiled.search(line) is None:
        return "It does not match the error line."
    if required_atoms(pattern) is None:
        return "It has no literal text, so it would match almost anything."
    redos = redos_problem(pattern, line)
    if redos:
        return "It may backtrack catastrophically; make it simpler."
    chat = next((c for c in ORDINARY_CHAT if compiled.search(c)), None)
    if chat is not None:
        return f"Too broad: it matches ordinary chat ({chat!r})."
    for rid, signature in signatures:
        if rid != own_id and compiled.search(signature):
            return f"Too broad, or already known: it matches the signature of {rid}."
    return None
