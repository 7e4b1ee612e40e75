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
    rows = []
    for skill in engine.skills():
        rows.append(
            SkillRow(
                name=skill.name,
                kind=skill.kind,
                description=skill.description,
                tool_count=len(skill.tools),
                tags=tuple(skill.tags),
                triggers=tuple(skill.triggers),
                tool_names=tuple(t.name for t in skill.tools),
                enabled=engine.is_enabled(skill),
                enabled_by_default=skill.enabled_by_default,
                error=marks.get(skill.name),
            )
        )
    return rows


def broken_files(engine: Any) -> list[BrokenSkillFile]:
    return [BrokenSkillFile(e.path, e.line, e.message) for e in engine.registry.errors]


def session_title(meta: Any) -> str:
    return meta.title or "(untitled)"


def session_rows(engine: Any) -> list[SessionRow]:
    current = engine.session.id if engine.session else None
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
        for meta in engine.list_sessions()
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

