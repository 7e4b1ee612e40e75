"""What the server offers (skills, sub-agents, broken files, tools, MCP servers, the model, its
settings), read from its stateless `birdie_info` graph and turned back into the door's frozen
rows."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from birdie_tui.service.remote.client import INFO_GRAPH, Wire
from birdie_tui.service.rows import (
    AgentRow,
    BrokenAgentFile,
    BrokenSkillFile,
    McpRow,
    MemoryNote,
    ModelFacts,
    SettingsRow,
    SkillRow,
    ToolRow,
)


@dataclass(frozen=True)
class Catalog:
    skills: tuple[SkillRow, ...] = ()
    broken: tuple[BrokenSkillFile, ...] = ()
    agents: tuple[AgentRow, ...] = ()  # `enabled` for the grants the catalog was asked for
    broken_agents: tuple[BrokenAgentFile, ...] = ()
    tools: tuple[ToolRow, ...] = ()
    mcp: tuple[McpRow, ...] = ()
    model: ModelFacts = ModelFacts("unknown", None, None)
    memory: tuple[MemoryNote, ...] = ()  # the server's notes, in every run's prompt
    settings: dict[str, Any] = field(default_factory=dict)
    server: dict[str, Any] = field(default_factory=dict)

    @property
    def vendor(self) -> str:
        return self.model.label.split(" · ")[0].strip() or "unknown"

    def skill(self, name: str) -> SkillRow | None:
        """A skill by name, case-insensitively (as the policy matches grants)."""
        return next((s for s in self.skills if s.name.lower() == name.lower()), None)


async def fetch_catalog(wire: Wire, enabled: Iterable[str] = (),
                        disabled: Iterable[str] = (), agents_on: Iterable[str] = (),
                        agents_off: Iterable[str] = ()) -> Catalog:
    """The server's catalog, with `enabled` computed for these grants (of skills and agents)."""
    grants: dict[str, Any] = {"enabled_skills": list(enabled), "disabled_skills": list(disabled),
                              "enabled_agents": list(agents_on),
                              "disabled_agents": list(agents_off)}
    output = await wire.call(lambda: wire.aio.runs.wait(None, INFO_GRAPH, input=grants))
    data = output.get("catalog") if isinstance(output, dict) else None
    if not isinstance(data, dict):
        detail = output.get("__error__") if isinstance(output, dict) else None
        raise wire.error(RuntimeError(
            f"the server's {INFO_GRAPH} graph gave no catalog"
            + (f": {detail}" if detail else " (is it a Birdie server?)")))
    return catalog_of(data)


def catalog_of(data: dict[str, Any]) -> Catalog:
    found = data.get("model")
    model: dict[str, Any] = found if isinstance(found, dict) else {}
    return Catalog(
        skills=rows_of(SkillRow, data.get("skills")),
        broken=rows_of(BrokenSkillFile, data.get("broken")),
        agents=rows_of(AgentRow, data.get("agents")),  # none from an older server
        broken_agents=rows_of(BrokenAgentFile, data.get("broken_agents")),
        tools=rows_of(ToolRow, data.get("tools")),
        mcp=rows_of(McpRow, data.get("mcp")),
        memory=rows_of(MemoryNote, data.get("memory")),
        model=row_of(ModelFacts, {"label": "unknown", "context_window": None, "price": None,
                                  **model}) or ModelFacts("unknown", None, None),
        settings=dict(data.get("settings") or {}),
        server=dict(data.get("server") or {}))


def rows_of(cls: type, items: Any) -> tuple[Any, ...]:
    return tuple(row for item in items or () if (row := row_of(cls, item)) is not None)


def row_of(cls: type, item: Any) -> Any:
    """A frozen row from its JSON dict (`dataclasses.asdict` on the server): lists back to
    tuples where the row holds tuples, unknown keys ignored; None if it does not fit."""
    if not isinstance(item, dict):
        return None
    hints = typing.get_type_hints(cls)
    known = {}
    for f in dataclasses.fields(cls):
        if f.name in item:
            known[f.name] = _tupled(item[f.name], hints.get(f.name))
    try:
        return cls(**known)
    except TypeError:
        return None


def _tupled(value: Any, hint: Any) -> Any:
    if isinstance(value, list) and "tuple" in str(hint):
        return tuple(tuple(v) if isinstance(v, list) else v for v in value)
    return value


def settings_row(settings: dict[str, Any]) -> SettingsRow:
    return row_of(SettingsRow, settings) or SettingsRow()
