"""The message catalogue: both languages for every key, and nothing user-facing outside it.

A Chinese answer, `/errfix` result, help text, notice or App Home must not keep an English word
of errfix's own (record content, ids and code are the record's, not errfix's, and may stay).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from bot.core import blocks as kit
from bot.core import render
from bot.core.draft import TeachForm
from bot.core.extract import extract
from bot.core.leak_notice import secret_notice
from bot.core.messages import MESSAGES, Note, fields, is_chinese, language, notes_text, t
from bot.core.records import Record
from bot.core.teach_view import (
    TeachMeta,
    not_saved_text,
    nudge_blocks,
    saved_blocks,
    teach_modal,
    team_home_blocks,
)
from bot.core.views import Diagnosis, MatchView, Tally, rank_workarounds, workaround_key
from bot.fakeslack.blocks_check import check_blocks, check_modal
from bot.service.teach import form_problems
from tests.conftest import REPO

RECORD: dict[str, Any] = {
    "id": "pytorch/loss-nan-step",
    "domain": "pytorch",
    "signature": "RuntimeError: Loss is NaN or Inf at step 1000",
    "signature_zh": "运行时错误：损失为 NaN 或 Inf",
    "regex": "RuntimeError: Loss is NaN",
    "root_cause": "Numerical instability in the forward pass",
    "root_cause_zh": "前向传播数值不稳定",
    "workarounds": [
        {"action": "Clip gradients", "success_rate": 0.85, "how": "clip_grad_norm_(params, 1.0)"},
        {"action": "Lower the learning rate", "success_rate": 0.8, "how": "lr=1e-4"},
        {"action": "Use bf16 instead of fp16", "success_rate": 0.7, "how": "torch.autocast(dtype=torch.bfloat16)"},
    ],
    "workarounds_zh": ["梯度裁剪", "降低学习率", "用 bf16 代替 fp16"],
    "dead_ends": [{"action": "Raise the learning rate", "why_fails": "makes it worse", "fail_rate": 0.95}],
    "official_doc_url": "https://pytorch.org/docs/stable/amp.html",
}
OTHER: dict[str, Any] = {
    **RECORD,
    "id": "pytorch/cuda-out-of-memory",
    "signature": "CUDA out of memory",
    "signature_zh": "CUDA 显存不足",
    "regex": "CUDA out of memory",
}


def view(data: dict[str, Any], score: float) -> MatchView:
    rec = Record.model_validate(data)
    return MatchView(rec, score, rank_workarounds(rec, {workaround_key("Clip gradients"): Tally(up=3, down=1)}))


# ---- the table -------------------------------------------------------------------------------


def test_every_message_has_english_and_chinese_with_the_same_placeholders() -> None:
    for key, langs in MESSAGES.items():
        assert set(langs) == {"en", "zh"}, key
        assert langs["en"].strip() and langs["zh"].strip(), key
        assert fields(langs["en"]) == fields(langs["zh"]), key


def test_every_chinese_message_is_written_in_chinese() -> None:
    for key, langs in MESSAGES.items():
        words = re.sub(r"\{\w+\}|`[^`]*`|:[a-z0-9+-]+:", "", langs["en"])
        if re.search(r"[A-Za-z]{2,}", words):  # a template with words of its own, not only markup
            assert re.search(r"[\u4e00-\u9fff]", langs["zh"]), key


def test_t_fills_a_template_in_the_asked_language_and_takes_a_slack_locale() -> None:
    assert t("match", "en", pct="92%") == "92% match"
    assert t("match", "zh", pct="92%") == "匹配度 92%"
    assert t("votes", "zh-CN", pct="90%", up=2, down=0) == "90% 有效 · :+1: 2 · :-1: 0"
    assert t("worked", "zh_TW") == "有效" and t("worked", "en-GB") == "Worked" and t("worked", None) == "Worked"


def test_a_chinese_query_or_a_zh_locale_is_answered_in_chinese() -> None:
    assert language("en-US", "训练时显存不足") == "zh"
    assert language("zh-CN", "CUDA out of memory") == "zh-CN"
    assert language("en-US", "CUDA out of memory") == "en-US"
    assert language("", "") == "en"
    assert not is_chinese("docker-compose up でエラーが起こって")  # Japanese: kana beside the kanji
    assert not is_chinese("소스트리로 푸쉬에러")  # Korean
    assert not is_chinese("Traceback (most recent call last)")
    assert is_chinese("CUDA 显存不足") and is_chinese("readme 里拼写错误")
    assert not is_chinese("显")  # one character is not a sentence
    path = 'Traceback (most recent call last):\n  File "C:\\项目\\train.py", line 3\nRuntimeError: Loss is NaN'
    assert not is_chinese(path)  # a Chinese folder in a path: an English paste
    assert is_chinese("训练到一半报错了：\n" + path)  # a sentence in Chinese, then the paste


# ---- nothing user-facing bypasses it ---------------------------------------------------------

CODE = re.compile(r"`[^`]*`|<[^>]*>|:[a-z0-9_+-]+:|https?://\S+")
WORD = re.compile(r"[A-Za-z]{2,}")
OWN_NAMES = {"errfix", "Slack", "ID", "RE", "Python"}  # names, the same in both languages (RE2)


def english_words() -> set[str]:
    """Every word of errfix's own English (the catalogue's English, placeholders and code out)."""
    out: set[str] = set()
    for langs in MESSAGES.values():
        out |= set(WORD.findall(CODE.sub(" ", re.sub(r"\{\w+\}", " ", langs["en"]))))
    return out - OWN_NAMES


def record_strings(*datas: dict[str, Any]) -> list[str]:
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, str):
            found.append(node)
        elif isinstance(node, dict):
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(list(datas))
    return sorted(found, key=len, reverse=True)


def all_texts(node: Any) -> list[str]:
    out: list[str] = []
    if isinstance(node, str):
        out.append(node)
    elif isinstance(node, dict):
        for k, v in node.items():
            if k in ("text", "elements", "accessory", "blocks", "fields") or isinstance(v, (dict, list)):
                out += all_texts(v)
    elif isinstance(node, list):
        for v in node:
            out += all_texts(v)
    return out


def english_left(rendered: Any, *content: str) -> set[str]:
    """errfix's English words still in a rendering, once record content, the query and code are out."""
    text = "\n".join(all_texts(rendered))
    for s in [*record_strings(RECORD, OTHER), *content]:
        text = text.replace(kit.escape(s), " ").replace(s, " ")
    return set(WORD.findall(CODE.sub(" ", text))) & english_words()


