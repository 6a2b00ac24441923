"""`errfix demo` as a real process: it serves the database ERRFIX_DB names (.env, environment, --db)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from tests.procs import clean_env, errfix_command

SOURCES = ("dotenv", "environment", "flag")


@pytest.mark.parametrize("chosen", SOURCES)
def test_the_demo_serves_the_database_errfix_db_names(tmp_path: Path, chosen: str) -> None:
    paths = {s: tmp_path / f"{s}.db" for s in SOURCES}
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    (cwd / ".env").write_text(f"ERRFIX_DB={paths['dotenv']}\n", encoding="utf-8")
    env = clean_env() if chosen == "dotenv" else clean_env(ERRFIX_DB=str(paths["environment"]))
    flag = ["--db", str(paths["flag"])] if chosen == "flag" else []
    proc = subprocess.Popen(
        [*errfix_command(), "demo", "--port", "0", *flag],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()  # printed once the demo listens, its database open
        assert first.startswith("errfix demo: open http://127.0.0.1:"), first + proc.stderr.read()
        database = proc.stdout.readline()
        assert database.split()[:2] == ["database:", str(paths[chosen])]
        assert paths[chosen].exists()
        assert [p.exists() for name, p in paths.items() if name != chosen] == [False, False]
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert code == 0
