"""`RemoteBirdie`: the front door over a Birdie graph served by LangGraph server
(`birdie-tui --server URL`). A session is a thread; a turn is a streamed run (`turns.py`);
grants, approvals, the mode and the list's figures live in the thread's `birdie` metadata,
which the graph reads at each run; the skills, tools, model and settings are the server's
(`catalog.py`). What only makes sense on this machine says so in one line.

Threads side by side: a turn runs on the `RemoteThread` it started on (`thread.py`);
showing another thread keeps it in `_running` and the run streams on, counted and remembered
for its own thread; showing that thread again shows the same object, its turn live or done.
Another client's turns in the shown thread are seen by polling (`session_pulse`).

Cheap to import, like the local door: the SDK and LangChain are imported when used.
"""

from __future__ import annotations

import contextlib
import getpass
import socket
import time
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
from birdie_tui.service.remote.agents import RemoteAgents, agent_grants, resolve_agent
from birdie_tui.service.remote.catalog import Catalog, fetch_catalog
from birdie_tui.service.remote.client import GRAPH, META_KEY, Wire, shown_url
from birdie_tui.service.remote.commands import RemoteCommands
from birdie_tui.service.remote.rewind import RemoteRewind
from birdie_tui.service.remote.sessions import birdie_meta, thread_row, written_by
from birdie_tui.service.remote.thread import RemoteThread
from birdie_tui.service.remote.turns import RemoteTurns
from birdie_tui.service.remote.schedules import RemoteSchedules
from birdie_tui.service.rows import SessionPulse, SessionRow, Started, Status, TokenLedger
from birdie_tui.store.session_meta import str_list
from birdie_tui.text import title_from

SERVER_KEY_ENV = "BIRDIE_SERVER_API_KEY"
LIST_PAGE = 1000  # threads asked for at once (the server's search is paged)
LIST_LIMIT = 20_000  # threads the browser lists at most (newest first)
FIGURE_KEYS = ("turns", "input_tokens", "output_tokens", "title", "last_user", "last_host",
               "last_client")
# How long "open elsewhere" stays said after another client last changed the thread.
ELSEWHERE_SECONDS = 120.0