def zh_renderings() -> dict[str, Any]:
    sure, weak = view(RECORD, 0.92), view(OTHER, 0.41)
    summary = kit.HomeSummary([("pytorch/loss-nan-step", "损失为 NaN", 4)], [("pytorch/loss-nan-step", "梯度裁剪", 3)])
    stats = {"records": 201, "by_domain": {"pytorch": 40, "": 1}, "votes_up": 3, "replies": 9, "pastes_week": 5}
    note = notes_text([Note("note_preview"), Note("note_partial", (("name", "run.log"), ("size", "3.3 MB")))], "zh")
    line = "RuntimeError: Loss is NaN or Inf at step 1000"
    ex = extract(line)
    return {
        "answer": kit.answer_blocks(sure, sure=True, locale="zh-CN", note=note),
        "answer, unsure, with others": kit.answer_blocks(weak, sure=False, locale="zh", others=[sure]),
        "answer fallback": kit.answer_fallback(sure, sure=True, locale="zh"),
        "answer after Not this error": kit.rejected_blocks(sure, "U_ZHANG", "zh"),
        "its fallback": kit.rejected_fallback(sure, "zh"),
        "no match": kit.no_match_blocks("zh") + [kit.no_match_fallback("zh")],
        "help": kit.usage_blocks("zh"),
        "/errfix ID": kit.record_blocks(sure, locale="zh"),
        "/errfix ID fallback": kit.record_fallback(sure, "zh"),
        "/errfix words": kit.search_blocks("损失 NaN", [sure, weak], learn_line=line, locale="zh", weak_below=0.6),
        "/errfix words, all weak": kit.search_blocks("显存", [weak], locale="zh", weak_below=0.6),
        "/errfix fallbacks": [
            kit.search_fallback("显存", [weak], "zh", 0.6),
            kit.search_fallback("显存", [sure], "zh", 0.6),
            kit.search_fallback("显存", [], "zh"),
        ],
        "/errfix nothing found": kit.search_blocks("显存", [], locale="zh"),
        "words, not sure": kit.unsure_words_blocks("显存", [weak], "zh") + [kit.unsure_words_fallback([weak], "zh")],
        "/errfix stats": kit.stats_blocks(stats, "zh") + [kit.stats_fallback("zh")],
        "App Home": kit.home_view(summary, "zh"),
        "App Home, empty week": kit.home_view(kit.HomeSummary(), "zh"),
        "secret notice": [secret_notice(["aws-access-key"], "zh"), secret_notice(["jwt", "github-token"], "zh")],
        "terminal": [
            render.diagnosis_text(Diagnosis(True, True, [sure, weak], ex), "zh"),
            render.diagnosis_text(Diagnosis(True, False, [], ex), "zh"),
            render.search_text("显存", [weak], "zh", 0.6),
            render.search_text("显存", [], "zh"),
        ],
        **teach_zh_renderings(sure),
    }


