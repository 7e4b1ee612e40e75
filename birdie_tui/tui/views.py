"""Building the widgets' plain view models from the engine's state (one place, no widgets)."""

from __future__ import annotations

from typing import Any

from birdie_tui.tui.view_models import (
    BrokenSkillFile,
    InjectionRow,
    InjectionView,
    SessionRow,
    SkillRow,
    TokenView,
)


def skill_rows(engine: Any, marks: dict[str, str] | None = None) -> list[SkillRow]:
    """Every loaded skill with its state for this session; `marks` adds per-skill errors
    (a skill whose reload broke, an MCP server that failed)."""
    marks = marks or {}
    servers = {s.skill: s for s in engine.mcp_status()} if hasattr(engine, "mcp_status") else {}
    broken = getattr(engine, "broken_skills", {})
    rows = []
    for skill in engine.skills():
        server = servers.get(skill.name)
        # An MCP skill's tools are known once its server has listed them.
        tools = tuple(t.name for t in skill.tools) + (server.tools if server else ())
        failed = server.error if server is not None and server.state == "failed" else None
        rows.append(
            SkillRow(
                name=skill.name,
                kind=skill.kind,
                description=skill.description,
                tool_count=len(tools),
                tags=tuple(skill.tags),
                triggers=tuple(skill.triggers),
                tool_names=tools,
                enabled=engine.is_enabled(skill),
                enabled_by_default=skill.enabled_by_default,
                error=marks.get(skill.name) or _broken_line(broken.get(skill.name))
                or (f"MCP server failed: {failed}" if failed else None),
                server=_server_line(server) if server is not None else None,
            )
        )
    return rows


def _broken_line(error: Any) -> str | None:
    if error is None:
        return None
    from birdie_tui.skills.reload import short_error

    return f"file broken, last good version in use — {short_error(error)}"


def _server_line(status: Any) -> str:
    state = {"not started": "not started (starts on first use)",
             "failed": "failed"}.get(status.state, status.describe())
    return f"{status.transport} · {state}"


def mcp_markdown(statuses: list[Any], logs_dir: Any) -> str:
    """The `/mcp` report: each MCP skill's server, its state and its tools."""
    if not statuses:
        return ("No MCP skills are loaded. A skill gets its tools from an MCP server with an "
                "`mcp_server` block in its SKILL.MD (see the README, *MCP servers*).")
    lines = []
    for s in statuses:
        mark = "●" if s.enabled else "○ (off)"
        state = {"running": "**running**", "failed": f"**failed**: {s.error}",
                 "exited": "exited · restarts on next use",
                 "not started": "not started · starts on first use"}.get(s.state, s.state)
        lines.append(f"- {mark} **{s.skill}** · {s.transport} `{s.target}` · {state}")
        if s.tools:
            lines.append(f"  - tools: {', '.join(f'`{t}`' for t in s.tools)}")
        if s.restarts:
            lines.append(f"  - restarted {s.restarts} time(s)")
    lines.append(f"\nServer logs (stderr of stdio servers): `{logs_dir}` · "
                 "`/mcp restart <skill>` starts a server again now")
    return "\n".join(lines)


def broken_files(engine: Any) -> list[BrokenSkillFile]:
    return [BrokenSkillFile(e.path, e.line, e.message) for e in engine.registry.errors]


def session_title(meta: Any) -> str:
    return meta.title or "(untitled)"


def session_rows(engine: Any) -> list[SessionRow]:
    """The browser's rows, newest first; the open session is always there, even before its
    first message has put it on disk."""
    current = engine.session.id if engine.session else None
    metas = list(engine.list_sessions())
    if engine.session is not None and all(meta.id != current for meta in metas):
        metas.insert(0, engine.session)
    return [
        SessionRow(
            id=meta.id,
            title=session_title(meta),
            updated_at=meta.updated_at,
            turns=meta.turns,
            input_tokens=meta.input_tokens,
            output_tokens=meta.output_tokens,
            current=meta.id == current,
        )
        for meta in metas
    ]


def injection_view(report: Any) -> InjectionView:
    return InjectionView(
        catalog_tokens=report.catalog_tokens,
        prompt_tokens=report.prompt_tokens,
        skills=[InjectionRow(s.name, s.reason, s.tokens, s.body) for s in report.skills],
        memory=list(report.memory),
    )


def estimate_cost(engine: Any, tokens_in: int, tokens_out: int) -> float | None:
    from birdie_tui.providers.catalog import price_per_million

    price = price_per_million(engine.provider.vendor, engine.provider.model or "")
    if price is None:
        return None
    per_in, per_out, _cached = price
    return tokens_in * per_in / 1_000_000 + tokens_out * per_out / 1_000_000


def token_view(
    engine: Any, *, calls: list[tuple[int, int]], live_in: int = 0, live_out: int = 0
) -> TokenView:
    """Token figures for the panel. `live_*` are the running turn's totals, not yet recorded
    in the session file."""
    meta = engine.session
    session_in = (meta.input_tokens if meta else 0) + live_in
    session_out = (meta.output_tokens if meta else 0) + live_out
    per_turn = [int(e.get("input", 0)) + int(e.get("output", 0)) for e in meta.token_log] \
        if meta else []
    return TokenView(
        context_tokens=calls[-1][0] if calls else 0,  # unknown until the next call
        context_window=engine.context_window,
        calls=list(calls),
        session_in=session_in,
        session_out=session_out,
        per_turn=per_turn,
        cost_usd=estimate_cost(engine, session_in, session_out),
    )

