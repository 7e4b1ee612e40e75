"""An Agent Client Protocol agent as the chat model (`LLM_VENDOR=acp`, as in Birdie 0.15.1).

The agent (its command line, environment and working folder from the provider config) runs
as a child process, under the MCP guardian so it dies with the app, and is driven with the
SDK's client side (`acp.connect_to_agent`, protocol v1). Each model call is one agent session:
`session/new` with an `mcpServers` entry "birdie" (the bridge, `acp_bridge.py`, serving the
tools the call was bound with) and `session/prompt` with the conversation as text. Its
`agent_message_chunk` text streams as the reply; usage comes from the prompt's response or the
last `usage_update`.

One session per call, not one per Birdie session: the graph hands every call the whole history
as it wants the model to see it (windowed, compacted, repaired, taken back by /retry); an agent
session that remembered earlier calls would see another. The process stays up between calls
(an agent can take seconds to start) and is started again if it died.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import signal
from collections import deque
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any, cast

from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import PrivateAttr

from birdie_tui.providers.acp_client import AgentClient, CallSink
from birdie_tui.providers.acp_prompt import conversation_text
from birdie_tui.providers.acp_relay import ToolRelay
from birdie_tui.providers.acp_turn import current_seam
from birdie_tui.providers.config import ACP_VENDOR, DEFAULT_MODELS, ConfigError, ProviderConfig
from birdie_tui.providers.errors import RETRY_HINT, ProviderError
from birdie_tui.providers.sdk_base import SDKChatModel, StreamState
from birdie_tui.providers.streaming import usage_metadata

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 1
BUFFER_LIMIT = 50 * 1024 * 1024  # the SDK's own stdio default: one update may be large
STOP_REASONS = {"end_turn": "stop", "max_tokens": "length", "max_turn_requests": "stop"}


def find_program(command: Sequence[str], env: dict[str, str], cwd: str | None) -> str | None:
    """The agent's program as the process would find it (its PATH, its working folder)."""
    program = command[0]
    if os.sep in program and not os.path.isabs(program):
        program = os.path.join(cwd or os.getcwd(), program)
    return shutil.which(program, path=env.get("PATH", os.environ.get("PATH")))


