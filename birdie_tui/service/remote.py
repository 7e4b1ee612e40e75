"""`RemoteBirdie`: the front door over a Birdie graph served by LangGraph server
(`birdie-tui --server URL`). A session is a thread; a turn is a streamed run (`remote_turns`);
grants, approvals, the mode and the list's figures live in the thread's `birdie` metadata,
which the graph reads at each run; the skills, tools, model and settings are the server's
(`remote_catalog`). What only makes sense on this machine says so in one line.

Cheap to import, like `local.py`: the SDK and LangChain are imported when used.
"""

from __future__ import annotations

import contextlib
import getpass
import socket
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from birdie_tui.events import (
    ChangeEvent,
    SessionOpened,
    SkillsChanged,
    StatusChanged,
    TotalsChanged,
)
from birdie_tui.service.protocol import BirdieError, Listener
from birdie_tui.service.remote_catalog import Catalog, fetch_catalog
from birdie_tui.service.remote_client import GRAPH, META_KEY, Wire, shown_url, to_messages
from birdie_tui.service.remote_commands import RemoteCommands
from birdie_tui.service.remote_sessions import (
    Figures,
    birdie_meta,
    figures_of,
    ledger_of,
    thread_row,
)
from birdie_tui.service.remote_turns import RemoteTurns
from birdie_tui.service.rows import SessionRow, Started, Status, TokenLedger
from birdie_tui.store.session_meta import str_list
from birdie_tui.text import title_from

SERVER_KEY_ENV = "BIRDIE_SERVER_API_KEY"
LIST_PAGE = 1000  # threads asked for at once (the server's search is paged)
LIST_LIMIT = 20_000  # threads the browser lists at most (newest first)
FIGURE_KEYS = ("turns", "input_tokens", "output_tokens", "title", "last_user", "last_host")


