"""The private note errfix sends a person whose paste holds a likely secret (#18).

Pure text from the redactor's kinds: it names what was found, never the secret itself, so the
note is safe to send even where it would be logged.
"""

from __future__ import annotations

from collections.abc import Sequence


def secret_notice(kinds: Sequence[str]) -> str:
    """What to tell the author, privately: the kinds found and what they may want to do."""
    named = ", ".join(f"`{kind}`" for kind in kinds)
    noun = "secret" if len(kinds) == 1 else "secrets"
    return (
        f":warning: Your message looks like it contains a {noun} ({named}). Only you can see this note. "
        "errfix keeps it redacted, but the message itself is still in Slack: you may want to rotate the "
        "credential and delete the message."
    )
