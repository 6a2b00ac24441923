"""The record model: what the format accepts, what it refuses (and where), what it keeps."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from bot.core.records import FIELDS, Link, Record
from bot.store.files import Located, validate
from tests.conftest import full, minimal, seed_json


def _set(data: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `data` with the dotted `path` ("workarounds.0.success_rate") set, or removed
    when `value` is _MISSING."""
    out = copy.deepcopy(data)
    *parents, last = path.split(".")
    node: Any = out
    for p in parents:
        node = node[int(p)] if isinstance(node, list) else node[p]
    key: Any = int(last) if isinstance(node, list) else last
    if value is _MISSING:
        del node[key]
    else:
        node[key] = value
    return out


_MISSING = object()


def _errors(data: dict[str, Any]) -> list[tuple[tuple[Any, ...], str]]:
    with pytest.raises(ValidationError) as info:
        Record.model_validate(data)
    return [(e["loc"], e["msg"]) for e in info.value.errors()]


# ---- what is accepted --------------------------------------------------------------------


def test_the_users_example_validates_and_comes_back_identical() -> None:
    data = seed_json()
    out = Record.model_validate(data).to_json()
    assert out == data
    assert list(out) == list(data)  # same field order as the user wrote it


def test_search_vocabulary_is_written_only_when_given() -> None:
    rec = Record.model_validate(minimal("a/b", keywords=["OOM"], keywords_zh=["爆显存"]))
    out = rec.to_json()
    assert out["keywords"] == ["OOM"] and out["keywords_zh"] == ["爆显存"]
    assert list(out)[-2:] == ["keywords", "keywords_zh"]
    assert "keywords" not in Record.model_validate(minimal("a/c")).to_json()


def test_a_minimal_record_gets_every_field_with_defaults() -> None:
    rec = Record.model_validate(minimal("a/b"))
    out = rec.to_json()
    assert tuple(out) == tuple(f for f in FIELDS if f not in ("keywords", "keywords_zh"))
    assert out["id"] == "a/b"
    assert out["workarounds"] == [] and out["dead_ends"] == [] and out["versions"] == []
    assert out["transition_graph"] == {"leads_to": [], "preceded_by": [], "frequently_confused_with": []}
    assert out["evidence_count"] == 0 and out["resolvable"] == "true" and out["locale"] == "en"
    assert rec.unknown_fields() == []


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("confidence", 0),
        ("confidence", 1),  # an int is a number
        ("confidence", 1.0),
        ("fix_success_rate", 0.0),
        ("workarounds.0.success_rate", 0.0),
        ("workarounds.0.success_rate", 1.0),
        ("dead_ends.0.fail_rate", 1),
        ("evidence_count", 0),
        ("evidence_count", 10**6),
        ("first_seen", "2024-06-01"),
        ("first_seen", "2024-06-01T12:30:00"),
        ("first_seen", "2024-06-01T12:30:00+02:00"),
        ("first_seen", None),
        ("last_confirmed", None),
        ("last_updated", "2024-02-29"),
        ("signature_zh", None),
        ("subcategory", None),
        ("workarounds.0.condition", None),
        ("os_specific", {"windows": "use num_workers=0"}),
        ("resolvable", "partial"),
        ("error_code", "E0382"),
    ],
)
def test_valid_values_are_accepted_and_kept(path: str, value: Any) -> None:
    data = _set(seed_json(), path, value)
    assert Record.model_validate(data).to_json() == data


def test_resolvable_as_a_json_bool_becomes_the_format_string() -> None:
    assert Record.model_validate(minimal(resolvable=True)).resolvable == "true"
    assert Record.model_validate(minimal(resolvable=False)).resolvable == "false"


# ---- what is refused, and where the message points ------------------------------------------


