"""A session's life in the engine: open (lazily, unsaved until its first turn), new, switch,
list, rename, delete, taking the last turn back (`/retry`), and keeping its checkpointed
history valid (`repair_session`).

A mixin of `Engine`, split out along the seam between sessions and turns; it uses the engine's
session store, policy, registry, token account and graph.

Reading a history back costs as much as the history is long, so it is read only when needed:
`needs_repair` says whether the open session's history may be invalid (just opened, a turn
that did not end cleanly, a repair that failed). A turn repairs first only then.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from birdie_tui.agent.accounting import TokenAccount, take_back_turn
from birdie_tui.events import SessionOpened
from birdie_tui.agent.graph import replace_all
from birdie_tui.agent.history import repair_history
from birdie_tui.agent.options import EngineError
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.store import SessionMeta
from birdie_tui.store.paths import validate_session_id
from birdie_tui.text import content_text

INTERRUPTED_MARK = "*[interrupted]*"
UNLIMITED_STEPS = 1_000_000  # graph steps of a turn without a tool-call limit (Esc stops it)


class SessionOps:
    """Session operations of the engine (see `Engine` for the attributes they use)."""

    session: SessionMeta | None
    policy: SkillPolicy
    sessions: Any
    registry: Any
    tokens: TokenAccount
    options: Any
    user: str
    _graph: Any
    _saver: Any
    # The open session's history may be invalid: repair it before the next turn.
    needs_repair: bool = True
    _known_head: str | None = None  # these two and `_settle`: see SessionGuard
    _settled_through: str | None = None
    _settle: Any
    session_turn: Any
    history_writable: Any

    def set_skill_enabled(self, name: str, enabled: bool) -> Any:  # defined by Engine
        raise NotImplementedError

    def _config(self, session_id: str | None = None) -> dict[str, Any]:
        sid = session_id or self.require_session().id
        cap = self.options.max_tool_calls  # 0 (no tool-call limit): steps are not limited
        return {"configurable": {"thread_id": sid},
                "recursion_limit": cap * 2 + 10 if cap > 0 else UNLIMITED_STEPS}

    def require_session(self) -> SessionMeta:
        if self.session is None:
            raise EngineError("no session is open")
        return self.session

    @property
    def session_saved(self) -> bool:
        """False while the open session is new and unsaved (no file, no history yet)."""
        return self.session is not None and self.session.saved

    def persist_session(self) -> SessionMeta:
        """Write the open session if it is still unsaved, and return it. The file is created
        exclusively: if the provisional id was taken meanwhile, the next free one is used and
        `session.id` changes. run_turn calls this before anything touches the history."""
        meta = self.require_session()
        if not meta.saved:
            meta.enabled_skills = self.policy.enabled_names
            meta.disabled_skills = self.policy.disabled_names
            meta.counted = {"through": None, "turns": 0}  # count its history from the start
            self.sessions.create(meta=meta)
        return meta

    def latest_session_id(self) -> str | None:
        """The user's most recent non-empty session (for `--continue`), or None."""
        meta = self.sessions.latest()
        return meta.id if meta is not None else None

    async def open_session(
        self,
        session_id: str | None = None,
        *,
        enable: Iterable[str] = (),
        disable: Iterable[str] = (),
    ) -> SessionOpened:
        """Continue `session_id`, or start a new, unsaved session; apply --enable/--disable
        grants. Raises EngineError (nothing created or switched) for an invalid or unknown
        session id, a corrupt session file (moved aside and announced), or an unknown skill."""
        enable, disable = list(enable), list(disable)
        for name in (*enable, *disable):  # before anything is created or switched
            if self.registry.get(name) is None:
                raise EngineError(f"unknown skill {name!r}; /skill list shows the loaded ones")
        if session_id:
            try:
                validate_session_id(session_id)
            except ValueError as exc:
                raise EngineError(str(exc)) from exc
            seen = len(self.sessions.warnings)
            meta = self.sessions.load(session_id)
            if meta is None and len(self.sessions.warnings) > seen:  # corrupt: moved aside
                raise EngineError(f"session {session_id!r} cannot be opened: its file was "
                                  "corrupt and has been moved aside")
            if meta is None:
                raise EngineError(f"session {session_id!r} not found for user {self.user!r}")
            new = False
        else:
            meta = self.sessions.provisional()
            new = True
        self._activate(meta)
        for name in enable:
            self.set_skill_enabled(name, True)
        for name in disable:
            self.set_skill_enabled(name, False)
        # A turn still open here was cut short by a process that died (kill -9, a crash):
        # closed with the same mark as one stopped by SIGTERM or Esc.
        history, _ = await self.repaired_history(partial_reply="")
        self.tokens.show_history(history)
        return SessionOpened(id=meta.id, new=new)

    def _activate(self, meta: SessionMeta) -> None:
        self.session = meta
        self.needs_repair = True  # a history this engine has not checked yet
        self._known_head = self._settled_through = None  # see SessionGuard
        self.policy = SkillPolicy(meta.enabled_skills, meta.disabled_skills)

    async def new_session(self) -> SessionMeta:
        """Start a new (unsaved) session; an unsaved current one is simply kept."""
        current = self.session
        if current is not None and not current.saved:
            current.id = self.sessions.next_id()  # another process may have taken the old one
            return current
        await self.open_session()
        return self.require_session()

    async def switch_session(self, session_id: str) -> SessionMeta:
        await self.open_session(session_id)
        return self.require_session()

    def list_sessions(self) -> list[SessionMeta]:
        """Saved sessions, newest first, without empty ones (except the open session). An
        unsaved open session is not in the list."""
        keep = self.session.id if self.session is not None and self.session.saved else None
        return self.sessions.list(keep=keep)

    def rename_session(self, session_id: str, title: str) -> SessionMeta:
        """Set the title (blank clears it). An unsaved session keeps it in memory until saved."""
        meta = self.session if self.session and self.session.id == session_id else \
            self.sessions.load(session_id)
        if meta is None:
            raise EngineError(f"session {session_id!r} not found")
        if meta.saved:
            return self.sessions.set_title(meta, title)
        meta.title = " ".join(title.split()) or None
        return meta

    async def delete_session(self, session_id: str) -> SessionMeta | None:
        """Delete a session and its checkpoints (its id is never handed out again). Deleting
        the open one opens a new, unsaved one, which is returned; deleting the open unsaved
        session just starts afresh (nothing was on disk)."""
        current = self.session
        if current is not None and current.id == session_id and not current.saved:
            await self.open_session()
            return self.require_session()
        if not self.sessions.exists(session_id):
            raise EngineError(f"session {session_id!r} not found")
        await self._saver.adelete_thread(session_id)
        self.sessions.delete(session_id)
        if self.session is not None and self.session.id == session_id:
            return await self.new_session()
        return None

    async def take_last_turn(self) -> str:
        """Remove the last user turn (its message and everything after) from the history and
        return its text, so `/retry` can run it again. The turn is un-counted, its tokens stay
        spent and join the next turn's token_log entry (see `agent.accounting`)."""
        meta = self.require_session()
        if not meta.saved:
            raise EngineError("nothing to retry: this session has no message yet")
        async with self.session_turn() as busy:
            if busy is not None:
                raise EngineError(busy)
            history = await self.messages()
            index = next((i for i in range(len(history) - 1, -1, -1)
                          if isinstance(history[i], HumanMessage)), None)
            if index is None:
                raise EngineError("nothing to retry: this session has no message yet")
            if index == 0:  # an empty history: drop the thread (an update needs a last message)
                await self._saver.adelete_thread(meta.id)
                self._known_head = None  # this engine's own change (see SessionDesk.pulse)
            else:
                await self._graph.aupdate_state(self._config(), {"messages": replace_all(
                    history[:index])}, as_node="agent")
            through = history[index - 1].id if index else None
            # Writing the shorter history already took the turn back when it settled the
            # counts (`accounting.settle` follows a history that lost a counted turn): once.
            taken = self.sessions.update(
                meta.id, lambda disk: None if (disk.counted or {}).get("through") == through
                and disk.turns <= sum(isinstance(m, HumanMessage) for m in history[:index])
                else take_back_turn(disk, through))
            if taken is not None:
                meta.absorb(taken)
        return content_text(history[index].content)

    async def messages(self, session_id: str | None = None) -> list[BaseMessage]:
        """The history of `session_id` (default: the open session; [] while it is unsaved)."""
        current = self.session
        if current is not None and not current.saved and session_id in (None, current.id):
            return []
        sid = session_id or self.require_session().id
        head = await self._head_checkpoint(sid)
        hit = self._history_cache
        if head is not None and hit is not None and hit[:2] == (sid, head):
            return list(hit[2])
        state = await self._graph.aget_state(self._config(session_id))
        history = list(state.values.get("messages", [])) if state and state.values else []
        self._history_cache = (sid, head, history)
        return list(history)

    _history_cache: tuple[str, str | None, list[BaseMessage]] | None = None

    async def history_head(self) -> tuple[str | None, bool]:
        """(the open session's latest checkpoint id, whether this engine wrote or read it
        last): a head it does not know means another process changed the history."""
        head = await self._head_checkpoint(self.require_session().id)
        return head, head == self._known_head

    async def _head_checkpoint(self, thread_id: str) -> str | None:
        """The id of the thread's latest checkpoint (one indexed query): while it is the same,
        the history read last time is still the history, so opening a session (transcript,
        provenance, context panel) deserialises it once, not four times."""
        return await self._checkpoints.head(thread_id)

    async def repair_session(self, partial_reply: str | None = None) -> bool:
        """Make the open session's history valid in place (after a cancel, crash or error).

        With `partial_reply` (text streamed before an interruption) the turn is closed by an
        AI message keeping what arrived, marked as interrupted.
        """
        return (await self.repaired_history(partial_reply))[1]

    async def repaired_history(self, partial_reply: str | None = None
                               ) -> tuple[list[BaseMessage], bool]:
        """`repair_session`, returning (the history as it now stands, whether it changed):
        one read of the checkpoint instead of a repair and then a read. Clears
        `needs_repair` once a saved session's history is known to be valid. Done under the
        session's turn lock (this turn's, or taken for the moment): while another process runs
        a turn on the session, its history is only read (that turn keeps it valid and counted)
        and `needs_repair` stays set."""
        if not self.session_saved:
            return [], False  # no history yet
        async with self.history_writable() as writable:
            return await self._repair_now(partial_reply, writable)

    async def _repair_now(self, partial_reply: str | None, writable: bool
                          ) -> tuple[list[BaseMessage], bool]:
        config = self._config()
        head = await self._head_checkpoint(config["configurable"]["thread_id"])
        state = await self._graph.aget_state(config)
        history = list(state.values.get("messages", [])) if state and state.values else []
        # The read serves the transcript and context panel that follow an open, too.
        self._history_cache = (config["configurable"]["thread_id"], head, history)
        if not writable:
            return history, False
        self._known_head = head
        self._settle(history)  # what a process killed in the middle of a step left uncounted
        if state is not None and state.interrupts:
            # A step waiting for approval (valid: its calls have stand-in answers) stays as it
            # is, to be asked again or answered by `--approve`/`--deny`.
            self.needs_repair = False
            return history, False
        fixed, changed = repair_history(history)
        ends_open = bool(fixed) and not isinstance(fixed[-1], AIMessage)
        if partial_reply is not None and ends_open:
            text = f"{partial_reply.rstrip()}\n\n{INTERRUPTED_MARK}" if partial_reply.strip() \
                else INTERRUPTED_MARK
            fixed.append(AIMessage(content=text))
            changed = True
        if changed or (state is not None and state.next):
            await self._graph.aupdate_state(config, {"messages": replace_all(fixed)},
                                            as_node="agent")
        self.needs_repair = False
        return fixed, changed
