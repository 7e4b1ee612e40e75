"""Compaction and the prompt settings of one open session.

`compact` folds everything before the last few user turns into the rolling summary kept in the
graph state (`summary`, `summary_through`). The messages themselves stay in the checkpoint (the
chat and the session browser still show them); the model sees the summary instead. With the
offline model the summary is extractive and deterministic; any other model writes it.

Auto-compaction runs before a turn starts (never inside a tool round), when the context the
next call would carry reaches `auto_compact` percent of the model's window.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from langchain_core.messages import BaseMessage

from birdie_tui.agent.accounting import TokenAccount
from birdie_tui.agent.approval_ops import ApprovalDesk
from birdie_tui.agent.compaction import (
    KEEP_TURNS,
    extractive_summary,
    split_for_compaction,
    summary_from_reply,
    summary_request,
    summary_start,
)
from birdie_tui.agent.host import AgentHost
from birdie_tui.agent.options import EngineError
from birdie_tui.agent.provenance import CallContext, history_records
from birdie_tui.agent.session_history import SessionHistory
from birdie_tui.agent.session_state import SessionState
from birdie_tui.agent.window import DEFAULT_CONTEXT_WINDOW, message_over_window, message_tokens
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.providers.tokens import estimate_tokens
from birdie_tui.store.settings import Settings

PROMPT_SETTINGS = ("skill_loading", "skill_decay_turns", "skill_max_loaded", "auto_compact")
SESSION_KEY = "prompt_settings"  # a session's own values, in its JSON file


@dataclass(frozen=True)
class Compaction:
    """What one compaction did."""

    messages: int  # messages newly summarised
    summarised: int  # messages the summary covers in all
    kept: int  # messages still sent verbatim after it
    tokens_before: int  # estimated tokens of the context before
    tokens_after: int
    summary: str
    auto: bool = False


class CompactFacts(Protocol):
    """What compaction reads of the agent in use (the engine shows its host's agent)."""

    @property
    def model(self) -> Any: ...
    @property
    def provider(self) -> ProviderConfig: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def context_window(self) -> int | None: ...


class Compactor:
    def __init__(self, state: SessionState, host: AgentHost, history: SessionHistory,
                 approvals: ApprovalDesk, tokens: TokenAccount, facts: CompactFacts):
        self._state = state
        self._host = host
        self._history = history
        self._approvals = approvals
        self._tokens = tokens
        self._facts = facts

    # ---------------------------------------------------------------- prompt settings
    def prompt_setting(self, name: str) -> Any:
        """The session's own value (saved in its JSON) or the global one from settings.json."""
        session = self._state.session
        own = session.extra.get(SESSION_KEY) if session is not None else None
        settings = self._facts.settings
        if isinstance(own, dict) and name in own:
            try:  # a hand-edited file may hold anything: an invalid value falls back
                return getattr(type(settings).model_validate({name: own[name]}), name)
            except ValueError:
                pass
        return getattr(settings, name)

    def set_prompt_setting(self, name: str, value: Any) -> None:
        """Override a prompt setting for this session (None: back to the global value)."""
        if name not in PROMPT_SETTINGS:
            raise EngineError(f"unknown setting {name!r}; known: {', '.join(PROMPT_SETTINGS)}")
        meta = self._state.require()
        settings = self._facts.settings
        checked = type(settings).model_validate(
            {**settings.model_dump(), **({name: value} if value is not None else {})})
        own = meta.extra.get(SESSION_KEY)
        own = dict(own) if isinstance(own, dict) else {}
        if value is None:
            own.pop(name, None)
        else:
            own[name] = getattr(checked, name)
        if own:
            meta.extra[SESSION_KEY] = own
        else:
            meta.extra.pop(SESSION_KEY, None)
        if meta.saved:
            self._host.sessions.save(meta)

    # ---------------------------------------------------------------- compaction
    async def compact(self, instructions: str = "", *, auto: bool = False) -> Compaction | None:
        """Summarise all but the last `KEEP_TURNS` user turns. None when there is nothing to
        compact (a manual call raises EngineError saying so instead)."""
        self._state.require()
        if not self._state.saved:  # no history yet: nothing to race with
            return await self._compact_locked(instructions, auto=auto)
        # The history is rewritten: not beside another process's turn, nor under a step that
        # waits for approval (its interrupt would be lost).
        async with self._history.session_turn() as busy:
            if busy is None and await self._approvals.pending():
                busy = "a tool call waits for approval: answer it first"
            if busy is not None:
                if auto:
                    return None
                raise EngineError(busy)
            return await self._compact_locked(instructions, auto=auto)

    async def _compact_locked(self, instructions: str, *, auto: bool) -> Compaction | None:
        values = (await self._host.graph.aget_state(self._history.config())).values
        messages = list(values.get("messages") or [])
        prior = values.get("summary") or ""
        start = summary_start(messages, values.get("summary_through"))
        span = split_for_compaction(messages, KEEP_TURNS, start=start)
        if span is None:
            if auto:
                return None
            raise EngineError(f"Nothing to compact yet: the last {KEEP_TURNS} turns are always "
                              "kept as they are.")
        begin, end = span
        before = self.context_estimate(messages, prior)
        summary = await self._summarise(messages[begin:end], prior, instructions)
        after = self.context_estimate(messages[end:], summary)
        if after >= before:  # nothing freed: keep the history as it was, and say so
            if auto:
                return None
            raise EngineError(
                f"Compacting would not make the context smaller (≈{before:,} → ≈{after:,} "
                "tokens): nothing was changed. Most of it is the last turns, kept as they are.")
        await self._host.graph.aupdate_state(self._history.config(), {
            "summary": summary, "summary_through": messages[end - 1].id}, as_node="agent")
        return Compaction(messages=end - begin, summarised=end, kept=len(messages) - end,
                          tokens_before=before, tokens_after=after, summary=summary, auto=auto)

    async def _summarise(self, messages: list[BaseMessage], prior: str, instructions: str) -> str:
        if self._facts.provider.vendor == "offline":
            return extractive_summary(messages, prior, instructions)
        reply = await self._facts.model.ainvoke(summary_request(messages, prior, instructions))
        usage = getattr(reply, "usage_metadata", None) or {}
        if usage:  # the summary call is spent on this session: count it
            self._tokens.add_call(int(usage.get("input_tokens", 0) or 0),
                                  int(usage.get("output_tokens", 0) or 0))
        text = summary_from_reply(reply)
        if not text:
            raise EngineError("the model returned an empty summary; nothing was compacted")
        return text

    def message_problem(self, text: str) -> str | None:
        """Why `text` cannot be sent to this model (window.message_over_window), or None."""
        return message_over_window(text, self._facts.context_window,
                                   fixed_tokens=self._fixed_tokens())

    def context_estimate(self, visible: list[BaseMessage], summary: str) -> int:
        """Tokens the next call would carry without a budget cut: the last call's fixed part
        (prompt, tools) plus the messages the summary does not cover."""
        return self._fixed_tokens() + estimate_tokens(summary) + sum(
            message_tokens(m) for m in visible)

    def _fixed_tokens(self) -> int:
        """The last call's prompt and tools: what the next call carries besides messages."""
        last = self._state.last_call
        return sum(s.tokens for s in last.segments if s.kind not in ("history", "mention", "summary")) \
            if last is not None else 0

    async def auto_compact(self) -> Compaction | None:
        """Compact before a turn when the last call's context reached the `auto_compact` share
        of the window, or the history budget already had to leave messages out. Decided from
        that call's record, without reading the history (a clean turn reads none)."""
        percent = int(self.prompt_setting("auto_compact") or 0)
        last = self._state.last_call
        if not percent or last is None or not self._state.saved:
            return None
        window = self._facts.context_window or DEFAULT_CONTEXT_WINDOW
        if not last.history_dropped and last.tokens * 100 < percent * window:
            return None
        return await self.compact(auto=True)

    # ---------------------------------------------------------------- provenance
    async def contexts(self, session_id: str | None = None) -> list[CallContext]:
        """The provenance record of every model call of `session_id` (default: the open
        session; [] while it is unsaved), oldest first."""
        return history_records(await self._history.messages(session_id))

    async def rolling_summary(self, session_id: str | None = None) -> str:
        """The compaction summary of `session_id` (default: the open session); "" if none."""
        return str((await self._saved_values(session_id)).get("summary") or "")

    async def _saved_values(self, session_id: str | None) -> dict[str, Any]:
        if session_id is None and self._state.session is None:
            return {}
        if self._state.is_unsaved(session_id):
            return {}
        state = await self._host.graph.aget_state(self._history.config(session_id))
        return dict(state.values or {}) if state else {}


__all__ = ["PROMPT_SETTINGS", "Compaction", "Compactor", "CompactFacts"]
