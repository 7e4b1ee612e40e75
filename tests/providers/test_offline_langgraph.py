"""The offline model inside a real compiled LangGraph StateGraph: token streaming, tool calls, usage."""

from __future__ import annotations

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from birdie_tui.providers.offline import OfflineChatModel


@tool
def echo(text: str) -> str:
    """Echo the text back."""
    return f"echo: {text}"


@tool
def explode() -> str:
    """Always fails."""
    raise RuntimeError("kaboom")


def build_graph(tps: float | None = None):
    model = OfflineChatModel(tokens_per_second=tps)
    tools = [echo, explode]

    async def agent(state: MessagesState) -> dict:
        system = SystemMessage("Base prompt\n--- weather skill context ---\nbody")
        reply = await model.bind_tools(tools).ainvoke([system, *state["messages"]])
        return {"messages": [reply]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode(tools, handle_tool_errors=True))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile()


async def run(graph, text: str):
    chunks: list[AIMessageChunk] = []
    final_state = None
    async for mode, data in graph.astream(
        {"messages": [HumanMessage(text)]}, stream_mode=["messages", "values"]
    ):
        if mode == "messages":
            message, _meta = data
            if isinstance(message, AIMessageChunk):
                chunks.append(message)
        else:
            final_state = data
    assert final_state is not None
    return chunks, final_state["messages"]


async def test_plain_turn_streams_token_by_token() -> None:
    """In a LangGraph graph the offline model streams its answer in tokens with one usage."""
    chunks, messages = await run(build_graph(), "Tell me about Paris")
    final = messages[-1]
    assert isinstance(final, AIMessage)
    texts = [c.content for c in chunks if c.content]
    assert len(texts) > 1
    assert "".join(texts) == final.content
    assert "`weather`" in final.content and "`echo`, `explode`" in final.content
    usage = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert len(usage) == 1
    assert final.usage_metadata == usage[0]


async def test_stream_mode_messages_only() -> None:
    """Streaming in messages mode yields several AI message chunks from the offline model."""
    graph = build_graph()
    seen = [
        message
        async for message, _meta in graph.astream(
            {"messages": [HumanMessage("hi")]}, stream_mode="messages"
        )
    ]
    assert sum(isinstance(m, AIMessageChunk) for m in seen) > 1


async def test_tool_round_trip_through_graph() -> None:
    """A tool round trip through the graph gives call, result and summary, one usage per call."""
    chunks, messages = await run(build_graph(tps=500), 'call echo {"text": "bird"}')
    ai_call, tool_msg, summary = messages[1], messages[2], messages[3]
    assert isinstance(ai_call, AIMessage)
    assert [(c["name"], c["args"]) for c in ai_call.tool_calls] == [("echo", {"text": "bird"})]
    assert ai_call.tool_calls[0]["id"].startswith("call_")
    assert isinstance(tool_msg, ToolMessage) and tool_msg.content == "echo: bird"
    assert summary.content.startswith("**Tool results**") and "echo: bird" in summary.content
    # one usage report per model call: two calls, two usages, none doubled
    usages = [c.usage_metadata for c in chunks if c.usage_metadata]
    assert len(usages) == 2
    assert ai_call.usage_metadata == usages[0]
    assert summary.usage_metadata == usages[1]


async def test_failed_tool_is_summarised_as_failed() -> None:
    """A failing tool gives an error ToolMessage and the summary says it failed."""
    _chunks, messages = await run(build_graph(), "call explode")
    assert messages[2].status == "error"
    assert "- `explode` → failed:" in messages[-1].content
    assert "kaboom" in messages[-1].content
