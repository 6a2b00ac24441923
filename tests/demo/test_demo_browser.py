"""`errfix demo` driven like a person would, in headless Chromium (Debian's, through Playwright).

The demo runs as a real process (`python -m bot demo --port 0`); the page is used only through
what a person can do: type or paste and press Enter, click buttons, react. Nothing is skipped:
if Playwright or Chromium is missing, or the browser cannot start, the tests fail and say why
(.ci/run installs both). Waits are on conditions (Playwright's `expect`), each bounded.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Error, Page, Playwright, expect, sync_playwright
from slack_sdk import WebClient

from tests.conftest import run_module

CHROMIUM = os.environ.get("ERRFIX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
START_TIMEOUT = 60.0  # seconds for `errfix demo` to print its URL
WAIT_MS = 20_000  # the longest any one expectation waits
PASTE = (
    "Traceback (most recent call last):\n"
    '  File "train.py", line 42, in <module>\n'
    '    raise RuntimeError(f"Loss is NaN or Inf at step {step}")\n'
    "RuntimeError: Loss is NaN or Inf at step 1000"
)
RECORD = "pytorch/loss-nan-step"
MRKDWN = "*bold* _italic_ ~struck~ `code` <https://example.org|a link>"


@dataclass(frozen=True)
class RunningDemo:
    url: str
    slack_api: str
    db: Path


def _read_banner(proc: subprocess.Popen[str], log: Path) -> list[str]:
    """The lines `errfix demo` prints when it is up (waiting at most START_TIMEOUT; at once if it exits)."""
    lines: queue.Queue[str | None] = queue.Queue()
    assert proc.stdout is not None
    stdout = proc.stdout

    def pump() -> None:
        for line in stdout:
            lines.put(line)
        lines.put(None)  # the demo closed its output: it has exited

    threading.Thread(target=pump, daemon=True).start()
    banner: list[str] = []
    while len(banner) < 4:
        try:
            line = lines.get(timeout=START_TIMEOUT)
        except queue.Empty:
            pytest.fail(f"errfix demo printed no URL within {START_TIMEOUT}s:\n{log.read_text()}")
        if line is None:
            pytest.fail(f"errfix demo exited (code {proc.wait(timeout=10)}) before it was up:\n{log.read_text()}")
        banner.append(line)
    return banner


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningDemo]:
    """`errfix demo --port 0` on a new database, stopped with SIGTERM (which must be clean)."""
    tmp = tmp_path_factory.mktemp("demo")
    db, log = tmp / "errfix.db", tmp / "demo.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ERRFIX_"))}
    with log.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "bot", "demo", "--port", "0", "--db", str(db)],
            cwd=tmp,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    try:
        banner = "".join(_read_banner(proc, log))
        url = re.search(r"open (http://127\.0\.0\.1:\d+/)", banner)
        api = re.search(r"Slack stand-in: +(http://127\.0\.0\.1:\d+/api/)", banner)
        assert url and api, banner
        yield RunningDemo(url.group(1), api.group(1), db)
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=30)
    assert code == 0, log.read_text()
    assert "Traceback" not in log.read_text(), log.read_text()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


def launch(playwright: Playwright, profile: Path, **options: Any) -> BrowserContext:
    """Debian's Chromium, headless, with a new profile; never a downloaded browser."""
    if not Path(CHROMIUM).is_file():
        pytest.fail(f"no Chromium at {CHROMIUM}: install Debian's chromium (.ci/run does)")
    try:
        return playwright.chromium.launch_persistent_context(
            str(profile), executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS, **options
        )
    except Error as e:
        pytest.fail(f"headless Chromium ({CHROMIUM}) did not start: {e}")


