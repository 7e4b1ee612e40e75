"""Sub-agents: each agent file enabled for the session is a tool of the session's model, and a
call of it runs the agent as a nested turn of the same graph.

The child gets its own thread under the session (`<session>/agent/<name>-<hex>`, in the same
checkpoint database), its own prompt tiers and provenance (only its allowed skills; a Markdown
agent's body as its system prompt), its model (the agent's override of the session's), and the
session's approval mode and rules: a call the rules leave open is asked through the turn's
approver, named by the agent, one dialog at a time. Nothing is asked of a front end without
an approver (`--print`): such a call is refused with a note saying so.

Every event of the child reaches the parent's stream as a `ChildEvent` (its tokens count in the
parent's turn), between an `AgentStarted` and an `AgentFinished`. The child's answer is the
call's result, with the child's usage on the result message (`AGENT_USAGE_KEY`), so the session
file counts it from the checkpointed history like any model call's.

The child's loop runs in a task of its own with no LangChain run config: inside a node LangGraph
would otherwise take the nested run for a subgraph of the parent's (its interrupts would stop the
parent's step). Cancelling the parent's turn cancels the task, and with it the child's tools.
"""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.runnables.config import var_child_runnable_config
from langchain_core.tools import BaseTool, StructuredTool, ToolException
from langgraph.errors import GraphRecursionError
from langgraph.types import Command

from birdie_tui.agent.approval_ops import interrupts_in
from birdie_tui.agent.approvals import ApprovalAnswer, ApprovalRequest
from birdie_tui.agent.calls import StepCall
from birdie_tui.agent.graph import AgentContext
from birdie_tui.agent.ledger import AGENT_USAGE_KEY
from birdie_tui.agent.stream import agent_reply, translate
from birdie_tui.agent.toolbox import Toolbox
from birdie_tui.agent.wire import wired_writer
from birdie_tui.agent_files.models import AgentDef
from birdie_tui.agent_files.registry import AgentRegistry
from birdie_tui.agent_files.render import input_schema, parse_output, render_prompt
from birdie_tui.mcp.given import GivenServer, GivenServers
from birdie_tui.events import (
    AgentFinished,
    AgentStarted,
    ChildEvent,
    ChildTurnEvent,
    UsageReported,
)
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.text import content_text, one_line

RETRY_TEXT = ("Your previous reply was invalid: {error}. Return ONLY a single JSON object "
              "with exactly the required fields.")  # Birdie 0.15.1's words
HEADLESS_DENIAL = ("needs approval, and a sub-agent's call cannot wait for it here: answer it "
                   "in the TUI or an editor, or allow it with a mode or an \"always\" rule")
DEFAULT_PARALLEL = 3
CHILD_STOP_SECONDS = 10.0  # a cancelled child's tools end within their own grace (~0.5 s)

Writer = Callable[[Any], None]  # the parent's custom stream
# Pending requests of a child's step -> the resume value (an answer per request).
Asker = Callable[[list[ApprovalRequest]], Awaitable[dict[str, dict[str, Any]]]]


class ModelFor(Protocol):
    """The chat model an agent runs on: the session's, or the agent's override of it."""

    async def __call__(self, agent: AgentDef) -> Any: ...


@dataclass(frozen=True)
class ChildSetup:
    """What sub-agents share for one turn: the graph, the agents and skills, models."""

    graph: Any  # the compiled agent graph (with the session's checkpointer)
    agents: AgentRegistry
    model_for: ModelFor
    # A toolbox over the agent's skills only, plus the MCP servers given to the child id.
    toolbox_for: Callable[[SkillPolicy, str], Toolbox]
    servers: GivenServers  # a Markdown agent's own `mcp:` servers, per child, while it runs
    parallel: int = DEFAULT_PARALLEL


def child_policy(agent: AgentDef, skill_names: Sequence[str],
                 owner_of: Callable[[str], str | None]) -> SkillPolicy:
    """Exactly the agent's skills: `allowed_skills`, plus the skills owning a Markdown agent's
    `tools` (a name that is a skill counts as one); every other skill off."""
    wanted = {*agent.allowed_skills}
    for name in agent.tools:
        wanted.add(name if name in skill_names else owner_of(name) or name)
    return SkillPolicy(sorted(n for n in skill_names if n in wanted),
                       sorted(n for n in skill_names if n not in wanted))


