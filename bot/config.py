"""Settings for every `errfix` command: a `.env` file, under the environment, under the flags.

One `Settings` (pydantic-settings) holds them all; `load_settings()` reads them when it is called,
never at import time. The order is pydantic-settings' own: a command-line flag (`--db`) wins over
the environment, which wins over `.env`; an empty value counts as unset. The database path is the
`ERRFIX_DB` field of `DatabaseSettings`, the one place that resolves it (`resolve_db_path()` reads only
that, for `errfix doctor` when the other settings are malformed). A malformed setting raises
`ConfigError` with one line naming it, which the CLI prints with exit code 2; the Slack tokens are
checked only by the commands that talk to Slack (`Settings.require_slack`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from bot.core.schedule import Schedule, parse_schedule
from bot.errors import InvalidInput

DEFAULT_DB = "errfix.db"
DEFAULT_ENV_FILE = ".env"
DEFAULT_API_URL = "https://slack.com/api/"
DEFAULT_MAX_REPLIES_PER_MINUTE = 5
DEFAULT_SYNC_INTERVAL = 3600  # seconds between re-syncs of ERRFIX_SYNC_URL
DEFAULT_SYNC_TIMEOUT = 60  # seconds for one fetch of ERRFIX_SYNC_URL
DEFAULT_SHUTDOWN_TIMEOUT = 8  # seconds in-flight events get after SIGTERM (Docker kills at 10)
DEFAULT_RETENTION_DAYS = 30  # days pastes, seen events, rejections and outbox rows are kept; 0: forever
DEFAULT_MEMORY_DAYS = 180  # team memory (#36): remembered errors and their resolutions
LOG_FORMATS = ("text", "json")
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")

EnvFile = str | Path | None


class ConfigError(InvalidInput):
    """A setting is missing or malformed; the message names it."""


class DatabaseSettings(BaseSettings):
    """The database path alone: `--db`, else `ERRFIX_DB` (environment, then `.env`), else ./errfix.db."""

    model_config = SettingsConfigDict(
        env_file=DEFAULT_ENV_FILE,
        env_ignore_empty=True,
        case_sensitive=True,
        extra="ignore",
        frozen=True,
        populate_by_name=True,
        str_strip_whitespace=True,
    )

    db_path: str = Field(default=DEFAULT_DB, validation_alias="ERRFIX_DB")

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Flags, then the environment, then `.env` (no secrets directory)."""
        return init_settings, env_settings, dotenv_settings


