"""The event vocabulary now lives in `birdie_tui.events` (outside the engine, so a front end
can name it without `agent/`). This name stays for the engine modules that still import it
from here; new code imports `birdie_tui.events`."""

from __future__ import annotations

from birdie_tui.events import (
    ApprovalDecided,
    BaseEvent,
    ChangeEvent,
    Compacted,
    Event,
    InjectedSkill,
    McpFailed,
    MemoryChanged,
    Recovered,
    SessionBusy,
    SessionOpened,
    SkillsChanged,
    SkillsInjected,
    SkillsReloaded,
    StatusChanged,
    TokenStreamed,
    ToolCallStarted,
    ToolFinished,
    TotalsChanged,
    TurnCancelled,
    TurnDone,
    TurnError,
    TurnEvent,
    UsageReported,
    event_types,
)

__all__ = [
    "ApprovalDecided", "BaseEvent", "ChangeEvent", "Compacted", "Event", "InjectedSkill",
    "McpFailed", "MemoryChanged", "Recovered", "SessionBusy", "SessionOpened", "SkillsChanged",
    "SkillsInjected", "SkillsReloaded", "StatusChanged", "TokenStreamed", "ToolCallStarted",
    "ToolFinished", "TotalsChanged", "TurnCancelled", "TurnDone", "TurnError", "TurnEvent",
    "UsageReported", "event_types",
]