class SubAgents:
    """One turn's sub-agents: the tools its model is offered, and the runs of their calls."""

    def __init__(self, setup: ChildSetup, *, enabled: Callable[[AgentDef], bool],
                 thread: str, ask: Asker):
        self._setup = setup
        self._enabled = enabled
        self._thread = thread
        self._ask = ask
        self._slots = asyncio.Semaphore(max(1, setup.parallel))
        self._tools: tuple[tuple[Any, ...], list[BaseTool]] | None = None

    def agents(self) -> list[AgentDef]:
        return [a for a in self._setup.agents.agents() if self._enabled(a)]

    def tools(self) -> list[BaseTool]:
        """One tool per enabled agent (the same objects while nothing changed: the model's
        bound tools are reused)."""
        agents = self.agents()
        key = (self._setup.agents.version, *(a.name for a in agents))
        if self._tools is None or self._tools[0] != key:
            self._tools = (key, [agent_tool(a) for a in agents])
        return list(self._tools[1])

    def handles(self, name: str) -> bool:
        agent = self._setup.agents.get(name)
        return agent is not None and self._enabled(agent)

    async def run(self, call: StepCall, parent: AgentContext, writer: Writer) -> ToolMessage:
        """Run the agent `call` names to its answer; never raises but for cancellation."""
        agent = self._setup.agents.get(call["name"])
        assert agent is not None  # `handles` said so
        args = dict(call.get("args") or {})
        child = f"{self._thread}/agent/{agent.name}-{uuid.uuid4().hex[:8]}"
        if parent.wire_events:  # served: the server's stream carries plain JSON only
            writer = wired_writer(writer)
        run = _ChildRun(self, agent, child, writer)
        async with self._slots:
            writer({"child": AgentStarted(child=child, call_id=call["id"], name=agent.name,
                                          inputs=args)})
            try:
                text, status, error = await run.answer(args, parent), "done", ""
            except asyncio.CancelledError:
                writer({"child": run.finished(call["id"], "cancelled")})
                raise
            except GraphRecursionError:
                error = (f"stopped after {agent.recursion_limit} steps (its recursion_limit) "
                         "without an answer")
                text, status = f"The agent {agent.name} {error}.", "error"
            except Exception as exc:  # noqa: BLE001 - the parent's model reads why
                error = one_line(exc)
                text, status = f"The agent {agent.name} failed: {error}", "error"
        writer({"child": run.finished(call["id"], status, error)})
        return ToolMessage(content=text, tool_call_id=call["id"], name=agent.name,
                           status="error" if status == "error" else "success",
                           additional_kwargs={AGENT_USAGE_KEY: run.usage_record()})

    async def ask(self, agent: AgentDef, pending: list[ApprovalRequest]
                  ) -> dict[str, dict[str, Any]]:
        named = [dataclasses.replace(r, agent=agent.name) for r in pending]
        return await self._ask(named)


