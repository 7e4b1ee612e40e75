"""Building the door's rows from the local engine's objects (one place; no UI here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

# Catalog rows are built in a leaf the server shares; the door's callers find them here too.
from birdie_tui.catalog import broken_files as broken_files
from birdie_tui.catalog import mcp_row as mcp_row
from birdie_tui.catalog import skill_rows as skill_rows
from birdie_tui.store.session_meta import SessionMeta, SessionSummary
from birdie_tui.service.rows import (
    InjectionRow,
    InjectionView,
    SessionRow,
    Status,
    ToolCallItem,
    TranscriptItem,
    UserTurn,
)

if TYPE_CHECKING:  # the engine and LangChain are imported by `LocalBirdie.start`, not here
    from langchain_core.messages import BaseMessage

    from birdie_tui.agent.engine import Engine
    from birdie_tui.agent.provenance import CallContext


def status_row(engine: Engine) -> Status:
    meta = engine.session
    return Status(
        model=engine.model_label, vendor=engine.provider.vendor,
        session_id=meta.id if meta else "", title=meta.title if meta else None,
        saved=engine.session_saved, turns=meta.turns if meta else 0,
        created_at=meta.created_at if meta else "", user=engine.user,
        data_dir=data_dir(engine), skill_dirs=tuple(map(str, engine.skill_dirs)),
        logs_dir=str(engine.paths.logs_dir), approval_mode=engine.approval_mode)


def data_dir(engine: Engine) -> str:
    """Where this session's data lives, as /info shows it: BIRDIE_HOME, or the database that
    holds sessions and memory (password masked) and the home that still holds the rest."""
    if not engine.database_url:
        return str(engine.paths.home)
    from birdie_tui.store.pg.urls import mask_url

    return f"{mask_url(engine.database_url)} (sessions, memory) · {engine.paths.home} (the rest)"


def session_row(meta: SessionMeta | SessionSummary, current: str | None) -> SessionRow:
    return SessionRow(id=meta.id, title=meta.title or "(untitled)", updated_at=meta.updated_at,
                      turns=meta.turns, input_tokens=meta.input_tokens,
                      output_tokens=meta.output_tokens, current=meta.id == current,
                      created_at=meta.created_at, written_by=written_by(meta))


def written_by(meta: SessionMeta | SessionSummary) -> str:
    """"user@host" of a shared store's summary (its last writer); "" for local sessions."""
    user, host = getattr(meta, "last_user", ""), getattr(meta, "last_host", "")
    return f"{user}@{host}" if user and host else user or host


# The rows of the last listing, by the (immutable) summary they were made from: listing again
# makes no new object for an unchanged session. Ten thousand fresh rows per listing fed the
# app's full garbage collections (0.1-0.3 s pauses of the UI thread each).
_last_rows: dict[SessionSummary, SessionRow] = {}


def session_rows(engine: Engine) -> list[SessionRow]:
    """The browser's rows, newest first; the open session is always there, even before its
    first message has put it on disk. Safe to call from a worker thread (the browser does)."""
    global _last_rows
    session = engine.session  # read once: the loop may switch sessions meanwhile
    current = session.id if session is not None else None
    # The index's summaries, and the open session's meta when it is not listed yet.
    metas: list[SessionMeta | SessionSummary] = list(_listed(engine, session))
    if session is not None and all(meta.id != current for meta in metas):
        metas.insert(0, session)
    last: dict[SessionSummary, SessionRow] = _last_rows
    kept: dict[SessionSummary, SessionRow] = {}
    rows = []
    for meta in metas:
        if isinstance(meta, SessionSummary) and meta.id != current:  # not the open session
            row = kept[meta] = last.get(meta) or session_row(meta, current)
        else:
            row = session_row(meta, current)
        rows.append(row)
    _last_rows = kept
    return rows


def _listed(engine: Engine, session: SessionMeta | None) -> list[SessionSummary]:
    """`Engine.list_sessions` (saved sessions, empty ones left out except the open one), as
    the store's summaries: served from its index instead of reading every session file."""
    keep = session.id if session is not None and session.saved else None
    return engine.sessions.summaries(keep=keep)


