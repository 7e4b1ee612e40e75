"""The `birdie_info` graph: a stateless run that answers with the server's catalog.

A remote front end calls it with `client.runs.wait(None, "birdie_info", input={...})`, giving
the thread's grants (`enabled_skills`, `disabled_skills`, both optional) so the skill rows say
what is on for that thread; the output is `{"catalog": {...}}` (see `catalog.build_catalog`).
"""

from __future__ import annotations

from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph

from birdie_tui.server.catalog import build_catalog
from birdie_tui.server.runtime import ashared_runtime
from birdie_tui.store.session_meta import str_list


class InfoInput(TypedDict, total=False):
    enabled_skills: list[str]
    disabled_skills: list[str]


class InfoOutput(TypedDict):
    catalog: dict[str, Any]


class InfoState(InfoInput, InfoOutput):
    pass


async def catalog(state: InfoState) -> dict[str, Any]:
    return {"catalog": await build_catalog(
        await ashared_runtime(), str_list(state.get("enabled_skills")),
        str_list(state.get("disabled_skills")))}


_compiled: Any = None


def make_info_graph(config: Any = None) -> Any:
    """The factory `langgraph.json` names (compiled once; no state worth keeping)."""
    global _compiled
    if _compiled is None:
        graph = StateGraph(InfoState, input_schema=InfoInput, output_schema=InfoOutput)
        graph.add_node("catalog", catalog)
        graph.add_edge(START, "catalog")
        graph.add_edge("catalog", END)
        _compiled = graph.compile(name="birdie_info")
    return _compiled


__all__ = ["make_info_graph"]