TEACH_ID = "team/pytorch/runtimeerror-loss-is-nan"
CHAT = "the build failed again, looking into it"  # one of the draft's ordinary chat lines


def teach_zh_renderings(sure: MatchView) -> dict[str, Any]:
    """Teach (#17) in Chinese: the modal (new, empty, edit), its per-field problems, the saved
    reply, the nudge and the App Home's team part."""
    fix = RECORD["workarounds"][0]
    values = {
        "error_line": RECORD["signature"],
        "regex": RECORD["regex"],
        "root_cause": RECORD["root_cause"],
        "fix": fix["action"],
        "how": fix["how"],
    }
    meta = TeachMeta("C1", "1.0", "2.0", "pytorch")
    edit = TeachMeta("C1", "", "", "pytorch", record_id=TEACH_ID)
    known = [(RECORD["id"], RECORD["signature"])]
    problems = [
        form_problems(TeachForm(" ", "", ""), [], lang="zh"),
        form_problems(TeachForm("x" * 3001, "y", "z"), [], lang="zh"),
        form_problems(TeachForm(RECORD["signature"], "(unclosed", "z"), [], lang="zh"),
        form_problems(TeachForm(RECORD["signature"], r"\pL+: Loss is NaN", "z"), [], lang="zh"),
        form_problems(TeachForm(RECORD["signature"], "[0-9]+", "z"), [], lang="zh"),
        form_problems(TeachForm(RECORD["signature"], r"Loss(\s*)*is NaN", "z"), [], lang="zh"),
        form_problems(TeachForm(RECORD["signature"], "Loss is Inf", "z"), [], lang="zh"),
        form_problems(TeachForm(CHAT, "failed", "z"), [], lang="zh"),
        form_problems(TeachForm(RECORD["signature"], RECORD["regex"], "z"), known, lang="zh-CN"),
    ]
    return {
        "teach modal": teach_modal(values, meta, record_id=TEACH_ID, lang="zh-CN"),
        "teach modal, no error line": teach_modal({}, meta, record_id="team/general/…", lang="zh"),
        "teach modal, editing": teach_modal(values, edit, record_id=TEACH_ID, lang="zh"),
        "teach problems": [why for found in problems for why in found.values()],
        "teach not saved": not_saved_text(problems[-1] | problems[0], "zh-CN"),
        "teach saved reply": saved_blocks(sure, locale="zh-CN"),
        "teach nudge": nudge_blocks("C1", "1.0", "2.0", "zh-CN"),
        "App Home, team records": team_home_blocks([sure], [sure], "zh-CN"),
    }


