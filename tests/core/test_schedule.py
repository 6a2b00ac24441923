"""The weekly digest's slot (#38): the last one at or before now, in the schedule's zone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.schedule import Schedule, due, parse_schedule, slot_key


def test_the_last_slot_is_this_weeks_once_it_has_passed_and_last_weeks_before() -> None:
    mon9 = Schedule(0, 9, 0, "UTC")
    assert slot_key(mon9.last_slot(datetime(2026, 12, 7, 9, 0, tzinfo=UTC))) == "2026-12-07"
    assert slot_key(mon9.last_slot(datetime(2026, 12, 7, 8, 59, 59, tzinfo=UTC))) == "2026-11-30"
    assert slot_key(mon9.last_slot(datetime(2026, 12, 6, 23, 0, tzinfo=UTC))) == "2026-11-30"  # a Sunday


def test_a_zone_moves_the_slot_in_utc_across_daylight_saving() -> None:
    berlin = parse_schedule("Mon 09:00", "Europe/Berlin")
    winter = berlin.last_slot(datetime(2026, 12, 7, 8, 30, tzinfo=UTC))  # 09:30 in Berlin (UTC+1)
    summer = berlin.last_slot(datetime(2026, 7, 6, 7, 30, tzinfo=UTC))  # 09:30 in Berlin (UTC+2)
    assert (winter.astimezone(UTC).hour, summer.astimezone(UTC).hour) == (8, 7)
    assert slot_key(berlin.last_slot(datetime(2026, 12, 7, 7, 59, tzinfo=UTC))) == "2026-11-30"


def test_due_only_for_a_slot_after_the_channel_asked() -> None:
    mon9 = Schedule(0, 9, 0, "UTC")
    wed = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    assert due(mon9, datetime(2026, 12, 3, tzinfo=UTC), wed) is None
    assert due(mon9, datetime(2026, 12, 7, 9, 1, tzinfo=UTC), wed) == "2026-12-07"
    assert due(mon9, datetime(2026, 12, 7, 9, 0, tzinfo=UTC), datetime(2026, 12, 7, 9, 0, tzinfo=UTC)) == "2026-12-07"


@pytest.mark.parametrize(
    ("at", "tz", "said"),
    [("Monday 9:00", "UTC", None), ("Fri 24:00", "UTC", "00:00 to 23:59"), ("Mon 09:00", "Mars/Base", "time zone")],
)
def test_parse_schedule(at: str, tz: str, said: str | None) -> None:
    if said is None:
        assert parse_schedule(at, tz) == Schedule(0, 9, 0, "UTC") and parse_schedule(at, tz).label() == "Mon 09:00 UTC"
        return
    with pytest.raises(ValueError, match=said):
        parse_schedule(at, tz)
