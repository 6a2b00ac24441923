"""Helpers for tests that run `errfix` as a real process."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path


def errfix_command() -> list[str]:
    """The installed console script, or `python -m bot` where it is not installed."""
    script = Path(sys.executable).with_name("errfix")
    return [str(script)] if script.exists() else [sys.executable, "-m", "bot"]


def clean_env(**values: str) -> dict[str, str]:
    """The environment without any SLACK_/ERRFIX_ setting of the machine, plus `values`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "ERRFIX_"))}
    return {**env, **values}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])
