"""Retention and erasure (#18): what errfix keeps of pastes and people, and for how long.

`Privacy(store)` holds the SQL of it, over the store's connection (so used from its one thread):

* `purge_expired(now, days)`: the paste log and "Not this error" rejections older than `days`
  before `now` go; `days == 0` keeps them (the setting's "forever"). `now` is passed in, so tests
  use fixed times; team memory has its own age, `memory_days` (ERRFIX_MEMORY_DAYS, #36). (Seen
  event ids and owed jobs live in the events file, `bot.store.inbox`,
  purged with it by the service; their counts come in as `extra`, for the audit entry.)
* `forget_user(user)`: that person's pastes, rejections, learned aliases, remembered pastes,
  resolution excerpts and votes on team answers go; their votes on fixes stay
  counted but are detached: each vote's user id becomes a token of its own (`forgotten:<random>`),
  so the votes table's key (reply, record, fix, user) still holds one row per vote (two forgotten
  people's votes on one fix never collide into one) and nothing links the rows to each other or
  to the person. Their older audit entries stay, naming `forgotten` as the actor and without the
  alias or line they taught.
* `forget_channel(channel)`: that channel's pastes, replies, rejections made there, its settings
  and digest claims (`Channels.forget`) and its remembered errors and their resolutions
  (`Memory.forget_channel`) go; votes
  on answers there stay counted with the answer's key detached (its seen keys and owed jobs go
  from the events file: `Inbox.forget_channel`).

bot.cli.privacy is its command line (`errfix forget-user`, `forget-channel`). Each runs in one
transaction together with its audit entry (bot/store/audit.py), which the
purge never touches. Rows from before m006 name no paste author and no rejection channel; they
cannot be erased by person or channel and age out with the retention purge.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bot.store import audit
from bot.store.channels import Channels
from bot.store.memory import Memory
from bot.store.store import Store

DETACHED = "'forgotten:' || lower(hex(randomblob(8)))"  # SQL: a fresh token per row


def iso(moment: datetime) -> str:
    """The store's timestamp text for `moment` (UTC, seconds), as every `created_at` holds it."""
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Erased:
    """What one purge or forget did: per table, how many rows went (votes: were detached, audit:
    anonymised; those rows stay)."""

    action: str
    target: str
    counts: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def lines(self) -> list[str]:
        """One line per table, as the forget commands print them."""
        verbs = {"votes": "detached, still counted", "audit": "anonymised"}
        return [f"  {table}: {n} {verbs.get(table, 'removed')}" for table, n in self.counts.items()]


class Privacy:
    """Retention purge and erasure over one store (see the module docstring)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.db = store.db

    def purge_expired(
        self,
        now: datetime,
        days: int,
        *,
        actor: str = audit.SYSTEM,
        extra: dict[str, int] | None = None,
        memory_days: int = 0,
    ) -> Erased:
        """Remove what is older than `days` before `now` (an aware datetime); `days == 0` keeps all.

        A row exactly `days` old stays; one a second older goes. Audited when anything went."""
        if days == 0 and memory_days == 0:
            return Erased("retention-purge", f"{days} days")
        cut = now - timedelta(days=days)
        with self.store.write_transaction():
            q = self.db.execute
            counts = (
                {
                    "pastes": q("DELETE FROM pastes WHERE created_at < ?", [iso(cut)]).rowcount,
                    "rejections": q("DELETE FROM rejections WHERE created_at < ?", [iso(cut)]).rowcount,
                    "clicks": q("DELETE FROM clicks WHERE created_at < ?", [iso(cut)]).rowcount,
                }
                if days
                else {"rejections": 0}
            )
            counts |= Memory(self.store).purge(now, memory_days) | (extra or {})
            done = Erased("retention-purge", f"{days} days", {k: int(v) for k, v in counts.items()})
            if counts["rejections"]:
                self.store.bump_version()  # the matcher no longer scores those pastes lower
            if done.total:
                audit.write(self.db, actor=actor, action=done.action, target=done.target, detail=done.counts)
        return done

    def forget_user(self, user_id: str, *, actor: str) -> Erased:
        """Erase one person (see the module docstring); nothing else of anyone else changes."""
        with self.store.write_transaction():
            q = self.db.execute
            counts = {
                "pastes": q("DELETE FROM pastes WHERE user_id = ?", [user_id]).rowcount,
                "rejections": q("DELETE FROM rejections WHERE user_id = ?", [user_id]).rowcount,
                "aliases": q("DELETE FROM aliases WHERE origin = 'learned' AND created_by = ?", [user_id]).rowcount,
                "votes": q(f"UPDATE votes SET user_id = {DETACHED} WHERE user_id = ?", [user_id]).rowcount,
                # their entries stay (what happened, when) without who, or the text they pasted
                "audit": q(
                    "UPDATE audit SET actor = ?, detail = json_remove(detail, '$.alias', '$.line') WHERE actor = ?",
                    [audit.FORGOTTEN, user_id],
                ).rowcount
                + q(
                    "UPDATE audit SET detail = json_set(detail, '$.of_user', ?) "
                    "WHERE json_extract(detail, '$.of_user') = ?",
                    [audit.FORGOTTEN, user_id],
                ).rowcount,
            } | Memory(self.store).forget_user(user_id)
            done = Erased("forget-user", user_id, {k: int(v) for k, v in counts.items()})
            if counts["rejections"] or counts["aliases"]:
                self.store.bump_version()
            audit.write(self.db, actor=actor, action=done.action, target=user_id, detail=done.counts)
        return done

    def forget_channel(self, channel: str, *, actor: str, extra: dict[str, int] | None = None) -> Erased:
        """Erase one channel's traces (see the module docstring)."""
        with self.store.write_transaction():
            q = self.db.execute
            counts = (
                {
                    "pastes": q("DELETE FROM pastes WHERE channel = ?", [channel]).rowcount,
                    "replies": q("DELETE FROM replies WHERE channel = ?", [channel]).rowcount,
                    "rejections": q("DELETE FROM rejections WHERE channel = ?", [channel]).rowcount,
                    "votes": q(
                        f"UPDATE votes SET reply_key = {DETACHED} WHERE substr(reply_key, 1, ?) = ?",
                        [len(channel) + 1, f"{channel}:"],
                    ).rowcount,
                }
                | Channels(self.store).forget(channel)
                | Memory(self.store).forget_channel(channel)
                | (extra or {})
            )
            done = Erased("forget-channel", channel, {k: int(v) for k, v in counts.items()})
            if counts["rejections"]:
                self.store.bump_version()
            audit.write(self.db, actor=actor, action=done.action, target=channel, detail=done.counts)
        return done
