"""One MCP server connection, owned by one task for its whole life.

anyio cancel scopes (inside stdio_client, ClientSession, the HTTP transports) must be entered
and exited by the same task, so a single owner task opens the transport and the session,
waits until asked to stop or until the server goes away, then closes both. Tool calls from
any other task go through the session's streams, which is safe.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import time
from collections.abc import Callable
from contextlib import AsyncExitStack
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.mcp.config import ServerSpec
from birdie_tui.mcp.errlog import ServerLog
from birdie_tui.mcp.errors import MCPCallError, describe_failure
from birdie_tui.secrets import scrub

if TYPE_CHECKING:
    from mcp.client.session import LoggingFnT

NOT_STARTED, STARTING, RUNNING, FAILED, EXITED, STOPPED = (
    "not started", "starting", "running", "failed", "exited", "stopped")
STOP_TIMEOUT = 8.0  # stdio_client itself waits 2 s, then terminates the process tree


class ServerConnection:
    def __init__(self, spec: ServerSpec, *, log_path: Path, start_timeout: float,
                 restarts: int = 0,
                 on_failed: Callable[[ServerConnection], None] | None = None):
        self.spec = spec
        self.log_path = log_path
        self.start_timeout = start_timeout
        self.restarts = restarts
        self.on_failed = on_failed  # a start failed (not one we stopped): remember it
        self.state = NOT_STARTED
        self.error: str | None = None
        self.failed_at: float | None = None  # monotonic
        self.retry_wall: float | None = None  # epoch seconds the failure is remembered until
        self.inherited_from: float | None = None  # epoch: the failure of an earlier run
        self.tools: list[Any] = []  # mcp.types.Tool, as listed at start
        self.lc_tools: list[Any] | None = None  # their LangChain wrappers (the manager's)
        self._session: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Future[None] | None = None
        self._stop = asyncio.Event()
        self._closed = asyncio.Event()  # the transport is gone: exit, crash or stop

    @property
    def alive(self) -> bool:
        return self.state == RUNNING and not self._closed.is_set()

    def fail(self, message: str) -> None:
        self.state, self.error, self.failed_at = FAILED, message, time.monotonic()

    # ------------------------------------------------------------------ lifecycle
    async def start(self) -> None:
        """Start (once) and wait until running or failed; never raises for server trouble.
        A caller cancelled while waiting leaves the start going on in the owner task."""
        if self._task is None:
            self.state = STARTING
            self._ready = asyncio.get_running_loop().create_future()
            # A fresh context: the owner outlives the turn that happened to start it.
            self._task = asyncio.get_running_loop().create_task(
                self._own(), name=f"mcp:{self.spec.skill}", context=contextvars.Context())
        assert self._ready is not None
        await asyncio.wait({self._ready})

    async def stop(self) -> None:
        task = self._task
        self._stop.set()
        if task is None or task.done():
            return
        if self.state == STARTING:  # nothing to close gracefully yet
            task.cancel()
        done, _ = await asyncio.wait({task}, timeout=STOP_TIMEOUT)
        if not done:  # a transport that will not close: cancel it in its own task
            task.cancel()
            await asyncio.wait({task}, timeout=STOP_TIMEOUT)

    async def _own(self) -> None:
        log = None
        try:
            # File work off the event loop: a LangGraph server (langgraph dev) refuses blocking
            # calls on its loop, and a slow disk should not freeze the TUI either.
            log = await asyncio.to_thread(self._open_log)
            async with AsyncExitStack() as stack:
                try:
                    async with asyncio.timeout(self.start_timeout):
                        session = await self._connect(stack, log)
                        await session.initialize()
                        self.tools = await _list_tools(session)
                except BaseException as exc:
                    # A transport's failing task cancels us first; its real error arrives
                    # when the exit stack unwinds, in the handler below.
                    if not isinstance(exc, asyncio.CancelledError):
                        self._fail_start(exc, log)
                    raise
                self._session, self.state = session, RUNNING
                self._resolve()
                await _first(self._stop.wait(), self._closed.wait())
        except BaseException as exc:  # noqa: BLE001 - recorded, never raised into a turn
            if self.state in (STARTING, NOT_STARTED):
                self._fail_start(exc, log)
            if isinstance(exc, (asyncio.CancelledError, KeyboardInterrupt, SystemExit)):
                raise
        finally:
            self._session = None
            self._closed.set()
            if self.state == RUNNING:
                self.state = STOPPED if self._stop.is_set() else EXITED
                if self.state == EXITED:
                    self.error = "the server exited; it restarts on next use"
                _note(log, "the server exited" if self.state == EXITED else "stopped")
            self._resolve()
            if log is not None:
                log.close()

    def _fail_start(self, exc: BaseException, log: Any) -> None:
        if self.state != FAILED:
            if log is not None:
                log.settle()  # the server's last words reach the file before they are quoted
            self.fail(describe_failure(exc, self.spec, self.start_timeout, self.log_path,
                                       log.start if log is not None else 0))
            _note(log, f"failed: {self.error}")
            if self.on_failed is not None and not self._stop.is_set():
                with contextlib.suppress(Exception):  # remembering is a nicety, never a crash
                    self.on_failed(self)
        self._resolve()

    def _resolve(self) -> None:
        if self._ready is not None and not self._ready.done():
            self._ready.set_result(None)

    async def _connect(self, stack: AsyncExitStack, log: Any) -> Any:
        import anyio
        from mcp import ClientSession
        from mcp.shared.message import SessionMessage

        spec = self.spec
        if spec.transport == "stdio":
            from mcp.client.stdio import StdioServerParameters, stdio_client

            from birdie_tui.mcp.guardian import wrap

            await asyncio.to_thread(_check_command, spec.command or "")
            # Under a guardian: the server dies with the app even if it never reads its stdin.
            command, args = wrap(spec.command or "", list(spec.args))
            params = StdioServerParameters(command=command, args=args,
                                           env=dict(spec.env) or None, cwd=spec.cwd)
            # stderr goes through a pipe into the capped log (mcp.errlog), never to the file.
            read, write = await stack.enter_async_context(
                stdio_client(params, errlog=log.stderr()))
            log.spawned()
        elif spec.transport == "sse":
            from mcp.client.sse import sse_client

            read, write = await stack.enter_async_context(
                sse_client(spec.url or "", headers=dict(spec.headers) or None))
        else:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            client = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(spec.headers) or None))
            read, write, _ = await stack.enter_async_context(
                streamable_http_client(spec.url or "", http_client=client))
        # Relay the server's messages so we notice the moment its stream ends (process exit,
        # dropped connection): the session alone would leave later requests hanging.
        relay_in, relay_out = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        tasks = await stack.enter_async_context(anyio.create_task_group())
        stack.callback(tasks.cancel_scope.cancel)  # runs after the session has closed
        tasks.start_soon(self._relay, read, relay_in)
        return await stack.enter_async_context(
            ClientSession(relay_out, write, logging_callback=self._server_log(log)))

    async def _relay(self, source: Any, sink: Any) -> None:
        try:
            async with sink:
                async for message in source:
                    await sink.send(message)
        except Exception:  # noqa: BLE001 - a broken stream is the same as an ended one
            pass
        finally:
            self._closed.set()

    def _server_log(self, log: Any) -> LoggingFnT:
        async def write(params: Any) -> None:  # MCP `notifications/message`
            _note(log, f"[{params.level}] {params.data}")
        return write

    def _open_log(self) -> ServerLog:
        from birdie_tui.store.paths import ensure_dir

        ensure_dir(self.log_path.parent)
        log = ServerLog(self.log_path)
        _note(log, f"starting {self.spec.transport}: {self.spec.target}")
        return log

    # ------------------------------------------------------------------ calls
    async def call(self, name: str, arguments: dict[str, Any], timeout: float) -> Any:
        """`tools/call` on the kept session; returns the raw CallToolResult."""
        from mcp.shared.exceptions import McpError
        from mcp.types import CONNECTION_CLOSED

        session = self._session
        if session is None or not self.alive:
            raise MCPCallError(f"the MCP server of {self.spec.skill} is not running")
        call = asyncio.ensure_future(session.call_tool(name, arguments))
        closed = asyncio.ensure_future(self._closed.wait())
        try:
            done, _ = await asyncio.wait({call, closed}, timeout=timeout,
                                         return_when=asyncio.FIRST_COMPLETED)
        finally:
            closed.cancel()
            if not call.done():
                call.cancel()
        if not done:
            await self._check_alive()
            raise MCPCallError(f"{name}: no answer from the MCP server after {timeout:g} s")
        exited = MCPCallError(f"{name}: the MCP server of {self.spec.skill} exited during the "
                              f"call; it restarts on next use (log: {self.log_path})")
        if call not in done:
            raise exited
        try:
            return call.result()
        except McpError as exc:
            if exc.error.code == CONNECTION_CLOSED:
                self._closed.set()
                raise exited from exc
            raise MCPCallError(f"{name}: {exc.error.message}") from exc
        except Exception as exc:  # transport trouble: reconnect on next use
            self._closed.set()
            raise MCPCallError(f"{name}: connection to the MCP server failed "
                               f"({type(exc).__name__}: {exc}); it restarts on next use") from exc

    async def _check_alive(self) -> None:
        """After a timed-out call: a server that cannot answer a ping is treated as dead."""
        session = self._session
        try:
            await asyncio.wait_for(session.send_ping(), 5.0)
        except Exception:  # noqa: BLE001
            self._closed.set()


def _check_command(command: str) -> None:
    if not os.path.isfile(command):
        raise FileNotFoundError(f"command not found: {command}")
    if not os.access(command, os.X_OK):
        raise PermissionError(f"cannot run {command}: permission denied")


async def _list_tools(session: Any) -> list[Any]:
    tools: list[Any] = []
    cursor = None
    while True:
        if cursor:
            from mcp.types import PaginatedRequestParams

            page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
        else:
            page = await session.list_tools()
        tools.extend(page.tools)
        cursor = page.nextCursor
        if not cursor:
            return tools


async def _first(*waits: Any) -> None:
    tasks = [asyncio.ensure_future(w) for w in waits]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in tasks:
            task.cancel()


def _note(log: Any, text: str) -> None:
    if log is None:
        return
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    with contextlib.suppress(OSError, ValueError):
        log.write(f"--- birdie {stamp} {scrub(text)}\n")
        log.flush()
