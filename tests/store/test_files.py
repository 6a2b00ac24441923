"""Reading record files: formats, line numbers, folders, and every kind of bad file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.errors import InvalidInput
from bot.store.files import expand, iter_raw, load
from tests.conftest import PROBLEM_LINE, minimal, seed_json, write_json, write_jsonl


def _lines_starting(path: Path, prefix: str) -> list[int]:
    return [n for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1) if line.startswith(prefix)]


# ---- formats and line numbers --------------------------------------------------------------


def test_json_single_object_reports_the_line_it_starts_on(tmp_path: Path) -> None:
    path = tmp_path / "one.json"
    path.write_text("\n\n" + json.dumps(seed_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    result = load([path])
    assert result.problems == []
    [(loc, rec)] = result.records
    assert (loc.source, loc.line, rec.id) == (str(path), 3, "pytorch/loss-nan-step")


def test_json_list_items_keep_the_line_each_one_starts_on(tmp_path: Path) -> None:
    path = write_json(tmp_path / "list.json", [minimal(f"t/r{i}", root_cause="x\n" * i) for i in range(5)])
    starts = _lines_starting(path, "  {")
    assert len(starts) == 5
    result = load([path])
    assert [loc.line for loc, _ in result.records] == starts
    assert [rec.id for _, rec in result.records] == [f"t/r{i}" for i in range(5)]


def test_json_list_problem_points_at_the_bad_items_first_line(tmp_path: Path) -> None:
    items = [minimal("t/a"), minimal("t/b", confidence="high"), minimal("t/c")]
    path = write_json(tmp_path / "list.json", items)
    bad_line = _lines_starting(path, "  {")[1]
    result = load([path])
    assert result.problems == [f"{path}:{bad_line}: t/b: confidence: Input should be a valid number"]
    assert [rec.id for _, rec in result.records] == ["t/a", "t/c"]


def test_compact_json_list_on_one_line(tmp_path: Path) -> None:
    path = write_json(tmp_path / "list.json", [minimal("t/a"), minimal("t/b")], indent=None)
    assert [(loc.line, rec.id) for loc, rec in load([path]).records] == [(1, "t/a"), (1, "t/b")]


def test_empty_json_list_has_no_records_and_no_problems(tmp_path: Path) -> None:
    path = write_json(tmp_path / "none.json", [])
    result = load([path])
    assert (result.records, result.problems) == ([], [])


def test_jsonl_line_numbers_count_blank_lines_and_crlf(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    lines = [json.dumps(minimal("t/a")), "", "   ", json.dumps(minimal("t/b")), json.dumps(minimal("t/c"))]
    path.write_bytes("\r\n".join(lines).encode() + b"\r\n")
    assert [(loc.line, rec.id) for loc, rec in load([path]).records] == [(1, "t/a"), (4, "t/b"), (5, "t/c")]


def test_jsonl_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(minimal("t/a")).encode() + b"\n")
    assert [rec.id for _, rec in load([path]).records] == ["t/a"]


@pytest.mark.parametrize("char", ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1e"])
def test_jsonl_strings_may_hold_characters_python_treats_as_line_breaks(tmp_path: Path, char: str) -> None:
    # json.dumps(ensure_ascii=False), which export uses, writes these raw; a JSONL line ends at "\n" only.
    rec = minimal("t/sep", root_cause=f"before{char}after")
    path = write_jsonl(tmp_path / "sep.jsonl", [rec, minimal("t/next")])
    result = load([path])
    assert result.problems == []
    assert [(loc.line, r.id) for loc, r in result.records] == [(1, "t/sep"), (2, "t/next")]
    assert result.records[0][1].root_cause == f"before{char}after"


def test_folders_are_read_recursively_in_sorted_order_json_and_jsonl_only(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "b" / "deep" / "z.jsonl", [minimal("t/deep")])
    write_json(tmp_path / "b" / "a.json", minimal("t/single"))
    write_json(tmp_path / "a.json", [minimal("t/list1"), minimal("t/list2")])
    (tmp_path / "notes.txt").write_text("not a record file")
    (tmp_path / "b" / "README.md").write_text("# records")
    assert expand([tmp_path]) == [tmp_path / "a.json", tmp_path / "b" / "a.json", tmp_path / "b" / "deep" / "z.jsonl"]
    result = load([tmp_path])
    assert result.problems == []
    assert [rec.id for _, rec in result.records] == ["t/list1", "t/list2", "t/single", "t/deep"]


def test_files_and_folders_mix(tmp_path: Path) -> None:
    one = write_json(tmp_path / "one.json", minimal("t/one"))
    write_jsonl(tmp_path / "dir" / "two.jsonl", [minimal("t/two")])
    assert [rec.id for _, rec in load([one, tmp_path / "dir"]).records] == ["t/one", "t/two"]


def test_a_missing_path_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="no such file or folder"):
        load([tmp_path / "nope.jsonl"])


# ---- problems: one line each, `file:line: id: field: message` ------------------------------------


def test_every_problem_is_one_line_in_the_documented_shape(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            minimal("t/ok"),
            minimal("t/rate", workarounds=[{"action": "a", "success_rate": "0.5"}], evidence_count=-1),
            {"signature": "no id", "regex": "x"},
            minimal("t/id with space"),
            minimal("t/multi\nline id"),
            [1, 2],
        ],
    )
    result = load([path])
    assert [rec.id for _, rec in result.records] == ["t/ok"]
    assert result.problems == [
        f"{path}:2: t/rate: workarounds.0.success_rate: Input should be a valid number",
        f"{path}:2: t/rate: evidence_count: Input should be greater than or equal to 0",
        f"{path}:3: ?: id: Field required",
        f"{path}:4: t/id with space: id: Value error, id must not contain whitespace",
        f"{path}:5: t/multi line id: id: Value error, id must not contain whitespace",
        f"{path}:6: ?: (record): expected an object, got list",
    ]
    for p in result.problems:
        assert re.match(PROBLEM_LINE, p), p


def test_duplicate_ids_in_one_import_are_problems_naming_the_first(tmp_path: Path) -> None:
    a = write_jsonl(tmp_path / "a.jsonl", [minimal("t/x"), minimal("t/y"), minimal("t/x")])
    b = write_json(tmp_path / "b.json", minimal("t/y", root_cause="other"))
    result = load([a, b])
    assert result.problems == [
        f"{a}:3: t/x: id: duplicate id (first at {a}:1)",
        f"{b}:1: t/y: id: duplicate id (first at {a}:2)",
    ]


def test_a_lone_surrogate_in_an_unknown_field_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "sur.jsonl"
    path.write_text('{"id": "t/s", "signature": "x", "regex": "x", "note": "\\ud800"}\n', encoding="utf-8")
    result = load([path])
    assert result.records == []
    assert result.problems == [f"{path}:1: t/s: (record): text is not valid Unicode (a lone surrogate escape)"]


def test_a_lone_surrogate_in_a_known_field_is_a_problem(tmp_path: Path) -> None:
    path = tmp_path / "sur.jsonl"
    path.write_text('{"id": "t/s", "signature": "\\udc00", "regex": "x"}\n', encoding="utf-8")
    [problem] = load([path]).problems
    assert problem.startswith(f"{path}:1: t/s: signature: ")


def test_surrogate_pairs_are_fine(tmp_path: Path) -> None:
    path = tmp_path / "pair.jsonl"
    path.write_text('{"id": "t/s", "signature": "\\ud83d\\ude00", "regex": "x", "note": "\\ud83d\\ude00"}\n')
    [(_, rec)] = load([path]).records
    assert rec.signature == "\U0001f600"


# ---- unreadable files: one clear line each ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("empty.jsonl", b"", "empty file, no records in it"),
        ("blank.json", b" \n\n\t\n", "empty file, no records in it"),
        ("junk.jsonl", bytes(range(256)) * 4, "binary data, not a JSON text file"),
        ("latin1.json", '{"id": "caf\xe9"}'.encode("latin-1"), "not UTF-8 text (byte 11)"),
        ("text.jsonl", b"this is not json\n", "1: not valid JSON: Expecting value"),
        ("trunc.json", b'{"id": "t/a", "signature": ', "1: not valid JSON: Expecting value"),
        ("extra.json", b'{"id": "t/a"}\n{"id": "t/b"}\n', "2: not valid JSON: extra data after the JSON value"),
        ("unclosed.json", b'[\n{"id": "t/a"}\n', "3: not valid JSON: expected ',' or ']'"),
        (
            "nan.jsonl",
            b'{"id": "t/a", "signature": "x", "regex": "x", "confidence": NaN}\n',
            "1: not valid JSON: NaN is not valid JSON",
        ),
        (
            "inf.json",
            b'{"id": "t/a", "signature": "x", "regex": "x", "x": -Infinity}',
            "not valid JSON: -Infinity is not valid JSON",
        ),
        ("deep.json", b"[" * 100_000 + b"]" * 100_000, "JSON nested too deeply"),
    ],
)
def test_unreadable_files_raise_one_clear_line(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InvalidInput) as info:
        list(iter_raw(path))
    text = str(info.value)
    assert text.startswith(str(path)) and message in text and "\n" not in text, text
    # load() turns it into a problem instead, so --skip-invalid can go on with the other files
    assert load([path]).problems == [text]


def test_a_jsonl_syntax_error_names_the_file_line_it_is_on(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(minimal("t/a")) + "\n\n" + json.dumps(minimal("t/b")) + "\n{oops\n")
    with pytest.raises(InvalidInput, match=re.escape(f"{path}:4: not valid JSON")):
        list(iter_raw(path))


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    write_jsonl(path, [minimal(f"t/{i}") for i in range(50)])
    size = path.stat().st_size
    with pytest.raises(InvalidInput, match=r"file too large \(\d+\.\d MB; the limit is \d+ MB\)"):
        list(iter_raw(path, max_bytes=size - 1))
    assert len(list(iter_raw(path, max_bytes=size))) == 50


def test_one_unreadable_file_does_not_hide_the_others(tmp_path: Path) -> None:
    good = write_jsonl(tmp_path / "a.jsonl", [minimal("t/a")])
    (tmp_path / "b.jsonl").write_bytes(b"")
    result = load([tmp_path])
    assert [rec.id for _, rec in result.records] == ["t/a"]
    assert result.problems == [f"{tmp_path / 'b.jsonl'}: empty file, no records in it"]
    assert good.exists()
