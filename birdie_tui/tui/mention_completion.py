"""@-mentions on the main screen: the completion list while typing, the attachments on send.

The working directory is indexed on the first `@` (`birdie_tui.mentions.index`, a thread), and
every query is ranked in a thread too, one at a time: a query typed while another is being
ranked waits, and only the newest waiting one runs. While the index is still walking, the
shown query is ranked again every `REFRESH_S`, so results fill in. The UI thread only sets the
list's options. Skills and sub-agents (the door's rows) are offered before files.
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING

from birdie_tui.mentions.attach import attached_line, expand
from birdie_tui.mentions.fuzzy import Matcher
from birdie_tui.mentions.index import FileIndex
from birdie_tui.tui.widgets.mention_list import Choice, MentionList

if TYPE_CHECKING:
    from birdie_tui.tui.main_screen import MainScreen

LIMIT = 50  # choices shown
NAMES = 5  # skills and agents shown at most, before the files
REFRESH_S = 0.25


def working_dir() -> str:
    try:
        return os.getcwd()  # where the local door's tools run too (`/cd` changes it)
    except OSError:
        return ""


class MentionCompletion:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.index: FileIndex | None = None
        self._matcher = Matcher()
        self._names: list[Choice] = []
        self._query: str | None = None  # what the composer has open
        self._busy = False  # a query is being ranked in a thread
        self._refreshing = False

    @property
    def popup(self) -> MentionList:
        return self.screen.query_one(MentionList)

    def query(self, query: str | None) -> None:
        """The composer's mention changed: rank `query` (None closes the list)."""
        self._query = query
        if query is None:
            self.popup.close()
            return
        if self.index is None or str(self.index.root) != working_dir():
            self._open_index()
        if not self._busy:
            self._rank(query)

    def _open_index(self) -> None:
        if self.index is not None:
            self.index.stop()
        self.index = FileIndex(working_dir()).start()
        self._matcher = Matcher()
        self._names = self._name_choices()
        if not self._refreshing:
            self._refreshing = True
            self.screen.set_timer(REFRESH_S, self._refresh)

    def _name_choices(self) -> list[Choice]:
        birdie = self.screen.birdie
        if birdie is None:
            return []
        try:
            return [(row.name, "skill") for row in birdie.skill_rows() if row.enabled] + \
                [(row.name, "agent") for row in birdie.agent_rows() if row.enabled]
        except Exception:  # noqa: BLE001 - names are a convenience: files still complete
            return []

    def _refresh(self) -> None:
        """Rank the open query again while the index grows (once more after it is done)."""
        index = self.index
        if index is None or self._query is None:
            self._refreshing = False
            return
        finished = index.done.is_set()  # before ranking: that rank then sees every entry
        ranked = not self._busy
        if ranked:
            self._rank(self._query)
        if finished and ranked:
            self._refreshing = False
            return
        self.screen.set_timer(REFRESH_S, self._refresh)

    def _rank(self, query: str) -> None:
        index = self.index
        if index is None:
            return
        self._busy = True
        names, matcher = self._names, self._matcher

        def work() -> None:
            found = Matcher().rank(query, [n for n, _ in names], limit=NAMES) if names else []
            kinds = dict(names)
            choices = [(name, kinds[name]) for name in found]
            choices += [(path, "folder" if path.endswith("/") else "file")
                        for path in matcher.rank(query, index.entries(), limit=LIMIT)]
            self.screen.app.call_from_thread(self._show, query, choices, index.status())

        self.screen.run_worker(work, thread=True, group="mentions", exit_on_error=False)

    def _show(self, query: str, choices: list[Choice], status: str) -> None:
        self._busy = False
        if self._query is None:
            return
        if query != self._query:
            self._rank(self._query)  # typed on meanwhile: only the newest query counts
            return
        self.popup.show(query, choices, status)

    async def attach(self, text: str) -> str:
        """`text` with its mentions attached (read in a thread); refusals said in the chat."""
        if "@" not in text:
            return text
        expanded = await asyncio.to_thread(expand, text, working_dir())
        said = [attached_line(expanded.attachments)] if expanded.attachments else []
        for note in [*said, *expanded.notes]:
            self.screen.chat.add_notice(note, markdown=False)
        return expanded.text