def test_a_form_not_saved_names_its_problems_by_field_in_english_and_by_label_in_chinese() -> None:
    problems = {"regex": "It does not match the error line.", "fix": "Fix that worked is required."}
    assert not_saved_text(problems) == (
        "Not saved: regex: It does not match the error line.; fix: Fix that worked is required."
    )
    zh = {"regex": "它匹配不到错误行。", "fix": "请填写有效的修复方法。"}
    assert (
        not_saved_text(zh, "zh-CN") == "未保存：正则表达式：它匹配不到错误行。；有效的修复方法：请填写有效的修复方法。"
    )


def test_the_teach_problems_are_each_said_in_chinese() -> None:
    """Every kind of problem the form can have shows up above, so the scan reads each of them."""
    found = teach_zh_renderings(view(RECORD, 0.92))["teach problems"]
    assert len(set(found)) == 11 and all(re.search(r"[\u4e00-\u9fff]", why) for why in found), found
    assert "请填写错误行。" in found and "最多 3000 个字符。" in found


@pytest.mark.parametrize("name", list(zh_renderings()))
def test_a_chinese_rendering_keeps_no_english_of_errfix_own(name: str) -> None:
    rendered = zh_renderings()[name]
    assert english_left(rendered, "U_ZHANG", "run.log", "3.3 MB", "aws-access-key", CHAT) == set(), name


def test_the_chinese_renderings_are_valid_block_kit() -> None:
    for rendered in zh_renderings().values():
        if isinstance(rendered, dict) and rendered.get("type") == "modal":
            check_modal(rendered)
        elif isinstance(rendered, dict):
            check_blocks(rendered["blocks"], kit.MAX_HOME_BLOCKS)
        elif isinstance(rendered, list) and rendered and isinstance(rendered[0], dict):
            check_blocks([b for b in rendered if isinstance(b, dict)])


def test_a_chinese_answer_says_it_in_chinese() -> None:
    blocks = kit.answer_blocks(view(RECORD, 0.92), sure=True, locale="zh-CN")
    text = "\n".join(all_texts(blocks))
    for words in ("匹配度 92%", "*原因：*", "*修复方法（按效果排序）：*", "有效 · :+1: 3", "*不必尝试：*", "官方文档"):
        assert words in text, words
    buttons = [el["text"]["text"] for b in blocks if b["type"] == "actions" for el in b["elements"]]
    assert buttons == ["有效", "无效"] * 3 + ["不是这个错误"]


def test_the_check_itself_sees_english_left_in() -> None:
    """The scan is not vacuous: the English rendering of the same answer is full of errfix's words."""
    left = english_left(kit.answer_blocks(view(RECORD, 0.92), sure=True, locale="en"))
    assert {"Why", "Fixes", "best", "first", "Worked", "Didn", "work", "Not", "this", "error"} <= left


def test_the_check_sees_english_left_in_the_teach_modal() -> None:
    values = {"error_line": RECORD["signature"], "regex": RECORD["regex"]}
    modal = teach_modal(values, TeachMeta("C1", "1.0", "2.0", "pytorch"), record_id=TEACH_ID, lang="en")
    left = english_left(modal)
    assert {"Save", "Cancel", "Error", "line", "Regex", "Root", "cause", "Fix", "that", "worked", "How"} <= left
    assert {"Why", "happens", "plain", "words", "domain"} <= left  # the hints and the context line too


# ---- and no literal English is handed to Slack directly ----------------------------------------

SOURCES = [REPO / "bot/core/blocks.py", REPO / "bot/core/render.py", REPO / "bot/core/leak_notice.py"]
# modules whose every string is for people (the teach modal, the form's problems, #17): any prose
# in them, returned or stored, not only what is handed to a builder, must come from the catalogue
PEOPLE_ONLY = [REPO / "bot/core/teach_view.py", REPO / "bot/service/teach.py", REPO / "bot/slack/teach_modal.py"]
SOURCES += [path for path in PEOPLE_ONLY if path not in SOURCES]
SOURCES += sorted((REPO / "bot/slack").glob("*.py"))
BUILDERS = {"section", "context", "header", "button"}
TEXT_ARGS = {"text", "title", "placeholder"}
KEYED = {"t", "Note"}


