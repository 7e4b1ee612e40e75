"""The MCP client manager: one kept session per MCP skill, started on first use.

`tools_for(skill)` is the engine's MCP tool source (agent/toolbox.py), asked only for skills
the session's policy allows, before each model call. A server starts then, stays open for
the life of the engine, is restarted on the next use after it died, and is replaced when
its skill's `mcp_server` block changes. A server that cannot start marks its skill failed
(see `status`) and the turn goes on without its tools; it is retried after `retry_after`
seconds, on `restart`, or when its config changes.

Importing this module imports no MCP code: that happens when the first server starts.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.mcp.config import ServerSpec, resolve, safe_name
from birdie_tui.skills.models import Skill

if TYPE_CHECKING:
    from birdie_tui.mcp.connection import ServerConnection

DEFAULT_START_TIMEOUT = 15.0
DEFAULT_RETRY_AFTER = 30.0


@dataclass(frozen=True)
class ServerStatus:
    skill: str
    transport: str
    target: str  # command line or URL
    state: str  # not started | starting | running | failed | exited | stopped
    enabled: bool  # the skill is on for this session
    tools: tuple[str, ...] = ()  # names as the model sees them, once discovered
    error: str | None = None
    log_path: str | None = None
    restarts: int = 0

    def describe(self) -> str:
        if self.state == "running":
            return f"running · {len(self.tools)} tool(s)"
        if self.state == "failed":
            return f"failed: {self.error}"
        if self.state == "exited":
            return "exited · restarts on next use"
        return self.state


def log_file_name(skill: str) -> str:
    return "mcp-" + (re.sub(r"[^A-Za-z0-9._-]", "_", skill).strip("._") or "server") + ".log"


class MCPManager:
    def __init__(self, logs_dir: Path, *, start_timeout: float = DEFAULT_START_TIMEOUT,
                 call_timeout: float = 120.0, retry_after: float = DEFAULT_RETRY_AFTER,
                 environ: Mapping[str, str] = os.environ):
        self.logs_dir = Path(logs_dir)
        self.start_timeout = start_timeout
        self.call_timeout = call_timeout
        self.retry_after = retry_after
        self.environ = environ
        self._conns: dict[str, ServerConnection] = {}  # by skill name, lower-cased
        self._locks: dict[str, asyncio.Lock] = {}
        self._closed = False

    # ------------------------------------------------------------------ the tool source
    async def tools_for(self, skill: Skill) -> list[Any]:
        conn = await self.connection(skill)
        if conn is None:
            return []
        if conn.lc_tools is None:  # built once per connection: the list is fixed at start
            from birdie_tui.mcp.tools import make_mcp_tool

            def caller(name: str, args: dict[str, Any], _skill: Skill = skill,
                       _origin: ServerConnection = conn) -> Any:
                return self.call(_skill, name, args, origin=_origin)

            conn.lc_tools = [make_mcp_tool(t, skill.name, caller) for t in conn.tools]
        return list(conn.lc_tools)

    async def call(self, skill: Skill, name: str, arguments: dict[str, Any], *,
                   origin: ServerConnection | None = None) -> Any:
        """Call a tool of `skill`'s server, (re)starting it first if it died. A tool built
        before its skill's config changed uses the current server and never brings back the
        old config."""
        from birdie_tui.mcp.errors import MCPCallError

        current = self._conns.get(skill.name.lower())
        if origin is not None and current is not None and current is not origin:
            conn = current if current.alive else None
        else:
            conn = await self.connection(skill)
        if conn is None:
            current = self._conns.get(skill.name.lower())
            reason = current.error if current is not None else "not started"
            raise MCPCallError(f"{name}: the MCP server of {skill.name} is unavailable "
                               f"({reason})")
        return await conn.call(name, arguments, self.call_timeout)

    # ------------------------------------------------------------------ connections
    async def connection(self, skill: Skill) -> ServerConnection | None:
        """The running connection for `skill`, started (or restarted) if needed; None if its
        server failed."""
        if self._closed or skill.mcp_server is None:
            return None
        spec = resolve(skill, self.environ)
        key = skill.name.lower()
        lock = self._locks.setdefault(key, asyncio.Lock())
        async with lock:
            conn = self._conns.get(key)
            if conn is not None and conn.spec != spec:  # the skill file changed
                await conn.stop()
                conn = None
            if conn is not None and conn.alive:
                return conn
            if conn is not None and conn.state == "starting":
                await conn.start()  # a start a cancelled caller left behind
                return conn if conn.alive else None
            if conn is not None and conn.state == "failed" and not self._retry_due(conn):
                return None
            restarts = 0
            if conn is not None:
                restarts = conn.restarts + (conn.state == "exited")
                await conn.stop()
            conn = self._new_connection(spec, restarts)
            self._conns[key] = conn
            await conn.start()
            return conn if conn.alive else None

    def _retry_due(self, conn: ServerConnection) -> bool:
        return conn.failed_at is None or time.monotonic() - conn.failed_at >= self.retry_after

    def _new_connection(self, spec: ServerSpec, restarts: int) -> ServerConnection:
        from birdie_tui.mcp.connection import ServerConnection

        _quiet_mcp_logging(self.logs_dir)
        return ServerConnection(spec, log_path=self.logs_dir / log_file_name(spec.skill),
                                start_timeout=self.start_timeout, restarts=restarts)

    async def restart(self, skill: Skill) -> ServerConnection | None:
        """Stop the skill's server (if any) and start it again now (`/mcp restart`)."""
        key = skill.name.lower()
        async with self._locks.setdefault(key, asyncio.Lock()):
            conn = self._conns.pop(key, None)
            if conn is not None:
                await conn.stop()
        return await self.connection(skill)

    async def forget(self, name: str) -> None:
        """Stop `name`'s server if it runs: its skill changed or went away (live reload)."""
        key = name.lower()
        async with self._locks.setdefault(key, asyncio.Lock()):
            conn = self._conns.pop(key, None)
            if conn is not None:
                await conn.stop()

    async def aclose(self) -> None:
        self._closed = True
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)

    # ------------------------------------------------------------------ state
    def status(self, skills: list[Skill], is_enabled: Callable[[Skill], bool]
               ) -> list[ServerStatus]:
        """One row per MCP skill: not started / running (tools) / failed (reason) / ..."""
        rows = []
        for skill in skills:
            if skill.mcp_server is None:
                continue
            spec = resolve(skill, self.environ)
            conn = self._conns.get(skill.name.lower())
            if conn is not None and conn.spec != spec:
                conn = None  # config changed: a new server starts on next use
            known = conn is not None and conn.state in ("running", "exited")
            names = tuple(safe_name(t.name) for t in conn.tools) if known else ()
            rows.append(ServerStatus(
                skill=skill.name, transport=spec.transport, target=spec.target,
                state=conn.state if conn is not None else "not started",
                enabled=is_enabled(skill), tools=names,
                error=conn.error if conn is not None else None,
                log_path=str(self.logs_dir / log_file_name(skill.name)),
                restarts=conn.restarts if conn is not None else 0))
        return rows


def _quiet_mcp_logging(logs_dir: Path) -> None:
    """The MCP SDK logs through `logging`; Python's last-resort handler would print warnings
    onto the terminal (and over the TUI). Send them to a file instead."""
    logger = logging.getLogger("mcp")
    if logger.handlers:
        return
    from birdie_tui.store.logfile import LOG_FORMAT, ScrubbingFormatter
    from birdie_tui.store.paths import ensure_dir

    try:
        ensure_dir(logs_dir)
        handler: logging.Handler = logging.FileHandler(logs_dir / "mcp-client.log",
                                                       encoding="utf-8")
        handler.setFormatter(ScrubbingFormatter(LOG_FORMAT))
    except OSError:
        handler = logging.NullHandler()
    logger.addHandler(handler)
    logger.propagate = False
