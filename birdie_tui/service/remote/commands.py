"""The door's commands for `RemoteBirdie` (a mixin): per-thread settings kept in the thread's
`birdie` metadata (grants, approval mode and rules, tool-call cap, skill loading), what the
server's catalog and the thread's history answer (skills, tools, MCP, model, /cost,
/history, #context, export), and one clear line for what only this machine can do.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.agent.approvals import (
    APPROVAL_RULES,
    APPROVED_SKILLS,
    MODES,
    ApprovalAnswer,
    ApprovalRequest,
    decided_answer,
    session_policy,
)
from birdie_tui.events import AgentsChanged, ChangeEvent, SkillsChanged, StatusChanged
from birdie_tui.modes import (
    LOADING_MODES,
    PERMISSIVENESS,
    ApprovalMode,
    LoadingMode,
    approval_mode_of,
    loading_mode_of,
)
from birdie_tui.service.protocol import BirdieError, SettingValue
from birdie_tui.service.remote.catalog import Catalog
from birdie_tui.service.remote.thread import RemoteThread
from birdie_tui.service.ui_settings import save_ui_settings, settings_row
from birdie_tui.store.session_meta import str_list
from birdie_tui.service.rows import (
    BrokenSkillFile,
    ShellRun,
    CallContext,
    CompactionRow,
    CostReport,
    InjectionRow,
    InjectionView,
    McpRow,
    McpServerSpec,
    MemoryNote,
    ModelChoice,
    ModelFacts,
    NewSkill,
    SettingsRow,
    SkillRow,
    TokenLedger,
    ToolRow,
    UserTurn,
)

if TYPE_CHECKING:
    from birdie_tui.store.input_history import InputHistory


def local_only(what: str, why: str) -> BirdieError:
    return BirdieError(f"{what} is not available when attached to a server ({why})")


class RemoteCommands:
    catalog: Catalog
    wire: Any
    shown: RemoteThread  # the thread on screen: what the commands act on
    _settings: Any
    _emit: Callable[[ChangeEvent], None]
    _write_meta_sync: Callable[..., None]
    _grants: Callable[..., tuple[list[str], list[str]]]
    _price: Callable[[], Any]
    _refresh_catalog: Callable[[], Awaitable[None]]
    ledger: Callable[[], TokenLedger]
    status: Callable[[], Any]

    # ------------------------------------------------------------------ UI settings (local)
    def settings(self) -> SettingsRow:
        return settings_row(self._settings)

    def save_settings(self, **changes: SettingValue) -> None:
        from birdie_tui.store.paths import BirdiePaths

        paths = BirdiePaths.from_env(getattr(self, "_environ", None) or os.environ)
        save_ui_settings(self._settings, paths, changes)

    # ------------------------------------------------------------------ approvals
    def approval_mode(self) -> ApprovalMode:
        return self._mode_of(self.shown)

    def _mode_of(self, view: RemoteThread) -> ApprovalMode:
        """The mode the server runs a thread in: the thread's choice, capped by the
        operator's `approval_mode` (the catalog's `approval_ceiling`; see server/graph.py)."""
        mode = (approval_mode_of(view.meta.get("approval_mode"))
                or approval_mode_of(self.catalog.settings.get("approval_mode")) or "ask")
        ceiling = approval_mode_of(self.catalog.server.get("approval_ceiling"))
        order = PERMISSIVENESS
        if ceiling is not None and order.index(ceiling) < order.index(mode):
            return ceiling
        return mode

    def decided_answer(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        return self.thread_answer(self.shown, request)

    def thread_answer(self, view: RemoteThread, request: ApprovalRequest
                      ) -> ApprovalAnswer | None:
        """The answer a thread's mode (capped by the operator's) and saved rules give a
        pending request, by the core's one policy (as the served graph and the local desk
        decide); None: the user is to be asked."""
        return decided_answer(session_policy(mode=self._mode_of(view), saved=view.meta),
                              request)

    def set_approval_mode(self, mode: str | None = None) -> ApprovalMode:
        if mode is None:
            mode = MODES[(MODES.index(self.approval_mode()) + 1) % len(MODES)]
        if approval_mode_of(mode) is None:
            raise BirdieError(f"unknown approval mode {mode!r}; one of {', '.join(MODES)}")
        self._write_meta_sync(approval_mode=mode)
        self._emit(StatusChanged())
        return self.approval_mode()

    def saved_approvals(self) -> tuple[list[str], list[str]]:
        meta = self.shown.meta
        return str_list(meta.get(APPROVED_SKILLS)), str_list(meta.get(APPROVAL_RULES))

    def forget_approvals(self) -> None:
        self._write_meta_sync(approved_skills=[], approval_rules=[])
        self._emit(StatusChanged())

    async def take_last_turn(self) -> str:
        raise local_only("/retry", "the server keeps the thread's history")

    # ------------------------------------------------------------------ skills, tools, MCP
    def skill_rows(self) -> list[SkillRow]:
        return list(self.catalog.skills)

    def broken_files(self) -> list[BrokenSkillFile]:
        return list(self.catalog.broken)

    def set_skill(self, name: str, enabled: bool | None = None) -> SkillRow:
        """A grant for this thread (in its metadata; the graph reads it at the next run)."""
        import dataclasses

        row = self.catalog.skill(name)
        if row is None:
            raise BirdieError(f"unknown skill {name!r}; /skill list shows the server's ones")
        on = (not row.enabled) if enabled is None else enabled
        grants_on, grants_off = self._grants()
        grants_on = [n for n in grants_on if n.lower() != row.name.lower()]
        grants_off = [n for n in grants_off if n.lower() != row.name.lower()]
        (grants_on if on else grants_off).append(row.name)
        self._write_meta_sync(enabled_skills=grants_on, disabled_skills=grants_off)
        new = dataclasses.replace(row, enabled=on)
        self.catalog = dataclasses.replace(self.catalog, skills=tuple(
            new if s.name == row.name else s for s in self.catalog.skills))
        self._emit(SkillsChanged())
        return new

    async def reload_skills(self, touched: Iterable[Path] = (), *, forced: bool = False) -> None:
        """The server's skills and agents as it has them now (its files are the server's)."""
        await self._refresh_catalog()
        self._emit(SkillsChanged())
        self._emit(AgentsChanged())

    async def watch_skills(self) -> None:
        """Nothing to watch here: the skill folders are the server's."""

    async def tools(self) -> list[ToolRow]:
        return list(self.catalog.tools)

    def mcp_rows(self) -> list[McpRow]:
        return list(self.catalog.mcp)

    async def restart_mcp(self, skill: str) -> McpRow:
        raise local_only("restarting an MCP server", "it runs on the server")

    async def attach_mcp_servers(self, servers: Sequence[McpServerSpec], *,
                                 start: bool = True) -> list[McpRow]:
        raise local_only("MCP servers given by a client", "the agent runs on the server")

    async def new_skill(self, name: str) -> NewSkill:
        raise local_only("/skill new", "skills are files on the server")

    # ------------------------------------------------------------------ memory
    def memory(self) -> list[MemoryNote]:
        """The server's notes (read-only here: /remember and /forget change them there)."""
        return list(self.catalog.memory)

    def remember(self, text: str) -> MemoryNote:
        raise local_only("/remember", "long-term memory is the server's; it is shown, not "
                         "changed, from here")

    def forget(self, key: str) -> MemoryNote:
        raise local_only("/forget", "long-term memory is the server's")

    # ------------------------------------------------------------------ model
    def model_facts(self) -> ModelFacts:
        return self.catalog.model

    def check_message(self, text: str) -> str | None:
        """Over the server model's window (the server refuses it too), or None."""
        from birdie_tui.agent.window import message_over_window

        problem = message_over_window(text, self.catalog.model.context_window)
        return problem[0].upper() + problem[1:] if problem else None

    def model_choices(self) -> list[ModelChoice]:
        label = self.catalog.model.label
        model = label.split(" · ", 1)[-1]
        return [ModelChoice(self.catalog.vendor, (model,), True, model)]

    async def switch_model(self, spec: str) -> str:
        raise local_only("/model", "the server's provider configuration chooses the model")

    # ------------------------------------------- /cost, /history, /skill new, /tool cap, /cd
    def cost(self) -> CostReport:
        """The ledger's report over the thread's history (`agent.ledger.cost_report`)."""
        return self.shown.cost(self.ledger(), self.catalog.model.label)

    async def history(self, limit: int = 10) -> list[UserTurn]:
        from birdie_tui.service.local.rows import user_turns

        return user_turns(self.shown.messages, limit)

    def input_history(self, limit: int = 1000) -> list[str]:
        return self._inputs().entries(limit)

    def record_input(self, text: str) -> None:
        self._inputs().add(text)

    def _inputs(self) -> InputHistory:
        """This machine's file, as the UI settings are: the user's typing, not the server's."""
        from birdie_tui.store.input_history import InputHistory
        from birdie_tui.store.paths import BirdiePaths

        paths = BirdiePaths.from_env(getattr(self, "_environ", None) or os.environ)
        return InputHistory(paths.input_history_file)

    def tool_call_limit(self) -> int | None:
        cap = self.shown.meta.get("max_tool_calls", self.catalog.settings.get("max_tool_calls", 40))
        return cap if isinstance(cap, int) and cap > 0 else None

    def set_tool_call_limit(self, limit: int | None) -> int | None:
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 1):
            raise BirdieError("the tool-call limit is a whole number of at least 1, or off")
        self._write_meta_sync(max_tool_calls=limit or 0)
        return self.tool_call_limit()

    def working_dir(self) -> str:
        return str(self.catalog.server.get("workdir") or "(the server's working directory)")

    def change_dir(self, path: str) -> str:
        raise local_only("/cd", "tools run in the server's working directory")

    async def run_shell(self, command: str) -> ShellRun:
        raise local_only("!command", "tools run on the server")

    # ------------------------------------------------------------------ what the model sees
    async def contexts(self) -> list[CallContext]:
        from birdie_tui.agent.provenance import history_records

        return history_records(self.shown.messages)

    async def injection(self) -> InjectionView:
        """The last call's prompt: the live `injected` event when it is that call's (bodies
        included), else its record from the thread's history."""
        records = await self.contexts()
        last = records[-1] if records else None
        live = self.shown.last_injected
        if live is not None and (last is None or (live.context is not None and (
                live.context.turn, live.context.call) == (last.turn, last.call))):
            return InjectionView.of(live)
        memory = tuple(note.content for note in self.catalog.memory)
        if last is None:
            return InjectionView(memory=memory)
        reasons = {"always": "always_inject", "loaded": "loaded"}
        rows = tuple(InjectionRow(s.name, f"trigger:{s.detail}" if s.kind == "trigger"
                                  else reasons[s.kind], s.tokens, "")
                     for s in last.segments if s.kind in ("always", "trigger", "loaded"))
        catalog = next((s.tokens for s in last.segments if s.kind == "catalog"), 0)
        prompt = sum(s.tokens for s in last.segments if s.kind not in ("tools", "history", "mention"))
        return InjectionView(catalog_tokens=catalog, prompt_tokens=prompt, skills=rows,
                             memory=memory, context=last)

    async def compact(self, instructions: str = "") -> CompactionRow:
        raise local_only("/compact", "compaction runs with the local engine")

    def auto_compact_percent(self) -> int:
        return 0

    def set_auto_compact(self, percent: int | None) -> int:
        raise local_only("automatic compaction", "compaction runs with the local engine")

    def skill_loading(self) -> LoadingMode:
        return (loading_mode_of(self.shown.meta.get("skill_loading"))
                or loading_mode_of(self.catalog.settings.get("skill_loading")) or "both")

    def set_skill_loading(self, mode: str | None) -> LoadingMode:
        if mode is not None and mode not in LOADING_MODES:
            raise BirdieError(f"unknown loading mode {mode!r}: triggers, model or both")
        self._write_meta_sync(skill_loading=mode)
        self._emit(StatusChanged())
        return self.skill_loading()

    async def export(self, fmt: str = "markdown") -> str:
        from birdie_tui.agent.export import export_session
        from birdie_tui.service.remote.sessions import ExportMeta

        if fmt not in ("markdown", "json"):
            raise BirdieError(f"unknown export format {fmt!r}: markdown or json")
        status, view = self.status(), self.shown
        meta = ExportMeta(id=view.id, title=status.title, created_at=status.created_at,
                          updated_at=view.updated_at, turns=status.turns,
                          input_tokens=view.counted.input_tokens,
                          output_tokens=view.counted.output_tokens)
        return export_session(meta, view.messages, await self.contexts(), fmt,
                              summary=view.summary, rewound=view.rewound)

