"""Block Kit checked as Slack checks it, for every block and element errfix sends.

Slack refuses a whole message (or Home view) for one bad block: unknown block or element
types, unknown keys, empty or over-long texts, the wrong text type, duplicate ids, too many
blocks, fields or elements. A refusal is `invalid_blocks` with a json-pointer to the culprit,
so a test that passes here does not fail in Slack on a block Slack would reject.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

JSON = dict[str, Any]

MAX_MESSAGE_BLOCKS, MAX_VIEW_BLOCKS = 50, 100
MAX_BLOCKS_JSON = 13_000  # characters of JSON (not \u escapes): beyond this, msg_blocks_too_long
MAX_TEXT = 3_000  # any text object, unless its place sets a lower limit
MAX_FIELD, MAX_FIELDS = 2_000, 10
MAX_HEADER = 150
MAX_CONTEXT_ELEMENTS = 10
MAX_ACTIONS_ELEMENTS = 25
MAX_BUTTON_TEXT, MAX_BUTTON_VALUE, MAX_URL = 75, 2_000, 3_000
MAX_ID = 255
MAX_VIEW_TITLE, MAX_LABEL, MAX_PLACEHOLDER, MAX_INPUT = 24, 2_000, 150, 3_000
MAX_PRIVATE_METADATA = 3_000
TEXT_TYPES = frozenset({"plain_text", "mrkdwn"})
BUTTON_STYLES = frozenset({"primary", "danger"})


class BlockError(ValueError):
    """Why Slack refuses a `blocks` array: its error code and Slack's message."""

    def __init__(self, code: str, detail: str = "") -> None:
        super().__init__(f"{code}: {detail}" if detail else code)
        self.code, self.detail = code, detail


def _invalid(detail: str, where: str) -> BlockError:
    return BlockError("invalid_blocks", f"{detail} [json-pointer:{where}]")


class _Ids:
    """block_id and action_id must be unique within one message or view."""

    def __init__(self) -> None:
        self.seen: dict[str, set[str]] = {"block_id": set(), "action_id": set()}

    def add(self, key: str, value: object, where: str, *, required: bool = False) -> None:
        if value is None and not required:
            return
        if not isinstance(value, str) or not value:
            raise _invalid(f"{key} must be a non-empty string", f"{where}/{key}")
        if len(value) > MAX_ID:
            raise _invalid(f"{key} must be less than {MAX_ID + 1} characters", f"{where}/{key}")
        if value in self.seen[key]:
            raise _invalid(f"duplicate {key} {value!r}", f"{where}/{key}")
        self.seen[key].add(value)


def _keys(node: JSON, allowed: frozenset[str], where: str) -> None:
    extra = sorted(set(node) - allowed)
    if extra:
        raise _invalid(f"unknown field {extra[0]!r}", f"{where}/{extra[0]}")


def check_text(obj: object, where: str, *, limit: int = MAX_TEXT, types: frozenset[str] = TEXT_TYPES) -> None:
    """A text object: `plain_text` or `mrkdwn` (as `types` allows), 1..`limit` characters."""
    if not isinstance(obj, dict):
        raise _invalid("must be a text object", where)
    kind = obj.get("type")
    if kind not in types:
        raise _invalid(f"text type must be one of {sorted(types)}", f"{where}/type")
    _keys(obj, frozenset({"type", "text", "emoji" if kind == "plain_text" else "verbatim"}), where)
    text = obj.get("text")
    if not isinstance(text, str) or not text:
        raise _invalid("must be more than 0 characters", f"{where}/text")
    if len(text) > limit:
        raise _invalid(f"must be less than {limit + 1} characters", f"{where}/text")
    for flag in ("emoji", "verbatim"):
        if flag in obj and not isinstance(obj[flag], bool):
            raise _invalid(f"{flag} must be a boolean", f"{where}/{flag}")


def _button(el: JSON, where: str, ids: _Ids) -> None:
    _keys(el, frozenset({"type", "text", "action_id", "value", "url", "style", "accessibility_label"}), where)
    check_text(el.get("text"), f"{where}/text", limit=MAX_BUTTON_TEXT, types=frozenset({"plain_text"}))
    ids.add("action_id", el.get("action_id"), where)
    for key, limit in (("value", MAX_BUTTON_VALUE), ("url", MAX_URL), ("accessibility_label", MAX_BUTTON_TEXT)):
        value = el.get(key)
        if value is not None and (not isinstance(value, str) or not value or len(value) > limit):
            raise _invalid(f"{key} must be 1..{limit} characters", f"{where}/{key}")
    if "style" in el and el["style"] not in BUTTON_STYLES:
        raise _invalid(f"style must be one of {sorted(BUTTON_STYLES)}", f"{where}/style")


