"""The door's side of sub-agents over a LangGraph server (a mixin of `RemoteBirdie`): the
server's agent files and their problems (its catalog), a thread's grants in its `birdie`
metadata (`enabled_agents` / `disabled_agents`, the session file's keys locally), the runs and
per-agent spend counted from the thread's history as a session file counts them
(`agent.accounting.settle`, see `thread.py`), and a child's model calls read from the server's
checkpointer through the `birdie_info` graph (a child thread is no thread of the server's API,
whose thread ids are UUIDs).
"""

from __future__ import annotations

import contextlib
import dataclasses
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from birdie_tui.events import AgentsChanged, ChangeEvent
from birdie_tui.service.protocol import BirdieError
from birdie_tui.service.remote.catalog import Catalog
from birdie_tui.service.remote.client import INFO_GRAPH, to_messages
from birdie_tui.service.remote.thread import RemoteThread
from birdie_tui.service.rows import AgentRow, AgentRunRow, BrokenAgentFile, CallContext
from birdie_tui.store.session_meta import str_list

ENABLED, DISABLED = "enabled_agents", "disabled_agents"  # Birdie's keys, as locally


def resolve_agent(names: Sequence[str], text: str) -> str | None:
    """The agent `text` names as Birdie reads it (`AgentRegistry.resolve`): exactly, else in
    another case, else by a unique prefix; None when none or several fit."""
    if text in names:
        return text
    lower = {name.lower(): name for name in names}
    if text.lower() in lower:
        return lower[text.lower()]
    hits = [name for name in names if name.lower().startswith(text.lower())]
    return hits[0] if len(hits) == 1 else None


def agent_grants(view: RemoteThread) -> tuple[list[str], list[str]]:
    """A thread's sub-agent grants: (enabled, disabled)."""
    return str_list(view.meta.get(ENABLED)), str_list(view.meta.get(DISABLED))


class RemoteAgents:
    catalog: Catalog
    wire: Any
    shown: RemoteThread
    _running: dict[str, RemoteThread]
    _emit: Callable[[ChangeEvent], None]
    _write_meta_sync: Callable[..., None]
    _price: Callable[[], Any]

    def agent_rows(self) -> list[AgentRow]:
        return list(self.catalog.agents)

    def broken_agent_files(self) -> list[BrokenAgentFile]:
        return list(self.catalog.broken_agents)

    def set_agent(self, name: str, enabled: bool | None = None) -> AgentRow:
        """A grant for the shown thread, in its metadata (the graph reads it at the next
        run), kept as the local session file keeps it (`AgentPolicy`)."""
        from birdie_tui.agent_files.registry import AgentPolicy

        rows = self.catalog.agents
        found = resolve_agent([row.name for row in rows], name)
        row = next((r for r in rows if r.name == found), None)
        if row is None:
            raise BirdieError(f"unknown agent {name!r}; /agent list shows the server's ones")
        on = not row.enabled if enabled is None else enabled
        policy = AgentPolicy(*agent_grants(self.shown))
        (policy.enable if on else policy.disable)(row.name)
        self._write_meta_sync(**{ENABLED: policy.enabled_names, DISABLED: policy.disabled_names})
        new = dataclasses.replace(row, enabled=on)
        self.catalog = dataclasses.replace(self.catalog, agents=tuple(
            new if r.name == row.name else r for r in rows))
        self._emit(AgentsChanged())
        return new

    def agent_runs(self, session_id: str | None = None) -> list[AgentRunRow]:
        """The sub-agent calls of a thread's history, as its counts record them. Safe from a
        worker thread (sync client) for a thread not at hand."""
        from birdie_tui.agent.ledger import AGENT_RUNS_KEY
        from birdie_tui.catalog import run_row

        view = self.shown if session_id in (None, self.shown.id) else \
            self._running.get(str(session_id)) or self._read_sync(str(session_id))
        runs = view.counted.extra.get(AGENT_RUNS_KEY)
        return [run_row(run) for run in (runs if isinstance(runs, list) else ())
                if isinstance(run, dict)]

    def _read_sync(self, thread_id: str) -> RemoteThread:
        doc = self.wire.call_sync(lambda: self.wire.sync.threads.get(thread_id),
                                  thread=thread_id)
        view = RemoteThread(thread_id)
        if isinstance(doc, dict):
            view.take_doc(doc, price=self._price(), model=self.catalog.model.label)
        return view

    async def child_contexts(self, child: str) -> list[CallContext]:
        """The model calls of one sub-agent call of the shown thread (their provenance)."""
        from birdie_tui.agent.provenance import history_records

        if not child.startswith(f"{self.shown.id}/agent/"):
            raise BirdieError(f"{child!r} is not a sub-agent run of this session")
        # On a scratch thread, deleted after: a run without one (stateless) is given no
        # checkpointer, and the child's history is in the server's.
        scratch = str(uuid.uuid4())
        try:
            output = await self.wire.call(lambda: self.wire.aio.runs.wait(
                scratch, INFO_GRAPH, input={"child": child}, if_not_exists="create"))
        finally:
            with contextlib.suppress(Exception):
                await self.wire.aio.threads.delete(scratch)
        found = output.get("child_messages") if isinstance(output, dict) else None
        return history_records(to_messages(found))


__all__ = ["RemoteAgents", "agent_grants", "resolve_agent"]