@pytest.fixture
def page(playwright: Playwright, tmp_path: Path, demo: RunningDemo) -> Iterator[Page]:
    """A 1280×800 window on the demo; page errors fail the test."""
    context = launch(playwright, tmp_path / "profile", viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(demo.url)
    yield page
    context.close()
    assert not errors, errors


def send(page: Page, text: str, box: str = "#channel-input") -> None:
    """Type (or paste) into a composer and press Enter, as a person does."""
    page.locator(box).fill(text)
    page.locator(box).press("Enter")


def test_a_pasted_traceback_is_answered_in_its_thread_and_votes_update_the_counts(
    page: Page, demo: RunningDemo
) -> None:
    expect(page.locator("#channel-title")).to_have_text("# general")
    send(page, PASTE)

    # the paste is in the channel, with errfix's answer in its thread, not in the channel
    mine = page.locator("#channel-messages .msg.person").filter(has_text="Loss is NaN or Inf at step 1000").last
    expect(mine.locator(".reply-count")).to_have_text("1 reply", timeout=WAIT_MS)
    expect(page.locator("#channel-messages")).not_to_contain_text("Fixes, best first")
    thread = page.locator("#thread-pane")
    expect(thread).to_be_visible()
    expect(thread.locator(".msg").first).to_contain_text("Traceback (most recent call last)")
    answer = thread.locator(".msg.bot").first
    expect(answer.locator(".bk-section").first).to_contain_text("RuntimeError: Loss is NaN or Inf at step 1000")
    expect(answer).to_contain_text(RECORD)
    expect(answer).to_contain_text("Fixes, best first")
    expect(answer.locator(".bk-context").first).to_contain_text("Official docs")
    top_fix = answer.locator(".bk-section").filter(has_text=re.compile(r"^1\. "))
    expect(top_fix).to_contain_text("👍 0 · 👎 0")
    expect(answer.get_by_role("button", name="Didn't work")).to_have_count(3)

    # "Worked" on the top fix: the vote is stored and the answer is updated in place
    answer.get_by_role("button", name="Worked").first.click()
    expect(answer.locator(".bk-section").filter(has_text="👍 1")).to_have_count(1, timeout=WAIT_MS)
    expect(answer.locator(".edited")).to_have_text("(edited)")
    shown = run_module("show", RECORD, "--json", "--db", demo.db)
    assert shown.code == 0, shown.err
    assert sum(w["votes_up"] for w in json.loads(shown.out)["workarounds"]) == 1

    # 👎 on the answer changes my vote on its top fix: the pill and the counts follow
    answer.hover()
    answer.get_by_role("button", name="React with 👎").click()
    expect(answer.locator(".reaction.mine")).to_have_text("👎1", timeout=WAIT_MS)
    expect(answer.locator(".bk-section").filter(has_text="👎 1")).to_have_count(1, timeout=WAIT_MS)
    expect(answer.locator(".bk-section").filter(has_text="👍 1")).to_have_count(0)


def test_errfix_slash_command_answers_only_me(page: Page) -> None:
    send(page, "/errfix loss nan")
    ephemeral = page.locator("#channel-messages .msg.ephemeral").last
    expect(ephemeral).to_contain_text("Only visible to you", timeout=WAIT_MS)
    expect(ephemeral).to_contain_text("Results for “loss nan”")
    expect(ephemeral.locator(".inline-code").first).to_have_text(RECORD)
    expect(ephemeral.locator(".msg-author")).to_have_text("errfix")

    # "Share in channel" posts the results for everyone (a normal message, not ephemeral)
    ephemeral.get_by_role("button", name="Share in channel").click()
    shared = page.locator("#channel-messages .msg.bot:not(.ephemeral)").filter(has_text="Shared by @you")
    expect(shared).to_contain_text("Results for “loss nan”", timeout=WAIT_MS)

    # an unknown command is refused by "Slack", as in a workspace without it
    send(page, "/deploy now")
    expect(page.locator(".msg.slackbot").last).to_contain_text("/deploy is not a command here")


def test_an_example_is_one_click_away_and_answered(page: Page) -> None:
    page.get_by_role("button", name="Docker port in use").click()
    answer = page.locator("#thread-pane .msg.bot").first
    expect(answer).to_contain_text("docker/port-already-allocated", timeout=WAIT_MS)
    expect(page.locator("#thread-pane .msg").first).to_contain_text("port is already allocated")


def test_the_page_draws_every_block_kind_errfix_may_send(page: Page, demo: RunningDemo) -> None:
    """header, section (text, fields, accessory), context, divider, actions: drawn from Block Kit."""
    blocks = [
        {"type": "header", "text": {"type": "plain_text", "text": "Block check :tada:"}},
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": MRKDWN},
            "accessory": {"type": "button", "action_id": "x", "text": {"type": "plain_text", "text": "Side button"}},
        },
        {"type": "section", "fields": [{"type": "mrkdwn", "text": "*Left*"}, {"type": "plain_text", "text": "Right"}]},
        {"type": "divider"},
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "small print &lt;module&gt;"}]},
        {
            "type": "actions",
            "elements": [
                {"type": "button", "action_id": "a", "text": {"type": "plain_text", "text": "Go"}, "style": "primary"},
                {"type": "button", "action_id": "b", "text": {"type": "plain_text", "text": "Stop"}, "style": "danger"},
            ],
        },
    ]
    WebClient(token="xoxb-test", base_url=demo.slack_api).chat_postMessage(
        channel="C_GENERAL", text="Block check", blocks=blocks
    )
    message = page.locator("#channel-messages .msg.bot").filter(has_text="Block check").last
    expect(message.locator(".bk-header")).to_have_text("Block check 🎉", timeout=WAIT_MS)
    section = message.locator(".bk-section").first
    expect(section.locator("b")).to_have_text("bold")
    expect(section.locator("i")).to_have_text("italic")
    expect(section.locator("s")).to_have_text("struck")
    expect(section.locator("code")).to_have_text("code")
    expect(section.locator("a")).to_have_attribute("href", "https://example.org")
    expect(section.get_by_role("button", name="Side button")).to_be_visible()
    expect(message.locator(".bk-fields > div")).to_have_text(["Left", "Right"])
    expect(message.locator("hr.bk-divider")).to_have_count(1)
    expect(message.locator(".bk-context")).to_have_text("small print <module>")
    expect(message.locator(".bk-button.primary")).to_have_text("Go")
    expect(message.locator(".bk-button.danger")).to_have_text("Stop")