class RemoteBirdie(RemoteCommands, RemoteTurns):
    """The `Birdie` protocol over a LangGraph server (see `protocol.py` for each method)."""

    def __init__(self, url: str, *, user: str | None = None, environ: Any = None,
                 **_local_only: Any) -> None:
        import os

        self.url = url
        self.user = user or os.environ.get("USER") or getpass.getuser()
        self._environ = dict(os.environ if environ is None else environ)
        self.wire: Any = None
        self.catalog = Catalog()
        self._listeners: list[Listener] = []
        self._thread = str(uuid.uuid4())
        self._saved = False  # the thread exists on the server (created at the first turn)
        self._meta: dict[str, Any] = {}  # its `birdie` metadata, as last read or written
        self._doc: dict[str, Any] = {}  # the thread as last read (dates, metadata)
        self._messages: list[Any] = []
        self._summary = ""  # the thread's rolling compaction summary
        self._figures = Figures()
        self._live: list[Any] = []  # the running turn's calls
        self._last_injected: Any = None
        self._run_id: str | None = None
        self._settings: Any = None

    # ------------------------------------------------------------------ life
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _emit(self, event: ChangeEvent) -> None:
        for listener in list(self._listeners):
            listener(event)

    async def start(self, *, session_id: str | None = None, continue_last: bool = False,
                    enable: Iterable[str] = (), disable: Iterable[str] = (),
                    strict: bool = False) -> Started:
        """Reach the server (its catalog), then open the thread asked for. A bad request is
        an error with `strict` (headless), else said in `problems` and a new session opens."""
        problems: list[str] = []
        try:
            self.wire = Wire(self.url, api_key=self._server_key())
            self.catalog = await fetch_catalog(self.wire)
            warnings = self._load_settings()
            if session_id is None and continue_last:
                session_id = await self._latest()
            if session_id is not None:
                try:
                    await self._open(session_id)
                except BirdieError as exc:
                    if strict:
                        raise
                    problems.append(f"{exc} — opened a new session instead.")
            unknown = [n for n in (*enable, *disable) if self.catalog.skill(n) is None]
            if unknown and strict:
                raise BirdieError(f"unknown skill {unknown[0]!r} on the server {self.wire.host}")
            if unknown:
                problems.append(f"unknown skill {unknown[0]!r} on the server — ignored it.")
            await self._grant([n for n in enable if n not in unknown],
                              [n for n in disable if n not in unknown])
        except BirdieError:
            await self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - one line for the user, nothing left open
            message = str(self.wire.error(exc)) if self.wire else str(exc)
            await self.close()
            raise BirdieError(message) from None
        await self._refresh_catalog()
        return Started(session_id=self._thread, new=not self._saved, problems=tuple(problems),
                       warnings=tuple(warnings))

    def _server_key(self) -> str | None:
        """$BIRDIE_SERVER_API_KEY, sent as the server's x-api-key (a LangSmith deployment
        asks for one); never a LangSmith key picked up from the environment by itself."""
        from birdie_tui.secrets import remember

        key = (self._environ.get(SERVER_KEY_ENV) or "").strip() or None
        remember(key)  # masked wherever text leaves the app
        return key

    def _load_settings(self) -> list[str]:
        """The UI's own settings (theme, keymap, tool output) stay this machine's."""
        from birdie_tui.store.paths import BirdiePaths
        from birdie_tui.store.settings import load_settings

        self._settings, warnings = load_settings(BirdiePaths.from_env(self._environ))
        return list(warnings)

    async def close(self) -> None:
        wire, self.wire = self.wire, None
        if wire is not None:
            await wire.aclose()

    async def _latest(self) -> str | None:
        found = await self.wire.call(lambda: self.wire.aio.threads.search(
            limit=1, sort_by="updated_at", sort_order="desc", select=["thread_id"]))
        return str(found[0]["thread_id"]) if found else None

    async def _open(self, thread_id: str) -> None:
        doc = await self.wire.call(lambda: self.wire.aio.threads.get(thread_id),
                                   thread=thread_id)
        self._thread, self._saved, self._doc = str(doc["thread_id"]), True, doc
        self._meta = birdie_meta(doc)
        self._take_values(doc.get("values"))
        self._live, self._last_injected = [], None

    def _take_values(self, values: Any) -> None:
        self._messages = to_messages((values or {}).get("messages")) \
            if isinstance(values, dict) else []
        self._summary = str((values or {}).get("summary") or "") if isinstance(values, dict) \
            else ""
        self._figures = figures_of(self._messages, self._price())

    async def _grant(self, enable: list[str], disable: list[str]) -> None:
        if not enable and not disable:
            return
        on, off = self._grants()
        for name in enable:
            on, off = [*(n for n in on if n.lower() != name.lower()), name], \
                [n for n in off if n.lower() != name.lower()]
        for name in disable:
            off, on = [*(n for n in off if n.lower() != name.lower()), name], \
                [n for n in on if n.lower() != name.lower()]
        await self._write_meta(enabled_skills=on, disabled_skills=off)

    def _grants(self) -> tuple[list[str], list[str]]:
        return (str_list(self._meta.get("enabled_skills")),
                str_list(self._meta.get("disabled_skills")))

    async def _refresh_catalog(self) -> None:
        """The skill rows for this session's grants (the server computes `enabled`)."""
        with contextlib.suppress(BirdieError):
            self.catalog = await fetch_catalog(self.wire, *self._grants())

    # ------------------------------------------------------------------ thread metadata
    async def _ensure_thread(self) -> str:
        """The thread exists from the first turn on (grants chosen before are written then)."""
        if not self._saved:
            meta = {**self._meta, "user": self.user}
            doc = await self.wire.call(lambda: self.wire.aio.threads.create(
                thread_id=self._thread, metadata={META_KEY: meta}, if_exists="do_nothing",
                graph_id=GRAPH),
                thread=self._thread)
            self._saved, self._doc, self._meta = True, doc, meta
            self._emit(StatusChanged())
        return self._thread

    async def _write_meta(self, **changes: Any) -> None:
        """Merge `changes` into the thread's `birdie` metadata (as the server has it now: a
        key another client wrote meanwhile is kept)."""
        self._meta.update(changes)
        if not self._saved:
            return
        thread = self._thread

        async def write() -> Any:
            doc = await self.wire.aio.threads.get(thread)
            merged = {**birdie_meta(doc), **changes}
            return await self.wire.aio.threads.update(thread, metadata={META_KEY: merged})

        doc = await self.wire.call(write, thread=thread)
        if isinstance(doc, dict) and thread == self._thread:
            self._meta = birdie_meta(doc) or self._meta

    def _write_meta_sync(self, thread: str | None = None, **changes: Any) -> None:
        """As `_write_meta`, for the door's sync methods (any thread, or another session)."""
        thread = thread or self._thread
        if thread == self._thread:
            self._meta.update(changes)
            if not self._saved:
                return

        def write() -> Any:
            doc = self.wire.sync.threads.get(thread)
            merged = {**birdie_meta(doc), **changes}
            return self.wire.sync.threads.update(thread, metadata={META_KEY: merged})

        self.wire.call_sync(write, thread=thread)

    async def _after_turn(self) -> None:
        """The thread's state read back (the truth for every figure), and the figures the
        browser lists written to its metadata."""
        try:
            if self._saved and self.wire is not None:
                doc = await self.wire.call(lambda: self.wire.aio.threads.get(self._thread),
                                           thread=self._thread)
                self._doc = doc
                self._meta = birdie_meta(doc) or self._meta
                self._take_values(doc.get("values"))
                self._live = []
                await self._write_meta(**self._figure_meta())
        finally:
            self._live = []
            self._emit_totals()
            self._emit(StatusChanged())
            self._emit(SkillsChanged())

    def _figure_meta(self) -> dict[str, Any]:
        first = next((m for m in self._messages if m.type == "human"), None)
        from birdie_tui.text import content_text

        title = self._meta.get("title") or (title_from(content_text(first.content))
                                             if first is not None else None)
        return {"turns": len(self._figures.turns), "input_tokens": self._figures.input,
                "output_tokens": self._figures.output, "title": title,
                "last_user": self.user, "last_host": socket.gethostname()}

    def _emit_totals(self) -> None:
        ledger = self.ledger()
        self._emit(TotalsChanged(session_in=ledger.session_in, session_out=ledger.session_out))

    def _price(self) -> Any:
        return self.catalog.model.price

    # ------------------------------------------------------------------ what is shown
    def status(self) -> Status:
        return Status(
            model=f"remote: {self.wire.host if self.wire else self.url} · "
                  f"{self.catalog.model.label}",
            vendor=self.catalog.vendor, session_id=self._thread,
            title=self._meta.get("title"), saved=self._saved,
            turns=len(self._figures.turns), created_at=str(self._doc.get("created_at") or ""),
            user=self.user, data_dir=self.wire.shown if self.wire else shown_url(self.url),
            skill_dirs=tuple(str(d) for d in self.catalog.server.get("skill_dirs") or ()),
            logs_dir="(on the server)", approval_mode=self.approval_mode())

    def ledger(self) -> TokenLedger:
        return ledger_of(self._figures, self._live, context_window=self.catalog.model
                         .context_window, price=self._price())

    def resume_command(self) -> str | None:
        if not self._saved:
            return None
        from birdie_tui.resume import resume_command

        return resume_command(self._thread, server=self.wire.url if self.wire else self.url)

    def save_session(self) -> str:
        """Headless: the thread is created when the turn starts; its id is known already."""
        return self._thread

    # ------------------------------------------------------------------ sessions
    def session_rows(self) -> list[SessionRow]:
        """The server's threads of the Birdie graph, newest first; the open session first if it
        has no thread yet. Safe from a worker thread (sync client)."""
        threads: list[Any] = []
        while len(threads) < LIST_LIMIT:
            page = self.wire.call_sync(lambda offset=len(threads): self.wire.sync.threads.search(
                limit=LIST_PAGE, offset=offset, sort_by="updated_at", sort_order="desc",
                select=["thread_id", "created_at", "updated_at", "metadata", "status"]))
            threads += page
            if len(page) < LIST_PAGE:
                break
        current = self._thread
        rows = [thread_row(t, current) for t in threads if _ours(t)]
        if not any(row.id == current for row in rows):
            rows.insert(0, SessionRow(id=current, title=self._meta.get("title") or "(untitled)",
                                      updated_at="", turns=len(self._figures.turns),
                                      input_tokens=self._figures.input,
                                      output_tokens=self._figures.output, current=True))
        return rows

    async def transcript(self) -> list[Any]:
        from birdie_tui.service.local_rows import transcript_items

        return transcript_items(self._messages)

    async def new_session(self) -> None:
        self._thread, self._saved, self._doc, self._meta = str(uuid.uuid4()), False, {}, {}
        self._take_values(None)
        self._live, self._last_injected = [], None
        await self._refresh_catalog()
        self._emit(SessionOpened(id=self._thread, new=True))

    async def open_session(self, session_id: str) -> None:
        if session_id == self._thread:
            return
        await self._open(session_id)
        await self._refresh_catalog()
        self._emit(SessionOpened(id=self._thread, new=False))

    def rename_session(self, session_id: str, title: str) -> None:
        title = title.strip()
        if not title:
            raise BirdieError("usage: /rename <title>")
        self._write_meta_sync(session_id, title=title)
        self._emit(StatusChanged())

    async def delete_session(self, session_id: str) -> None:
        if session_id != self._thread or self._saved:
            await self.wire.call(lambda: self.wire.aio.threads.delete(session_id),
                                 thread=session_id)
        if session_id == self._thread:
            await self.new_session()


def _ours(thread: dict[str, Any]) -> bool:
    """A thread of the Birdie graph (run by it, or created by a Birdie client)."""
    meta = thread.get("metadata") or {}
    return isinstance(meta, dict) and (META_KEY in meta or meta.get("graph_id") == GRAPH)
