"""bench/serve_bench.py still runs: one small step against a real `errfix serve --http` (no timing
is asserted; the figures are the benchmark's to report)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import REPO


def test_the_serve_benchmark_runs_a_small_step() -> None:
    proc = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "serve_bench.py"),
            "--rates",
            "5",
            "--seconds",
            "1",
            "--target",
            "5",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    [step] = result["steps"]
    assert result["pastes"] > 100 and step["sent"] == 5 and step["answered"] == step["sent"]
    assert step["doubled"] == 0 and result["target_met"]
