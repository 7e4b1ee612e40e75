"""The door's side of sub-agents: their rows, grants, runs and children's model calls over
the local engine.

A mixin of `LocalBirdie` (see `protocol.py` for the contract): it uses the engine and `_emit`
of the class it is mixed into. The rows come from the builders the server's catalog shares
(`birdie_tui.catalog`).
"""

from __future__ import annotations

from collections.abc import Callable

from birdie_tui.events import AgentsChanged, ChangeEvent
from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.protocol import BirdieError
from birdie_tui.catalog import agent_row, run_row
from birdie_tui.service.rows import AgentRow, AgentRunRow, BrokenAgentFile, CallContext


class LocalAgents(OnDesk):
    """`agent_rows`, `set_agent`, `agent_runs`, `child_contexts` over the local engine."""

    _emit: Callable[[ChangeEvent], None]

    def agent_rows(self) -> list[AgentRow]:
        engine = self._shown
        policy = engine.state.agent_policy()
        return [agent_row(agent, policy.is_enabled(agent)) for agent in engine.host.agents.agents()]

    def broken_agent_files(self) -> list[BrokenAgentFile]:
        return [BrokenAgentFile(path=str(p.path), line=p.line, message=p.message)
                for p in self._shown.host.agents.problems]

    def set_agent(self, name: str, enabled: bool | None = None) -> AgentRow:
        from birdie_tui.agent.options import EngineError

        engine = self._shown
        agents = engine.host.agents
        found = agents.resolve(name)
        agent = agents.get(found) if found else None
        if agent is None:
            raise BirdieError(f"unknown agent {name!r}; /agent list shows the loaded ones")
        on = not engine.state.agent_policy().is_enabled(agent) if enabled is None else enabled
        try:
            engine.book.set_agent_enabled(agent.name, on)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        except OSError as exc:
            raise BirdieError(f"could not save the session: {exc}") from None
        self._emit(AgentsChanged())
        return next(row for row in self.agent_rows() if row.name == agent.name)

    def agent_runs(self, session_id: str | None = None) -> list[AgentRunRow]:
        from birdie_tui.agent.ledger import AGENT_RUNS_KEY

        engine = self._shown
        meta = engine.session if session_id is None else engine.host.sessions.load(session_id)
        runs = meta.extra.get(AGENT_RUNS_KEY) if meta is not None else None
        return [run_row(run) for run in (runs if isinstance(runs, list) else ())
                if isinstance(run, dict)]

    async def child_contexts(self, child: str) -> list[CallContext]:
        engine = self._shown
        meta = engine.session
        if meta is None or not child.startswith(f"{meta.id}/agent/"):
            raise BirdieError(f"{child!r} is not a sub-agent run of this session")
        return await engine.contexts(child)

