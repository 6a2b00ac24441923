"""Every string errfix shows people, in English and Chinese, in one table (pure).

Answers, buttons, `/errfix` results and help, notices, feedback and the App Home all take their
words from `MESSAGES` through `t(key, lang, **fields)`, so a Chinese query or a zh-locale user gets
the whole message in Chinese, not just the record's zh fields. Templates are `str.format` strings;
markup that is the same in both languages (mrkdwn `*`, `` ` ``, emoji codes) stays in the
templates so a translation can move it. `tests/core/test_messages.py` checks that every key has
both languages with the same placeholders, and that nothing user-facing bypasses the table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from bot.core.cjk import has_cjk

Lang = Literal["en", "zh"]
LANGS: tuple[Lang, ...] = ("en", "zh")

MESSAGES: dict[str, dict[Lang, str]] = {
    # ---- help ------------------------------------------------------------------------------
    "usage": {
        "en": (
            "*errfix* finds the fix for a pasted error.\n"
            "• `/errfix loss nan`: search the known errors\n"
            "• `/errfix pytorch/loss-nan-step`: one record in full\n"
            "• `/errfix stats`: this team's numbers\n"
            "• `/errfix here auto | mention | off`: how I answer in this channel\n"
            "• `/errfix digest weekly | off | now`: a digest of the week's errors here\n"
            "• `/errfix help`: this text\n"
            "Paste a traceback in a channel I'm in and I answer in its thread when I'm sure; "
            "mention me (@errfix) to get my best guesses anyway."
        ),
        "zh": (
            "*errfix* 帮你找到粘贴的错误的修复方法。\n"
            "• `/errfix loss nan`：搜索已知的错误\n"
            "• `/errfix pytorch/loss-nan-step`：查看一条完整记录\n"
            "• `/errfix stats`：本团队的统计数据\n"
            "• `/errfix here auto | mention | off`：我在本频道如何回复\n"
            "• `/errfix digest weekly | off | now`：在这里发布本周错误周报\n"
            "• `/errfix help`：显示这段说明\n"
            "在我所在的频道里粘贴报错堆栈，我有把握时会在消息串里回复；"
            "想听我的猜测，就提及我（@errfix）。"
        ),
    },
    "dm_usage_fallback": {
        "en": "Paste an error and I'll look it up.",
        "zh": "粘贴一个错误，我来帮你查。",
    },
    # ---- an answer --------------------------------------------------------------------------
    "match": {"en": "{pct} match", "zh": "匹配度 {pct}"},
    "kind_only": {
        "en": "general advice for this kind of error, not a record of this one",
        "zh": "这类错误的通用建议，并非这个错误本身的记录",
    },
    "match_unsure": {"en": "{pct} match, unsure: my best guess", "zh": "匹配度 {pct}，不确定：这是我的最佳猜测"},
    "match_unsure_short": {"en": "{pct} match, unsure", "zh": "匹配度 {pct}，不确定"},
    "votes": {"en": "{pct} worked · :+1: {up} · :-1: {down}", "zh": "{pct} 有效 · :+1: {up} · :-1: {down}"},
    "worked": {"en": "Worked", "zh": "有效"},
    "did_not_work": {"en": "Didn't work", "zh": "无效"},
    "not_this": {"en": "Not this error", "zh": "不是这个错误"},
    "why": {"en": "*Why:* {cause}", "zh": "*原因：*{cause}"},
    "fixes": {"en": "*Fixes, best first:*", "zh": "*修复方法（按效果排序）：*"},
    "dead_ends": {"en": "*Don't bother:*", "zh": "*不必尝试：*"},
    "dead_end": {"en": "• ~{action}~ {why} ({pct} failed)", "zh": "• ~{action}~ {why}（{pct} 失败）"},
    "docs": {"en": "Official docs", "zh": "官方文档"},
    "more_fix": {
        "en": "{n} more fix and the full record: {command}",
        "zh": "还有 {n} 个修复方法，完整记录：{command}",
    },
    "more_fixes": {
        "en": "{n} more fixes and the full record: {command}",
        "zh": "还有 {n} 个修复方法，完整记录：{command}",
    },
    "full_record": {"en": "Full record: {command}", "zh": "完整记录：{command}"},
    "also_possible": {"en": "Also possible: {items}", "zh": "也可能是：{items}"},
    "answer_fallback": {"en": "{signature} ({how}).", "zh": "{signature}（{how}）。"},
    "answer_fallback_fix": {"en": " Top fix: {fix}", "zh": "首选修复：{fix}"},
    "rejected": {
        "en": (
            "{user} marked this as *not this error*; errfix will rank {id} lower for pastes like it. "
            "Know the right one? Find it with `/errfix some words` and press *This one*."
        ),
        "zh": (
            "{user} 标记为*不是这个错误*；遇到类似的粘贴，errfix 会把 {id} 排得更靠后。"
            "知道正确的是哪个吗？用 `/errfix 几个关键词` 搜索，再点 *就是这个*。"
        ),
    },
    "rejected_fallback": {"en": "Not this error: {id}", "zh": "不是这个错误：{id}"},
    "no_match": {
        "en": (
            "I don't know this error yet. Try `/errfix` with a few words from it to search; "
            "if you find the fix, it can become a record."
        ),
        "zh": "我还不认识这个错误。试试用 `/errfix` 加上错误里的几个词来搜索；找到修复方法后，可以把它加成一条记录。",
    },
    "no_match_fallback": {"en": "I don't know this error yet.", "zh": "我还不认识这个错误。"},
    # ---- notes on an answer -------------------------------------------------------------------
    "note_preview": {
        "en": "Read from the snippet's preview (its first lines); paste the end of the log if I missed the error.",
        "zh": "只读取了代码片段的预览（开头几行）；如果我漏掉了错误，请粘贴日志的结尾部分。",
    },
    "note_partial": {
        "en": "{name} is {size}: I read its first and last part only, not the middle.",
        "zh": "{name} 大小为 {size}：我只读取了开头和结尾部分，没有读中间。",
    },
    "note_partial_unnamed": {
        "en": "The file is {size}: I read its first and last part only, not the middle.",
        "zh": "该文件大小为 {size}：我只读取了开头和结尾部分，没有读中间。",
    },
    # ---- /errfix ------------------------------------------------------------------------------
    "no_domain": {"en": "no domain", "zh": "无领域"},
    "share": {"en": "Share in channel", "zh": "分享到频道"},
    "shared_by": {"en": "Shared by {user} from `/errfix`", "zh": "{user} 通过 `/errfix` 分享"},
    "results_for": {"en": "*Results for “{query}”:*", "zh": "*“{query}”的搜索结果：*"},
    "results_unsure": {
        "en": "*Results for “{query}”*, not sure any of them is it:",
        "zh": "*“{query}”的搜索结果*，不确定其中有没有你要找的错误：",
    },
    "result_score": {"en": "{pct}", "zh": "{pct}"},
    "result_weak": {"en": "{pct}, weak match", "zh": "{pct}，弱匹配"},
    "top_fix": {"en": "Top fix: {fix} ({pct})", "zh": "首选修复：{fix}（{pct}）"},
    "this_one": {"en": "This one", "zh": "就是这个"},
    "this_one_hint": {
        "en": "*This one* teaches errfix that “{line}” is that error.",
        "zh": "点 *就是这个*，errfix 就会记住“{line}”是那个错误。",
    },
    "details": {"en": "Details of one: `/errfix ID`", "zh": "查看某一条的详情：`/errfix ID`"},
    "nothing_found": {"en": "Nothing found for “{query}”.", "zh": "没有找到与“{query}”相关的结果。"},
    "results_for_fallback": {"en": "Results for “{query}”: {ids}", "zh": "“{query}”的搜索结果：{ids}"},
    "results_unsure_fallback": {
        "en": "Results for “{query}”, not sure: {ids}",
        "zh": "“{query}”的搜索结果，不确定：{ids}",
    },
    "stats_fallback": {"en": "errfix stats", "zh": "errfix 统计"},
    "stats": {
        "en": (
            "*errfix for this team*\n"
            "Known errors: {records} ({domains})\n"
            "Votes: :+1: {up} · :-1: {down}\n"
            "Answers given: {replies} · learned aliases: {aliases}\n"
            "This week: {pastes} pastes, {answered} answered, {unmatched} matched nothing"
        ),
        "zh": (
            "*本团队的 errfix*\n"
            "已知错误：{records}（{domains}）\n"
            "投票：:+1: {up} · :-1: {down}\n"
            "已回答：{replies} · 学到的别名：{aliases}\n"
            "本周：粘贴 {pastes} 次，回答 {answered} 次，{unmatched} 次未匹配"
        ),
    },
    "none": {"en": "(none)", "zh": "（无）"},
    # ---- words, not a paste (@errfix words, a DM) -----------------------------------------------
    "unsure_words": {
        "en": "*Not sure which error you mean.* Closest matches for “{query}”:",
        "zh": "*不确定你说的是哪个错误。*与“{query}”最接近的结果：",
    },
    "unsure_words_hint": {
        "en": "Paste the error itself for a real answer, or see one: `/errfix ID`",
        "zh": "粘贴错误原文可以得到确切的回答，或查看其中一条：`/errfix ID`",
    },
    "unsure_words_fallback": {
        "en": "Not sure which error you mean; closest: {ids}",
        "zh": "不确定你说的是哪个错误；最接近的：{ids}",
    },
    # ---- feedback -----------------------------------------------------------------------------
    "not_this_thanks": {"en": "Thanks, noted. Was it one of these?", "zh": "谢谢，已记下。是下面其中一个吗？"},
    "learned": {
        "en": "Learned: “{line}” is {id}; the same paste matches it now.",
        "zh": "已学会：“{line}”就是 {id}；以后同样的粘贴会匹配到它。",
    },
    "already_known": {
        "en": "Already known: “{line}” is {id}; the same paste matches it now.",
        "zh": "已经知道：“{line}”就是 {id}；同样的粘贴会匹配到它。",
    },
    # ---- the secret notice ------------------------------------------------------------------------
    "secret_one": {
        "en": (
            ":warning: Your message looks like it contains a secret ({kinds}). Only you can see this note. "
            "errfix keeps it redacted, but the message itself is still in Slack: you may want to rotate the "
            "credential and delete the message."
        ),
        "zh": (
            ":warning: 你的消息里似乎有一个密钥或凭据（{kinds}）。这条提示只有你能看到。"
            "errfix 保存时已将其脱敏，但原消息仍在 Slack 中：建议你更换该凭据并删除这条消息。"
        ),
    },
    "secret_many": {
        "en": (
            ":warning: Your message looks like it contains secrets ({kinds}). Only you can see this note. "
            "errfix keeps it redacted, but the message itself is still in Slack: you may want to rotate the "
            "credential and delete the message."
        ),
        "zh": (
            ":warning: 你的消息里似乎有多个密钥或凭据（{kinds}）。这条提示只有你能看到。"
            "errfix 保存时已将其脱敏，但原消息仍在 Slack 中：建议你更换这些凭据并删除这条消息。"
        ),
    },
    # ---- App Home -------------------------------------------------------------------------------
    "home_top_errors": {"en": "Most frequent errors this week", "zh": "本周最常见的错误"},
    "home_no_errors": {"en": "No matched pastes this week.", "zh": "本周还没有匹配到的粘贴。"},
    "home_top_fixes": {"en": "Fixes that worked most this week", "zh": "本周最有效的修复方法"},
    "home_no_fixes": {
        "en": "No fixes voted up this week: press *Worked* on an answer.",
        "zh": "本周还没有修复方法被点赞：在回答上点 *有效*。",
    },
    "home_unmatched": {"en": "Recent pastes that matched nothing", "zh": "最近没有匹配到任何记录的粘贴"},
    "home_candidates": {"en": "Candidates for new records.", "zh": "可以作为新记录的候选。"},
    "home_nothing_unmatched": {"en": "Nothing unmatched recently.", "zh": "最近没有未匹配的粘贴。"},
    # ---- teach (#17) ------------------------------------------------------------------------------
    # ---- team memory (#36) -------------------------------------------------------------------
    "memory_seen": {"en": "Seen before in {channel} on {when} · {state}", "zh": "{when} 在 {channel} 出现过 · {state}"},
    "memory_solved": {"en": "solved", "zh": "已解决"},
    "memory_discussed": {"en": "discussed, not solved", "zh": "讨论过，未解决"},
    "memory_thread": {"en": "thread", "zh": "讨论"},
    "memory_heading": {
        "en": "*Your team has seen this error before.* No record knows it, but this is what solved it:",
        "zh": "*团队之前遇到过这个错误。* 没有记录能回答它，但当时是这样解决的：",
    },
    "memory_heading_unsolved": {
        "en": "*Your team has seen this error before*, without a fix yet:",
        "zh": "*团队之前遇到过这个错误*，但还没有找到修复方法：",
    },
    "memory_fix": {"en": "{user}: {words}", "zh": "{user}：{words}"},
    "memory_someone": {"en": "someone", "zh": "有人"},
    "memory_votes": {"en": ":+1: {up} · :-1: {down}", "zh": ":+1: {up} · :-1: {down}"},
    "home_memory_solved": {"en": "Errors your team solved most", "zh": "团队解决最多的错误"},
    "home_memory_none": {
        "en": "None yet: mark the reply that fixed a pasted error with :white_check_mark:.",
        "zh": "暂无：用 :white_check_mark: 标记修复了错误的回复。",
    },
    "home_memory_worth": {
        "en": "*Solved in a thread, known to no record*: worth saving as records",
        "zh": "*在讨论中解决、但没有记录的错误*：值得保存为记录",
    },
    "memory_fallback_unsolved": {
        "en": "Your team has seen this error before ({when}), without a fix yet: see the thread",
        "zh": "团队之前（{when}）遇到过这个错误，但还没有修复方法：请看那个讨论",
    },
    "memory_fallback": {
        "en": "Your team solved this error before ({when}): see the thread",
        "zh": "团队之前（{when}）解决过这个错误：请看那个讨论",
    },
    # ---- a channel's settings and digest (#38) ----------------------------------------------
    "mode_auto": {"en": "*auto* (I answer pastes I'm sure of)", "zh": "*auto*（有把握时我会回复粘贴的错误）"},
    "mode_mention": {
        "en": "*mention* (I answer only @errfix and /errfix)",
        "zh": "*mention*（我只回复 @errfix 和 /errfix）",
    },
    "mode_off": {"en": "*off* (I answer nothing and keep nothing)", "zh": "*off*（我不回复，也不保存任何内容）"},
    "here_status": {"en": "errfix here: {mode} · digest: {digest}", "zh": "errfix 在本频道：{mode} · 周报：{digest}"},
    "here_changed": {"en": "Last changed by {user} on {when}.", "zh": "最近由 {user} 于 {when} 修改。"},
    "here_how": {
        "en": "Change it: `/errfix here auto | mention | off` · `/errfix digest weekly | off | now`",
        "zh": "修改：`/errfix here auto | mention | off` · `/errfix digest weekly | off | now`",
    },
    "here_note": {
        "en": "{user} set errfix here to {mode}. `{cmd}` turns answers back on.",
        "zh": "{user} 将本频道的 errfix 设为 {mode}。`{cmd}` 可恢复自动回复。",
    },
    "here_set": {"en": "errfix here is now {mode}.", "zh": "本频道的 errfix 现在是 {mode}。"},
    "here_not_channel": {
        "en": "Channel settings are for channels: say `/errfix here` in one.",
        "zh": "频道设置只能在频道里使用：请在频道中输入 `/errfix here`。",
    },
    "here_off_mention": {
        "en": "errfix is off in this channel, so I don't answer here. `/errfix here auto` (or `mention`) turns me on.",
        "zh": "errfix 在本频道已关闭，所以我不在这里回复。`/errfix here auto`（或 `mention`）可重新开启。",
    },
    "here_erase_hint": {
        "en": "What I kept of this channel before stays until `errfix forget-channel` or the retention purge.",
        "zh": "此前保存的本频道内容会保留，直到运行 `errfix forget-channel` 或保留期清理。",
    },
    "digest_weekly_at": {"en": "weekly, {when}", "zh": "每周，{when}"},
    "digest_off_short": {"en": "off", "zh": "关闭"},
    "digest_set_weekly": {
        "en": "A digest of the week's errors will be posted here every {when}.",
        "zh": "每周 {when} 会在这里发布本周错误周报。",
    },
    "digest_set_off": {"en": "No weekly digest here any more.", "zh": "本频道不再发布每周周报。"},
    "digest_not_in_channel": {
        "en": "I'm not in this channel: invite @errfix first, then ask again.",
        "zh": "我不在这个频道里：请先邀请 @errfix，然后再试。",
    },
    "digest_title": {"en": "errfix: the week's errors", "zh": "errfix：本周错误周报"},
    "digest_period": {"en": "{since} to {until}", "zh": "{since} 至 {until}"},
    "digest_counts": {
        "en": "*{pastes}* errors pasted · *{answered}* answered",
        "zh": "粘贴了 *{pastes}* 个错误 · 回复了 *{answered}* 个",
    },
    "digest_top_errors": {"en": "*Most frequent errors*", "zh": "*最常见的错误*"},
    "digest_thread": {"en": "a thread", "zh": "一个讨论"},
    "digest_latest": {"en": "latest thread", "zh": "最近的讨论"},
    "digest_top_fixes": {"en": "*Fixes that worked most*", "zh": "*最有效的修复*"},
    "digest_unanswered": {
        "en": "*Pasted more than once, and no record answers them*: save the fix as a record",
        "zh": "*多次粘贴但没有记录能回答的错误*：把修复方法保存为记录",
    },
    "digest_team": {"en": "*Records the team saved or voted on*", "zh": "*团队保存或投票的记录*"},
    "digest_saved_one": {"en": "saved", "zh": "已保存"},
    "digest_quiet": {"en": "A quiet week: nothing to report.", "zh": "平静的一周：没有需要报告的内容。"},
    "digest_footer": {
        "en": "Posted every {when} · `/errfix digest off` stops it",
        "zh": "每 {when} 发布 · `/errfix digest off` 可停止",
    },
    "digest_footer_now": {
        "en": "Asked with `/errfix digest now` · `/errfix digest weekly` posts one every week",
        "zh": "由 `/errfix digest now` 生成 · `/errfix digest weekly` 每周发布一次",
    },
    "digest_fallback": {
        "en": "errfix digest: {pastes} errors pasted, {answered} answered",
        "zh": "errfix 周报：粘贴了 {pastes} 个错误，回复了 {answered} 个",
    },
    "home_channels": {"en": "Your channels", "zh": "你的频道"},
    "home_no_channels": {
        "en": "None yet: invite @errfix to a channel you are in.",
        "zh": "暂无：把 @errfix 邀请到你所在的频道。",
    },
    "home_channels_how": {
        "en": "In a channel: `/errfix here auto | mention | off` · `/errfix digest weekly | off | now`",
        "zh": "在频道中：`/errfix here auto | mention | off` · `/errfix digest weekly | off | now`",
    },
    "teach_off": {
        "en": "Teaching is off: I won't offer to save solved threads here.",
        "zh": "已关闭：我不会再在这里提议保存已解决的讨论。",
    },
    "teach_on": {
        "en": "Teaching is on: I'll offer to save solved threads here.",
        "zh": "已开启：我会在这里提议把已解决的讨论保存为记录。",
    },
    "teach_not_saved": {"en": "Not saved: {why}", "zh": "未保存：{why}"},
    # the modal's title, the nudge's button
    "teach_title": {"en": "Save as errfix record", "zh": "保存为 errfix 记录"},
    "teach_save": {"en": "Save", "zh": "保存"},
    "teach_cancel": {"en": "Cancel", "zh": "取消"},
    "teach_label_error_line": {"en": "Error line", "zh": "错误行"},
    "teach_label_regex": {"en": "Regex", "zh": "正则表达式"},
    "teach_label_root_cause": {"en": "Root cause", "zh": "根本原因"},
    "teach_label_fix": {"en": "Fix that worked", "zh": "有效的修复方法"},
    "teach_label_how": {"en": "How (command or code)", "zh": "怎么做（命令或代码）"},
    "teach_hint_error_line": {
        "en": "The error as it is printed: what the next paste will contain.",
        "zh": "错误打印出来的原样：下一次粘贴里会出现的内容。",
    },
    "teach_hint_regex": {
        "en": "Recognises the error with other numbers, paths and names (RE2 and Python).",
        "zh": "换了数字、路径和名称也能认出这个错误（RE2 和 Python 通用）。",
    },
    "teach_hint_root_cause": {"en": "Why it happens, in plain words.", "zh": "用平实的话说明为什么会出现。"},
    "teach_hint_fix": {"en": "What to do, in one or two sentences.", "zh": "该怎么做，一两句话即可。"},
    "teach_hint_how": {"en": "The command or code that does it.", "zh": "执行修复的命令或代码。"},
    "teach_no_error_line": {
        "en": "I found no error line in that message: paste the error below.",
        "zh": "那条消息里没有找到错误行：请在下面粘贴错误。",
    },
    "teach_saved_as_id": {
        "en": "Saved as `{id}` (from the error line) · domain {domain}",
        "zh": "将保存为 `{id}`（由错误行生成）· 领域 {domain}",
    },
    "teach_updates_id": {
        "en": "Updates `{id}` (from the error line) · domain {domain}",
        "zh": "将更新 `{id}`（由错误行生成）· 领域 {domain}",
    },
    "teach_saved": {
        "en": "Saved as `{id}` — I'll answer this error from now on.",
        "zh": "已保存为 `{id}`，以后我会回答这个错误。",
    },
    "teach_nudge": {
        "en": "Solved? Save this thread as an errfix record and I'll answer this error from now on.",
        "zh": "解决了吗？把这个讨论保存为 errfix 记录，以后我就会回答这个错误。",
    },
    "teach_nudge_off": {
        "en": "`/errfix teach off` stops these offers in this channel.",
        "zh": "`/errfix teach off` 可以在本频道停止这类提议。",
    },
    "teach_home_header": {"en": "Taught by your team", "zh": "你的团队教给我的"},
    "teach_home_newest": {"en": "*Newest:*", "zh": "*最新：*"},
    "teach_home_helpful": {"en": "*Most helpful:*", "zh": "*最有帮助：*"},
    "teach_home_how": {
        "en": "Save a solved thread with *Save as errfix record* in a message's ⋯ menu.",
        "zh": "在消息的 ⋯ 菜单里选 *保存为 errfix 记录*，就能保存一个已解决的讨论。",
    },
    "teach_not_team": {
        "en": "`{id}` is not a team record: only records saved from Slack can be edited here.",
        "zh": "`{id}` 不是团队记录：这里只能编辑从 Slack 保存的记录。",
    },
    "teach_not_yours": {
        "en": "Only <@{author}> (who saved it) or a workspace admin can edit `{id}`.",
        "zh": "只有 <@{author}>（保存它的人）或工作区管理员可以编辑 `{id}`。",
    },
    "teach_updated": {
        "en": "Updated `{id}`; I answer from the new version now.",
        "zh": "已更新 `{id}`；我现在按新版本回答。",
    },
    # the form's per-field problems (`response_action: errors`), under their box
    "teach_required": {"en": "{label} is required.", "zh": "请填写{label}。"},
    "teach_too_long": {"en": "At most {n} characters.", "zh": "最多 {n} 个字符。"},
    "teach_re2": {"en": "RE2 cannot compile it: {reason}.", "zh": "RE2 无法编译它：{reason}。"},
    "teach_python_re": {"en": "Python's re cannot compile it.", "zh": "Python 的 `re` 无法编译它。"},
    "teach_no_match": {"en": "It does not match the error line.", "zh": "它匹配不到错误行。"},
    "teach_no_literal": {
        "en": "It has no literal text, so it would match almost anything.",
        "zh": "它没有任何字面文字，几乎什么都能匹配。",
    },
    "teach_redos": {
        "en": "It may backtrack catastrophically; make it simpler.",
        "zh": "它可能发生灾难性回溯，请写得简单一些。",
    },
    "teach_chat": {
        "en": "Too broad: it matches ordinary chat ({chat}).",
        "zh": "太宽泛：它会匹配普通聊天（{chat}）。",
    },
    "teach_known": {
        "en": "Too broad, or already known: it matches the signature of {id}.",
        "zh": "太宽泛，或者已经有了：它匹配 {id} 的签名。",
    },
    # ---- the terminal (errfix match / search) ------------------------------------------------------
    "cli_why": {"en": "Why: {cause}", "zh": "原因：{cause}"},
    "cli_fixes": {"en": "Fixes, best first:", "zh": "修复方法（按效果排序）："},
    "cli_team_votes": {"en": ", team +{up}/-{down}", "zh": "，团队 +{up}/-{down}"},
    "cli_worked": {"en": "({pct} worked{votes})", "zh": "（{pct} 有效{votes}）"},
    "cli_dead_ends": {"en": "Don't bother:", "zh": "不必尝试："},
    "cli_dead_end": {"en": "  ✗ {action}: {why} ({pct} failed)", "zh": "  ✗ {action}：{why}（{pct} 失败）"},
    "cli_docs": {"en": "Docs: {url}", "zh": "文档：{url}"},
    "cli_no_known_error": {"en": "No known error recognised.", "zh": "没有识别出已知的错误。"},
    "cli_no_error": {"en": "No error found in the text.", "zh": "文本中没有发现错误。"},
    "cli_would_answer": {"en": "errfix would answer this in a channel:", "zh": "errfix 会在频道里这样回答："},
    "cli_best_guesses": {
        "en": "Not sure enough to answer unprompted; best guesses:",
        "zh": "把握不足，不会主动回答；最佳猜测：",
    },
    "cli_nothing_found": {"en": "Nothing found for “{query}”.", "zh": "没有找到与“{query}”相关的结果。"},
    "cli_results_for": {"en": "Results for “{query}”:", "zh": "“{query}”的搜索结果："},
    "cli_weak": {"en": "weak", "zh": "弱匹配"},
}

_FIELD = re.compile(r"\{(\w+)[^}]*\}")
# Han ideographs; kana or hangul in the same text mean Japanese or Korean, not Chinese
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA_HANGUL = re.compile(r"[\u3040-\u30ff\uac00-\ud7af]")
_PATHLIKE = re.compile(r"[\\/]|\.\w{1,5}\W*$")  # a/b, a\\b or name.py: a path or a file name


def fields(template: str) -> set[str]:
    """The `str.format` placeholders of a template (what a translation must keep)."""
    return set(_FIELD.findall(template))


def is_zh(locale: str | None) -> bool:
    """A Slack locale (`zh-CN`, `zh_TW`, or our own `zh`) that reads Chinese."""
    return bool(locale) and str(locale).lower().replace("_", "-").startswith("zh")


def is_chinese(text: str) -> bool:
    """Text a person wrote in Chinese: two Han characters or more outside file paths and names
    (a Chinese folder in a traceback's path is not a Chinese paste), and no kana or hangul
    anywhere (Japanese, Korean)."""
    if not has_cjk(text) or _KANA_HANGUL.search(text):
        return False
    words = " ".join(w for w in text.split() if not _PATHLIKE.search(w))
    return len(_HAN.findall(words)) >= 2


def lang_of(locale: str | None) -> Lang:
    return "zh" if is_zh(locale) else "en"


def language(locale: str | None, text: str = "") -> str:
    """The locale to answer in: Chinese for a zh-locale person or a Chinese query or paste, else
    the person's own (it is stored with a reply, so a re-render keeps the language)."""
    return "zh" if not is_zh(locale) and is_chinese(text) else (locale or "en")


def t(key: str, lang: str | None, **values: object) -> str:
    """The message `key` in `lang` (a language or a Slack locale), with `values` filled in."""
    return MESSAGES[key][lang_of(lang)].format(**values)


@dataclass(frozen=True)
class Note:
    """A message decided before the answer's language is known (a snippet read only in part):
    its key and values, put into words when the answer is."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    def text(self, lang: str | None) -> str:
        return t(self.key, lang, **dict(self.values))


def notes_text(notes: Sequence[Note], lang: str | None) -> str:
    """Notes as one line in `lang`, each said once."""
    return " ".join(dict.fromkeys(n.text(lang) for n in notes))
