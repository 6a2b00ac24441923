"""The `errfix` group: every command documents itself, and errors become one line in one place."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import click
import pytest

from bot.cli.main import COMMAND_MODULES, command, errfix
from tests.conftest import Cli, run_module

COMMANDS = errfix.list_commands(click.Context(errfix))


def test_the_documented_commands_exist() -> None:
    assert set(COMMANDS) == {
        "import", "export", "match", "search", "show", "stats", "lint", "learned", "unlearn",
        "serve", "sync", "backup", "restore", "doctor", "demo", "forget-user", "forget-channel", "audit",
        "draft", "forget", "remember",
    }  # fmt: skip


def test_each_command_is_loaded_from_the_module_that_defines_it() -> None:
    """The lazy map and the modules agree: a command added to a module but not to the map (or
    mapped to the wrong module) would be missing from `errfix`."""
    defined = {}
    for module in ("database", "lookup", "lint", "learn", "privacy", "serve", "team", "ops", "demo", "remember"):
        for cmd in importlib.import_module(f"bot.cli.{module}").COMMANDS:
            defined[cmd.name] = module
    assert defined == COMMAND_MODULES


def test_matching_a_paste_does_not_load_the_server_or_slack() -> None:
    """`errfix match` starts in about half the time when it leaves aiohttp, Slack Bolt and the
    demo server unimported: a paste piped in from a shell should not wait for them."""
    script = (
        "import sys\n"
        "from bot.cli.main import main\n"
        "try:\n"
        "    main(['match', '--db', ':memory:'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0, e.code\n"
        "heavy = ('slack_bolt', 'slack_sdk', 'aiohttp', 'bot.demo.server', 'bot.serve.run')\n"
        "heavy = sorted(m for m in heavy if m in sys.modules)\n"
        "print('loaded:', heavy, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], input="ValueError: x", capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip().splitlines()[-1] == "loaded: []"


@pytest.mark.parametrize("name", COMMANDS)
def test_every_command_has_help_text(name: str, cli: Cli) -> None:
    cmd = command(name)
    assert cmd.help and cmd.help.strip(), f"{name} has no help text"
    r = cli(name, "--help")
    assert r.code == 0 and r.out.startswith(f"Usage: errfix {name}"), r.out
    assert cmd.help.strip().splitlines()[0] in " ".join(r.out.split())
    params = [p for p in cmd.params if isinstance(p, click.Option)]
    assert all(p.help for p in params), f"{name}: an option without help"
    if name != "lint":  # lint reads a database only when --db names one
        assert "ERRFIX_DB" in r.out, name


def test_the_top_help_lists_every_command(cli: Cli) -> None:
    r = cli("--help")
    assert r.code == 0
    for name in COMMANDS:
        assert f"\n  {name} " in r.out, name


def test_an_errfix_error_is_one_line_on_stderr_and_exit_2() -> None:
    r = run_module("show", "no/such-record", "--db", ":memory:")
    assert (r.code, r.out, r.err) == (2, "", "errfix: no record with id 'no/such-record'\n")


def test_a_usage_error_is_exit_2_with_the_usage(cli: Cli) -> None:
    r = cli("unlearn", "lesson", "x", "y")
    assert r.code == 2 and r.err.startswith("Usage: errfix unlearn") and "'lesson' is not one of" in r.err
    assert cli("no-such-command").code == 2


def test_a_reader_that_stops_early_is_no_error(tmp_path: Path) -> None:
    """`errfix export | head -1`: the closed pipe ends the export quietly, exit code 0."""
    db = tmp_path / "seeded.db"
    assert run_module("stats", "--db", db).code == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot", "export", "--db", str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.readline().startswith(b"{")
    proc.stdout.close()  # far less than the seeds' export: the rest meets a closed pipe
    assert proc.wait(timeout=120) == 0
    assert proc.stderr.read() == b""
    proc.stderr.close()


def test_ctrl_c_exits_130_without_a_traceback(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pinned with this test's own number (#20): the shell's code for SIGINT, 128 + 2."""

    def interrupted(**_params: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(command("stats"), "callback", interrupted)
    r = cli("stats", "--db", ":memory:")
    assert (r.code, r.err) == (130, "")
