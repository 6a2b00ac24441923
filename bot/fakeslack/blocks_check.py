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


BLOCKS: dict[str, Callable[[JSON, str, _Ids], None]] = {
    "section": _section,
    "context": _context,
    "header": _header,
    "actions": _actions,
    "divider": _divider,
}


def check_blocks(blocks: object, max_blocks: int = MAX_MESSAGE_BLOCKS) -> None:
    """Raise the BlockError Slack gives for a `blocks` array it refuses (50 blocks in a
    message, 100 in a view)."""
    if not isinstance(blocks, list) or not all(isinstance(b, dict) for b in blocks):
        raise BlockError("invalid_blocks_format")
    if len(blocks) > max_blocks:
        raise _invalid(f"no more than {max_blocks} items allowed", "/blocks")
    ids = _Ids()
    for index, block in enumerate(blocks):
        where = f"/blocks/{index}"
        check = BLOCKS.get(str(block.get("type")))
        if check is None:
            raise _invalid(f"unsupported type {block.get('type')!r}", f"{where}/type")
        ids.add("block_id", block.get("block_id"), where)
        check(block, where, ids)
    if len(json.dumps(blocks, ensure_ascii=False)) > MAX_BLOCKS_JSON:
        raise BlockError("msg_blocks_too_long")
