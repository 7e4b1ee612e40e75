"""The `birdie_info` graph: a stateless run that answers with the server's catalog, or with the
history of one sub-agent call.

A remote front end calls it with `client.runs.wait(None, "birdie_info", input={...})`, giving
the thread's grants (`enabled_skills`, `disabled_skills`, `enabled_agents`,
`disabled_agents`, all optional) so the rows say what is on for that thread; the output is
`{"catalog": {...}}` (see `catalog.build_catalog`). Given `child` (a sub-agent call's thread,
`<thread>/agent/<name>-<hex>`), the output is `{"child_messages": [...]}` instead: that
thread's history as the server's checkpointer holds it (a child thread is no thread of the
server's API, whose thread ids are UUIDs; see `server/agents.py`). That run needs a thread of
its own: a stateless run is given no checkpointer to read.
"""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.constants import CONFIG_KEY_CHECKPOINTER
from langgraph.graph import END, START, StateGraph

from birdie_tui.server.catalog import build_catalog
from birdie_tui.server.runtime import ashared_runtime
from birdie_tui.store.session_meta import str_list

CHILD_MARK = "/agent/"  # in every sub-agent call's thread id, and in no API thread's


class InfoInput(TypedDict, total=False):
    enabled_skills: list[str]
    disabled_skills: list[str]
    enabled_agents: list[str]
    disabled_agents: list[str]
    child: str


class InfoOutput(TypedDict, total=False):
    catalog: dict[str, Any]
    child_messages: list[Any]


class InfoState(InfoInput, InfoOutput):
    pass


async def catalog(state: InfoState) -> dict[str, Any]:
    grants = {key: str_list(state.get(key)) for key in ("enabled_agents", "disabled_agents")}
    return {"catalog": await build_catalog(
        await ashared_runtime(), str_list(state.get("enabled_skills")),
        str_list(state.get("disabled_skills")), grants)}


async def child(state: InfoState, config: RunnableConfig) -> dict[str, Any]:
    """A sub-agent call's history (empty for an id that is none, or unknown here)."""
    thread = str(state.get("child") or "")
    if CHILD_MARK not in thread:
        return {"child_messages": []}
    rt = await ashared_runtime()
    graph = rt.child_graph((config.get("configurable") or {}).get(CONFIG_KEY_CHECKPOINTER))
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread}})
    return {"child_messages": list((snapshot.values or {}).get("messages") or [])}


def _route(state: InfoState) -> str:
    return "child" if state.get("child") else "catalog"


_compiled: Any = None


def make_info_graph(config: Any = None) -> Any:
    """The factory `langgraph.json` names (compiled once; no state worth keeping)."""
    global _compiled
    if _compiled is None:
        graph = StateGraph(InfoState, input_schema=InfoInput, output_schema=InfoOutput)
        graph.add_node("catalog", catalog)
        graph.add_node("child", child)
        graph.add_conditional_edges(START, _route, {"catalog": "catalog", "child": "child"})
        graph.add_edge("catalog", END)
        graph.add_edge("child", END)
        _compiled = graph.compile(name="birdie_info")
    return _compiled


__all__ = ["make_info_graph"]
