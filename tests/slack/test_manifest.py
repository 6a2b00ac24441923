"""deploy/slack-manifest.yml asks for exactly what the code uses: no missing scope, no extra one."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "deploy" / "slack-manifest.yml"
SLACK = REPO / "bot" / "slack"

EVENT_SUBSCRIPTIONS = {  # bolt event type → manifest bot events (and the scope each needs)
    "message": {"message.channels": "channels:history", "message.groups": "groups:history", "message.im": "im:history"},
    "app_mention": {"app_mention": "app_mentions:read"},
    "reaction_added": {"reaction_added": "reactions:read"},
    "reaction_removed": {"reaction_removed": "reactions:read"},
    "app_home_opened": {"app_home_opened": ""},
}
METHOD_SCOPES = {
    "chat_postMessage": "chat:write",
    "chat_update": "chat:write",
    "users_info": "users:read",
    "conversations_replies": "",
    "views_publish": "",  # covered by the *:history scopes / none needed
    "auth_test": "",
    "apps_connections_open": "",  # no bot scope (the app token has connections:write)
}


def listed(key: str) -> set[str]:
    """The `- item` lines under `key:` in the manifest."""
    lines = MANIFEST.read_text(encoding="utf-8").splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == f"{key}:")
    items = set()
    for ln in lines[start + 1 :]:
        m = re.match(r"^\s+- ([\w:.]+)\s*$", ln)
        if not m:
            break
        items.add(m.group(1))
    return items


def source() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in SLACK.glob("*.py") if p.name != "fake_api.py")


def test_manifest_events_are_the_events_the_app_listens_to() -> None:
    registered = set(re.findall(r'app\.event\("(\w+)"\)', source()))
    assert registered == set(EVENT_SUBSCRIPTIONS)
    expected = {e for t in registered for e in EVENT_SUBSCRIPTIONS[t]}
    assert listed("bot_events") == expected


def test_manifest_scopes_are_the_scopes_the_app_needs() -> None:
    code = source()
    called = set(re.findall(r"client\.(\w+)\(", code))
    assert called <= set(METHOD_SCOPES), f"a Web API call without a known scope: {called - set(METHOD_SCOPES)}"
    needed = {METHOD_SCOPES[m] for m in called}
    needed |= {scope for subs in EVENT_SUBSCRIPTIONS.values() for scope in subs.values()}
    if 'app.command("/errfix")' in code:
        needed.add("commands")
    if 'event.get("files")' in code:  # file_share snippets are read from the event's file objects
        needed.add("files:read")
    needed.discard("")
    assert listed("bot") == needed
    text = MANIFEST.read_text(encoding="utf-8")
    assert "command: /errfix" in text and "is_enabled: true" in text and "home_tab_enabled: true" in text
