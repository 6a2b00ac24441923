"""Long pastes arrive as snippets: errfix reads the whole file, not just the event's preview."""

from __future__ import annotations

import logging

import pytest

from tests.slack.conftest import ALICE, CHANNEL, PASTE, RECORD, Bot, all_text

FRAMES = "".join(f'  File "/opt/lib/layer{n}.py", line {n}, in forward\n    x = self.block{n}(x)\n' for n in range(40))
# the exception line is the last one: far below the 5-line preview Slack shows in the event
LONG_TRACE = "Traceback (most recent call last):\n" + FRAMES + "RuntimeError: Loss is NaN or Inf at step 1000\n"


async def test_a_long_traceback_shared_as_a_snippet_is_answered_from_its_whole_text(bot: Bot) -> None:
    assert bot.link is not None
    message, sent = await bot.link.share_file(CHANNEL, ALICE, LONG_TRACE, name="trace.txt")
    assert [d.status for d in sent] == [200]
    [shared] = message["files"]
    assert shared["preview_is_truncated"] is True and "RuntimeError" not in shared["preview"]
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer) and "preview" not in all_text(answer)
    assert [c.params["file"] for c in bot.fake.calls("files.info")] == [shared["id"]]


async def test_a_slack_connect_file_is_looked_up_and_answered(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.share_file(CHANNEL, ALICE, LONG_TRACE, name="trace.log", connect=True)
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer)
    assert bot.fake.calls("files.info")[0].ok


async def test_a_hosted_log_file_is_downloaded_with_the_bot_token(bot: Bot) -> None:
    assert bot.link is not None
    log = LONG_TRACE.encode()  # bytes: an uploaded file, not a snippet (files.info has no content)
    message, _ = await bot.link.share_file(CHANNEL, ALICE, log, name="train.log", filetype="text")
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer)
    [download] = bot.fake.calls("file_download")
    assert download.ok and download.headers["Authorization"] == "Bearer xoxb-test"


async def test_a_huge_log_is_read_as_head_and_tail_and_the_answer_says_so(bot: Bot) -> None:
    assert bot.link is not None
    filler = "".join(f"step {n}: loss 0.{n % 97:02d}\n" for n in range(150_000))  # about 3 MB of progress
    huge = ("epoch 1 starting\n" + filler + LONG_TRACE).encode()
    assert 3_250_000 < len(huge) < 3_350_000
    message, _ = await bot.link.share_file(CHANNEL, ALICE, huge, name="run.log", filetype="text")
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer)
    assert "run.log is 3.3 MB: I read its first and last part only" in all_text(answer)
    assert len(bot.fake.calls("file_download")) == 2  # a ranged GET for the head, one for the tail


async def test_an_unreadable_file_is_logged_once_and_the_message_text_still_matched(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    assert bot.link is not None
    caplog.set_level(logging.WARNING)
    bot.fake.error_next("files.info", "file_not_found")
    message, _ = await bot.link.share_file(CHANNEL, ALICE, "see below\n" * 9, comment=PASTE, name="notes.txt")
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer)
    warnings = [r.getMessage() for r in caplog.records if "cannot read file" in r.getMessage()]
    assert warnings == [
        f"errfix: cannot read file {message['files'][0]['id']} (file_not_found); matching the message without it"
    ]


async def test_images_are_not_read(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.share_file(
        CHANNEL, ALICE, b"\x89PNG\r\n\x1a\n", comment=PASTE, name="loss.png", filetype="png", mimetype="image/png"
    )
    answer = await bot.answer_to(message)
    assert RECORD in all_text(answer)
    assert bot.fake.calls("files.info") == [] and bot.fake.calls("file_download") == []


async def test_a_connect_file_that_is_an_image_is_looked_up_but_not_downloaded(bot: Bot) -> None:
    assert bot.link is not None
    message, _ = await bot.link.share_file(
        CHANNEL, ALICE, b"GIF89a", comment=PASTE, name="x.gif", mimetype="image/gif", connect=True
    )
    assert RECORD in all_text(await bot.answer_to(message))
    assert len(bot.fake.calls("files.info")) == 1 and bot.fake.calls("file_download") == []


async def test_a_rate_limited_download_waits_retry_after_and_is_read(bot: Bot) -> None:
    assert bot.link is not None
    bot.fake.fail_next("file_download", status=429, retry_after=0)
    message, _ = await bot.link.share_file(CHANNEL, ALICE, LONG_TRACE.encode(), name="train.log", filetype="text")
    assert RECORD in all_text(await bot.answer_to(message))
    assert [c.status for c in bot.fake.calls("file_download")] == [429, 200]
