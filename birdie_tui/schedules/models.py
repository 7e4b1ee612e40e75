"""What a trigger is and what one run of it left: pure data, no engine, no scheduler.

A `Trigger` comes from an agent file's frontmatter (`every:`, `cron:` with `tz:`, `watch:`,
with `input:` and `approval:`) or from an entry of the `schedules` list in settings (a plain
prompt). A `RunRecord` is one line of the run log: every run is also a session, named by
`session_id`, so the session browser, export, `-c` and `/cost` work on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from birdie_tui.modes import ApprovalMode

TriggerKind = Literal["every", "cron", "watch", "manual"]
# How a run's tool calls are decided, with no one to ask: the approval modes' names.
# read-only: calls that change nothing run, any other stops the run pending (as `--print`);
# ask: every call not already allowed stops it pending; auto: every call runs.
RunApproval = Literal["read-only", "ask", "auto"]
RUN_APPROVALS: tuple[RunApproval, ...] = ("read-only", "ask", "auto")
# The session's approval mode for each: with no one to ask, `ask` leaves a gated call pending
# (locally as on a server), so read-only runs only what needs no approval.
RUN_MODES: dict[RunApproval, ApprovalMode] = {"read-only": "ask", "ask": "ask", "auto": "auto"}
# running: started, not ended · done: answered · failed: crashed or the provider failed ·
# pending: stopped for an approval (answered later in the TUI or with `--approve`) ·
# skipped: not started, the trigger's previous run was still going · missed: its time passed
# while no scheduler ran (recorded once for the lot) · cancelled: stopped (SIGTERM, Esc).
RunStatus = Literal["running", "done", "failed", "pending", "skipped", "missed", "cancelled"]
ENDED: frozenset[str] = frozenset({"done", "failed", "skipped", "missed", "cancelled"})
# The session key that marks a session as a run: {"run_id", "trigger_key", "agent", "approval"}.
# The engine reads it at every turn of the session (`agent/run_profile.py`), so a run answered
# later goes on as the agent it ran.
RUN_EXTRA = "run"


def run_mark(extra: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A session's `extra["run"]`, or None when the session is not a run (or it is damaged)."""
    mark = extra.get(RUN_EXTRA)
    return mark if isinstance(mark, Mapping) and isinstance(mark.get("run_id"), str) else None


@dataclass(frozen=True)
class Trigger:
    """One way an agent (or a settings prompt) starts on its own."""

    key: str  # stable across reloads: "<agent>:<kind>" or "schedule:<name>"; log and locks use it
    kind: TriggerKind
    agent: str | None  # the agent file's name; None for a settings schedule
    prompt: str | None = None  # a settings schedule's message (an agent's comes from its file)
    every_s: float | None = None
    cron: str | None = None  # five fields, checked with APScheduler when the file is read
    tz: str | None = None  # an IANA zone for `cron:`; None: the machine's
    watch: tuple[str, ...] = ()  # paths and globs: absolute, or relative to the scheduler's cwd
    debounce_s: float = 1.0
    inputs: Mapping[str, Any] = field(default_factory=dict)  # the agent's declared inputs
    approval: RunApproval = "read-only"
    allow: tuple[str, ...] = ()  # permission rules that run whatever the mode
    path: Path | None = None  # the file that declared it
    line: int | None = None  # 1-based line of its key

    @property
    def name(self) -> str:
        """The agent's name, or a settings schedule's (`schedule:<name>` → `<name>`)."""
        return self.agent or self.key.removeprefix("schedule:")

    def title(self) -> str:
        """A run's session title: `digest · every 30m`."""
        return f"{self.name} · {self.describe()}"

    def describe(self) -> str:
        """A short human name: `every 30m`, `cron 0 9 * * * (Europe/Paris)`, `watch drafts/*.md`."""
        if self.kind == "every" and self.every_s is not None:
            return f"every {format_interval(self.every_s)}"
        if self.kind == "cron":
            return f"cron {self.cron}" + (f" ({self.tz})" if self.tz else "")
        if self.kind == "watch":
            return "watch " + ", ".join(self.watch)
        return "manual"

    def to_dict(self) -> dict[str, Any]:
        return {"key": self.key, "kind": self.kind, "agent": self.agent, "prompt": self.prompt,
                "every_s": self.every_s, "cron": self.cron, "tz": self.tz,
                "watch": list(self.watch), "debounce_s": self.debounce_s,
                "inputs": dict(self.inputs), "approval": self.approval,
                "allow": list(self.allow), "describe": self.describe(),
                "path": str(self.path) if self.path else None, "line": self.line}


def format_interval(seconds: float) -> str:
    """`90` → `1m30s`, `7200` → `2h`: the way an `every:` value is written."""
    whole = int(seconds)
    if whole != seconds or whole <= 0:
        return f"{seconds:g}s"
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if whole >= size:
            parts.append(f"{whole // size}{unit}")
            whole %= size
    return "".join(parts)


@dataclass(frozen=True)
class RunRecord:
    """One run of a trigger (or of `agents run`): one row of the run log."""

    run_id: str  # uuid4 hex
    trigger_key: str  # Trigger.key; "<agent>:manual" for `agents run`
    agent: str | None
    trigger: str  # Trigger.describe() when it fired
    user: str
    status: RunStatus
    started_at: datetime  # aware, UTC
    session_id: str | None = None
    finished_at: datetime | None = None
    fire_time: datetime | None = None  # when the schedule meant it to run (claims use it)
    changed_paths: tuple[str, ...] = ()  # a watch trigger's paths
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    error: str | None = None  # one line
    answer: str | None = None  # the final answer
    host: str = ""  # "<hostname>:<pid>" of the process that ran it

    @property
    def duration_s(self) -> float | None:
        if self.finished_at is None:
            return None
        return (self.finished_at - self.started_at).total_seconds()

    def ended(self, **changes: Any) -> RunRecord:
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The record as JSON (`agents logs --json`)."""
        def when(value: datetime | None) -> str | None:
            return value.isoformat() if value else None
        return {"run_id": self.run_id, "trigger_key": self.trigger_key, "agent": self.agent,
                "trigger": self.trigger, "user": self.user, "status": self.status,
                "session_id": self.session_id, "started_at": when(self.started_at),
                "finished_at": when(self.finished_at), "fire_time": when(self.fire_time),
                "duration_s": self.duration_s, "changed_paths": list(self.changed_paths),
                "input_tokens": self.input_tokens, "output_tokens": self.output_tokens,
                "cost": self.cost, "error": self.error, "answer": self.answer,
                "host": self.host}