def _element(el: object, where: str, ids: _Ids) -> None:
    """An interactive element (errfix uses buttons only; anything else is refused)."""
    if not isinstance(el, dict) or el.get("type") != "button":
        kind = el.get("type") if isinstance(el, dict) else None
        raise _invalid(f"unsupported element type {kind!r}", f"{where}/type")
    _button(el, where, ids)


def _elements(block: JSON, where: str, most: int) -> list[Any]:
    elements = block.get("elements")
    if not isinstance(elements, list) or not elements:
        raise _invalid("must provide at least 1 element", f"{where}/elements")
    if len(elements) > most:
        raise _invalid(f"no more than {most} items allowed", f"{where}/elements")
    return elements


def _section(block: JSON, where: str, ids: _Ids) -> None:
    _keys(block, frozenset({"type", "block_id", "text", "fields", "accessory"}), where)
    if "text" not in block and "fields" not in block:
        raise _invalid("a section needs text or fields", where)
    if "text" in block:
        check_text(block["text"], f"{where}/text")
    if "fields" in block:
        fields = block["fields"]
        if not isinstance(fields, list) or not fields:
            raise _invalid("fields must be a non-empty array", f"{where}/fields")
        if len(fields) > MAX_FIELDS:
            raise _invalid(f"no more than {MAX_FIELDS} items allowed", f"{where}/fields")
        for i, field in enumerate(fields):
            check_text(field, f"{where}/fields/{i}", limit=MAX_FIELD)
    if "accessory" in block:
        _element(block["accessory"], f"{where}/accessory", ids)


def _context(block: JSON, where: str, ids: _Ids) -> None:
    _keys(block, frozenset({"type", "block_id", "elements"}), where)
    for i, el in enumerate(_elements(block, where, MAX_CONTEXT_ELEMENTS)):
        check_text(el, f"{where}/elements/{i}")  # errfix's context elements are texts (no images)


def _header(block: JSON, where: str, ids: _Ids) -> None:
    _keys(block, frozenset({"type", "block_id", "text"}), where)
    check_text(block.get("text"), f"{where}/text", limit=MAX_HEADER, types=frozenset({"plain_text"}))


def _actions(block: JSON, where: str, ids: _Ids) -> None:
    _keys(block, frozenset({"type", "block_id", "elements"}), where)
    for i, el in enumerate(_elements(block, where, MAX_ACTIONS_ELEMENTS)):
        _element(el, f"{where}/elements/{i}", ids)


def _divider(block: JSON, where: str, ids: _Ids) -> None:
    _keys(block, frozenset({"type", "block_id"}), where)


def _plain_text_input(el: object, where: str, ids: _Ids) -> None:
    """The one input element errfix uses in a modal: a plain-text box (maybe multiline)."""
    if not isinstance(el, dict) or el.get("type") != "plain_text_input":
        kind = el.get("type") if isinstance(el, dict) else None
        raise _invalid(f"unsupported element type {kind!r}", f"{where}/type")
    allowed = {"type", "action_id", "initial_value", "multiline", "placeholder", "min_length", "max_length"}
    _keys(el, frozenset(allowed | {"focus_on_load", "dispatch_action_config"}), where)
    _Ids().add("action_id", el.get("action_id"), where)  # unique within its block (it is alone there)
    longest = el.get("max_length", MAX_INPUT)
    for key, low in (("min_length", 0), ("max_length", 1)):
        value = el.get(key)
        if value is not None and (type(value) is not int or not low <= value <= MAX_INPUT):
            raise _invalid(f"{key} must be an integer {low}..{MAX_INPUT}", f"{where}/{key}")
    initial = el.get("initial_value")
    if initial is not None and (not isinstance(initial, str) or len(initial) > longest):
        raise _invalid(f"initial_value must be a string of at most {longest} characters", f"{where}/initial_value")
    for flag in ("multiline", "focus_on_load"):
        if flag in el and not isinstance(el[flag], bool):
            raise _invalid(f"{flag} must be a boolean", f"{where}/{flag}")
    if "placeholder" in el:
        check_text(el["placeholder"], f"{where}/placeholder", limit=MAX_PLACEHOLDER, types=frozenset({"plain_text"}))


