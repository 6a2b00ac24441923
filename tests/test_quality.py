"""Lint and type checks as tests, so the README's one test command (and CI) also runs them.

Configuration lives in pyproject.toml ([tool.ruff], [tool.mypy]); these only run the tools.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def _run(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *argv], cwd=REPO, capture_output=True, text=True, timeout=600)


def test_ruff() -> None:
    proc = _run("ruff", "check", "--no-cache", "bot", "tests", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy() -> None:
    proc = _run("mypy")  # the packages to check come from [tool.mypy] in pyproject.toml
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    """One formatter for everyone: a diff here means `ruff format bot tests bench` was not run."""
    proc = _run("ruff", "format", "--check", "--no-cache", "bot", "tests", "bench")
    assert proc.returncode == 0, proc.stdout + proc.stderr
