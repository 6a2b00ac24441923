"""The private note errfix sends a person whose paste holds a likely secret (#18).

Pure text from the redactor's kinds: it names what was found, never the secret itself, so the
note is safe to send even where it would be logged.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.core.messages import t


def secret_notice(kinds: Sequence[str], lang: str = "en") -> str:
    """What to tell the author, privately: the kinds found and what they may want to do."""
    named = ", ".join(f"`{kind}`" for kind in kinds)
    return t("secret_one" if len(kinds) == 1 else "secret_many", lang, kinds=named)
