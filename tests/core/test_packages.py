"""Which import names are projects people install from PyPI (#35)."""

from __future__ import annotations

import pytest

from bot.core.packages import is_published, normalized, ranked_names


@pytest.mark.parametrize(
    ("module", "published"),
    [
        ("numpy", True),
        ("diffusers.models.unet", True),  # a dotted name is its top-level package's
        ("pytorch_lightning", True),  # as PyPI compares names: pytorch-lightning
        ("yaml", True),  # py + name: PyYAML
        ("cpuinfo", True),  # py- + name: py-cpuinfo
        ("dateutil", True),  # python- + name: python-dateutil
        ("llama_cpp", True),  # name + -python: llama-cpp-python
        ("models", False),
        ("pwd", False),
        ("ComfyUI-Manager-2", False),
        ("_", False),
        ("", False),
    ],
)
def test_an_import_name_is_published_when_pypi_ranks_its_project(module: str, published: bool) -> None:
    assert is_published(module) is published


def test_names_compare_as_pypi_compares_them() -> None:
    assert normalized("Foo__Bar.baz-Qux") == "foo-bar-baz-qux"


def test_the_list_is_written_most_downloaded_first_leaving_out_the_unranked() -> None:
    tsv = "name\tversion\tmonth\trank\tsummary\nb\t1\t2024-01\t2\tB\nunranked\t1\t2024-01\t\tU\na\t1\t2024-01\t1\tA\n"
    assert ranked_names(tsv) == ["a", "b"]
