"""Settings for `errfix serve`, from the environment and an optional `.env` file, validated once.

Nothing is read at import time: `load_settings()` reads when it is called. The environment wins
over `.env`. A missing or malformed setting raises `ConfigError` with one line naming it, which
the CLI prints and turns into exit code 2.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from bot.errors import InvalidInput

DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_MAX_REPLIES_PER_MINUTE = 5
DEFAULT_SYNC_INTERVAL = 3600  # seconds between re-syncs of ERRFIX_SYNC_URL
DEFAULT_SYNC_TIMEOUT = 60  # seconds for one fetch of ERRFIX_SYNC_URL
DEFAULT_SHUTDOWN_TIMEOUT = 8  # seconds in-flight events get after SIGTERM (Docker kills at 10)
LOG_FORMATS = ("text", "json")


class ConfigError(InvalidInput):
    """A setting is missing or malformed; the message names it."""


class Settings(BaseModel):
    """Validated settings; build with `load_settings()` (or directly in tests)."""

    model_config = ConfigDict(frozen=True)

    bot_token: str
    signing_secret: str = ""
    app_token: str | None = None
    db_path: str = "errfix.db"
    slack_api_url: str = DEFAULT_API_URL
    max_replies_per_minute: int = DEFAULT_MAX_REPLIES_PER_MINUTE
    sync_url: str | None = None
    sync_interval: int = DEFAULT_SYNC_INTERVAL
    sync_timeout: int = DEFAULT_SYNC_TIMEOUT
    log_format: str = "text"
    log_pastes: bool = False
    shutdown_timeout: int = DEFAULT_SHUTDOWN_TIMEOUT

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values that must never appear in a log line."""
        return tuple(s for s in (self.bot_token, self.signing_secret, self.app_token) if s)

    @property
    def socket_mode(self) -> bool:
        return bool(self.app_token)


def read_dotenv(path: str | Path) -> dict[str, str]:
    """`KEY=value` lines of a .env file (comments, blanks, `export ` and quotes handled)."""
    p = Path(path)
    if not p.is_file():
        return {}
    values: dict[str, str] = {}
    for n, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.removeprefix("export ").partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            raise ConfigError(f"{p}:{n}: expected KEY=value")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        elif " #" in value:
            value = value.split(" #", 1)[0].rstrip()
        values[key] = value
    return values


def _int(name: str, raw: str, default: int) -> int:
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value < 1:
        raise ConfigError(f"{name} must be at least 1, got {value}")
    return value


def _api_url(raw: str) -> str:
    if not raw:
        return DEFAULT_API_URL
    if not raw.startswith(("http://", "https://")) or " " in raw:
        raise ConfigError(f"ERRFIX_SLACK_API_URL must be an http(s) URL, got {raw!r}")
    return raw if raw.endswith("/") else raw + "/"


def _http_url(name: str, raw: str) -> str | None:
    if not raw:
        return None
    if not raw.startswith(("http://", "https://")) or any(c.isspace() for c in raw):
        raise ConfigError(f"{name} must be an http(s) URL, got {raw!r}")
    return raw


def _choice(name: str, raw: str, choices: tuple[str, ...]) -> str:
    value = raw.lower() or choices[0]
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {raw!r}")
    return value


def _flag(name: str, raw: str) -> bool:
    value = raw.lower()
    if value in ("", "0", "false", "no", "off"):
        return False
    if value in ("1", "true", "yes", "on"):
        return True
    raise ConfigError(f"{name} must be 1 or 0, got {raw!r}")


def load_settings(
    environ: Mapping[str, str] | None = None,
    *,
    env_file: str | Path | None = ".env",
    db: str | None = None,
    http: bool = False,
) -> Settings:
    """Settings from `environ` (default: os.environ) over `env_file`; `db` (--db) wins over ERRFIX_DB.

    `http` says the Events API will be served, which needs the signing secret; Socket Mode
    (SLACK_APP_TOKEN set and not `http`) does not.
    """
    merged = {**(read_dotenv(env_file) if env_file else {}), **(os.environ if environ is None else environ)}

    def get(name: str) -> str:
        return merged.get(name, "").strip()

    bot_token = get("SLACK_BOT_TOKEN")
    if not bot_token:
        raise ConfigError("SLACK_BOT_TOKEN is missing (the bot token, xoxb-…)")
    if not bot_token.startswith("xoxb-"):
        raise ConfigError("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
    app_token = get("SLACK_APP_TOKEN") or None
    if app_token and not app_token.startswith("xapp-"):
        raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
    secret = get("SLACK_SIGNING_SECRET")
    if not secret and (http or not app_token):
        raise ConfigError("SLACK_SIGNING_SECRET is missing (needed to verify Slack's HTTP requests)")
    return Settings(
        bot_token=bot_token,
        signing_secret=secret,
        app_token=app_token,
        db_path=db or get("ERRFIX_DB") or "errfix.db",
        slack_api_url=_api_url(get("ERRFIX_SLACK_API_URL")),
        max_replies_per_minute=_int(
            "ERRFIX_MAX_REPLIES_PER_MINUTE", get("ERRFIX_MAX_REPLIES_PER_MINUTE"), DEFAULT_MAX_REPLIES_PER_MINUTE
        ),
        sync_url=_http_url("ERRFIX_SYNC_URL", get("ERRFIX_SYNC_URL")),
        sync_interval=_int("ERRFIX_SYNC_INTERVAL", get("ERRFIX_SYNC_INTERVAL"), DEFAULT_SYNC_INTERVAL),
        sync_timeout=_int("ERRFIX_SYNC_TIMEOUT", get("ERRFIX_SYNC_TIMEOUT"), DEFAULT_SYNC_TIMEOUT),
        log_format=_choice("ERRFIX_LOG_FORMAT", get("ERRFIX_LOG_FORMAT"), LOG_FORMATS),
        log_pastes=_flag("ERRFIX_LOG_PASTES", get("ERRFIX_LOG_PASTES")),
        shutdown_timeout=_int("ERRFIX_SHUTDOWN_TIMEOUT", get("ERRFIX_SHUTDOWN_TIMEOUT"), DEFAULT_SHUTDOWN_TIMEOUT),
    )
