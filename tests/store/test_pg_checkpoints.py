"""`agent.pg_checkpoints` on a real server: LangGraph's Postgres checkpointer set up, the head,
pruning that keeps the head readable and storage flat, interrupts seen, threads deleted."""

from __future__ import annotations

import asyncio
import operator
from datetime import date
from typing import Annotated, TypedDict

import psycopg
import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from birdie_tui.agent.pg_checkpoints import open_pg_checkpoints
from birdie_tui.store.pg.connect import DatabaseUnavailable
from birdie_tui.store.pg.sessions import PgSessionStore

pytestmark = pytest.mark.integration


class State(TypedDict):
    items: Annotated[list[str], operator.add]


def grow(state: State) -> dict:
    return {"items": [f"{len(state['items']):04d}" + "x" * 2000]}


def ask(state: State) -> dict:
    answer = interrupt({"question": "run it?"})
    return {"items": [f"answer {answer}"]}


def graph(saver, node=grow):
    builder = StateGraph(State)
    builder.add_node("step", node)
    builder.add_edge(START, "step")
    builder.add_edge("step", END)
    return builder.compile(checkpointer=saver)


def config(thread: str) -> dict:
    return {"configurable": {"thread_id": thread}}


def storage(url: str, thread: str) -> tuple[int, int, int]:
    """(checkpoints, writes, blob bytes) of the thread."""
    with psycopg.connect(url) as conn:
        return tuple(conn.execute(q, (thread,)).fetchone()[0] for q in (
            "SELECT count(*) FROM checkpoints WHERE thread_id = %s",
            "SELECT count(*) FROM checkpoint_writes WHERE thread_id = %s",
            "SELECT coalesce(sum(octet_length(blob)), 0) FROM checkpoint_blobs "
            "WHERE thread_id = %s"))


def test_pruning_keeps_the_head_readable_and_storage_flat(pg_url):
    """Pruning keeps the head readable and storage flat."""
    async def run() -> None:
        cps = await open_pg_checkpoints(pg_url)
        try:
            g = graph(cps.saver)
            assert await cps.head("t1") is None
            sizes = []
            for turn in range(30):
                await g.ainvoke({"items": []}, config("t1"))
                head = await cps.head("t1")
                assert head is not None
                await cps.prune("t1", head)
                count, _, blob_bytes = storage(pg_url, "t1")
                assert count == 1
                sizes.append(blob_bytes)
                state = await g.aget_state(config("t1"))
                assert len(state.values["items"]) == turn + 1  # the head reads back whole
            # Blobs hold one copy of the history: the last size is the history's, not 30x it.
            history = sum(len(item) for item in state.values["items"])
            assert sizes[-1] < 2 * history
            # An unpruned thread beside it grows quadratically: the pruning is what kept it flat.
            for _ in range(30):
                await g.ainvoke({"items": []}, config("t2"))
            assert storage(pg_url, "t2")[2] > 10 * sizes[-1]
        finally:
            await cps.aclose()

    asyncio.run(run())


def test_no_interrupt_written_sees_a_real_interrupt(pg_url):
    """No interrupt written sees a real interrupt."""
    async def run() -> None:
        cps = await open_pg_checkpoints(pg_url)
        try:
            g = graph(cps.saver, node=ask)
            assert await cps.no_interrupt_written("t") is True  # no thread at all
            await g.ainvoke({"items": []}, config("t"))
            assert (await g.aget_state(config("t"))).interrupts  # a real pending interrupt
            assert await cps.no_interrupt_written("t") is False
            await cps.prune("t", await cps.head("t"))  # pruning keeps the pending write
            assert await cps.no_interrupt_written("t") is False
            await g.ainvoke(Command(resume="yes"), config("t"))
            assert (await g.aget_state(config("t"))).values["items"] == ["answer yes"]
            assert await cps.no_interrupt_written("t") is True
        finally:
            await cps.aclose()

    asyncio.run(run())


def test_delete_thread_and_the_session_list_seeing_history(pg_url):
    """Delete thread and the session list seeing history."""
    store = PgSessionStore(pg_url, "alice")
    sid = store.create(date(2026, 1, 1)).id  # no turn, no title: looks empty

    async def run() -> None:
        cps = await open_pg_checkpoints(pg_url)
        try:
            assert store.summaries() == []
            await graph(cps.saver).ainvoke({"items": []}, config(sid))
            assert [s.id for s in store.summaries()] == [sid]  # it has a history: listed
            await cps.saver.adelete_thread(sid)  # as the engine deletes a session's
            assert await cps.head(sid) is None and storage(pg_url, sid) == (0, 0, 0)
            await graph(cps.saver).ainvoke({"items": []}, config("2026-01-01_2"))
        finally:
            await cps.aclose()

    asyncio.run(run())
    # A thread left without its session is never handed to a new session.
    assert store.create(date(2026, 1, 1)).id == "2026-01-01_3"
    assert store.delete("2026-01-01_3")
    store.close()


def test_an_unreachable_database_is_one_line(pg_server):
    """An unreachable database is one line."""
    from tests.pg_server import free_port

    url = f"postgresql://bob:pw-s3cret@127.0.0.1:{free_port()}/team"
    with pytest.raises(DatabaseUnavailable) as caught:
        asyncio.run(open_pg_checkpoints(url))
    assert "pw-s3cret" not in str(caught.value) and "\n" not in str(caught.value)
