"""Settings: `.env` under the environment under the flags, each malformed one named in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config import ConfigError, Settings, load_settings, resolve_db_path

NAMES = (
    "SLACK_BOT_TOKEN",
    "SLACK_SIGNING_SECRET",
    "SLACK_APP_TOKEN",
    "ERRFIX_DB",
    "ERRFIX_SLACK_API_URL",
    "ERRFIX_MAX_REPLIES_PER_MINUTE",
    "ERRFIX_SYNC_URL",
    "ERRFIX_SYNC_INTERVAL",
    "ERRFIX_SYNC_TIMEOUT",
    "ERRFIX_LOG_FORMAT",
    "ERRFIX_LOG_PASTES",
    "ERRFIX_SHUTDOWN_TIMEOUT",
    "ERRFIX_SECRET_NOTICE",
    "ERRFIX_RETENTION_DAYS",
)


@pytest.fixture(autouse=True)
def environ(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """No errfix setting in the environment, and a working directory without a .env."""
    for name in NAMES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return monkeypatch


def test_the_environment_wins_over_dotenv_and_the_flag_over_both(tmp_path: Path, environ: pytest.MonkeyPatch) -> None:
    env_file = tmp_path / "settings.env"
    env_file.write_text(
        "# comment\nexport SLACK_BOT_TOKEN=xoxb-from-file\nSLACK_SIGNING_SECRET='s3cret'\n"
        "ERRFIX_DB=file.db  # inline comment\nERRFIX_SLACK_API_URL=http://127.0.0.1:9/api\nERRFIX_SYNC_TIMEOUT=7\n",
        encoding="utf-8",
    )
    environ.setenv("ERRFIX_DB", "env.db")
    environ.setenv("ERRFIX_MAX_REPLIES_PER_MINUTE", "3")
    s = load_settings(env_file=env_file)
    assert (s.bot_token, s.signing_secret, s.db_path) == ("xoxb-from-file", "s3cret", "env.db")
    assert s.slack_api_url == "http://127.0.0.1:9/api/" and s.max_replies_per_minute == 3 and not s.socket_mode
    assert s.sync_timeout == 7 and s.sync_interval == 3600 and s.log_format == "text" and s.log_pastes is False
    assert load_settings(env_file=env_file, db="flag.db").db_path == "flag.db"
    environ.delenv("ERRFIX_DB")
    assert load_settings(env_file=env_file).db_path == "file.db"
    assert load_settings(env_file=None).db_path == "errfix.db"


def test_dotenv_in_the_working_directory_is_read_by_default(tmp_path: Path, environ: pytest.MonkeyPatch) -> None:
    (tmp_path / ".env").write_text("ERRFIX_DB=here.db\nERRFIX_LOG_PASTES=yes\n", encoding="utf-8")
    s = load_settings()
    assert (s.db_path, s.log_pastes) == ("here.db", True)
    assert resolve_db_path() == "here.db" and resolve_db_path(db="flag.db") == "flag.db"


def test_the_secret_notice_is_on_unless_turned_off(environ: pytest.MonkeyPatch) -> None:
    assert load_settings(env_file=None).secret_notice is True
    environ.setenv("ERRFIX_SECRET_NOTICE", "0")
    assert load_settings(env_file=None).secret_notice is False


def test_an_empty_value_counts_as_unset(tmp_path: Path, environ: pytest.MonkeyPatch) -> None:
    environ.setenv("ERRFIX_SYNC_INTERVAL", "")
    environ.setenv("SLACK_APP_TOKEN", "")
    s = load_settings(env_file=None)
    assert s.sync_interval == 3600 and s.app_token is None


def test_retention_is_thirty_days_unless_set_and_zero_keeps_forever(environ: pytest.MonkeyPatch) -> None:
    assert load_settings(env_file=None).retention_days == 30
    environ.setenv("ERRFIX_RETENTION_DAYS", "7")
    assert load_settings(env_file=None).retention_days == 7
    environ.setenv("ERRFIX_RETENTION_DAYS", "0")
    assert load_settings(env_file=None).retention_days == 0


def test_every_setting_is_in_env_example() -> None:
    example = (Path(__file__).resolve().parent.parent / ".env.example").read_text(encoding="utf-8")
    assert [name for name in NAMES if f"{name}=" not in example] == []


@pytest.mark.parametrize(
    ("name", "raw", "message"),
    [
        ("ERRFIX_MAX_REPLIES_PER_MINUTE", "many", "ERRFIX_MAX_REPLIES_PER_MINUTE must be a whole number, got 'many'"),
        ("ERRFIX_MAX_REPLIES_PER_MINUTE", "0", "ERRFIX_MAX_REPLIES_PER_MINUTE must be at least 1, got 0"),
        ("ERRFIX_SYNC_INTERVAL", "1.5", "ERRFIX_SYNC_INTERVAL must be a whole number, got '1.5'"),
        ("ERRFIX_SHUTDOWN_TIMEOUT", "-3", "ERRFIX_SHUTDOWN_TIMEOUT must be at least 1, got -3"),
        ("ERRFIX_SLACK_API_URL", "ftp://x", "ERRFIX_SLACK_API_URL must be an http(s) URL, got 'ftp://x'"),
        ("ERRFIX_SYNC_URL", "kb.example/r.jsonl", "ERRFIX_SYNC_URL must be an http(s) URL, got 'kb.example/r.jsonl'"),
        ("ERRFIX_LOG_FORMAT", "xml", "ERRFIX_LOG_FORMAT must be one of text, json, got 'xml'"),
        ("ERRFIX_LOG_PASTES", "maybe", "ERRFIX_LOG_PASTES must be 1 or 0, got 'maybe'"),
        ("ERRFIX_SECRET_NOTICE", "sometimes", "ERRFIX_SECRET_NOTICE must be 1 or 0, got 'sometimes'"),
        ("ERRFIX_RETENTION_DAYS", "a month", "ERRFIX_RETENTION_DAYS must be a whole number of days, got 'a month'"),
        ("ERRFIX_RETENTION_DAYS", "-1", "ERRFIX_RETENTION_DAYS must be 0 (keep forever) or more, got -1"),
    ],
)
def test_a_malformed_setting_is_one_line_naming_it(
    environ: pytest.MonkeyPatch, name: str, raw: str, message: str
) -> None:
    environ.setenv(name, raw)
    with pytest.raises(ConfigError) as info:
        load_settings(env_file=None)
    assert str(info.value) == message
    assert resolve_db_path(env_file=None) == "errfix.db"  # the database is still found


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({}, "SLACK_BOT_TOKEN is missing"),
        ({"SLACK_BOT_TOKEN": "xoxp-user"}, "SLACK_BOT_TOKEN must be a bot token"),
        ({"SLACK_BOT_TOKEN": "xoxb-1"}, "SLACK_SIGNING_SECRET is missing"),
        ({"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_APP_TOKEN": "xoxb-2"}, "SLACK_APP_TOKEN must be an app-level token"),
    ],
)
def test_the_slack_tokens_are_checked_for_serve(environ: pytest.MonkeyPatch, env: dict[str, str], named: str) -> None:
    for key, value in env.items():
        environ.setenv(key, value)
    settings = load_settings(env_file=None)  # every command loads these; only serve and doctor need tokens
    with pytest.raises(ConfigError, match=named):
        settings.require_slack(http=False)


def test_socket_mode_does_not_need_the_signing_secret(environ: pytest.MonkeyPatch) -> None:
    environ.setenv("SLACK_BOT_TOKEN", "xoxb-1")
    environ.setenv("SLACK_APP_TOKEN", "xapp-1")
    s = load_settings(env_file=None)
    assert s.socket_mode and s.secrets == ("xoxb-1", "xapp-1")
    s.require_slack(http=False)
    with pytest.raises(ConfigError, match="SLACK_SIGNING_SECRET"):
        s.require_slack(http=True)


def test_settings_built_in_code_take_field_names() -> None:
    s = Settings(bot_token="xoxb-t", db_path="x.db", max_replies_per_minute=2)
    assert (s.bot_token, s.db_path, s.max_replies_per_minute) == ("xoxb-t", "x.db", 2)


def test_the_defaults_errfix_documents(environ: pytest.MonkeyPatch) -> None:
    """Pinned with this test's own numbers (#20): 5 unprompted answers a channel a minute, 60 s for
    one fetch of ERRFIX_SYNC_URL, 8 s to drain on SIGTERM (Docker kills at 10)."""
    s = load_settings(env_file=None)
    assert (s.max_replies_per_minute, s.sync_timeout, s.shutdown_timeout) == (5, 60, 8)


def test_team_memory_is_kept_half_a_year_unless_told(environ: pytest.MonkeyPatch) -> None:
    assert load_settings(env_file=None).memory_days == 180
    environ.setenv("ERRFIX_MEMORY_DAYS", "0")
    assert load_settings(env_file=None).memory_days == 0
    environ.setenv("ERRFIX_MEMORY_DAYS", "-1")
    with pytest.raises(ConfigError, match="ERRFIX_MEMORY_DAYS"):
        load_settings(env_file=None)
