"""The example pastes the demo page offers one click away.

They are copies of a few of tests/seed_examples (pastes each bundled record is tested to rank
first), shipped as package data under bot/demo/examples/ because tests/ is not installed with
the package. tests/demo/test_examples.py checks that each copy still equals its original and is
still answered with its record.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"

# (record id, button label), in the order the page shows them
CHOSEN = (
    ("pytorch/loss-nan-step", "Loss is NaN"),
    ("pytorch/cuda-out-of-memory", "CUDA out of memory"),
    ("pip/externally-managed-environment", "pip: externally managed"),
    ("python/cannot-import-name", "cannot import name"),
    ("docker/port-already-allocated", "Docker port in use"),
    ("git/non-fast-forward-rejected", "git push rejected"),
)


@dataclass(frozen=True)
class Example:
    record_id: str
    title: str
    text: str

    def to_json(self) -> dict[str, str]:
        return {"id": self.record_id, "title": self.title, "text": self.text}


def examples() -> list[Example]:
    """The chosen pastes, read from the package (`<record id>.txt` under bot/demo/examples/)."""
    return [
        Example(rid, title, (EXAMPLES_DIR / f"{rid}.txt").read_text(encoding="utf-8").rstrip("\n"))
        for rid, title in CHOSEN
    ]
