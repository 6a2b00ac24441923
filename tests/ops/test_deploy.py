"""deploy/: what can be checked without a Docker engine or a running systemd.

* The Dockerfile installs the project the way the README does (pip, from pyproject.toml), every
  path it copies exists, the build context it copies is enough to build the wheel with the
  `errfix` console script and the seeds, and the command it runs parses.
* docker-compose.yml builds that Dockerfile, reads .env, keeps the database on a named volume.
* The systemd unit is hardened as promised and `systemd-analyze verify` accepts it (CI installs
  Debian's `systemd` package for the binary; no running systemd is needed).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest

from bot.cli.main import command
from bot.serve.http import ops_app
from bot.service.async_errfix import AsyncErrfix
from tests.conftest import REPO

DEPLOY = REPO / "deploy"
DOCKERFILE = DEPLOY / "Dockerfile"
COMPOSE = DEPLOY / "docker-compose.yml"
UNIT = DEPLOY / "errfix.service"


def instructions(path: Path) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", path.read_text(encoding="utf-8"))
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            found.append((word.upper(), rest.strip()))
    return found


def dockerfile(kind: str) -> list[str]:
    return [args for word, args in instructions(DOCKERFILE) if word == kind]


def exec_form(args: str) -> list[str]:
    assert args.startswith("["), f"use the exec form (errfix must be PID 1 to get SIGTERM): {args}"
    return [part.strip().strip('"') for part in args.strip("[]").split('", "')]


def project_scripts() -> dict[str, str]:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    section = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    return dict(re.findall(r'^(\S+)\s*=\s*"([^"]+)"', section, re.M))


# ---- Dockerfile ------------------------------------------------------------------------------


def test_the_dockerfile_installs_the_project_as_the_readme_does() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    readme_installs = re.findall(r"pip install (?:-q )?(?:-e )?(\S+)", readme)
    assert "." in readme_installs, "the README installs the project with pip"
    pip_runs = [args for args in dockerfile("RUN") if "pip install" in args]
    assert len(pip_runs) == 1
    installed = re.findall(r"pip install ((?:-\S+ )*)(\S+)", pip_runs[0])
    assert [target for _, target in installed] == ["."], "the image installs the project itself, no extras"
    assert "[dev]" not in pip_runs[0] and "requirements" not in pip_runs[0]


def test_every_path_the_dockerfile_copies_exists_and_the_base_is_slim() -> None:
    [base] = dockerfile("FROM")
    assert re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", base), base
    copies = [args.split() for args in dockerfile("COPY")]
    sources = [src for parts in copies for src in parts[:-1] if not src.startswith("--")]
    for src in sources:
        assert (REPO / src).exists(), f"COPY {src}: no such path in the repository"
    assert {"pyproject.toml", "README.md", "bot", "seeds"} <= set(sources)  # what `pip install .` reads


def test_the_image_runs_as_a_user_with_the_database_on_a_volume() -> None:
    [user] = dockerfile("USER")
    assert user not in ("root", "0")
    [volume] = dockerfile("VOLUME")
    env = " ".join(dockerfile("ENV"))
    assert "/data" in volume and "ERRFIX_DB=/data/" in env


def parsed(argv: list[str]) -> tuple[str, dict[str, Any]]:
    """The command and its parameters as `errfix ARGV…` parses them (nothing runs)."""
    name, *rest = argv
    return name, command(name).make_context(name, rest).params


def test_the_command_and_health_check_are_real() -> None:
    [cmd] = dockerfile("CMD")
    argv = exec_form(cmd)
    assert argv[0] in project_scripts(), f"{argv[0]} is not a console script of the project"
    name, params = parsed(argv[1:])
    assert name == "serve" and not params["http"] and params["port"] == 3000  # HTTP unless SLACK_APP_TOKEN


def test_the_health_check_asks_a_route_errfix_serves(tmp_path: Path) -> None:
    [health] = dockerfile("HEALTHCHECK")
    url = re.search(r"http://127\.0\.0\.1:3000(/\w+)", health)
    assert url, health
    errfix = AsyncErrfix(str(tmp_path / "health.db"), seed=False)
    try:  # ops_app is what Socket Mode serves; web_app adds the same routes beside /slack/events
        paths = {r.resource.canonical for r in ops_app(errfix).router.routes() if r.resource is not None}
    finally:
        errfix.close()
    assert url.group(1) in paths


def test_the_build_context_builds_the_wheel_with_the_script_and_the_seeds(tmp_path: Path) -> None:
    context = tmp_path / "context"
    for args in dockerfile("COPY"):
        *sources, dest = args.split()
        for src in sources:
            target = context / (src if dest.startswith(".") else dest.lstrip("/"))
            if (REPO / src).is_dir():
                shutil.copytree(REPO / src, target, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(REPO / src, target)
    out = tmp_path / "wheel"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(context)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    [wheel] = out.glob("errfix-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        entry_points = zf.read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "errfix = bot.cli.main:main" in entry_points
    assert sum(n.startswith("bot/_seeds/") and n.endswith(".json") for n in names) > 100
    assert "bot/cli/ops.py" in names and "bot/slack/app.py" in names


# ---- docker-compose.yml -------------------------------------------------------------------------


def test_compose_builds_the_dockerfile_reads_env_and_keeps_data_on_a_named_volume() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    assert len(re.findall(r"^  \w[\w-]*:$", text.split("volumes:\n", 1)[0].split("services:\n", 1)[1], re.M)) == 1
    context = re.search(r"^\s+context:\s*(\S+)", text, re.M)
    dockerfile_path = re.search(r"^\s+dockerfile:\s*(\S+)", text, re.M)
    assert context and dockerfile_path
    root = (DEPLOY / context.group(1)).resolve()
    assert root == REPO.resolve() and (root / dockerfile_path.group(1)).resolve() == DOCKERFILE.resolve()
    env_file = re.search(r"^\s+env_file:\s*(\S+)", text, re.M)
    assert env_file and (DEPLOY / env_file.group(1)).resolve() == (REPO / ".env").resolve()
    assert (REPO / ".env.example").is_file()  # what .env is copied from
    mount = re.search(r"^\s+- ([\w-]+):/data\s*$", text, re.M)
    assert mount and re.search(rf"^volumes:\n  {mount.group(1)}:", text, re.M), "a named volume on /data"


# ---- systemd ---------------------------------------------------------------------------------------


def unit_settings() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for line in UNIT.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.startswith(("#", ";")):
            key, _, value = line.partition("=")
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_unit_is_hardened_and_restarts_on_failure() -> None:
    s = unit_settings()
    for key, value in {
        "DynamicUser": "yes",
        "ProtectSystem": "strict",
        "Restart": "on-failure",
        "StateDirectory": "errfix",
        "NoNewPrivileges": "yes",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
    }.items():
        assert s.get(key) == [value], key
    assert s["EnvironmentFile"] == ["/etc/errfix/errfix.env"]
    assert s["Environment"][0] == "ERRFIX_DB=/var/lib/errfix/errfix.db"  # inside StateDirectory
    assert s["CapabilityBoundingSet"] == [""]
    argv = shlex.split(s["ExecStart"][0])
    assert Path(argv[0]).name in project_scripts()
    name, params = parsed(argv[1:])
    assert name == "serve" and params["host"] == "127.0.0.1"


def test_systemd_analyze_verifies_the_unit(tmp_path: Path) -> None:
    """Needs Debian's `systemd` package (the binary only; nothing is started). CI installs it."""
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.fail("systemd-analyze is missing: apt-get install -y systemd (.ci/run does this)")
    script = Path(sys.executable).with_name("errfix")
    assert script.exists(), "verify checks that ExecStart's program exists: install errfix in this venv"
    unit = tmp_path / "errfix.service"
    unit.write_text(
        UNIT.read_text(encoding="utf-8").replace("/opt/errfix/venv/bin/errfix", str(script)), encoding="utf-8"
    )
    proc = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=120)
    complaints = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "errfix.service" in ln]
    assert proc.returncode == 0 and not complaints, proc.stdout + proc.stderr
