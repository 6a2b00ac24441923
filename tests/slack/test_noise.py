"""Which message events errfix must never answer, and what an edit becomes.

Pure functions of a Slack event: pinned one rule per case, with events shaped as Slack sends them
(`message_changed` carries `message` and `previous_message`), so a dropped condition fails here
rather than only in a slow end-to-end run.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.slack.middleware import dedupe_keys, edited_message, is_noise

BOT = "U_ERRFIX"
PASTE = "RuntimeError: CUDA out of memory"


def message(**fields: Any) -> dict[str, Any]:
    return {"type": "message", "channel": "C1", "channel_type": "channel", "user": "U_ANN", "ts": "1.0"} | fields


def edit(now: dict[str, Any], before_text: str | None = "hello", **fields: Any) -> dict[str, Any]:
    event: dict[str, Any] = {
        "type": "message",
        "subtype": "message_changed",
        "channel": "C1",
        "channel_type": "group",
        "message": now,
    }
    if before_text is not None:
        event["previous_message"] = {"type": "message", "user": "U_ANN", "text": before_text, "ts": "1.0"}
    return event | fields


def edited(text: str = PASTE, **fields: Any) -> dict[str, Any]:
    """The `message` of an edit: the message as it is now."""
    return {"type": "message", "user": "U_ANN", "text": text, "ts": "1.0", "edited": {"user": "U_ANN"}} | fields


def test_an_edit_becomes_the_message_as_it_is_now() -> None:
    event = edited_message(edit(edited(client_msg_id="m1")))
    assert event == {
        "type": "message",
        "user": "U_ANN",
        "text": PASTE,
        "ts": "1.0",
        "client_msg_id": "m1",
        "channel": "C1",
        "channel_type": "group",
        "previous_text": "hello",
    }


def test_an_edit_of_a_file_share_or_broadcast_keeps_its_content_but_not_its_subtype() -> None:
    for subtype in ("file_share", "thread_broadcast"):
        event = edited_message(edit(edited(subtype=subtype)))
        assert event is not None and "subtype" not in event and "edited" not in event


@pytest.mark.parametrize(
    "event",
    [
        pytest.param(edit(edited(), type="app_mention"), id="not a message event"),
        pytest.param(edit(edited(), subtype="message_deleted"), id="another subtype"),
        pytest.param(message(text=PASTE), id="a plain message is not an edit"),
        pytest.param(edit("not a dict"), id="no message object"),  # type: ignore[arg-type]
        pytest.param(edit(edited(bot_id="B1")), id="edited by a bot"),
        pytest.param(edit(edited(bot_profile={"id": "B1"})), id="a bot's profile"),
        pytest.param(edit({"type": "message", "text": PASTE, "ts": "1.0"}), id="no user"),
        pytest.param(edit(edited(subtype="channel_join")), id="now a join"),
        pytest.param(edit(edited(), before_text=PASTE), id="text unchanged: an unfurl or a reaction"),
    ],
)
def test_what_is_not_an_edit_of_a_persons_text(event: dict[str, Any]) -> None:
    assert edited_message(event) is None


def test_an_edit_with_no_previous_message_counts_from_empty_text() -> None:
    event = edited_message(edit(edited(), before_text=None))
    assert event is not None and event["previous_text"] == ""
    assert edited_message(edit(edited(text=""), before_text=None)) is None  # nothing was added


def test_an_edit_whose_previous_text_is_missing_counts_from_empty_text() -> None:
    raw = edit(edited())
    raw["previous_message"] = {"type": "message", "user": "U_ANN", "ts": "1.0"}
    event = edited_message(raw)
    assert event is not None and event["previous_text"] == ""


def test_edits_are_noise_exactly_when_they_are_not_a_persons_text_edit() -> None:
    assert not is_noise(edit(edited()), BOT)
    assert is_noise(edit(edited(bot_id="B1")), BOT)
    assert is_noise(edit(edited(), before_text=PASTE), BOT)


@pytest.mark.parametrize(
    ("event", "noise"),
    [
        pytest.param(message(text=PASTE), False, id="a person's paste"),
        pytest.param(message(text=PASTE, subtype="file_share"), False, id="a snippet"),
        pytest.param(message(text=PASTE, subtype="thread_broadcast"), False, id="a broadcast reply"),
        pytest.param(message(text=PASTE, bot_id="B1"), True, id="a bot"),
        pytest.param(message(text=PASTE, bot_profile={"id": "B1"}), True, id="a bot profile"),
        pytest.param(message(text=PASTE, user=""), True, id="no user"),
        pytest.param(message(text=PASTE, subtype="channel_join"), True, id="a join"),
        pytest.param(message(text=PASTE, subtype="message_deleted"), True, id="a delete"),
        pytest.param(message(text=PASTE, edited={"user": "U_ANN"}), True, id="an already-edited copy"),
        pytest.param(message(text=f"<@{BOT}> {PASTE}"), True, id="a mention: its app_mention twin answers"),
        pytest.param(message(text=f"<@{BOT}> {PASTE}", channel_type="im"), False, id="a mention in a DM"),
        pytest.param(message(text=f"<@U_OTHER> {PASTE}"), False, id="someone else mentioned"),
        pytest.param({"type": "app_mention", "user": "U_ANN", "text": f"<@{BOT}> hi"}, False, id="app_mention"),
        pytest.param({"type": "reaction_added", "user": "U_ANN"}, False, id="not a message event"),
        pytest.param({"type": "reaction_added", "bot_id": "B1"}, False, id="other events pass through"),
    ],
)
def test_noise(event: dict[str, Any], noise: bool) -> None:
    assert is_noise(event, BOT) is noise


def test_without_a_known_bot_user_a_mention_cannot_be_recognised() -> None:
    assert not is_noise(message(text=f"<@{BOT}> {PASTE}"), None)
    assert not is_noise(message(text=f"<@None> {PASTE}"), None)  # no id: no text can be "the" mention


# ---- what a delivery is deduped by -------------------------------------------------------------


def callback(event: dict[str, Any], event_id: str | None = "Ev1") -> dict[str, Any]:
    body: dict[str, Any] = {"type": "event_callback", "team_id": "T1", "event": event}
    return body | ({"event_id": event_id} if event_id else {})


@pytest.mark.parametrize(
    ("body", "keys"),
    [
        pytest.param(callback(message()), ["event:Ev1", "msg:C1:1.0"], id="a message: its event and its (channel, ts)"),
        pytest.param(
            callback(message(type="app_mention")), ["event:Ev1", "msg:C1:1.0"], id="its app_mention twin: the same ts"
        ),
        pytest.param(callback(message(), event_id=None), ["msg:C1:1.0"], id="no event id: the message alone"),
        pytest.param(
            callback({"type": "reaction_added", "user": "U_ANN", "channel": "C1", "ts": "1.0"}),
            ["event:Ev1"],
            id="not a message: its event id only",
        ),
        pytest.param(callback({"type": "message", "channel": "C1", "user": "U_ANN"}), ["event:Ev1"], id="no ts"),
        pytest.param(callback({"type": "message", "ts": "1.0", "user": "U_ANN"}), ["event:Ev1"], id="no channel"),
        pytest.param({"type": "block_actions", "trigger_id": "1.2"}, [], id="a button press: nothing"),
        pytest.param({"type": "block_actions", "event_id": "Ev1"}, [], id="an event id outside an event: nothing"),
    ],
)
def test_dedupe_keys(body: dict[str, Any], keys: list[str]) -> None:
    assert dedupe_keys(body) == keys
