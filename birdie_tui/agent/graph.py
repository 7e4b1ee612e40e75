"""The LangGraph agent: agent node → tools node → agent, until the model stops calling tools.

Everything per-run (model, toolbox, memory, approver) travels in the runtime context, never in
`configurable`, which LangGraph copies into checkpoint metadata on disk.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Annotated, Any, NoReturn, Protocol, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langgraph.config import get_stream_writer
from langgraph.errors import GraphBubbleUp
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages
from langgraph.prebuilt import ToolNode
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from birdie_tui.agent.approvals import (
    ApprovalAnswer,
    ApprovalPolicy,
    ApprovalRequest,
    command_text,
    proposed_diff,
)
from birdie_tui.agent.calls import (INVALID_KEY, StepCall, answerable_calls, call_ids, invalid_call_text,
                                    safe_result, step_calls)
from birdie_tui.agent.history import (
    INTERRUPTED_TOOL_TEXT,
    calls_over_limit,
    latest_user_text,
    repair_history,
    tool_calls_since_user,
)
from birdie_tui.agent.compaction import summary_start
from birdie_tui.agent.lease import lease_state
from birdie_tui.agent.prompt import build_system_prompt, not_loaded, skill_aliases
from birdie_tui.agent.provenance import RECORD_KEY, CallContext, Segment, mention_segments
from birdie_tui.agent.sources import project_instructions
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.agent.window import budget_window, history_budget
from birdie_tui.providers.acp_turn import TurnSeam, lend_seam
from birdie_tui.events import TOOL_LIMIT_NOTE
from birdie_tui.secrets import scrub, scrub_data, scrubbed_exception
from birdie_tui.tools.workspace_calls import using_workspace
from birdie_tui.workspace import Workspace

# A pending approval: the request -> the user's answer, or None to leave it pending.
Approver = Callable[[ApprovalRequest], Awaitable[ApprovalAnswer | None]]
# Marks the stand-in answer the agent node writes with each tool call (see `with_placeholders`).
PENDING_KEY = "birdie_pending"
AGENT_PENDING = "agent"  # its value on a sub-agent call's stand-in (its result carries tokens)

LOOP_GUARD_NOTE = (
    "The tool-call limit for this turn has been reached. Do not call more tools: "
    "answer now with what you have."
)


class SubAgentCalls(Protocol):
    """The session's sub-agents for one turn (`agent.subagents.SubAgents`)."""

    def tools(self) -> list[Any]: ...
    def handles(self, name: str) -> bool: ...
    async def run(self, call: StepCall, parent: AgentContext,
                  writer: Callable[[Any], None]) -> ToolMessage: ...


class AgentState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    # The rolling summary of the compacted part of the history, and the id of the last message
    # it covers: the messages stay (the chat shows them), only the model sees the summary.
    summary: str
    summary_through: str
    # What rewinds dropped from `messages`, bounded (agent/rewind.py): the export shows it.
    rewound: dict[str, Any]


@dataclass
class AgentContext:
    model: BaseChatModel
    toolbox: Toolbox
    memory: list[str] = field(default_factory=list)
    approvals: ApprovalPolicy = field(default_factory=ApprovalPolicy)
    max_tool_calls: int = 40  # 0: no limit
    loading: str = "both"  # agent.prompt.LOADING_MODES
    decay_turns: int = 5
    max_loaded: int = 3
    context_window: int | None = None  # the model's, for the history budget
    custom_prompt: str = ""  # $BIRDIE_HOME/system_prompt.md
    wire_events: bool = False  # served (birdie_tui.server): custom events as plain JSON
    workdir: str | None = None  # where project instructions are read; None: the current dir
    # The front end's files and terminal for this turn's bash: tools (an ACP client); None:
    # they run in this process. Never served: a server's tools run on the server.
    workspace: Workspace | None = None
    # A sub-agent's guard: a call repeated with the same arguments more than this many times
    # in a row is not run again (Birdie's `max_tool_repetitions`); None: no guard.
    max_repeats: int | None = None
    agents: SubAgentCalls | None = None  # the session's sub-agents, offered as tools