@pytest.mark.parametrize(
    ("path", "value", "loc", "fragment"),
    [
        # required fields missing
        ("id", _MISSING, ("id",), "Field required"),
        ("signature", _MISSING, ("signature",), "Field required"),
        ("regex", _MISSING, ("regex",), "Field required"),
        ("workarounds.0.action", _MISSING, ("workarounds", 0, "action"), "Field required"),
        ("dead_ends.1.action", _MISSING, ("dead_ends", 1, "action"), "Field required"),
        ("versions.0.version", _MISSING, ("versions", 0, "version"), "Field required"),
        # empty or malformed required strings
        ("id", "", ("id",), "at least 1 character"),
        ("id", "pytorch/loss nan", ("id",), "whitespace"),
        ("signature", "", ("signature",), "at least 1 character"),
        ("regex", "", ("regex",), "at least 1 character"),
        # wrong types: no silent coercion from strings, bools or floats
        ("id", 42, ("id",), "valid string"),
        ("signature", ["a"], ("signature",), "valid string"),
        ("workarounds.0.success_rate", "0.5", ("workarounds", 0, "success_rate"), "valid number"),
        ("confidence", "0.9", ("confidence",), "valid number"),
        ("fix_success_rate", True, ("fix_success_rate",), "valid number"),
        ("evidence_count", "3", ("evidence_count",), "valid integer"),
        ("evidence_count", 2.5, ("evidence_count",), "valid integer"),
        ("evidence_count", True, ("evidence_count",), "valid integer"),
        ("tags", "gpu", ("tags",), "valid list"),
        ("aliases", [1], ("aliases", 0), "valid string"),
        ("workarounds_zh", "x", ("workarounds_zh",), "valid list"),
        ("workarounds", {"action": "x"}, ("workarounds",), "valid list"),
        ("os_specific", {"linux": 1}, ("os_specific", "linux"), "valid string"),
        ("os_specific", ["linux"], ("os_specific",), "valid dictionary"),
        ("resolvable", 1, ("resolvable",), "valid string"),
        ("locale", None, ("locale",), "valid string"),
        ("domain", None, ("domain",), "valid string"),
        # rates outside [0, 1], counts below 0
        ("workarounds.0.success_rate", 1.5, ("workarounds", 0, "success_rate"), "less than or equal to 1"),
        ("workarounds.0.success_rate", -0.1, ("workarounds", 0, "success_rate"), "greater than or equal to 0"),
        ("dead_ends.0.fail_rate", 2, ("dead_ends", 0, "fail_rate"), "less than or equal to 1"),
        ("confidence", 1.0001, ("confidence",), "less than or equal to 1"),
        ("evidence_count", -1, ("evidence_count",), "greater than or equal to 0"),
        # dates
        ("first_seen", "2023-13-01", ("first_seen",), "not an ISO date"),
        ("last_confirmed", "yesterday", ("last_confirmed",), "not an ISO date"),
        ("last_updated", "01/06/2024", ("last_updated",), "not an ISO date"),
        ("first_seen", 20230101, ("first_seen",), "valid string"),
        # transition graph entries
        ("transition_graph.leads_to", [42], ("transition_graph", "leads_to", 0), ""),
        ("transition_graph.leads_to", "a/b", ("transition_graph", "leads_to"), "valid list"),
        ("transition_graph.preceded_by", [{"probability": 0.5}], ("transition_graph", "preceded_by", 0), ""),
        ("transition_graph", [], ("transition_graph",), ""),
    ],
)
def test_invalid_values_are_refused_at_their_field(path: str, value: Any, loc: tuple[Any, ...], fragment: str) -> None:
    errors = _errors(_set(seed_json(), path, value))
    locs = [e[0] for e in errors]
    assert any(found[: len(loc)] == loc for found in locs), errors
    assert any(fragment in msg for found, msg in errors if found[: len(loc)] == loc), errors


def test_a_link_probability_outside_0_1_is_refused_inside_the_link() -> None:
    data = minimal(transition_graph={"leads_to": [{"error_id": "x/y", "probability": 1.5}]})
    errors = _errors(data)
    assert any(
        loc[:3] == ("transition_graph", "leads_to", 0) and "less than or equal to 1" in msg for loc, msg in errors
    ), errors