class RemoteBirdie(RemoteAgents, RemoteCommands, RemoteTurns, RemoteRewind, RemoteSchedules):
    """The `Birdie` protocol over a LangGraph server (see `protocol.py` for each method).

    A turn's `workspace` (a client's files and terminals) is accepted and ignored: the tools
    run on the server, in its process and its working directory."""

    def __init__(self, url: str, *, user: str | None = None, environ: Any = None,
                 **_local_only: Any) -> None:
        import os

        self.url = url
        self.user = user or os.environ.get("USER") or getpass.getuser()
        self._environ = dict(os.environ if environ is None else environ)
        self.wire: Any = None
        self.catalog = Catalog()
        self._listeners: list[Listener] = []
        self.shown = RemoteThread()  # the thread on screen
        # Threads with a turn of this client running, shown or not (see thread.py).
        self._running: dict[str, RemoteThread] = {}
        self._client = uuid.uuid4().hex  # tells this client's writes from another's
        self._elsewhere: dict[str, tuple[str, float]] = {}  # thread -> (who, when seen)
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
                    self.shown = await self._read(session_id)
                except BirdieError as exc:
                    if strict:
                        raise
                    problems.append(f"{exc} — opened a new session instead.")
            # A name is a skill's, else an agent's (its case aside; never a prefix), as locally.
            agents = {n: self._agent_named(n) for n in (*enable, *disable)
                      if self.catalog.skill(n) is None}
            unknown = [n for n, agent in agents.items() if agent is None]
            if unknown and strict:
                raise BirdieError(f"unknown skill or agent {unknown[0]!r} on the server "
                                  f"{self.wire.host}")
            if unknown:
                problems.append(f"unknown skill or agent {unknown[0]!r} on the server — "
                                "ignored it.")
            await self._grant([n for n in enable if n not in agents],
                              [n for n in disable if n not in agents])
            await self._grant_agents([a for n in enable if (a := agents.get(n))],
                                     [a for n in disable if (a := agents.get(n))])
        except BirdieError:
            await self.close()
            raise
        except Exception as exc:  # noqa: BLE001 - one line for the user, nothing left open
            message = str(self.wire.error(exc)) if self.wire else str(exc)
            await self.close()
            raise BirdieError(message) from None
        await self._refresh_catalog()
        return Started(session_id=self.shown.id, new=not self.shown.saved,
                       problems=tuple(problems), warnings=tuple(warnings))

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

    async def _read(self, thread_id: str) -> RemoteThread:
        """The thread as the server has it now, with its history counted."""
        doc = await self.wire.call(lambda: self.wire.aio.threads.get(thread_id),
                                   thread=thread_id)
        view = RemoteThread(str(doc["thread_id"]))
        self._take(view, doc)
        return view

    def _take(self, view: RemoteThread, doc: Any, *, values: bool = True) -> None:
        if isinstance(doc, dict):
            view.take_doc(doc, price=self._price(), model=self.catalog.model.label,
                          values=values)

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
        await self._write_meta(self.shown, enabled_skills=on, disabled_skills=off)

    def _agent_named(self, name: str) -> str | None:
        found = resolve_agent([row.name for row in self.catalog.agents], name)
        return found if found is not None and found.lower() == name.lower() else None

    async def _grant_agents(self, enable: list[str], disable: list[str]) -> None:
        from birdie_tui.agent_files.registry import AgentPolicy

        if not enable and not disable:
            return
        policy = AgentPolicy(*agent_grants(self.shown))
        for name in enable:
            policy.enable(name)
        for name in disable:
            policy.disable(name)
        await self._write_meta(self.shown, enabled_agents=policy.enabled_names,
                               disabled_agents=policy.disabled_names)

    def _grants(self, view: RemoteThread | None = None) -> tuple[list[str], list[str]]:
        meta = (view or self.shown).meta
        return str_list(meta.get("enabled_skills")), str_list(meta.get("disabled_skills"))

    async def _refresh_catalog(self, view: RemoteThread | None = None) -> None:
        """The skill rows for a thread's grants (the server computes `enabled`)."""
        with contextlib.suppress(BirdieError):
            self.catalog = await fetch_catalog(self.wire, *self._grants(view),
                                               *agent_grants(view or self.shown))

    # ------------------------------------------------------------------ thread metadata
    async def _ensure_thread(self, view: RemoteThread) -> str:
        """The thread exists from the first turn on (grants chosen before are written then)."""
        if not view.saved:
            meta = {**view.meta, "user": self.user}
            doc = await self.wire.call(lambda: self.wire.aio.threads.create(
                thread_id=view.id, metadata={META_KEY: meta}, if_exists="do_nothing",
                graph_id=GRAPH),
                thread=view.id)
            view.saved, view.doc, view.meta = True, doc, meta
            self._emit(StatusChanged())
        return view.id

    async def _write_meta(self, view: RemoteThread, **changes: Any) -> None:
        """Merge `changes` into the thread's `birdie` metadata (as the server has it now: a
        key another client wrote meanwhile is kept)."""
        view.meta.update(changes)
        if not view.saved:
            return
        thread = view.id

        async def write() -> Any:
            doc = await self.wire.aio.threads.get(thread)
            merged = {**birdie_meta(doc), **changes}
            return await self.wire.aio.threads.update(thread, metadata={META_KEY: merged})

        self._take(view, await self.wire.call(write, thread=thread), values=False)

    def _write_meta_sync(self, thread: str | None = None, **changes: Any) -> None:
        """As `_write_meta`, for the door's sync methods (the shown thread, or any other)."""
        thread = thread or self.shown.id
        view = self._view(thread)
        if view is not None:
            view.meta.update(changes)
            if not view.saved:
                return

        def write() -> Any:
            doc = self.wire.sync.threads.get(thread)
            merged = {**birdie_meta(doc), **changes}
            return self.wire.sync.threads.update(thread, metadata={META_KEY: merged})

        doc = self.wire.call_sync(write, thread=thread)
        if view is not None:
            self._take(view, doc, values=False)

    def _view(self, thread: str) -> RemoteThread | None:
        """This client's object for `thread`: the shown one, or one running a turn."""
        return self.shown if thread == self.shown.id else self._running.get(thread)

    async def _after_turn(self, view: RemoteThread) -> None:
        """The thread's state read back (the truth for every figure), and the figures the
        browser lists written to its metadata."""
        try:
            if view.saved and self.wire is not None:
                doc = await self.wire.call(lambda: self.wire.aio.threads.get(view.id),
                                           thread=view.id)
                self._take(view, doc)
                await self._write_meta(view, **self._figure_meta(view))
        finally:
            view.ledger.end_turn()
            self._emit_totals()
            self._emit(StatusChanged())
            self._emit(SkillsChanged())

    def _figure_meta(self, view: RemoteThread) -> dict[str, Any]:
        from birdie_tui.text import content_text

        first = next((m for m in view.messages if m.type == "human"), None)
        title = view.meta.get("title") or (title_from(content_text(first.content))
                                           if first is not None else None)
        counted = view.counted
        return {"turns": counted.turns, "input_tokens": counted.input_tokens,
                "output_tokens": counted.output_tokens, "title": title,
                "last_user": self.user, "last_host": socket.gethostname(),
                "last_client": self._client}

    def _emit_totals(self) -> None:
        ledger = self.ledger()
        self._emit(TotalsChanged(session_in=ledger.session_in, session_out=ledger.session_out))

    def _price(self) -> Any:
        return self.catalog.model.price

    # ------------------------------------------------------------------ what is shown
    def status(self) -> Status:
        view = self.shown
        return Status(
            model=f"remote: {self.wire.host if self.wire else self.url} · "
                  f"{self.catalog.model.label}",
            vendor=self.catalog.vendor, session_id=view.id,
            title=view.meta.get("title"), saved=view.saved,
            turns=view.counted.turns, created_at=str(view.doc.get("created_at") or ""),
            user=self.user, data_dir=self.wire.shown if self.wire else shown_url(self.url),
            skill_dirs=tuple(str(d) for d in self.catalog.server.get("skill_dirs") or ()),
            logs_dir="(on the server)", approval_mode=self.approval_mode())

    def ledger(self) -> TokenLedger:
        return self.shown.snapshot(context_window=self.catalog.model.context_window,
                                   price=self._price())

    def resume_command(self) -> str | None:
        if not self.shown.saved:
            return None
        from birdie_tui.resume import resume_command

        return resume_command(self.shown.id, server=self.wire.url if self.wire else self.url)

    def save_session(self) -> str:
        """Headless: the thread is created when the turn starts; its id is known already."""
        return self.shown.id

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
        view = self.shown
        rows = [thread_row(t, view.id) for t in threads if _ours(t)]
        if not any(row.id == view.id for row in rows):
            counted = view.counted
            rows.insert(0, SessionRow(id=view.id, title=view.meta.get("title") or "(untitled)",
                                      updated_at="", turns=counted.turns,
                                      input_tokens=counted.input_tokens,
                                      output_tokens=counted.output_tokens, current=True))
        return rows

    async def transcript(self) -> list[Any]:
        from birdie_tui.service.local.rows import transcript_items

        return transcript_items(self.shown.messages)

    async def new_session(self) -> None:
        await self._show(RemoteThread())  # a turn running on the one left goes on
        self._emit(SessionOpened(id=self.shown.id, new=True))

    async def open_session(self, session_id: str) -> None:
        if session_id == self.shown.id:
            return
        # A thread whose turn ran on meanwhile is shown as it now stands (live, or just done).
        await self._show(self._running.get(session_id) or await self._read(session_id))
        self._emit(SessionOpened(id=self.shown.id, new=False))

    async def _show(self, view: RemoteThread) -> None:
        """Show `view` once everything about it is read: what the screen asks the door
        meanwhile is still about the thread it shows."""
        await self._refresh_catalog(view)
        self.shown = view

    async def session_pulse(self) -> SessionPulse:
        """Another client's change to the shown thread since this client last read or wrote
        it (its `updated_at`: one search by id), read again then; and who that client was,
        said for `ELSEWHERE_SECONDS`. Nothing is asked while a turn of ours runs on it."""
        view = self.shown
        if not view.saved or view.turning or self.wire is None:
            return SessionPulse()
        found = await self.wire.call(lambda: self.wire.aio.threads.search(
            ids=[view.id], limit=1, select=["thread_id", "updated_at", "metadata", "status"]),
            thread=view.id)
        doc = found[0] if found else None
        changed = isinstance(doc, dict) and str(doc.get("updated_at") or "") != view.updated_at \
            and self._view(view.id) is view  # not switched away meanwhile
        if changed and isinstance(doc, dict):
            meta = birdie_meta(doc)
            if meta.get("last_client") != self._client or doc.get("status") == "busy":
                who = written_by(meta) if meta.get("last_client") != self._client else ""
                self._elsewhere[view.id] = (who or "another client", time.monotonic())
            if doc.get("status") == "busy":  # their run goes on: read it when it is done
                changed = False
            else:
                self._take(view, await self.wire.call(
                    lambda: self.wire.aio.threads.get(view.id), thread=view.id))
        who, when = self._elsewhere.get(view.id, ("", 0.0))
        recent = bool(who) and time.monotonic() - when < ELSEWHERE_SECONDS
        return SessionPulse(changed=changed, elsewhere=who if recent else "")

    def rename_session(self, session_id: str, title: str) -> None:
        title = title.strip()
        if not title:
            raise BirdieError("usage: /rename <title>")
        self._write_meta_sync(session_id, title=title)
        self._emit(StatusChanged())

    async def delete_session(self, session_id: str) -> None:
        running = self._running.get(session_id)
        if running is not None and running is not self.shown:
            raise BirdieError(f"session {session_id} is running a turn: open it, Esc, then delete")
        view = self.shown
        if session_id != view.id or view.saved:
            await self.wire.call(lambda: self.wire.aio.threads.delete(session_id),
                                 thread=session_id)
        if session_id == view.id:
            await self.new_session()


def _ours(thread: dict[str, Any]) -> bool:
    """A thread of the Birdie graph (run by it, or created by a Birdie client)."""
    meta = thread.get("metadata") or {}
    return isinstance(meta, dict) and (META_KEY in meta or meta.get("graph_id") == GRAPH)