def _input(block: JSON, where: str, ids: _Ids) -> None:
    _keys(block, frozenset({"type", "block_id", "label", "element", "hint", "optional", "dispatch_action"}), where)
    check_text(block.get("label"), f"{where}/label", limit=MAX_LABEL, types=frozenset({"plain_text"}))
    if "hint" in block:
        check_text(block["hint"], f"{where}/hint", limit=MAX_LABEL, types=frozenset({"plain_text"}))
    for flag in ("optional", "dispatch_action"):
        if flag in block and not isinstance(block[flag], bool):
            raise _invalid(f"{flag} must be a boolean", f"{where}/{flag}")
    _plain_text_input(block.get("element"), f"{where}/element", ids)


BLOCKS: dict[str, Callable[[JSON, str, _Ids], None]] = {
    "section": _section,
    "context": _context,
    "header": _header,
    "actions": _actions,
    "divider": _divider,
}
VIEW_BLOCKS: dict[str, Callable[[JSON, str, _Ids], None]] = {**BLOCKS, "input": _input}  # inputs: modals only


def check_modal(view: object) -> None:
    """Raise the BlockError Slack gives for a modal `views.open` refuses: its type, title
    (24 characters), submit and close (24), callback_id (255), private_metadata (3,000), and
    blocks as in `check_blocks`, where `input` blocks are allowed (a modal with one needs a
    submit button)."""
    if not isinstance(view, dict) or view.get("type") != "modal":
        raise _invalid("view type must be 'modal'", "/view/type")
    allowed = {"type", "title", "blocks", "close", "submit", "private_metadata", "callback_id", "external_id"}
    _keys(view, frozenset(allowed | {"clear_on_close", "notify_on_close", "submit_disabled"}), "/view")
    check_text(view.get("title"), "/view/title", limit=MAX_VIEW_TITLE, types=frozenset({"plain_text"}))
    for key in ("submit", "close"):
        if key in view:
            check_text(view[key], f"/view/{key}", limit=MAX_VIEW_TITLE, types=frozenset({"plain_text"}))
    for key, limit in (("callback_id", MAX_ID), ("private_metadata", MAX_PRIVATE_METADATA), ("external_id", MAX_ID)):
        value = view.get(key)
        if value is not None and (not isinstance(value, str) or len(value) > limit):
            raise _invalid(f"{key} must be a string of at most {limit} characters", f"/view/{key}")
    blocks = view.get("blocks")
    check_blocks(blocks, MAX_VIEW_BLOCKS, kinds=VIEW_BLOCKS)
    assert isinstance(blocks, list)
    if any(b.get("type") == "input" for b in blocks) and "submit" not in view:
        raise _invalid("a view with input blocks must have a submit button", "/view/submit")


def input_ids(view: JSON) -> dict[str, str]:
    """block_id → action_id of a modal's input blocks (what a submission's state holds)."""
    return {
        str(b.get("block_id")): str(b["element"].get("action_id"))
        for b in view.get("blocks", [])
        if b.get("type") == "input"
    }


def check_blocks(
    blocks: object,
    max_blocks: int = MAX_MESSAGE_BLOCKS,
    *,
    kinds: dict[str, Callable[[JSON, str, _Ids], None]] = BLOCKS,
) -> None:
    """Raise the BlockError Slack gives for a `blocks` array it refuses (50 blocks in a
    message, 100 in a view; `kinds`: the block types the surface takes)."""
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise BlockError("invalid_blocks_format")
    if len(blocks) > max_blocks:
        raise _invalid(f"no more than {max_blocks} items allowed", "/blocks")
    ids = _Ids()
    for index, block in enumerate(blocks):
        where = f"/blocks/{index}"
        check = kinds.get(str(block.get("type")))
        if check is None:
            raise _invalid(f"unsupported type {block.get('type')!r}", f"{where}/type")
        ids.add("block_id", block.get("block_id"), where)
        check(block, where, ids)
    if kinds is BLOCKS and len(json.dumps(blocks, ensure_ascii=False)) > MAX_BLOCKS_JSON:
        raise BlockError("msg_blocks_too_long")