def test_every_problem_is_reported_not_just_the_first() -> None:
    data = minimal(confidence="high", evidence_count=-1, first_seen="soon")
    assert {loc for loc, _ in _errors(data)} == {("confidence",), ("evidence_count",), ("first_seen",)}


# ---- transition graph: ids or objects ----------------------------------------------------------


def test_transition_graph_entries_as_ids_and_as_objects() -> None:
    link = {"error_id": "python/oom", "probability": 0.4, "condition": "batch > 64", "distinction": "GPU, not host"}
    graph = {
        "leads_to": ["cuda/oom", link],
        "preceded_by": [{"error_id": "pytorch/grad-explode"}],
        "frequently_confused_with": ["pytorch/inf-grad"],
    }
    rec = Record.model_validate(minimal(transition_graph=graph))
    assert isinstance(rec.transition_graph.leads_to[1], Link)
    assert rec.transition_graph.leads_to[1].probability == 0.4
    assert rec.transition_graph.ids("leads_to") == ["cuda/oom", "python/oom"]
    assert rec.transition_graph.ids("preceded_by") == ["pytorch/grad-explode"]
    assert rec.transition_graph.ids("frequently_confused_with") == ["pytorch/inf-grad"]
    # each entry comes back in the form it was given: a bare id stays a string, an object an object
    assert rec.to_json()["transition_graph"] == graph


# ---- unknown fields: kept, listed, warned ------------------------------------------------------


def _with_unknowns() -> dict[str, Any]:
    data = full("test/unknown")
    data["reviewed_by"] = {"name": "Ada", "teams": ["ml", 3]}
    data["score_v2"] = 0.7
    data["workarounds"][1]["verified_on"] = ["a100"]
    data["dead_ends"][0]["severity"] = "high"
    data["versions"][2]["arch"] = "sm_80"
    data["transition_graph"]["causes"] = ["x/y"]
    data["transition_graph"]["leads_to"] = [{"error_id": "cuda/oom", "weight": 2}]
    return data


def test_unknown_fields_are_listed_with_their_dotted_path() -> None:
    rec = Record.model_validate(_with_unknowns())
    assert sorted(rec.unknown_fields()) == sorted(
        [
            "reviewed_by",
            "score_v2",
            "workarounds[1].verified_on",
            "dead_ends[0].severity",
            "versions[2].arch",
            "transition_graph.causes",
            "transition_graph.leads_to[0].weight",
        ]
    )


def test_unknown_fields_survive_the_round_trip_top_level_and_nested() -> None:
    data = _with_unknowns()
    out = Record.model_validate(data).to_json()
    assert out == data
    assert list(out)[-2:] == ["reviewed_by", "score_v2"]  # known fields first, unknown after
    again = Record.model_validate(out)
    assert again.to_json() == data
    assert sorted(again.unknown_fields()) == sorted(Record.model_validate(data).unknown_fields())


def test_unknown_fields_become_warnings_with_file_line_and_id_not_problems() -> None:
    result = validate([Located("records.jsonl", 7, _with_unknowns())])
    assert result.problems == []
    assert [rec.id for _, rec in result.records] == ["test/unknown"]
    assert "records.jsonl:7: test/unknown: workarounds[1].verified_on: unknown field kept" in result.warnings
    assert "records.jsonl:7: test/unknown: reviewed_by: unknown field kept" in result.warnings
    assert len(result.warnings) == 7


def test_nested_objects_keep_only_what_was_given() -> None:
    data = minimal(workarounds=[{"action": "restart the kernel"}])
    out = Record.model_validate(data).to_json()
    assert out["workarounds"] == [{"action": "restart the kernel"}]
    assert Record.model_validate(out).workarounds[0].success_rate == 0.5
