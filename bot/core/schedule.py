"""When the weekly digest is due (#38): one slot a week, at a weekday and time in a time zone (pure).

A channel's digest for a slot is due once the slot has passed and the channel asked for a weekly
digest before it: a channel that says `/errfix digest weekly` on a Wednesday gets its first digest
the next Monday, not at once. A slot is named by its local date (`2026-12-07`), which is the key
that makes the digest once a week: the store keeps which (channel, slot) was posted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_AT = re.compile(r"^\s*([A-Za-z]{3})[A-Za-z]*\s+(\d{1,2}):(\d{2})\s*$")


@dataclass(frozen=True)
class Schedule:
    """A weekly slot: `weekday` 0 = Monday, at hour:minute in `tz` (an IANA zone name)."""

    weekday: int = 0
    hour: int = 9
    minute: int = 0
    tz: str = "UTC"

    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.tz)

    def label(self) -> str:
        """`Mon 09:00 UTC`: what people are told."""
        return f"{WEEKDAYS[self.weekday].title()} {self.hour:02d}:{self.minute:02d} {self.tz}"

    def last_slot(self, now: datetime) -> datetime:
        """The latest slot at or before `now` (an aware datetime), in the schedule's zone."""
        local = now.astimezone(self.zone())
        days_back = (local.weekday() - self.weekday) % 7
        day = (local - timedelta(days=days_back)).date()
        slot = datetime(day.year, day.month, day.day, self.hour, self.minute, tzinfo=self.zone())
        return slot if slot <= local else slot - timedelta(days=7)

    def next_slot(self, now: datetime) -> datetime:
        return self.last_slot(now) + timedelta(days=7)


def slot_key(slot: datetime) -> str:
    """The name of a slot: its local date."""
    return slot.date().isoformat()


def parse_schedule(at: str, tz: str = "UTC") -> Schedule:
    """`Mon 09:00` (ERRFIX_DIGEST_AT) in `tz` (ERRFIX_DIGEST_TZ); ValueError saying what is wrong."""
    m = _AT.match(at)
    if not m or m.group(1).lower() not in WEEKDAYS:
        raise ValueError(f"a weekday and a time such as 'Mon 09:00', not {at!r}")
    hour, minute = int(m.group(2)), int(m.group(3))
    if hour > 23 or minute > 59:
        raise ValueError(f"a time of day from 00:00 to 23:59, not {at!r}")
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ValueError(f"a time zone such as 'UTC' or 'Europe/Berlin', not {tz!r}") from e
    return Schedule(WEEKDAYS.index(m.group(1).lower()), hour, minute, tz)


def due(schedule: Schedule, now: datetime, weekly_since: datetime) -> str | None:
    """The key of the slot a channel's weekly digest is due for at `now`, or None: the last slot,
    if the channel asked for the digest before it (the store says whether it was posted)."""
    slot = schedule.last_slot(now)
    return slot_key(slot) if weekly_since <= slot else None
