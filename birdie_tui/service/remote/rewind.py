"""Rewind and fork over a LangGraph server (a mixin of `RemoteBirdie`), by the core's own
rules (`agent/rewind.py`): a rewind is one state update of the thread (the dropped messages
removed by id, kept in the `rewound` channel, a summary of dropped messages cleared); a fork is
the thread copied (`threads.copy`), then cut the same way, its `rewound` emptied, with the
`forked_from` metadata its counts start from.

Removed by id, never written back: the server reads a message sent as a dict without its
`usage_metadata`, which the counts (`thread.py`) are made of.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from birdie_tui.events import ChangeEvent, SessionOpened, StatusChanged
from birdie_tui.service.protocol import BirdieError
from birdie_tui.service.remote.thread import RemoteThread


class RemoteRewind:
    wire: Any
    shown: RemoteThread
    user: str
    _client: str
    _emit: Callable[[ChangeEvent], None]
    _emit_totals: Callable[[], None]
    _take: Callable[..., None]
    _write_meta: Callable[..., Awaitable[None]]
    _figure_meta: Callable[[RemoteThread], dict[str, Any]]
    open_session: Callable[[str], Awaitable[None]]

    async def rewind(self, n: int | None = None) -> str:
        from birdie_tui.agent.accounting import counted_through
        from birdie_tui.agent.rewind import (FORKED_KEY, REWOUND_KEY, own_usage, rewound_after,
                                             summary_values, user_positions)
        from birdie_tui.mentions.attach import typed_text
        from birdie_tui.text import content_text

        view = self._idle("rewind")
        values, messages, index, kept = await self._cut(view, n, "rewind")
        forked = view.meta.get(FORKED_KEY)
        copied = forked.get("through") if isinstance(forked, dict) else None
        turns = len(user_positions(kept))
        dropped = messages[index:]
        update = {"messages": _removals(dropped), **summary_values(values, kept),
                  REWOUND_KEY: rewound_after(values.get(REWOUND_KEY), dropped, turns + 1,
                                             own_usage(dropped, copied))}
        await self.wire.call(lambda: self.wire.aio.threads.update_state(
            view.id, update, as_node="agent"), thread=view.id)
        if isinstance(forked, dict) and copied and not any(m.id == copied for m in kept):
            # The copied part ends earlier now: what stays of it is still the original's.
            through = counted_through(kept) if kept else None
            await self._write_meta(view, **{FORKED_KEY: {**forked, "through": through,
                                                         "turns": turns}})
        self._take(view, await self.wire.call(lambda: self.wire.aio.threads.get(view.id),
                                              thread=view.id))
        await self._write_meta(view, **self._figure_meta(view))
        self._emit(SessionOpened(id=view.id, new=False))
        self._emit_totals()
        self._emit(StatusChanged())
        return typed_text(content_text(messages[index].content))  # as typed (see agent/rewind.py)

    async def fork(self, n: int | None = None) -> str:
        from birdie_tui.agent.accounting import counted_through
        from birdie_tui.agent.rewind import FORKED_KEY, summary_values, user_positions
        from birdie_tui.agent.rewind import REWOUND_KEY
        from birdie_tui.service.remote.client import META_KEY
        from birdie_tui.service.remote.sessions import birdie_meta
        from birdie_tui.text import content_text, title_from

        view = self._idle("fork")
        values, messages, index, kept = await self._cut(view, n, "fork")
        first = next((m for m in messages if m.type == "human"), None)
        title = view.meta.get("title") or (title_from(content_text(first.content))
                                           if first is not None else None) or view.id
        turns = len(user_positions(kept))
        doc = await self.wire.call(lambda: self.wire.aio.threads.copy(view.id), thread=view.id)
        new_id = str(doc["thread_id"])
        meta = {**{k: v for k, v in birdie_meta(doc).items() if k in COPIED_META},
                "user": self.user, "title": f"fork of {title}", "turns": turns,
                "input_tokens": 0, "output_tokens": 0, "last_client": self._client,
                FORKED_KEY: {"session": view.id, "turns": turns, "at": turns + 1,
                             "through": counted_through(kept) if kept else None}}
        update = {"messages": _removals(messages[index:]), **summary_values(values, kept),
                  REWOUND_KEY: {}}  # the original's rewinds are the original's
        await self.wire.call(lambda: self.wire.aio.threads.update_state(
            new_id, update, as_node="agent"), thread=new_id)
        await self.wire.call(lambda: self.wire.aio.threads.update(
            new_id, metadata={META_KEY: meta}), thread=new_id)
        await self.open_session(new_id)
        return new_id

    def _idle(self, what: str) -> RemoteThread:
        view = self.shown
        if view.turning:
            raise BirdieError(f"Birdie is still answering in this session — Esc cancels the "
                              f"turn, then {what}")
        if not view.saved:
            raise BirdieError(f"nothing to {what}: this session has no message yet")
        return view

    async def _cut(self, view: RemoteThread, n: int | None, what: str
                   ) -> tuple[dict[str, Any], list[Any], int, list[Any]]:
        """(the thread's state values, its messages, where message `n` is, the part before
        it), read from the server now. The kept part ends where a user message began, so its
        calls are answered; the served graph repairs before each model call all the same."""
        from birdie_tui.agent.options import EngineError
        from birdie_tui.agent.rewind import cut_at
        from birdie_tui.service.remote.client import to_messages

        state = await self.wire.call(lambda: self.wire.aio.threads.get_state(view.id),
                                     thread=view.id)
        values: dict[str, Any] = dict(state.get("values") or {}) if isinstance(state, dict) \
            else {}
        messages = to_messages(values.get("messages"))
        try:
            index = cut_at(messages, n, what)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        return values, messages, index, messages[:index]


def _removals(dropped: list[Any]) -> list[dict[str, Any]]:
    from langchain_core.messages import RemoveMessage

    from birdie_tui.service.remote.client import message_dict

    return [message_dict(RemoveMessage(id=str(m.id))) for m in dropped if m.id]


# A thread's own choices a fork keeps (grants, approvals, limits), as a local fork does.
COPIED_META = ("enabled_skills", "disabled_skills", "approval_mode", "approved_skills",
               "approval_rules", "max_tool_calls", "skill_loading")
