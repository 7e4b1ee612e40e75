"""What one open session of the engine is, apart from its history: the session itself (None
before one is opened), its skill grants, and the record of its latest model call.

Each `Engine` (one per open session, see `agent/engine.py`) owns one `SessionState` and hands
it to its collaborators, which read and replace these fields; nothing else of the session is
shared between them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from birdie_tui.agent.options import EngineError
from birdie_tui.agent_files.registry import AgentPolicy
from birdie_tui.agent.provenance import CallContext
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.store import SessionMeta
from birdie_tui.store.session_meta import str_list

# The session file's sub-agent grants, under Birdie 0.15.1's own keys.
ENABLED_AGENTS, DISABLED_AGENTS = "enabled_agents", "disabled_agents"
UNLIMITED_STEPS = 1_000_000  # graph steps of a turn without a tool-call limit (Esc stops it)


@dataclass
class SessionState:
    session: SessionMeta | None = None
    policy: SkillPolicy = field(default_factory=SkillPolicy)
    # The latest model call's provenance (the turn sets it; auto-compaction reads it).
    last_call: CallContext | None = None

    def require(self) -> SessionMeta:
        if self.session is None:
            raise EngineError("no session is open")
        return self.session

    def agent_policy(self) -> AgentPolicy:
        """The session's sub-agent grants (read from its file's keys each time: one owner)."""
        extra = self.session.extra if self.session is not None else {}
        return AgentPolicy(str_list(extra.get(ENABLED_AGENTS)),
                           str_list(extra.get(DISABLED_AGENTS)))

    def set_agent_policy(self, policy: AgentPolicy) -> None:
        meta = self.require()
        meta.extra[ENABLED_AGENTS] = list(policy.enabled_names)
        meta.extra[DISABLED_AGENTS] = list(policy.disabled_names)

    @property
    def saved(self) -> bool:
        """False while the open session is new and unsaved (no file, no history yet)."""
        return self.session is not None and self.session.saved

    def is_unsaved(self, session_id: str | None) -> bool:
        """`session_id` (None: the open session) is the open session and it is unsaved: it
        has no history to read."""
        current = self.session
        return current is not None and not current.saved and session_id in (None, current.id)


def thread_config(session_id: str, max_tool_calls: int) -> dict[str, Any]:
    """The LangGraph config of a session's thread: its id, and the step limit its tool-call
    cap gives (0, no cap: steps are not limited)."""
    return {"configurable": {"thread_id": session_id},
            "recursion_limit": max_tool_calls * 2 + 10 if max_tool_calls > 0
            else UNLIMITED_STEPS}