def transcript_items(messages: list[BaseMessage]) -> list[TranscriptItem]:
    from birdie_tui.agent.transcript import message_to_dict

    from birdie_tui.agent.ledger import AGENT_USAGE_KEY, agent_usage

    items = []
    for message in messages:
        item = message_to_dict(message)
        calls = tuple(ToolCallItem(str(c.get("id") or ""), str(c["name"]), dict(c["args"] or {}))
                      for c in item.get("tool_calls", ()))
        child = agent_usage(message)
        record = message.additional_kwargs.get(AGENT_USAGE_KEY) if child else None
        items.append(TranscriptItem(
            role=item["role"], content=item.get("content") or "", tool_calls=calls,
            tool_call_id=str(item.get("tool_call_id") or ""), name=str(item.get("name") or ""),
            error=bool(item.get("error", False)),
            agent=child[0] if child else "",
            child=str(record.get("child", "")) if isinstance(record, dict) else "",
            agent_calls=child[4] if child else 0,
            agent_tokens=child[1] + child[2] if child else 0))
    return items


def last_turn_injection(engine: Engine, history: list[BaseMessage],
                        record: CallContext | None = None) -> InjectionView:
    """What the session's last model call put in the prompt. With its provenance record the
    segments are exactly what was sent (the bodies shown are the skills' bodies now); a
    session from before records existed is rebuilt from its history with the skills, leases
    and memory in force now (so a resumed session does not show an empty panel)."""
    from langchain_core.messages import HumanMessage

    from birdie_tui.agent.lease import lease_state
    from birdie_tui.agent.prompt import build_system_prompt, skill_aliases
    from birdie_tui.text import content_text

    memory = [entry.content for entry in engine.memory.entries()]
    if record is not None:
        return _recorded_view(engine, record, memory)
    last = next((m for m in reversed(history) if isinstance(m, HumanMessage)), None)
    if last is None:
        return InjectionView(memory=tuple(memory))
    allowed = engine.toolbox.allowed_skills()
    lease = lease_state(history, skill_aliases(allowed),
                        decay_turns=engine.prompt_setting("skill_decay_turns"),
                        max_loaded=engine.prompt_setting("skill_max_loaded"))
    _, report = build_system_prompt(
        allowed, content_text(last.content), loaded=lease.active, memory=memory,
        tools_by_tag=engine.toolbox.tools_by_tag(allowed),
        mode=engine.prompt_setting("skill_loading"))
    return InjectionView.of(report)


_REASONS = {"always": "always_inject", "loaded": "loaded"}


def _recorded_view(engine: Engine, record: CallContext, memory: list[str]) -> InjectionView:
    rows = []
    for seg in record.segments:
        if seg.kind in ("always", "trigger", "loaded"):
            skill = engine.registry.get(seg.name)
            reason = f"trigger:{seg.detail}" if seg.kind == "trigger" else _REASONS[seg.kind]
            rows.append(InjectionRow(seg.name, reason, seg.tokens,
                                     (skill.body or "").strip() if skill is not None else ""))
    catalog = next((s.tokens for s in record.segments if s.kind == "catalog"), 0)
    prompt = sum(s.tokens for s in record.segments if s.kind not in ("tools", "history", "mention"))
    return InjectionView(catalog_tokens=catalog, prompt_tokens=prompt, skills=tuple(rows),
                         memory=tuple(memory), context=record)


def user_turns(messages: list[BaseMessage], limit: int) -> list[UserTurn]:
    """/history: the user's last `limit` messages of a history, numbered by turn (oldest
    first)."""
    from birdie_tui.service.protocol import BirdieError
    from birdie_tui.mentions.attach import typed_text
    from birdie_tui.text import content_text

    if limit < 1:
        raise BirdieError("the number of messages to show is at least 1")
    asked = [m for m in messages if m.type == "human"]
    # As typed: the files @-mentioned were attached to the message, not written in it.
    return [UserTurn(n, typed_text(content_text(m.content)))
            for n, m in enumerate(asked, 1)][-limit:]