def test_the_home_tab_comes_from_app_home_opened(page: Page) -> None:
    page.locator(".side-item.app-item").click()
    home = page.locator("#home")
    expect(home.locator(".bk-header").first).to_have_text("errfix", timeout=WAIT_MS)
    expect(home).to_contain_text("Fixes that worked most")

    page.locator("#tab-messages").click()
    send(page, "RuntimeError: Loss is NaN or Inf at step 1000")
    expect(page.locator("#thread-pane .msg.bot").first).to_contain_text(RECORD, timeout=WAIT_MS)


def test_a_phone_sized_window(playwright: Playwright, tmp_path: Path, demo: RunningDemo) -> None:
    """390×844 with touch: nothing wider than the screen; the thread covers the channel."""
    context = launch(
        playwright, tmp_path / "profile", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    try:
        page = context.new_page()
        page.goto(demo.url)
        expect(page.locator("#channel-input")).to_be_visible()
        expect(page.locator("#sidebar")).not_to_be_in_viewport()
        page.get_by_role("button", name="CUDA out of memory").click()
        thread = page.locator("#thread-pane")
        expect(thread.locator(".msg.bot").first).to_contain_text("Fixes, best first", timeout=WAIT_MS)
        box = thread.bounding_box()
        assert box is not None and box["x"] == 0 and box["width"] == 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        thread.get_by_role("button", name="Worked").first.click()
        expect(thread.locator(".msg.bot .bk-section").filter(has_text="👍 1")).to_have_count(1, timeout=WAIT_MS)
        page.locator("#thread-close").click()
        expect(thread).to_be_hidden()
    finally:
        context.close()


def test_the_demo_serves_nothing_but_its_files(demo: RunningDemo) -> None:
    """The static route is the package's folder only: no listing, no way out of it."""
    for path in ("demo/static/", "demo/static/../server.py", "demo/static/%2e%2e/server.py", "demo/api/nothing"):
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(demo.url + path, timeout=10)
        assert refused.value.code in (403, 404, 405), path


TEACH_PASTE = (
    "Traceback (most recent call last):\n"
    '  File "/srv/etl/run.py", line 88, in <module>\n'
    "QuarryLockError: shard 17 of /data/quarry/2026-01.qdb is held by pid 4412"
)
TEACH_AGAIN = "QuarryLockError: shard 3 of /mnt/q/march.qdb is held by pid 91"


def test_save_as_errfix_record_from_a_messages_menu(page: Page, demo: RunningDemo, tmp_path: Path) -> None:
    """#17 in the page: paste, reply with the fix, ⋯ → Save as errfix record, a refused regex,
    Save, "Saved as" in the thread, and the next paste of the error answered from the record."""
    send(page, TEACH_PASTE)
    mine = page.locator("#channel-messages .msg.person").filter(has_text="QuarryLockError: shard 17").last
    expect(mine).to_be_visible(timeout=WAIT_MS)
    mine.hover()
    mine.get_by_role("button", name="Reply in thread").click()
    send(page, "Kill the stale importer, then `quarry unlock --force`", box="#thread-input")
    reply = page.locator("#thread-pane .msg.person").filter(has_text="Kill the stale importer").last
    expect(reply).to_be_visible(timeout=WAIT_MS)
    reply.hover()
    reply.get_by_role("button", name="More actions").click()
    reply.get_by_role("menuitem", name="Save as errfix record").click()

    modal = page.get_by_role("dialog", name="Save as errfix record")
    expect(modal).to_be_visible(timeout=WAIT_MS)
    expect(modal.locator('textarea[data-block="error_line"]')).to_have_value(re.compile("^QuarryLockError: shard 17"))
    expect(modal.locator('textarea[data-block="how"]')).to_have_value("quarry unlock --force")
    regex = modal.locator('textarea[data-block="regex"]')
    drafted = regex.input_value()
    regex.fill("(unclosed")
    modal.get_by_role("button", name="Save").click()
    expect(modal.locator(".modal-error")).to_contain_text("RE2", timeout=WAIT_MS)
    regex.fill(drafted)
    modal.locator('textarea[data-block="root_cause"]').fill("A crashed importer leaves its lock behind.")
    page.screenshot(path=str(tmp_path / "teach-modal.png"))
    modal.get_by_role("button", name="Save").click()
    expect(modal).to_have_count(0, timeout=WAIT_MS)
    saved = page.locator("#thread-pane .msg.bot").filter(has_text="Saved as")
    expect(saved).to_contain_text("I'll answer this error from now on", timeout=WAIT_MS)
    if os.environ.get("ERRFIX_SCREENSHOTS"):  # README's pictures: ERRFIX_SCREENSHOTS=docs pytest -k save_as
        Path(os.environ["ERRFIX_SCREENSHOTS"]).mkdir(exist_ok=True)
        (Path(os.environ["ERRFIX_SCREENSHOTS"]) / "teach-modal.png").write_bytes(
            (tmp_path / "teach-modal.png").read_bytes()
        )
        page.screenshot(path=str(Path(os.environ["ERRFIX_SCREENSHOTS"]) / "teach-saved.png"))

    page.locator("#thread-close").click()
    send(page, TEACH_AGAIN)
    again = page.locator("#channel-messages .msg.person").filter(has_text="shard 3 of").last
    expect(again.locator(".reply-count")).to_have_text("1 reply", timeout=WAIT_MS)
    expect(page.locator("#thread-pane .msg.bot").first).to_contain_text("team/", timeout=WAIT_MS)