def replace_all(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """A state update that rewrites the whole history (for in-place repairs)."""
    return [RemoveMessage(id=REMOVE_ALL_MESSAGES), *messages]


def reraise_scrubbed(exc: Exception) -> NoReturn:
    """Re-raise a node's failure without secrets: LangGraph stores the error of a failed node
    in the checkpoint's pending writes (its repr), and the engine shows it as the turn's
    error line. A failure with nothing to hide is re-raised as it is."""
    safe = scrubbed_exception(exc)
    if safe is exc or isinstance(exc, GraphBubbleUp):
        raise exc
    raise safe from None


async def agent_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """One model call (see `model_call`); its failure re-raised scrubbed."""
    try:
        return await model_call(state, runtime)
    except Exception as exc:  # noqa: BLE001 - re-raised, only its text changes
        reraise_scrubbed(exc)


async def model_call(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    messages, repaired = repair_history(state["messages"])
    ctx.toolbox.loading, ctx.toolbox.decay_turns = ctx.loading, ctx.decay_turns
    allowed = ctx.toolbox.allowed_skills()
    tools = await ctx.toolbox.tools(allowed)
    if ctx.agents is not None:
        tools = [*tools, *ctx.agents.tools()]
    capped = bool(ctx.max_tool_calls) and tool_calls_since_user(messages) >= ctx.max_tool_calls
    if capped:
        tools = []
    tool_tokens = ctx.toolbox.schema_tokens(tools)
    lease = lease_state(messages, skill_aliases(allowed), decay_turns=ctx.decay_turns,
                        max_loaded=ctx.max_loaded)
    prompt, report = build_system_prompt(
        allowed, latest_user_text(messages), loaded=lease.active, memory=ctx.memory,
        tools_by_tag=ctx.toolbox.tools_by_tag(allowed), mode=ctx.loading,
        custom=ctx.custom_prompt, project=project_instructions(ctx.workdir),
        summary=state.get("summary", ""), tool_tokens=tool_tokens)
    if capped:
        prompt += "\n\n" + LOOP_GUARD_NOTE
    visible = messages[summary_start(messages, state.get("summary_through")):]
    window = budget_window(visible, history_budget(
        ctx.context_window, fixed_tokens=report.prompt_tokens + tool_tokens))
    record = call_record(messages, report, window, len(messages) - len(visible),
                         evicted=lease.evicted, skipped=not_loaded(allowed, report, ctx.loading))
    report = replace(report, context=record)  # events are frozen: a copy with its record
    get_stream_writer()({"injected": _injected_event(report, ctx.wire_events)})
    model = ctx.toolbox.bind(ctx.model, tools) if tools else ctx.model
    with lend_seam(turn_seam(ctx)):  # read only by a model that runs tools itself (ACP)
        reply = await model.ainvoke([SystemMessage(prompt), *window.messages])
    response = answerable_calls(reply, taken=call_ids(messages))
    if not tools and isinstance(response, AIMessage) and response.tool_calls:
        # A model that calls tools it was not given would leave an unanswerable call behind.
        response = AIMessage(content=response.content or "(tool call refused: no tools bound)",
                             usage_metadata=response.usage_metadata, id=response.id)
    response = with_record(response, record)
    written = [response, *placeholders(response, ctx.agents)]
    return {"messages": replace_all([*messages, *written]) if repaired else written}


def turn_seam(ctx: AgentContext) -> TurnSeam:
    """The same verdict the tools node gives, for calls an ACP agent makes mid-reply."""

    def verdict(call_id: str, name: str, args: dict[str, Any]) -> tuple[str, str, bool]:
        (action, why, gated), _ = _verdict(ctx, StepCall(id=call_id, name=name, args=args,
                                                          type="tool_call"))
        return action, why, gated

    return TurnSeam(verdict=verdict, mode=ctx.approvals.mode, report=get_stream_writer())


def _injected_event(report: Any, wire: bool) -> Any:
    """The `injected` event as streamed: the object locally, JSON from a server."""
    if not wire:
        return report
    from birdie_tui.agent.wire import injected_to_wire

    return injected_to_wire(report)


def placeholders(response: Any, agents: SubAgentCalls | None = None) -> list[ToolMessage]:
    """A stand-in answer per tool call, checkpointed with the call: the history on disk is
    valid at every step, whatever kills the process while the tools run or an approval
    waits. The tools node replaces each by id with the real result."""
    if not isinstance(response, AIMessage):
        return []
    return [ToolMessage(content=INTERRUPTED_TOOL_TEXT, tool_call_id=call["id"],
                        name=call["name"], status="error", id=str(uuid.uuid4()),
                        additional_kwargs={PENDING_KEY: AGENT_PENDING if agents is not None
                                           and agents.handles(call["name"]) else True})
            for call in response.tool_calls]


def with_record(response: Any, record: CallContext) -> Any:
    """The call's provenance travels on the message it produced (`response_metadata`, which no
    vendor is sent back): stored with the turn, gone with it when /retry takes it back, and a
    checkpoint holds no second list that grows with the session. It is kept as one compact
    JSON string: every checkpoint write serialises the whole history, and one string costs
    far less there than a tree of small dicts."""
    if not isinstance(response, AIMessage):
        return response
    return response.model_copy(update={"response_metadata": {
        **response.response_metadata, RECORD_KEY: record.stored()}})


def call_record(messages: Sequence[BaseMessage], report: Any, window: Any, compacted: int, *,
                evicted: Any, skipped: list[str]) -> CallContext:
    """The provenance of this call: the prompt's segments plus the history that went with it."""
    turn = sum(1 for m in messages if m.type == "human")
    call = 1
    for msg in reversed(messages):
        if msg.type == "human":
            break
        call += msg.type == "ai"
    sent = len(window.messages)
    detail = f"{sent} message{'s' if sent != 1 else ''}"
    if window.dropped:
        detail += f" · {window.dropped} older not sent (budget)"
    if compacted:
        detail += f" · {compacted} summarised"
    mentions = mention_segments(window.messages, turn)
    history = Segment("history", tokens=max(0, window.tokens - sum(m.tokens for m in mentions)),
                      detail=detail)
    return CallContext(turn=turn, call=call, segments=(*report.segments, *mentions, history),
                       evicted=tuple(evicted), not_loaded=tuple(skipped),
                       history_dropped=window.dropped)


def tool_error_text(exc: Exception) -> str:
    """What the model (and the chat) sees when a tool fails: the tool's own message, scrubbed
    (a tool's stderr may echo a key from the environment)."""
    from langchain_core.tools import ToolException

    if isinstance(exc, ToolException):
        return scrub(str(exc))
    return scrub(f"{type(exc).__name__}: {exc}")


def scrubbed_result(message: ToolMessage) -> ToolMessage:
    """A tool's result with keys, header values and URL credentials masked: it is shown,
    stored in the checkpoint and sent to the model."""
    content = message.content
    if isinstance(content, str):
        clean: Any = scrub(content)
    else:
        clean = [scrub_data(block) if isinstance(block, str) or (
            isinstance(block, dict) and block.get("type") == "text") else block
            for block in content]
    if clean == content:
        return message
    return message.model_copy(update={"content": clean})


def _error_result(call: StepCall, text: str) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call["id"], name=call["name"], status="error")


async def tools_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    """Run the tool calls (see `run_tools`): results scrubbed, a failure re-raised scrubbed."""
    try:
        return await run_tools(state, runtime)
    except Exception as exc:  # noqa: BLE001 - re-raised, only its text changes
        reraise_scrubbed(exc)


async def run_tools(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
    ctx = runtime.context
    last, answered = pending_step(state["messages"])
    calls = step_calls(last)
    tools = {tool.name: tool for tool in await ctx.toolbox.tools()}
    agents = ctx.agents
    results: dict[str, ToolMessage] = {}
    invalid = last.response_metadata.get(INVALID_KEY) or {} if last is not None else {}
    verdicts: dict[str, tuple[str, str, bool]] = {}  # id -> (action, why, gated)
    asks: list[ApprovalRequest] = []
    over = calls_over_limit(state["messages"], calls, ctx.max_tool_calls)
    for call in calls:
        if call["id"] in over:  # neither asked about nor run
            results[call["id"]] = _error_result(call, limit_text(ctx.max_tool_calls))
        elif call["id"] in invalid:
            results[call["id"]] = _error_result(
                call, invalid_call_text(call["name"], invalid[call["id"]]))
        elif (repeats := repeated(state["messages"], call, ctx.max_repeats)) is not None:
            results[call["id"]] = _error_result(call, repeats)
        elif agents is not None and agents.handles(call["name"]):
            verdicts[call["id"]] = ("allow", "", False)  # its own calls are asked in the child
        elif call["name"] not in tools:
            results[call["id"]] = _error_result(
                call, f"Tool {call['name']!r} is not available (its skill is disabled or gone)."
            )
        else:
            verdicts[call["id"]], request = _verdict(ctx, call)
            if request is not None:
                asks.append(request)
    # Every undecided call of the step in one interrupt: the step (and its requests) is in
    # the checkpoint until the user answers, in this process or another.
    answers = _answers(interrupt({"approvals": [r.to_dict() for r in asks]})) if asks else {}
    writer = get_stream_writer()
    runnable: list[StepCall] = []
    for call in calls:
        if call["id"] in results:
            continue
        action, why, gated = verdicts[call["id"]]
        if action == "ask":
            answer = answers.get(call["id"]) or ApprovalAnswer("deny", reason="no answer")
            action, why = answer.decision, answer.reason
        if gated:
            decision = "approved" if action == "allow" else "denied"
            writer({"approval": {"id": call["id"], "name": call["name"], "decision": decision}})
        if action == "allow":
            runnable.append(call)
        else:
            results[call["id"]] = _error_result(call, denial_text(why, verdicts[call["id"]][0]))
    for message in await _run_calls(ctx, runnable, tools, getattr(last, "id", None), writer):
        results[message.tool_call_id] = safe_result(scrubbed_result(message))
    # Each result takes its stand-in's id, so it replaces it in place.
    return {"messages": [_in_place(results[call["id"]], answered.get(call["id"]))
                         for call in calls]}


def pending_step(messages: list[AnyMessage]) -> tuple[AIMessage | None, dict[str, str]]:
    """The AI message whose calls are to run, and the ids of their stand-in answers."""
    standins: dict[str, str] = {}
    for msg in reversed(messages):
        if isinstance(msg, ToolMessage):
            if msg.additional_kwargs.get(PENDING_KEY) and msg.id:
                standins[msg.tool_call_id] = msg.id
            continue
        if isinstance(msg, AIMessage) and msg.tool_calls:
            return msg, standins
        break
    return None, {}


async def _run_calls(ctx: AgentContext, runnable: list[StepCall], tools: dict[str, Any],
                     step_id: str | None, writer: Callable[[Any], None]) -> list[ToolMessage]:
    """Run the step's allowed calls: sub-agents side by side with the other tools (the
    sub-agents bounded by their own limit)."""
    agents = ctx.agents
    children = [c for c in runnable if agents is not None and agents.handles(c["name"])]
    plain = [c for c in runnable if c not in children]
    runs: list[Awaitable[list[ToolMessage]]] = [_run_plain(ctx, plain, tools, step_id)]
    if agents is not None:
        runs += [_one(agents.run(call, ctx, writer)) for call in children]
    return [message for output in await asyncio.gather(*runs) for message in output]


async def _one(result: Awaitable[ToolMessage]) -> list[ToolMessage]:
    return [await result]


async def _run_plain(ctx: AgentContext, calls: list[StepCall], tools: dict[str, Any],
                     step_id: str | None) -> list[ToolMessage]:
    if not calls:
        return []
    # Only the tools called: a ToolNode builds a schema per tool, and over langchain's
    # 256-entry schema cache (500 skills) that cost ~0.45 s a round.
    called = list({call["name"]: tools[call["name"]] for call in calls}.values())
    node = ToolNode(called, handle_tool_errors=tool_error_text)
    batch = AIMessage(content="", tool_calls=calls, id=step_id)
    with using_workspace(ctx.workspace):  # each call runs in a copy of this context
        output = await node.ainvoke({"messages": [batch]})
    return [m for m in output["messages"] if isinstance(m, ToolMessage)]


def repeated(messages: Sequence[BaseMessage], call: StepCall, limit: int | None) -> str | None:
    """Why `call` is not run: the steps that ended the history (this one included) called it
    with the same arguments more than `limit` times in a row (Birdie's count); None to run it."""
    if not limit:
        return None
    count = 0
    for msg in reversed(messages):
        if isinstance(msg, ToolMessage):
            continue
        if not isinstance(msg, AIMessage) or not any(
                c["name"] == call["name"] and c["args"] == call["args"] for c in msg.tool_calls):
            break
        count += 1
    if count <= limit:
        return None
    return (f"Not run: {call['name']!r} has been called more than {limit} times in a row with "
            "the same arguments; repeating it will not change its result. Use what those calls "
            "returned, try something else, or say what is blocking you.")


def _in_place(result: ToolMessage, standin_id: str | None) -> ToolMessage:
    return result.model_copy(update={"id": standin_id}) if standin_id else result


def _verdict(ctx: AgentContext, call: StepCall
             ) -> tuple[tuple[str, str, bool], ApprovalRequest | None]:
    policy = ctx.approvals
    skill = ctx.toolbox.skill_for_tool(call["name"])
    tool = ctx.toolbox.skill_tool(call["name"])
    args = call.get("args") or {}
    gated, why, outside = policy.gate(name=call["name"], args=args, skill=skill, tool=tool)
    command = command_text(tool, args)
    verdict = policy.decide(name=call["name"], command=command, args=args,
                            skill_name=skill.name if skill else "", gated=gated, why=why)
    if verdict.action != "ask":
        return (verdict.action, verdict.why, verdict.gated), None
    request = ApprovalRequest(
        id=call["id"], name=call["name"], args=dict(args), skill=skill.name if skill else "",
        permissions=tuple(skill.permissions) if skill else (), why=verdict.why,
        command=command, diff=proposed_diff(args, policy.workdir), paths_outside=outside)
    return ("ask", verdict.why, True), request


def _answers(value: Any) -> dict[str, ApprovalAnswer]:
    """The resume value: {call id: answer}; anything else answers nothing (denied)."""
    if not isinstance(value, dict):
        return {}
    return {str(k): ApprovalAnswer.from_value(v) for k, v in value.items()}


def limit_text(cap: int) -> str:
    return f"{TOOL_LIMIT_NOTE} ({cap} calls) was reached. Answer with what you have."


def denial_text(why: str, action: str) -> str:
    if action == "ask":  # the user said no
        return "The user denied this tool call." + (f" Reason: {why}" if why else "")
    return f"Not run: {why}." if why else "Not run."


def route_after_agent(state: AgentState) -> str:
    if not state["messages"]:  # rewound to before the first message
        return END
    last = state["messages"][-1]
    if isinstance(last, AIMessage):
        return "tools" if last.tool_calls else END
    return "tools" if isinstance(last, ToolMessage) and last.additional_kwargs.get(PENDING_KEY) \
        else END


def build_graph(checkpointer: Any = None, *,
                context_for: Callable[[Any], Awaitable[AgentContext]] | None = None,
                name: str | None = None) -> Any:
    """The agent's one topology. Locally each run is given its `AgentContext`; served
    (`context_for`), each node builds it from the run's config (the thread's grants), and the
    graph declares no context schema (a server's client sends none)."""
    if context_for is None:
        graph = StateGraph(AgentState, context_schema=AgentContext)
        graph.add_node("agent", agent_node)
        graph.add_node("tools", tools_node)
    else:
        graph = StateGraph(AgentState)
        graph.add_node("agent", _with_context(agent_node, context_for))
        graph.add_node("tools", _with_context(tools_node, context_for))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route_after_agent, {"tools": "tools", END: END})
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=checkpointer, name=name) if name else \
        graph.compile(checkpointer=checkpointer)


def _with_context(node: Callable[[AgentState, Runtime[AgentContext]], Awaitable[dict[str, Any]]],
                  context_for: Callable[[Any], Awaitable[AgentContext]]) -> Any:
    """`node`, run with the context `context_for` builds from the run's config."""

    async def run(state: AgentState, config: RunnableConfig, runtime: Runtime[Any]) -> dict[str, Any]:
        return await node(state, runtime.override(context=await context_for(config)))

    return run


__all__ = ["AgentContext", "AgentState", "Approver", "PENDING_KEY", "build_graph", "replace_all"]