class AgentLink:
    """One running agent process and the connection to it."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process) -> None:
        from acp import Client, connect_to_agent

        self.name = name
        self.proc = proc
        self.client = AgentClient()
        self.stderr: deque[str] = deque(maxlen=20)
        # Not every method of `acp.Client`: what it lacks (terminals) the SDK answers as unknown.
        self.conn = connect_to_agent(cast(Client, self.client), proc.stdin, proc.stdout)
        self._drain = asyncio.ensure_future(self._read_stderr())
        self.closed = False

    @classmethod
    async def start(cls, command: Sequence[str], env: dict[str, str], cwd: str | None,
                    timeout: float) -> AgentLink:
        from birdie_tui.mcp.guardian import wrap

        name = os.path.basename(command[0])
        program = find_program(command, env, cwd)
        if program is None:
            raise ProviderError(f"acp: cannot start the agent {command[0]!r}: not found — "
                                "install it or set the command (LLM_MODEL or command)")
        executable, args = wrap(program, list(command[1:]))
        try:  # its own process group: closing the link takes the agent's children too
            proc = await asyncio.create_subprocess_exec(
                executable, *args, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                env={**os.environ, **env}, cwd=cwd, start_new_session=True, limit=BUFFER_LIMIT)
        except OSError as exc:
            raise ProviderError(f"acp: cannot start the agent {name!r}: "
                                f"{exc.strerror or exc}") from None
        link = cls(name, proc)
        await link._initialize(timeout)
        return link

    async def _initialize(self, timeout: float) -> None:
        from acp.schema import ClientCapabilities, FileSystemCapabilities, Implementation

        from birdie_tui import version

        try:
            reply = await asyncio.wait_for(self.conn.initialize(
                protocol_version=PROTOCOL_VERSION,
                client_capabilities=ClientCapabilities(
                    fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                    terminal=False),
                client_info=Implementation(name="birdie-tui", version=version())), timeout)
        except BaseException as exc:
            failure = await self.failure("initialize", exc, timeout)
            await self.aclose()
            raise failure from None
        if reply.protocol_version != PROTOCOL_VERSION:
            await self.aclose()
            raise ProviderError(f"acp: {self.name} speaks protocol version "
                                f"{reply.protocol_version}; Birdie speaks {PROTOCOL_VERSION}")

    @property
    def alive(self) -> bool:
        return not self.closed and self.proc.returncode is None

    async def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        while line := await self.proc.stderr.readline():
            text = line.decode("utf-8", "replace").rstrip()
            if text:
                self.stderr.append(text)
                log.debug("acp agent %s: %s", self.name, text)

    async def failure(self, step: str, exc: BaseException, timeout: float) -> BaseException:
        """`exc` (raised by `step`) as one line: a timeout, the agent gone, or its error."""
        from acp import RequestError

        if isinstance(exc, (asyncio.CancelledError, GeneratorExit, ProviderError)):
            return exc
        if isinstance(exc, TimeoutError):
            return ProviderError(f"acp: {self.name} did not answer {step} within {timeout:g}s — "
                                 f"{RETRY_HINT}", retryable=True)
        if isinstance(exc, RequestError):
            data = exc.data.get("message") if isinstance(exc.data, dict) else exc.data
            said = f"{exc} ({data})" if data else str(exc)
            return ProviderError(f"acp: {self.name} refused {step}: {said}"[:400])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), 2.0)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(self._drain), 1.0)
        if self.proc.returncode is not None:
            said = f": {self.stderr[-1]}" if self.stderr else ""
            return ProviderError(f"acp: {self.name} exited during {step} (exit code "
                                 f"{self.proc.returncode}){said}"[:400], retryable=True)
        return ProviderError(f"acp: {step} failed: {type(exc).__name__}: {exc}"[:400])

    async def aclose(self) -> None:
        """End the agent: its stdin closed, then its process group terminated, then killed."""
        if self.closed:
            return
        self.closed = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 1.0)
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        for sig, grace in ((None, 1.0), (signal.SIGTERM, 2.0), (signal.SIGKILL, 2.0)):
            if sig is not None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.proc.pid, sig)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), grace)
                break
        self._drain.cancel()


class ACPChatModel(SDKChatModel):
    """A chat model whose every call is one prompt to an ACP agent."""

    command: list[str]
    cwd: str | None = None
    _env: dict[str, str] = PrivateAttr(default_factory=dict)
    _link: AgentLink | None = PrivateAttr(default=None)
    _starting: asyncio.Lock | None = PrivateAttr(default=None)
    _bound: dict[int, tuple[list[dict[str, Any]], list[Any]]] = PrivateAttr(default_factory=dict)
    _by_name: dict[str, Any] = PrivateAttr(default_factory=dict)

    @classmethod
    def from_config(cls, config: ProviderConfig, **overrides: Any) -> ACPChatModel:
        command = list(config.command) or [DEFAULT_MODELS[ACP_VENDOR] or "claude-agent-acp"]
        if find_program(command, config.env, config.cwd) is None:
            raise ConfigError(f"acp: the agent {command[0]!r} was not found — install it, or "
                              "set its command (LLM_MODEL, or command in the provider config)")
        model = cls(vendor=ACP_VENDOR, model_name=config.model or command[0], command=command,
                    cwd=config.cwd, timeout=config.timeout, temperature=None, **overrides)
        model._env = dict(config.env)
        return model

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        """As every adapter binds (OpenAI-format schemas), remembering the tool objects behind
        them: the bridge runs those, found again by the schema list the call carries."""
        schemas = [convert_to_openai_tool(tool) for tool in tools]
        if len(self._bound) > 32:  # the toolbox keeps one binding while nothing changes
            self._bound.pop(next(iter(self._bound)))
        self._bound[id(schemas)] = (schemas, list(tools))
        self._by_name.update((tool.name, tool) for tool in tools)
        return self.bind(tools=schemas, **kwargs)

    def _tools_for(self, schemas: list[dict[str, Any]]) -> list[Any]:
        hit = self._bound.get(id(schemas))
        if hit is not None and hit[0] is schemas:
            return hit[1]
        # A binding older than the ones remembered: the latest tools of those names.
        names = [s.get("function", s).get("name") for s in schemas]
        return [self._by_name[n] for n in names if n in self._by_name]

    async def aclose(self) -> None:
        link, self._link = self._link, None
        if link is not None:
            await link.aclose()

    async def _agent(self) -> AgentLink:
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:  # two sessions' first calls start one agent
            if self._link is None or not self._link.alive:
                if self._link is not None:
                    await self._link.aclose()
                self._link = await AgentLink.start(self.command, self._env, self.cwd,
                                                   self.timeout)
            return self._link

    async def _vendor_stream(self, messages: list[BaseMessage], tools: list[dict[str, Any]],
                             stop: list[str] | None, state: StreamState
                             ) -> AsyncIterator[AIMessageChunk]:
        link = await self._agent()
        seam = current_seam()
        relay = await ToolRelay(self._tools_for(tools), tools, seam).start() if tools else None
        try:
            session_id = await self._new_session(link, relay)
            sink = link.client.sinks[session_id] = CallSink(seam, Path(self.cwd or os.getcwd()))
            try:
                async for chunk in self._prompt(link, session_id, sink, messages, relay, state):
                    yield chunk
            finally:
                link.client.sinks.pop(session_id, None)
        finally:
            if relay is not None:
                await relay.aclose()

    async def _new_session(self, link: AgentLink, relay: ToolRelay | None) -> str:
        from acp.schema import McpServerStdio

        servers: list[Any] = [McpServerStdio.model_validate(relay.entry())] if relay else []
        meta: dict[str, Any] = {"disableBuiltInTools": True} if relay else {}  # as 0.15.1 asks
        try:
            reply = await asyncio.wait_for(link.conn.new_session(
                cwd=str(Path(self.cwd or os.getcwd()).resolve()), mcp_servers=servers, **meta),
                self.timeout)
        except BaseException as exc:
            raise await link.failure("session/new", exc, self.timeout) from None
        return str(reply.session_id)

    async def _prompt(self, link: AgentLink, session_id: str, sink: CallSink,
                      messages: list[BaseMessage], relay: ToolRelay | None,
                      state: StreamState) -> AsyncIterator[AIMessageChunk]:
        from acp import text_block

        prompt = asyncio.ensure_future(link.conn.prompt(
            session_id=session_id, prompt=[text_block(conversation_text(messages))]))
        state.started = True
        try:
            while not prompt.done() or not sink.text.empty():
                text = await self._next_text(link, sink, prompt, relay)
                if text:
                    yield AIMessageChunk(content=text)
            reply = prompt.result()
        except BaseException as exc:
            if not prompt.done():  # a cancelled turn, or an agent that went quiet
                await _cancel(link, session_id, prompt)
            if isinstance(exc, (asyncio.CancelledError, GeneratorExit, ProviderError)):
                raise
            raise await link.failure("session/prompt", exc, self.timeout) from None
        state.finish_reason = self._finish(str(reply.stop_reason))
        state.usage = self._usage(reply, sink, messages, state)

    async def _next_text(self, link: AgentLink, sink: CallSink, prompt: asyncio.Future[Any],
                         relay: ToolRelay | None) -> str | None:
        """The next streamed text, None when the prompt ended; raises on a silent agent."""
        while True:
            if not sink.text.empty():
                return sink.text.get_nowait()
            if prompt.done():
                prompt.result()  # its failure, if any
                return None
            getter = asyncio.ensure_future(sink.text.get())
            try:
                done, _ = await asyncio.wait({getter, prompt}, timeout=self.timeout,
                                             return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not getter.done():
                    getter.cancel()
            if getter in done:
                return getter.result()
            if prompt in done:
                continue
            if sink.heard.is_set() or (relay is not None and relay.busy):
                sink.heard.clear()  # busy, not silent: wait another period
                continue
            raise ProviderError(f"acp: {link.name} sent nothing for {self.timeout:g}s — "
                                f"{RETRY_HINT}", retryable=True)

    def _finish(self, stop_reason: str) -> str:
        if stop_reason == "refusal":
            raise ProviderError(f"acp: {self.model_name} refused to answer (stop reason refusal)")
        if stop_reason == "cancelled":
            raise ProviderError(f"acp: {self.model_name} cancelled its reply — {RETRY_HINT}",
                                retryable=True)
        if stop_reason == "max_turn_requests":
            log.warning("acp: %s stopped at its own limit of requests in a turn",
                        self.model_name)
        return STOP_REASONS.get(stop_reason, "stop")

    def _usage(self, reply: Any, sink: CallSink, messages: list[BaseMessage],
               state: StreamState) -> dict[str, Any]:
        """The prompt's own usage, else the agent's context size as the input, else estimates."""
        usage = getattr(reply, "usage", None)
        if usage is not None:
            return dict(usage_metadata(usage.input_tokens, usage.output_tokens,
                                       cache_read=usage.cached_read_tokens,
                                       cache_creation=usage.cached_write_tokens))
        estimated = self._estimated_usage(messages, None, state)
        if sink.usage.get("used"):
            return dict(usage_metadata(sink.usage["used"], estimated["output_tokens"]))
        return estimated


async def _cancel(link: AgentLink, session_id: str, prompt: asyncio.Future[Any]) -> None:
    """`session/cancel`, then a short wait for the agent to end the prompt (it answers
    `cancelled`); an agent that does not is left to the next call's clean start."""
    with contextlib.suppress(Exception):
        await asyncio.wait_for(link.conn.cancel(session_id=session_id), 1.0)
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(asyncio.shield(prompt), 2.0)
    if not prompt.done():
        prompt.cancel()


__all__ = ["ACPChatModel", "AgentLink"]
