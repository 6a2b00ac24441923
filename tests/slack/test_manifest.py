"""deploy/slack-manifest.yml asks for exactly what the code uses: no missing scope, no extra one.

The Web API calls are read from the code (every `client.<method>(…)` in bot/, by its syntax
tree) and priced with the strict fake's scope table, the one that answers `missing_scope`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bot.fakeslack.web_api import CONVERSATION_SCOPES, HISTORY_METHODS, HISTORY_SCOPES, METHOD_SCOPES, manifest_scopes
from bot.slack.listeners import CHANNEL_TYPES

REPO = Path(__file__).resolve().parents[2]
MANIFEST = REPO / "deploy" / "slack-manifest.yml"
BOT = REPO / "bot"

EVENT_SUBSCRIPTIONS = {  # bolt event type → manifest bot events (and the scope each needs)
    "message": {
        "message.channels": "channels:history",
        "message.groups": "groups:history",
        "message.im": "im:history",
        "message.mpim": "mpim:history",
    },
    "app_mention": {"app_mention": "app_mentions:read"},
    "reaction_added": {"reaction_added": "reactions:read"},
    "reaction_removed": {"reaction_removed": "reactions:read"},
    "app_home_opened": {"app_home_opened": ""},
}
APP_TOKEN_METHODS = {"apps.connections.open"}  # the xapp- token's connections:write, not a bot scope
SUBSCRIBED_CHANNEL_TYPES = {
    "message.channels": "channel",
    "message.groups": "group",
    "message.im": "im",
    "message.mpim": "mpim",
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


def sources() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in BOT.rglob("*.py") if "fakeslack" not in p.parts}


def web_api_calls() -> set[str]:
    """Every `client.x_y(…)` / `app.client.x_y(…)` in bot/ as the Web API method `x.y`."""
    called = set()
    for source in sources().values():
        for node in ast.walk(ast.parse(source)):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            owner = node.func.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if name == "client" and not node.func.attr.startswith("_") and node.func.attr != "api_call":
                called.add(node.func.attr.replace("_", "."))
    return called


def test_the_code_calls_these_web_api_methods() -> None:
    # a new call must be priced here and in the fake's table (which is what answers missing_scope)
    assert web_api_calls() == {
        "auth.test",
        "apps.connections.open",
        "chat.postMessage",
        "chat.postEphemeral",
        "chat.update",
        "conversations.replies",
        "users.info",
        "views.publish",
        "files.info",
        "views.open",  # the teach modal (#17)
        "chat.getPermalink",  # the thread a team record was taught in, for its sources; digest links
        "conversations.history",  # a weekly digest errfix may have posted before a crash (#38)
        "users.conversations",  # the App Home's channels of the person looking (#38)
    }


def test_the_manifest_declares_the_teach_shortcut_the_app_listens_for() -> None:
    text = MANIFEST.read_text(encoding="utf-8")
    block = text.split("  shortcuts:\n", 1)[1].split("\noauth_config:", 1)[0]
    assert "type: message" in block and "name: Save as errfix record" in block
    declared = set(re.findall(r"callback_id: (\w+)", block))
    assert declared == {"errfix_teach"}
    code = "\n".join(sources().values())
    assert 'TEACH_SHORTCUT = "errfix_teach"' in code and "app.shortcut(TEACH_SHORTCUT)" in code


def test_manifest_events_are_the_events_the_app_listens_to() -> None:
    code = "\n".join(sources().values())
    registered = set(re.findall(r'app\.event\("(\w+)"\)', code))
    assert registered == set(EVENT_SUBSCRIPTIONS)
    expected = {e for t in registered for e in EVENT_SUBSCRIPTIONS[t]}
    assert listed("bot_events") == expected


def test_every_scope_a_call_needs_is_asked_for_and_every_scope_asked_for_is_used() -> None:
    code = "\n".join(sources().values())
    events = listed("bot_events")
    kinds = {SUBSCRIBED_CHANNEL_TYPES[e] for e in events if e in SUBSCRIBED_CHANNEL_TYPES}
    needed: set[str] = set()
    for method in web_api_calls() - APP_TOKEN_METHODS:
        assert method in METHOD_SCOPES or method in HISTORY_METHODS, f"the fake does not know {method}'s scope"
        # a thread can be read in every kind of channel errfix hears messages from
        needed |= {HISTORY_SCOPES[k] for k in kinds} if method in HISTORY_METHODS else {METHOD_SCOPES[method]}
        if method == "users.conversations":  # its scopes follow the types asked for
            needed |= {CONVERSATION_SCOPES[t] for t in CHANNEL_TYPES.split(",")}
    needed |= {scope for subs in EVENT_SUBSCRIPTIONS.values() for event, scope in subs.items() if event in events}
    if 'app.command("/errfix")' in code:
        needed.add("commands")
    needed.discard("")
    assert listed("bot") == needed
    assert set(manifest_scopes()) == needed  # what the fake's bot token holds
    text = MANIFEST.read_text(encoding="utf-8")
    assert "command: /errfix" in text and "is_enabled: true" in text and "home_tab_enabled: true" in text


def test_a_group_dm_thread_needs_mpim_history() -> None:
    assert HISTORY_SCOPES["mpim"] == "mpim:history" and "mpim:history" in listed("bot")
    assert "message.mpim" in listed("bot_events")