class _ChildRun:
    """One sub-agent call: its thread, its turn loop and what it spent."""

    def __init__(self, owner: SubAgents, agent: AgentDef, child: str, writer: Writer):
        self._owner, self._agent, self._child, self._writer = owner, agent, child, writer
        self.spent = [0, 0, 0]  # input, output, cached
        self.calls = 0
        self._sink: Writer = writer  # the child's events, to the parent's loop

    async def answer(self, args: dict[str, Any], parent: AgentContext) -> str:
        """The agent's final answer to its rendered prompt (declared outputs checked, one retry
        as Birdie does). Its loop runs in a task without the parent's run config; its events
        come back through a queue, since the parent's stream writer reads the parent's."""
        context = contextvars.copy_context()
        context.run(var_child_runnable_config.set, None)
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._sink = queue.put_nowait
        task = asyncio.create_task(self._answer(args, parent), context=context)
        getter: asyncio.Future[Any] | None = None
        try:
            while True:
                getter = asyncio.ensure_future(queue.get())
                done, _ = await asyncio.wait({task, getter},
                                             return_when=asyncio.FIRST_COMPLETED)
                if getter in done:
                    self._writer(getter.result())
                    continue
                getter.cancel()
                while not queue.empty():
                    self._writer(queue.get_nowait())
                return task.result()
        finally:
            if getter is not None and not getter.done():
                getter.cancel()
            if not task.done():  # cancelled: the child's tools are ended before we go on
                task.cancel()
                await asyncio.wait({task}, timeout=CHILD_STOP_SECONDS)

    async def _answer(self, args: dict[str, Any], parent: AgentContext) -> str:
        servers = self._owner._setup.servers
        if self._agent.mcp:
            try:
                await servers.attach(self._child, agent_servers(self._agent),
                                     workdir=Path(parent.workdir or Path.cwd()), start=False,
                                     prefix=f"{self._agent.name}:")
            except ValueError as exc:
                raise ValueError(f"its MCP servers: {exc}") from None
        try:
            return await self._validated(args, parent)
        finally:
            await servers.detach(self._child)  # a child's servers end with it

    async def _validated(self, args: dict[str, Any], parent: AgentContext) -> str:
        agent = self._agent
        ctx = await self._context(parent)
        text = await self._turn(render_prompt(agent, args), ctx)
        if not agent.outputs:
            return text
        cleaned, error = parse_output(agent, text)
        if error is None and cleaned is not None:
            return cleaned
        text = await self._turn(RETRY_TEXT.format(error=error), ctx)
        cleaned, error = parse_output(agent, text)
        return cleaned if error is None and cleaned is not None else text

    async def _context(self, parent: AgentContext) -> AgentContext:
        setup, agent = self._owner._setup, self._agent
        toolbox = setup.toolbox_for(child_policy(
            agent, [s.name for s in parent.toolbox.registry.skills()],
            lambda tool: (s.name if (s := parent.toolbox.skill_for_tool(tool)) else None)),
            self._child)
        toolbox.loading, toolbox.decay_turns = parent.loading, parent.decay_turns
        model = await setup.model_for(agent)
        return dataclasses.replace(
            parent, model=model, toolbox=toolbox, memory=[],
            context_window=parent.context_window if model is parent.model else None,
            custom_prompt=agent.system_prompt or parent.custom_prompt,
            max_repeats=agent.max_tool_repetitions, agents=None,
            wire_events=False)  # the child's stream is read here, its events made JSON after

    async def _turn(self, text: str, ctx: AgentContext) -> str:
        """One user message of the child's thread, run to its end (approvals asked)."""
        config = {"configurable": {"thread_id": self._child},
                  "recursion_limit": self._agent.recursion_limit}
        inputs: Any = {"messages": [HumanMessage(content=text, id=str(uuid.uuid4()))]}
        reply: AIMessage | None = None
        while True:
            pending: list[ApprovalRequest] = []
            async for mode, data in self._owner._setup.graph.astream(
                    inputs, config, context=ctx, stream_mode=["messages", "updates", "custom"],
                    durability="sync"):
                reply = agent_reply(mode, data) or reply
                pending += interrupts_in(mode, data)
                for event in translate(mode, data):
                    self._pass_on(event)
            if not pending:
                break
            inputs = Command(resume=await self._owner.ask(self._agent, pending))
        if reply is None or reply.tool_calls:
            return ""
        return content_text(reply.content)

    def _pass_on(self, event: Any) -> None:
        if not isinstance(event, ChildTurnEvent):  # the child's own done/error stay inside
            return
        if isinstance(event, UsageReported):
            self.spent[0] += event.input_tokens
            self.spent[1] += event.output_tokens
            self.spent[2] += event.cached_input_tokens
            self.calls += 1
        self._sink({"child": ChildEvent(child=self._child, agent=self._agent.name,
                                        event=event)})

    def finished(self, call_id: str, status: str, error: str = "") -> AgentFinished:
        return AgentFinished(child=self._child, call_id=call_id, name=self._agent.name,
                             status=status, input_tokens=self.spent[0],
                             output_tokens=self.spent[1], calls=self.calls, error=error)

    def usage_record(self) -> dict[str, Any]:
        return {"agent": self._agent.name, "child": self._child, "input": self.spent[0],
                "output": self.spent[1], "cached": self.spent[2], "calls": self.calls}


def agent_servers(agent: AgentDef) -> list[GivenServer]:
    """A Markdown agent's `mcp:` entries as servers (`name`, then `command` + `args` + `env`
    for stdio, or `url` + `headers` with `transport`/`type` http or sse)."""
    servers = []
    for entry in agent.mcp:
        command = entry.get("command")
        args = [str(a) for a in entry.get("args") or ()]
        if isinstance(command, list) and command:  # ["npx", "-y", "server"]
            command, args = str(command[0]), [*map(str, command[1:]), *args]
        url = entry.get("url")
        transport = str(entry.get("transport") or entry.get("type") or
                        ("http" if url and not command else "stdio"))
        servers.append(GivenServer(
            name=str(entry.get("name") or ""), transport=transport,
            command=str(command) if command else None, args=tuple(args),
            env=tuple((str(k), str(v)) for k, v in (entry.get("env") or {}).items()),
            cwd=str(entry["cwd"]) if entry.get("cwd") else None,
            url=str(url) if url else None,
            headers=tuple((str(k), str(v)) for k, v in (entry.get("headers") or {}).items())))
    return servers


def agent_tool(agent: AgentDef) -> BaseTool:
    """The tool the parent's model is offered for `agent`: its schema and description only
    (the tools node runs its calls through `SubAgents.run`)."""

    async def never(**_: Any) -> str:
        # Reached only by a model that runs tools itself mid-reply (an ACP agent as the
        # model): a child's turn needs the tools node, which such a model bypasses.
        raise ToolException(f"the sub-agent {agent.name} runs only when the session's model "
                            "leaves tool calls to Birdie; this model runs them itself")

    return StructuredTool(name=agent.name, description=agent.description,
                          args_schema=input_schema(agent), coroutine=never)


def denied_answers(pending: list[ApprovalRequest], answers: dict[str, dict[str, Any]]
                   ) -> dict[str, dict[str, Any]]:
    """`answers`, with every request they leave open refused (never run by default)."""
    return {**{r.id: ApprovalAnswer("deny", reason=HEADLESS_DENIAL).to_dict()
               for r in pending}, **answers}


__all__ = ["ChildSetup", "SubAgents", "agent_tool", "child_policy", "denied_answers"]
