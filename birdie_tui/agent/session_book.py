"""Which session an engine has open, and the sessions of the user: open (lazily, unsaved until
its first turn), new, switch, list, rename, delete, the session's skill grants, and taking the
last turn back (`/retry`).

A new session is lazy: `open_session(None)` gives an unsaved session (`saved` False) with a
provisional id; nothing reaches the disk until its first turn runs (`persist_session`), so
starting and quitting leaves no empty session behind.
"""

from __future__ import annotations

from collections.abc import Iterable

from langchain_core.messages import HumanMessage

from birdie_tui.agent.accounting import TokenAccount, take_back_turn
from birdie_tui.agent.graph import replace_all
from birdie_tui.agent.host import AgentHost
from birdie_tui.agent.ledger import child_threads
from birdie_tui.agent_files.models import AgentDef
from birdie_tui.agent.options import EngineError
from birdie_tui.agent.session_history import SessionHistory
from birdie_tui.agent.session_state import SessionState
from birdie_tui.events import SessionOpened
from birdie_tui.skills.models import Skill
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.store import SessionMeta
from birdie_tui.store.paths import validate_session_id
from birdie_tui.text import content_text


class SessionBook:
    def __init__(self, state: SessionState, host: AgentHost, history: SessionHistory,
                 tokens: TokenAccount):
        self._state = state
        self._host = host
        self._history = history
        self._tokens = tokens

    def persist_session(self) -> SessionMeta:
        """Write the open session if it is still unsaved, and return it. The file is created
        exclusively: if the provisional id was taken meanwhile, the next free one is used and
        `session.id` changes. A turn calls this before anything touches the history."""
        meta = self._state.require()
        if not meta.saved:
            meta.enabled_skills = self._state.policy.enabled_names
            meta.disabled_skills = self._state.policy.disabled_names
            meta.counted = {"through": None, "turns": 0}  # count its history from the start
            provisional = meta.id
            self._host.sessions.create(meta=meta)
            self._host.agent.given.rename(provisional, meta.id)
        return meta

    def latest_session_id(self) -> str | None:
        """The user's most recent non-empty session (for `--continue`), or None."""
        meta = self._host.sessions.latest()
        return meta.id if meta is not None else None

    async def open_session(self, session_id: str | None = None, *, enable: Iterable[str] = (),
                           disable: Iterable[str] = ()) -> SessionOpened:
        """Continue `session_id`, or start a new, unsaved session; apply --enable/--disable
        grants. Raises EngineError (nothing created or switched) for an invalid or unknown
        session id, a corrupt session file (moved aside and announced), or an unknown skill."""
        enable, disable = list(enable), list(disable)
        # A name is a skill's, else an agent's (its case aside; never a prefix: a typo must
        # not grant another).
        on_agents = [n for n in enable if self._host.registry.get(n) is None and self._agent(n)]
        off_agents = [n for n in disable if self._host.registry.get(n) is None and self._agent(n)]
        enable = [n for n in enable if n not in on_agents]
        disable = [n for n in disable if n not in off_agents]
        for name in (*enable, *disable):  # before anything is created or switched
            if self._host.registry.get(name) is None:
                raise EngineError(f"unknown skill or agent {name!r}; /skill list and "
                                  "/agent list show the loaded ones")
        if session_id:
            meta = self._load(session_id)
        else:
            meta = self._host.sessions.provisional()
        self._state.session = meta
        self._state.policy = SkillPolicy(meta.enabled_skills, meta.disabled_skills)
        self._history.opened()
        for name in on_agents:
            self.set_agent_enabled(name, True)
        for name in off_agents:
            self.set_agent_enabled(name, False)
        for name in enable:
            self.set_skill_enabled(name, True)
        for name in disable:
            self.set_skill_enabled(name, False)
        # A turn still open here was cut short by a process that died (kill -9, a crash):
        # closed with the same mark as one stopped by SIGTERM or Esc.
        history, _ = await self._history.repaired_history(partial_reply="")
        self._tokens.show_history(history)
        return SessionOpened(id=meta.id, new=not session_id)

    def _load(self, session_id: str) -> SessionMeta:
        try:
            validate_session_id(session_id)
        except ValueError as exc:
            raise EngineError(str(exc)) from exc
        sessions = self._host.sessions
        seen = len(sessions.warnings)
        meta = sessions.load(session_id)
        if meta is None and len(sessions.warnings) > seen:  # corrupt: moved aside
            raise EngineError(f"session {session_id!r} cannot be opened: its file was "
                              "corrupt and has been moved aside")
        if meta is None:
            raise EngineError(f"session {session_id!r} not found for user {self._host.user!r}")
        return meta

    async def new_session(self) -> SessionMeta:
        """Start a new (unsaved) session; an unsaved current one is simply kept."""
        current = self._state.session
        if current is not None and not current.saved:
            current.id = self._host.sessions.next_id()  # another process may have taken it
            return current
        await self.open_session()
        return self._state.require()

    async def switch_session(self, session_id: str) -> SessionMeta:
        await self.open_session(session_id)
        return self._state.require()

    def list_sessions(self) -> list[SessionMeta]:
        """Saved sessions, newest first, without empty ones (except the open session). An
        unsaved open session is not in the list."""
        session = self._state.session
        keep = session.id if session is not None and session.saved else None
        return self._host.sessions.list(keep=keep)

    def rename_session(self, session_id: str, title: str) -> SessionMeta:
        """Set the title (blank clears it). An unsaved session keeps it in memory until saved."""
        session = self._state.session
        meta = session if session and session.id == session_id else \
            self._host.sessions.load(session_id)
        if meta is None:
            raise EngineError(f"session {session_id!r} not found")
        if meta.saved:
            return self._host.sessions.set_title(meta, title)
        meta.title = " ".join(title.split()) or None
        return meta

    async def delete_session(self, session_id: str) -> SessionMeta | None:
        """Delete a session and its checkpoints (its id is never handed out again). Deleting
        the open one opens a new, unsaved one, which is returned; deleting the open unsaved
        session just starts afresh (nothing was on disk)."""
        current = self._state.session
        if current is not None and current.id == session_id and not current.saved:
            await self.open_session()
            return self._state.require()
        if not self._host.sessions.exists(session_id):
            raise EngineError(f"session {session_id!r} not found")
        meta = self._host.sessions.load(session_id)
        await self._host.saver.adelete_thread(session_id)
        for child in child_threads(meta.extra if meta is not None else {}, session_id):
            await self._host.saver.adelete_thread(child)  # its sub-agents' threads go with it
        self._host.sessions.delete(session_id)
        await self._host.agent.given.detach(session_id)  # the servers its client gave it
        if self._state.session is not None and self._state.session.id == session_id:
            return await self.new_session()
        return None

    # ----------------------------------------------------------------- grants
    def set_skill_enabled(self, name: str, enabled: bool) -> Skill:
        skill = self._host.registry.get(name)
        if skill is None:
            raise EngineError(f"unknown skill {name!r}; /skill list shows the loaded ones")
        policy = self._state.policy
        (policy.enable if enabled else policy.disable)(skill.name)
        self._persist_grants()
        return skill

    def _agent(self, name: str) -> AgentDef | None:
        agents = self._host.agents
        found = agents.resolve(name)
        return agents.get(found) if found and found.lower() == name.lower() else None

    def set_agent_enabled(self, name: str, enabled: bool) -> AgentDef:
        """Turn sub-agent `name` (exact, else its case or a unique prefix, as Birdie reads
        it) on or off for this session, kept in the file as Birdie keeps it."""
        agents = self._host.agents
        found = agents.resolve(name)
        agent = agents.get(found) if found else None
        if agent is None:
            raise EngineError(f"unknown agent {name!r}; /agent list shows the loaded ones")
        policy = self._state.agent_policy()
        (policy.enable if enabled else policy.disable)(agent.name)
        self._state.set_agent_policy(policy)
        meta = self._state.require()
        if meta.saved:
            self._host.sessions.save(meta)
        return agent

    def _persist_grants(self) -> None:
        """Grants of an unsaved session stay in memory until `persist_session` writes them."""
        meta, policy = self._state.session, self._state.policy
        if meta is not None:
            meta.enabled_skills = policy.enabled_names
            meta.disabled_skills = policy.disabled_names
            if meta.saved:
                self._host.sessions.save(meta)

    # ----------------------------------------------------------------- /retry
    async def take_last_turn(self) -> str:
        """Remove the last user turn (its message and everything after) from the history and
        return its text, so `/retry` can run it again. The turn is un-counted, its tokens stay
        spent and join the next turn's token_log entry (see `agent.accounting`)."""
        meta = self._state.require()
        if not meta.saved:
            raise EngineError("nothing to retry: this session has no message yet")
        async with self._history.session_turn() as busy:
            if busy is not None:
                raise EngineError(busy)
            history = await self._history.messages()
            index = next((i for i in range(len(history) - 1, -1, -1)
                          if isinstance(history[i], HumanMessage)), None)
            if index is None:
                raise EngineError("nothing to retry: this session has no message yet")
            if index == 0:  # an empty history: drop the thread (an update needs a last message)
                await self._host.saver.adelete_thread(meta.id)
                self._history.forget_head()  # this session's own change (see SessionDesk.pulse)
            else:
                await self._host.graph.aupdate_state(self._history.config(), {
                    "messages": replace_all(history[:index])}, as_node="agent")
            through = history[index - 1].id if index else None
            kept = sum(isinstance(m, HumanMessage) for m in history[:index])
            # Writing the shorter history already took the turn back when it settled the
            # counts (`accounting.settle` follows a history that lost a counted turn): once.
            taken = self._host.sessions.update(
                meta.id, lambda disk: None if (disk.counted or {}).get("through") == through
                and disk.turns <= kept else take_back_turn(disk, through))
            if taken is not None:
                meta.absorb(taken)
        return content_text(history[index].content)


__all__ = ["SessionBook"]
