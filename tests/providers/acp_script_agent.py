"""A small ACP agent built on the SDK's own agent side, for the ACP provider's tests.

What it does is read from the last `Human:` line of the prompt it gets:
  chunks N        N text chunks "c0 " .. then end_turn, with usage (input 11, output 7)
  tool NAME JSON  calls NAME with JSON over the MCP server session/new gave it (a real MCP
                  stdio client), then says "result=<text> error=<bool>"
  ask             asks the client's permission, then says which option was chosen
  read PATH       reads PATH through the client (fs/read_text_file), says its text
  crash           one chunk, a line on stderr, then exits 3 mid-turn
  hang            one chunk, then waits until cancelled (answers `cancelled`)
Anything else is echoed back. With ACP_AGENT_LOG set, each prompt's text and the session's
mcpServers are appended there as JSON lines.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from acp import PROTOCOL_VERSION, Agent, RequestError, run_agent, text_block, update_agent_message
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
    Usage,
)


class ScriptAgent(Agent):
    def __init__(self) -> None:
        self.client: Any = None
        self.servers: dict[str, list[Any]] = {}
        self.cancelled: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(protocol_version=PROTOCOL_VERSION,
                                  agent_capabilities=AgentCapabilities(),
                                  agent_info=Implementation(name="script-agent", version="1"))

    async def new_session(self, cwd: str, mcp_servers: list[Any] | None = None,
                          **kwargs: Any) -> NewSessionResponse:
        session_id = f"s{len(self.servers) + 1}"
        self.servers[session_id] = list(mcp_servers or [])
        self.cancelled[session_id] = asyncio.Event()
        return NewSessionResponse(session_id=session_id)

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled[session_id].set()

    async def say(self, session_id: str, text: str) -> None:
        await self.client.session_update(session_id, update_agent_message(text_block(text)))

    async def prompt(self, prompt: list[Any], session_id: str, **kwargs: Any) -> PromptResponse:
        text = "".join(getattr(block, "text", "") for block in prompt)
        if os.environ.get("ACP_AGENT_LOG"):
            with open(os.environ["ACP_AGENT_LOG"], "a", encoding="utf-8") as log:
                log.write(json.dumps({"prompt": text, "servers": [
                    s.model_dump(mode="json") for s in self.servers[session_id]]}) + "\n")
        last = [line for line in text.splitlines() if line.startswith("Human: ")][-1][7:]
        verb, _, rest = last.partition(" ")
        if verb == "chunks":
            for i in range(int(rest)):
                await self.say(session_id, f"c{i} ")
            return PromptResponse(stop_reason="end_turn", usage=Usage(
                input_tokens=11, output_tokens=7, total_tokens=18))
        if verb == "tool":
            name, _, args = rest.partition(" ")
            result, error = await call_tool(self.servers[session_id], name, json.loads(args))
            await self.say(session_id, f"result={result} error={error}")
        elif verb == "ask":
            await self.say(session_id, f"chose={await self.ask(session_id)}")
        elif verb == "read":
            try:
                reply = await self.client.read_text_file(session_id=session_id, path=rest)
            except RequestError as exc:
                await self.say(session_id, f"refused={json.dumps(exc.data)}")
            else:
                await self.say(session_id, f"file={reply.content}")
        elif verb == "crash":
            await self.say(session_id, "partial ")
            await asyncio.sleep(0.2)
            print("boom: the script agent fell over", file=sys.stderr, flush=True)
            os._exit(3)
        elif verb == "hang":
            await self.say(session_id, "waiting ")
            await self.cancelled[session_id].wait()
            return PromptResponse(stop_reason="cancelled")
        else:
            await self.say(session_id, f"echo: {last}")
        return PromptResponse(stop_reason="end_turn")

    async def ask(self, session_id: str) -> str:
        options = [PermissionOption(option_id="yes", name="Allow", kind="allow_once"),
                   PermissionOption(option_id="no", name="Reject", kind="reject_once")]
        reply = await self.client.request_permission(
            session_id=session_id, options=options,
            tool_call=ToolCallUpdate(tool_call_id="t1", title="rm -rf build"))
        return getattr(reply.outcome, "option_id", None) or reply.outcome.outcome


async def call_tool(servers: list[Any], name: str, args: dict[str, Any]) -> tuple[str, bool]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = next(s for s in servers if s.name == "birdie")
    params = StdioServerParameters(command=server.command, args=server.args,
                                   env={**os.environ, **{e.name: e.value for e in server.env}})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await session.list_tools()
        if name not in {tool.name for tool in listed.tools}:
            return f"not listed: {sorted(t.name for t in listed.tools)}", True
        result = await session.call_tool(name, args)
        text = "".join(getattr(block, "text", "") for block in result.content)
        return text, bool(result.isError)


if __name__ == "__main__":
    asyncio.run(run_agent(ScriptAgent()))
