"""Which model call the context panel shows: the session's provenance records grouped in turns,
and the one the user has stepped to (no Textual here: the panel's keys call these methods).

By default the panel follows the latest call. Stepping to an older turn pins the choice, so a
new call (the live `injected` event) does not pull the view away; stepping within the latest
turn does not, so the next call of the running turn is shown as it comes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from collections.abc import Sequence
from dataclasses import dataclass

if TYPE_CHECKING:
    from birdie_tui.service.rows import CallContext


@dataclass(frozen=True)
class Place:
    """Where the shown call sits: its turn (a group of calls) and its call within it."""

    index: int  # into the records
    group: int  # 0-based group of calls (a turn; a retried turn is a group of its own)
    groups: int
    call: int  # 1-based within its group
    calls: int
    retried: bool  # a later group has the same or an earlier turn number (/retry)


class CallBrowser:
    def __init__(self) -> None:
        self.records: list[CallContext] = []
        self.pinned: int | None = None  # index of the record shown; None: the latest
        self._groups: list[list[int]] = []

    # ------------------------------------------------------------ filling
    def replace(self, records: Sequence[CallContext], *, keep: bool = True) -> None:
        """The door's list (oldest first). With `keep`, a pinned call stays pinned while it is
        still there."""
        pinned = self.current if keep and self.pinned is not None else None
        old_index = self.pinned
        self.records = list(records)
        self._regroup()
        self.pinned = None
        if pinned is None:
            return
        if old_index is not None and old_index < len(self.records) \
                and _same_call(self.records[old_index], pinned):
            self._select(old_index)
            return
        for index, record in enumerate(self.records):
            if _same_call(record, pinned) and record.segments == pinned.segments:
                self._select(index)
                return

    def add(self, record: CallContext) -> None:
        """A call just made (the live `injected` event). The view follows it unless the user is
        looking at an older turn."""
        last = self.records[-1] if self.records else None
        if last is not None and _same_call(last, record) and last.segments == record.segments:
            self.records[-1] = record  # the same call again (the door's copy and the event's)
        else:
            if self.pinned is not None and self._group_of(self.pinned) == len(self._groups) - 1:
                self.pinned = None
            self.records.append(record)
        self._regroup()

    # ------------------------------------------------------------ reading
    @property
    def selected(self) -> int | None:
        if not self.records:
            return None
        return self.pinned if self.pinned is not None else len(self.records) - 1

    @property
    def current(self) -> CallContext | None:
        index = self.selected
        return None if index is None else self.records[index]

    @property
    def previous(self) -> CallContext | None:
        """The call before the shown one (in the session), to compare with."""
        index = self.selected
        return self.records[index - 1] if index else None

    @property
    def latest(self) -> CallContext | None:
        return self.records[-1] if self.records else None

    def place(self) -> Place | None:
        index = self.selected
        if index is None:
            return None
        group = self._group_of(index)
        members = self._groups[group]
        turn = self.records[index].turn
        retried = any(self.records[g[0]].turn <= turn for g in self._groups[group + 1:])
        return Place(index=index, group=group, groups=len(self._groups),
                     call=members.index(index) + 1, calls=len(members), retried=retried)

    # ------------------------------------------------------------ stepping
    def step_turn(self, delta: int) -> bool:
        """To the first call of the turn `delta` groups away; False at either end."""
        place = self.place()
        if place is None or not 0 <= place.group + delta < len(self._groups):
            return False
        self._select(self._groups[place.group + delta][0])
        return True

    def step_call(self, delta: int) -> bool:
        """To the call `delta` away within the shown turn; False at either end."""
        place = self.place()
        if place is None:
            return False
        members = self._groups[place.group]
        at = place.call - 1 + delta
        if not 0 <= at < len(members):
            return False
        self._select(members[at])
        return True

    def _select(self, index: int) -> None:
        self.pinned = None if index == len(self.records) - 1 else index

    # ------------------------------------------------------------ groups
    def _regroup(self) -> None:
        """Consecutive calls of one turn form a group; a call number that does not go up
        starts a new one (the same turn run again after /retry)."""
        self._groups = []
        for index, record in enumerate(self.records):
            last = self.records[index - 1] if index else None
            if last is None or record.turn != last.turn or record.call <= last.call:
                self._groups.append([index])
            else:
                self._groups[-1].append(index)

    def _group_of(self, index: int) -> int:
        for group, members in enumerate(self._groups):
            if index in members:
                return group
        return len(self._groups) - 1


def _same_call(a: CallContext, b: CallContext) -> bool:
    return (a.turn, a.call) == (b.turn, b.call)
