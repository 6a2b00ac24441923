"""Which names are projects published on PyPI (#35).

`pip install <name>` helps only when <name> is a project people install. A record whose fixes
install the module a paste's `No module named 'x'` names knows that error when `x` is such a
project (`yaml`, `diffusers`), and does not when `x` is the program's own package (`models`,
`modules`), a standard-library module of another platform (`pwd` on Windows) or a misspelling:
there the install advice sends the person to an empty or unrelated project.

The list is data, not judgement: `data/pypi-projects.txt` holds PyPI's most downloaded projects,
most downloaded first (the public top-pypi-packages ranking of about 15,000 projects, as this
workplace's package list records it; `python -m bot.core.packages SOURCE.tsv` writes it anew).
"""

from __future__ import annotations

import re
import sys
from functools import cache
from importlib import resources

_SEPARATORS = re.compile(r"[-_.]+")
# An import name is often its project's name with a conventional prefix or suffix:
# `yaml` is PyYAML, `cpuinfo` py-cpuinfo, `dateutil` python-dateutil, `llama_cpp` llama-cpp-python
_SPELLINGS = ("{}", "py{}", "py-{}", "python-{}", "{}-python")


def normalized(name: str) -> str:
    """A project's name as PyPI compares names (PEP 503): lower case, runs of -_. as one -."""
    return _SEPARATORS.sub("-", name).lower()


@cache
def published() -> frozenset[str]:
    """The normalized names of PyPI's most downloaded projects (read once: the file ships with
    the package)."""
    text = resources.files("bot.core").joinpath("data/pypi-projects.txt").read_text(encoding="utf-8")
    return frozenset(normalized(line) for line in text.split() if line)


def spellings(module: str) -> list[str]:
    """The project names an import name's top-level package goes by (normalized): `yaml` ->
    `yaml`, `pyyaml`, `py-yaml`, `python-yaml`, `yaml-python`."""
    top = normalized(module.split(".")[0])
    return [spelling.format(top) for spelling in _SPELLINGS] if top else []


def is_published(module: str) -> bool:
    """Whether an import name's top-level package is (by a conventional spelling) a project
    people install from PyPI."""
    names = published()
    return any(name in names for name in spellings(module))


def ranked_names(tsv: str) -> list[str]:
    """The project names of a package list (tab-separated: name, version, month, rank, summary)
    that carry a download rank, most downloaded first."""
    ranked: list[tuple[int, str]] = []
    for line in tsv.splitlines()[1:]:
        cells = line.split("\t")
        if len(cells) > 3 and cells[3].strip().isdigit():
            ranked.append((int(cells[3]), cells[0]))
    return [name for _, name in sorted(ranked)]


if __name__ == "__main__":  # pragma: no cover - a maintenance command, run by hand
    with open(sys.argv[1], encoding="utf-8") as source:
        sys.stdout.write("\n".join(ranked_names(source.read())) + "\n")
