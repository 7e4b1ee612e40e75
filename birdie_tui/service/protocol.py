"""`Birdie`: the front door every front end talks through (the TUI, `--print`, later a remote
engine behind the same UI).

Commands are method calls; answers are the frozen rows of `rows.py`; what happens is told as
events of the one vocabulary (`birdie_tui.events`): a turn's events (`TurnEvent`) come back
from `send`/`resume`, change events (`ChangeEvent`: skills, session, status, totals, memory,
MCP failures, recovered files) go to every `subscribe`d listener. No LangChain message, session object, registry, path
object, options or toolbox crosses it. Mistakes a user can make raise `BirdieError`, whose text
is one sentence for them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Protocol

from birdie_tui.events import ChangeEvent, TurnEvent
from birdie_tui.modes import ApprovalMode, LoadingMode
from birdie_tui.workspace import Workspace
from birdie_tui.service.rows import (
    AgentRow,
    AgentRunRow,
    BrokenAgentFile,
    BrokenSkillFile,
    ShellRun,
    InjectionView,
    McpRow,
    McpServerSpec,
    MemoryNote,
    ModelChoice,
    ModelFacts,
    SessionPulse,
    SessionRow,
    SettingsRow,
    SkillRow,
    Started,
    Status,
    TokenLedger,
    ToolRow,
    TranscriptItem,
)
from birdie_tui.service.rows import CostReport, NewSkill, UserTurn  # commands
from birdie_tui.service.rows import CallContext, CompactionRow  # what the model sees
from birdie_tui.service.rows import RunRecord, TriggerRow  # agents on their own
from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest  # approvals

# An approval: the request (call, skill, command, diff) -> the answer, or None to leave it
# pending in the session (it can be answered later: `resume`).
Approver = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer | None]]
Listener = Callable[[ChangeEvent], None]  # gets every change event; may be called from any thread
# What the UI's own settings take (theme, tool_output: text; notify: a flag).
SettingValue = str | bool


class BirdieError(Exception):
    """A command that cannot be done as asked; the text is the one line to show."""

    # A start that failed after the skills were read carries them: a front end still lists
    # them beside the reason (a read-only home should not look like "no skills").
    skills: tuple[SkillRow, ...] = ()
    broken: tuple[BrokenSkillFile, ...] = ()


class SessionNotFound(BirdieError):
    """No session with the asked id (`sessions export` says it and exits 1, not 2)."""


class Birdie(Protocol):
    # -------------------------------------------------------------- life
    async def start(self, *, session_id: str | None = None, continue_last: bool = False,
                    enable: Iterable[str] = (), disable: Iterable[str] = (),
                    strict: bool = False) -> Started: ...
    async def close(self) -> None: ...
    def subscribe(self, listener: Listener) -> Callable[[], None]: ...

    # -------------------------------------------------------------- what is shown
    def status(self) -> Status: ...
    def ledger(self) -> TokenLedger: ...
    def settings(self) -> SettingsRow: ...
    def save_settings(self, **changes: SettingValue) -> None: ...
    def resume_command(self) -> str | None: ...

    # -------------------------------------------------------------- turns
    # `workspace`: the front end's files and terminals for the turn's bash: tools (an editor
    # over ACP, birdie_tui/workspace.py); None: tools run where the agent runs.
    def send(self, text: str, *, approver: Approver | None = None,
             workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]: ...
    def check_message(self, text: str) -> str | None: ...  # over the model's window: why
    def resume(self, answers: dict[str, ApprovalAnswer] | None = None, *,
               approver: Approver | None = None,
               workspace: Workspace | None = None) -> AsyncIterator[TurnEvent]: ...
    async def pending_approvals(self) -> list[ApprovalRequest]: ...
    # The mode's and rules' answer to a pending request; None: ask the user (the TUI
    # never decides itself).
    def decided_answer(self, request: ApprovalRequest) -> ApprovalAnswer | None: ...
    def approval_mode(self) -> ApprovalMode: ...
    # Modes come typed by a user: an unknown one raises BirdieError.
    def set_approval_mode(self, mode: str | None = None) -> ApprovalMode: ...
    def saved_approvals(self) -> tuple[list[str], list[str]]: ...
    def forget_approvals(self) -> None: ...
    def save_session(self) -> str: ...
    async def take_last_turn(self) -> str: ...
    # Your message `n` as /history numbers it (None: the last): `rewind` drops it and what
    # follows from the shown session and gives its text back (listeners hear `session`);
    # `fork` copies the history before it into a new session, shown now; its id.
    async def rewind(self, n: int | None = None) -> str: ...
    async def fork(self, n: int | None = None) -> str: ...

    # -------------------------------------------------------------- sessions
    def session_rows(self) -> list[SessionRow]: ...
    async def transcript(self) -> list[TranscriptItem]: ...
    async def injection(self) -> InjectionView: ...
    async def new_session(self) -> None: ...
    async def open_session(self, session_id: str) -> None: ...
    def rename_session(self, session_id: str, title: str) -> None: ...
    async def delete_session(self, session_id: str) -> None: ...
    async def session_pulse(self) -> SessionPulse: ...  # other processes' turns in this one

    # -------------------------------------------------------------- skills, tools, MCP
    def skill_rows(self) -> list[SkillRow]: ...
    def broken_files(self) -> list[BrokenSkillFile]: ...
    def set_skill(self, name: str, enabled: bool | None = None) -> SkillRow: ...
    async def reload_skills(self, touched: Iterable[Path] = (), *, forced: bool = False) -> None: ...
    async def watch_skills(self) -> None: ...
    async def tools(self) -> list[ToolRow]: ...
    def mcp_rows(self) -> list[McpRow]: ...
    async def restart_mcp(self, skill: str) -> McpRow: ...
    # The shown session's servers given by its client (ACP `mcpServers`): exactly these from
    # now on (an empty list stops them); `start`: started now, each row says how it went.
    async def attach_mcp_servers(self, servers: Sequence[McpServerSpec], *,
                                 start: bool = True) -> list[McpRow]: ...

    # -------------------------------------------------------------- sub-agents
    def agent_rows(self) -> list[AgentRow]: ...
    def broken_agent_files(self) -> list[BrokenAgentFile]: ...
    # On or off for the shown session (None: toggle); a name as Birdie reads it (its case,
    # a unique prefix); an unknown one raises BirdieError. Listeners hear `agents`.
    def set_agent(self, name: str, enabled: bool | None = None) -> AgentRow: ...
    # The sub-agent calls of a session (None: the shown one), oldest first.
    def agent_runs(self, session_id: str | None = None) -> list[AgentRunRow]: ...
    # The model calls of one child (an `AgentRunRow.child` of the shown session).
    async def child_contexts(self, child: str) -> list[CallContext]: ...

    # -------------------------------------------------------------- agents on their own
    # The run log (every run of a trigger or of `agents run`; each is a session), newest first;
    # `agent`: that agent's only.
    def scheduled_runs(self, agent: str | None = None, limit: int = 100) -> list[RunRecord]: ...
    # Every trigger the agent folders and settings declare, with its next firing and last run.
    def trigger_rows(self) -> list[TriggerRow]: ...
    # Who runs the triggers now ("<host>:<pid>" of `agents start`, "server" for cron jobs on a
    # LangGraph server), None when nothing does.
    def scheduler_holder(self) -> str | None: ...

    # -------------------------------------------------------------- memory
    def memory(self) -> list[MemoryNote]: ...
    def remember(self, text: str) -> MemoryNote: ...
    def forget(self, key: str) -> MemoryNote: ...

    # -------------------------------------------------------------- models
    def model_facts(self) -> ModelFacts: ...
    def model_choices(self) -> list[ModelChoice]: ...
    async def switch_model(self, spec: str) -> str: ...

    # -------------------------------------------------------------- commands
    def cost(self) -> CostReport: ...  # /cost: session totals and a per-turn breakdown
    async def history(self, limit: int = 10) -> list[UserTurn]: ...  # your last messages
    # What the user typed, across sessions and processes (ctrl+r), newest first, each once;
    # a front end records each line it sends. A file of this machine's $BIRDIE_HOME, also
    # with a database or a server (store/input_history.py).
    def input_history(self, limit: int = 1000) -> list[str]: ...
    def record_input(self, text: str) -> None: ...
    async def new_skill(self, name: str) -> NewSkill: ...  # scaffold $BIRDIE_HOME/skills/<name>
    def tool_call_limit(self) -> int | None: ...  # per turn; None: no limit
    def set_tool_call_limit(self, limit: int | None) -> int | None: ...
    def working_dir(self) -> str: ...  # where tools run
    # `!command`: run a command the user typed, without a model call, under the session's
    # rules (a deny rule or the read-only mode refuses it).
    async def run_shell(self, command: str) -> ShellRun: ...
    def change_dir(self, path: str) -> str: ...  # ~ expanded, relative to working_dir()

    # -------------------------------------------------------------- what the model sees
    async def contexts(self) -> list[CallContext]: ...  # every model call's provenance
    async def compact(self, instructions: str = "") -> CompactionRow: ...
    def auto_compact_percent(self) -> int: ...  # 0: never
    def set_auto_compact(self, percent: int | None) -> int: ...  # this session; None: global
    async def export(self, fmt: str = "markdown") -> str: ...  # markdown | json
    def skill_loading(self) -> LoadingMode: ...
    def set_skill_loading(self, mode: str | None) -> LoadingMode: ...  # None: global