def call_name(node: ast.Call) -> str:
    return node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")


def literal_words(node: ast.AST) -> list[str]:
    """Words in the string literals of an expression (f-string parts included), code spans out;
    a catalogue key (the first argument of `t` or `Note`) is not a word shown."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [w for w in WORD.findall(CODE.sub(" ", node.value)) if w not in OWN_NAMES]
    children: list[ast.AST] = list(ast.iter_child_nodes(node))
    if isinstance(node, ast.Call) and call_name(node) in KEYED:
        children = [*node.args[1:], *(kw.value for kw in node.keywords)]
    return [w for child in children for w in literal_words(child)]


# prose, not a key or a pattern: a capitalised word, or two words with a space between
PROSE = re.compile(r"^[A-Z][a-z]+\b|[A-Za-z][a-z]+ [A-Za-z]{2,}")
CONSTANTS = (ast.Constant, ast.JoinedStr, ast.Tuple, ast.List, ast.Set, ast.Dict)


def module_prose(value: ast.AST) -> list[str]:
    """Words of the prose in a module-level constant: a string, or strings in a tuple, list,
    set or dict literal (nested too: a tuple of labels and hints). A call's result
    (`frozenset({"teach off"})`, a compiled regex) is code, not text shown."""
    if not isinstance(value, CONSTANTS):
        return []
    out: list[str] = []
    for node in ast.walk(value):
        if isinstance(node, ast.Call):
            return []
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and PROSE.search(CODE.sub(" ", node.value)):
            out += literal_words(node)
    return out


def docstrings(tree: ast.AST) -> set[int]:
    """ids of the docstring nodes of a module and its classes and functions (not shown to people)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def prose_literals(path: Path, root: Path = REPO) -> list[str]:
    """Every string of prose in a module, docstrings out: `f"{label} is required."` as much as
    `section("…")`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = docstrings(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or not isinstance(node.value, str) or id(node) in skip:
            continue
        if PROSE.search(CODE.sub(" ", node.value)) and (words := literal_words(node)):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {' '.join(words)}")
    return found


def direct_literals(path: Path, root: Path = REPO) -> list[str]:
    """`section("Some words")`, `button("Worked", …)`, `text="…"`, `{"text": "Save"}`, and
    module-level constants of prose (`TITLE = "…"`, a tuple of labels): literal English given
    to Slack."""
    found: list[str] = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for statement in tree.body:
        value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
        if value is not None and (words := module_prose(value)):
            found.append(f"{path.relative_to(root)}:{statement.lineno}: {' '.join(words)}")
    for node in ast.walk(tree):
        args: list[ast.AST] = []
        if isinstance(node, ast.Call):
            args = list(node.args[:1]) if call_name(node) in BUILDERS else []
            args += [kw.value for kw in node.keywords if kw.arg in TEXT_ARGS]
        elif isinstance(node, ast.Dict):  # a Block Kit text object built by hand
            keys = [k.value if isinstance(k, ast.Constant) else None for k in node.keys]
            args = [v for k, v in zip(keys, node.values, strict=True) if k == "text" and not isinstance(v, ast.Dict)]
        for arg in args:
            if words := literal_words(arg):
                found.append(f"{path.relative_to(root)}:{node.lineno}: {' '.join(words)}")
    return found


def test_no_literal_english_goes_to_slack_without_the_catalogue() -> None:
    assert [hit for path in SOURCES for hit in direct_literals(path)] == []
    assert [hit for path in PEOPLE_ONLY for hit in prose_literals(path)] == []


def test_the_literal_scan_finds_a_literal(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('section("*Why:* x")\nbutton(t("worked", lang), "a", {})\nrespond(text=f"Done {n}")\n')
    assert [hit.split(": ", 1)[1] for hit in direct_literals(planted, tmp_path)] == ["Why", "Done"]


def test_the_literal_scan_finds_constants_labels_and_hand_built_texts(tmp_path: Path) -> None:
    """What teach (#17) had before the catalogue: a title and a nudge in constants, a tuple of
    labels and hints, and the modal's buttons as `{"type": "plain_text", "text": "Save"}`; ids,
    switches and patterns at module level are not text shown."""
    planted = tmp_path / "planted.py"
    planted.write_text(
        'TEACH_SUBMIT = "errfix_teach_submit"\n'
        'SWITCH = frozenset({"teach off", "teach on"})\n'
        'PATTERN = re.compile(r"Loss is NaN")\n'
        'TITLE = "Save as errfix record"\n'
        'FIELDS: tuple[tuple[str, str, bool], ...] = (("error_line", "Error line", True), ("how", "How", False))\n'
        'NUDGE_TEXT = "Solved? Save it."\n'
        "def modal(lang):\n"
        '    return {"title": {"type": "plain_text", "text": t("teach_title", lang)},\n'
        '            "submit": {"type": "plain_text", "text": "Save"}}\n'
    )
    hits = [hit.split(":", 1)[1] for hit in direct_literals(planted, tmp_path)]
    assert hits == ["4: Save as record", "5: Error line How", "6: Solved Save it", "9: Save"]


# (module, a catalogue call in it, the English literal it replaced): each put back in a copy
TEACH_REVERTS = [
    ("bot/core/teach_view.py", '"text": t("teach_title", lang)', '"text": "Save as errfix record"'),
    ("bot/core/teach_view.py", 'kit.button(t("teach_title", lang)', 'kit.button("Save as errfix record"'),
    ("bot/core/teach_view.py", 't("teach_cancel", lang)', '"Cancel"'),
    ("bot/core/teach_view.py", 't(f"teach_label_{name}", lang)', '"Error line"'),
    ("bot/core/teach_view.py", 't("teach_home_header", lang)', '"Taught by your team"'),
    ("bot/core/teach_view.py", 't("teach_home_newest", lang)', '"*Newest:*"'),
    ("bot/core/teach_view.py", 'return t("teach_nudge", lang)', 'return NUDGE_TEXT\nNUDGE_TEXT = "Solved? Save it."'),
    (
        "bot/service/teach.py",
        't("teach_required", lang, label=t(f"teach_label_{name}", lang))',
        'f"{name} is required."',
    ),
    ("bot/service/teach.py", 't("teach_known", lang, id=rid)', 'f"Too broad: it matches {rid}."'),
    ("bot/slack/teach_modal.py", 't("teach_updated", lang, id=rec.id)', 'f"Updated `{rec.id}`; I answer from it now."'),
    (
        "bot/slack/teach_modal.py",
        't("teach_not_yours", lang, author=author, id=record_id)',
        'f"Only <@{author}> (who saved it) can edit `{record_id}`."',
    ),
]


@pytest.mark.parametrize(("module", "call", "literal"), TEACH_REVERTS)
def test_the_literal_scan_finds_teach_english_put_back(tmp_path: Path, module: str, call: str, literal: str) -> None:
    """Teach's own modules with one catalogue call turned back into the literal it replaced
    (a constant, a label, a returned problem): the scan finds it."""
    source = (REPO / module).read_text(encoding="utf-8")
    assert source.count(call) == 1, call
    reverted = tmp_path / Path(module).name
    reverted.write_text(source.replace(call, literal), encoding="utf-8")
    hits = direct_literals(reverted, tmp_path) + prose_literals(reverted, tmp_path)
    shown = re.sub(r"\{\w+\}", " ", re.findall(r'"([^"]*)"', literal)[-1])
    words = [w for w in WORD.findall(CODE.sub(" ", shown)) if w not in OWN_NAMES]
    assert words and set(words) <= {w for hit in hits for w in hit.split(": ", 1)[1].split()}, hits
