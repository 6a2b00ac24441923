"""The checkpoint timer `errfix serve` runs (bot/serve/checkpoint.py), driven by an injected sleep:
the store's own checkpoints are deferred, and each interval the log written since is copied."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from bot.serve.checkpoint import checkpoint_forever
from bot.service.async_errfix import AsyncErrfix


class Stop(Exception):
    """Ends the timer loop from the fake sleep."""


async def test_the_timer_copies_the_log_written_since_its_last_step(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    svc = AsyncErrfix(str(tmp_path / "c.db"), seed=False)
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        if len(slept) == 3:
            raise Stop
        diagnosis = await svc.diagnose("ValueError: shard 'orders' is locked")
        await svc.log_paste("C1", f"{len(slept)}.1", diagnosis, replied=False, user_id="U1")

    caplog.set_level(logging.DEBUG, logger="errfix.checkpoint")
    try:
        with pytest.raises(Stop):
            await checkpoint_forever(svc, sleep=sleep)  # every 5 s unless told
        assert slept == [5.0, 5.0, 5.0]
        said = [r.getMessage() for r in caplog.records if r.name == "errfix.checkpoint"]
        assert said[0].endswith("(commits copy at 0 pages)")  # deferred before the first step
        steps = said[1:]
        assert len(steps) == 2
        for step in steps:  # each step copies every frame the log holds
            copied, frames = (int(w) for w in step.split(": ")[1].split(" log")[0].split(" of "))
            assert copied == frames > 0
    finally:
        svc.close()