class Settings(DatabaseSettings):
    """Every setting, validated once; build with `load_settings()` (or directly in tests)."""

    bot_token: str = Field(default="", validation_alias="SLACK_BOT_TOKEN")
    signing_secret: str = Field(default="", validation_alias="SLACK_SIGNING_SECRET")
    app_token: str | None = Field(default=None, validation_alias="SLACK_APP_TOKEN")
    slack_api_url: str = Field(default=DEFAULT_API_URL, validation_alias="ERRFIX_SLACK_API_URL")
    max_replies_per_minute: int = Field(
        DEFAULT_MAX_REPLIES_PER_MINUTE, validation_alias="ERRFIX_MAX_REPLIES_PER_MINUTE"
    )
    sync_url: str | None = Field(default=None, validation_alias="ERRFIX_SYNC_URL")
    sync_interval: int = Field(default=DEFAULT_SYNC_INTERVAL, validation_alias="ERRFIX_SYNC_INTERVAL")
    sync_timeout: int = Field(default=DEFAULT_SYNC_TIMEOUT, validation_alias="ERRFIX_SYNC_TIMEOUT")
    log_format: str = Field(default=LOG_FORMATS[0], validation_alias="ERRFIX_LOG_FORMAT")
    log_pastes: bool = Field(default=False, validation_alias="ERRFIX_LOG_PASTES")
    shutdown_timeout: int = Field(default=DEFAULT_SHUTDOWN_TIMEOUT, validation_alias="ERRFIX_SHUTDOWN_TIMEOUT")
    secret_notice: bool = Field(default=True, validation_alias="ERRFIX_SECRET_NOTICE")
    retention_days: int = Field(default=DEFAULT_RETENTION_DAYS, validation_alias="ERRFIX_RETENTION_DAYS")
    memory_days: int = Field(default=DEFAULT_MEMORY_DAYS, validation_alias="ERRFIX_MEMORY_DAYS")
    digest_at: str = Field(default="Mon 09:00", validation_alias="ERRFIX_DIGEST_AT")
    digest_tz: str = Field(default="UTC", validation_alias="ERRFIX_DIGEST_TZ")

    @field_validator("digest_at", mode="before")
    @classmethod
    def _digest_at(cls, raw: str) -> str:
        """A weekday and a time (bot/core/schedule.py)."""
        try:
            parse_schedule(raw)
        except ValueError as e:
            raise ValueError(f"must be {e}") from None
        return raw

    @field_validator("digest_tz", mode="before")
    @classmethod
    def _digest_tz(cls, raw: str) -> str:
        try:
            parse_schedule("Mon 09:00", raw)
        except ValueError as e:
            raise ValueError(f"must be {e}") from None
        return raw

    @property
    def digest_schedule(self) -> Schedule:
        """When weekly digests are posted (`/errfix digest weekly`)."""
        return parse_schedule(self.digest_at, self.digest_tz)

    @field_validator("max_replies_per_minute", "sync_interval", "sync_timeout", "shutdown_timeout", mode="before")
    @classmethod
    def _whole_number(cls, raw: Any) -> int:
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise ValueError(f"must be a whole number, got {raw!r}") from None
        if value < 1:
            raise ValueError(f"must be at least 1, got {value}")
        return value

    @field_validator("retention_days", "memory_days", mode="before")
    @classmethod
    def _days(cls, raw: Any) -> int:
        """0 is allowed here (keep forever): a team may keep its paste log until it erases it."""
        try:
            value = int(raw)
        except (TypeError, ValueError):
            raise ValueError(f"must be a whole number of days, got {raw!r}") from None
        if value < 0:
            raise ValueError(f"must be 0 (keep forever) or more, got {value}")
        return value

    @field_validator("slack_api_url", mode="before")
    @classmethod
    def _api_url(cls, raw: str) -> str:
        return _http_url(raw) if raw.endswith("/") else _http_url(raw) + "/"

    @field_validator("sync_url", mode="before")
    @classmethod
    def _sync_url(cls, raw: str | None) -> str | None:
        return None if raw is None else _http_url(raw)

    @field_validator("log_format", mode="before")
    @classmethod
    def _log_format(cls, raw: str) -> str:
        if raw.lower() not in LOG_FORMATS:
            raise ValueError(f"must be one of {', '.join(LOG_FORMATS)}, got {raw!r}")
        return raw.lower()

    @field_validator("log_pastes", "secret_notice", mode="before")
    @classmethod
    def _flag(cls, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        if str(raw).lower() in _TRUE + _FALSE:
            return str(raw).lower() in _TRUE
        raise ValueError(f"must be 1 or 0, got {raw!r}")

    @property
    def secrets(self) -> tuple[str, ...]:
        """The values that must never appear in a log line."""
        return tuple(s for s in (self.bot_token, self.signing_secret, self.app_token) if s)

    @property
    def socket_mode(self) -> bool:
        return bool(self.app_token)

    def require_slack(self, *, http: bool) -> None:
        """The tokens `serve` and `doctor` need; `http` (the Events API) also needs the signing secret.

        Socket Mode (SLACK_APP_TOKEN set and not `http`) does not verify requests, so it does not.
        """
        if not self.bot_token:
            raise ConfigError("SLACK_BOT_TOKEN is missing (the bot token, xoxb-…)")
        if not self.bot_token.startswith("xoxb-"):
            raise ConfigError("SLACK_BOT_TOKEN must be a bot token starting with xoxb-")
        if self.app_token and not self.app_token.startswith("xapp-"):
            raise ConfigError("SLACK_APP_TOKEN must be an app-level token starting with xapp-")
        if not self.signing_secret and (http or not self.app_token):
            raise ConfigError("SLACK_SIGNING_SECRET is missing (needed to verify Slack's HTTP requests)")


def _http_url(raw: str) -> str:
    if not raw.startswith(("http://", "https://")) or any(c.isspace() for c in raw):
        raise ValueError(f"must be an http(s) URL, got {raw!r}")
    return raw


def _one_line(error: ValidationError) -> ConfigError:
    """The first problem as `NAME must …`, NAME being the environment variable."""
    first = error.errors()[0]
    name = ".".join(str(part) for part in first["loc"]) or "settings"
    cause = (first.get("ctx") or {}).get("error")
    return ConfigError(f"{name} {cause}" if isinstance(cause, ValueError) else f"{name}: {first['msg']}")


def _sources(env_file: EnvFile, db: str | None) -> dict[str, Any]:
    """pydantic-settings' keyword arguments: the `.env` to read and the flags (given ones only)."""
    return {"_env_file": env_file, **({"db_path": db} if db else {})}


def load_settings(*, env_file: EnvFile = DEFAULT_ENV_FILE, db: str | None = None) -> Settings:
    """Settings from `env_file` under the environment under `db` (the --db flag); ConfigError if malformed."""
    try:
        return Settings(**_sources(env_file, db))
    except ValidationError as e:
        raise _one_line(e) from None


def resolve_db_path(*, env_file: EnvFile = DEFAULT_ENV_FILE, db: str | None = None) -> str:
    """The database path by the same rule as `load_settings()`, even when other settings are malformed."""
    try:
        return DatabaseSettings(**_sources(env_file, db)).db_path
    except ValidationError as e:
        raise _one_line(e) from None
