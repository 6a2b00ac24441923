"""Which events owe work, and what of their body is kept (redacted: #18)."""

from __future__ import annotations

import json

from bot.slack.owed import event_of, kept_body, owed_job

KEY_ID = "AKIA" + "QX7Z2P4M9R3T8W5N"  # shaped like an AWS access key id, not a real one


def body(event: dict[str, object]) -> dict[str, object]:
    return {"type": "event_callback", "event_id": "Ev1", "event": event}


def test_messages_mentions_and_reactions_owe_work_and_nothing_else_does() -> None:
    keys = ["event:Ev1"]
    for kind in ("message", "app_mention", "reaction_added", "reaction_removed"):
        job = owed_job(body({"type": kind}), keys)
        assert job is not None and job[0] == "event:Ev1", kind
    for kind in ("app_home_opened", "member_joined_channel", "app_rate_limited"):
        assert owed_job(body({"type": kind}), keys) is None, kind
    assert owed_job(body({"type": "message"}), []) is None
    assert owed_job({"type": "block_actions", "event": {"type": "message"}}, keys) is None


def test_the_kept_body_is_redacted_everywhere_a_paste_can_be() -> None:
    secret = f"aws_access_key_id={KEY_ID}"
    event = {
        "type": "message",
        "subtype": "message_changed",
        "text": secret,
        "blocks": [{"type": "rich_text", "elements": [secret]}],
        "attachments": [{"text": secret}],
        "files": [{"id": "F1", "preview": secret, "plain_text": secret, "preview_highlight": secret}],
        "message": {"text": secret, "blocks": [secret], "files": [{"preview": secret}]},
        "previous_message": {"text": secret},
        "previous_text": secret,
        "ts": "1700000000.000100",
        "channel": "C1",
    }
    original = body(event)
    kept = kept_body(original)
    assert KEY_ID not in repr(kept)
    assert kept["event"]["text"] == "aws_access_key_id=[redacted:aws-access-key]"
    assert kept["event"]["files"][0]["id"] == "F1" and kept["event"]["ts"] == "1700000000.000100"
    assert "blocks" not in kept["event"] and "blocks" not in kept["event"]["message"]
    assert KEY_ID in repr(original)  # the request itself is untouched: matching uses the original


def test_a_kept_click_has_its_button_value_redacted() -> None:
    value = json.dumps({"r": "pytorch/loss-nan-step", "l": f"RuntimeError: upload failed for key {KEY_ID}"})
    click = {
        "type": "block_actions",
        "user": {"id": "U1"},
        "actions": [{"action_id": "errfix_this_one:0", "action_ts": "1700000000.1", "value": value}],
        "message": {"text": "errfix's answer"},
    }
    job = owed_job(click, ["click:U1:errfix_this_one:0:1700000000.1"])
    assert job is not None
    kept = job[1]
    assert "message" not in kept and KEY_ID not in json.dumps(kept)
    assert json.loads(kept["actions"][0]["value"]) == {
        "r": "pytorch/loss-nan-step",
        "l": "RuntimeError: upload failed for key [redacted:aws-access-key]",
    }
    assert KEY_ID in click["actions"][0]["value"]  # the request itself is left as it came


def test_an_event_that_is_not_an_object_is_no_event() -> None:
    """A signed body whose `event` is not an object (a string, a list) has no event to read or
    owe: nothing is kept for it, and nothing downstream reads `.get` of a string."""
    for odd in ["message", ["message"], 7, None]:
        body = {"type": "event_callback", "event_id": "Ev1", "event": odd}
        assert event_of(body) == {} and owed_job(body, ["event:Ev1"]) is None
    assert event_of({"type": "url_verification", "event": {"type": "message"}}) == {}
