"""The MCP client manager: one kept session per MCP skill, started on first use.

`tools_for(skill)` is the engine's MCP tool source (agent/toolbox.py), asked only for skills
the session's policy allows, before each model call. A server starts then, stays open for
the life of the engine, is restarted on the next use after it died, and is replaced when
its skill's `mcp_server` block changes. A server that cannot start marks its skill failed
(see `status`) and the turn goes on without its tools. The failure is remembered for
`retry_after` seconds (5 min), in this process and, through `failures.FailureMemory`, in the
next ones (`--print`), so a dead server does not cost its start timeout on every turn; it is
retried sooner on `restart`, when its skill is switched off and on, when its SKILL.MD or
server file is edited, or when its config changes. `start_all` starts several at once.

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
from birdie_tui.mcp.failures import FILE_NAME, Failure, FailureMemory
from birdie_tui.skills.models import Skill
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.mcp.connection import ServerConnection

DEFAULT_START_TIMEOUT = 15.0
DEFAULT_RETRY_AFTER = 300.0  # seconds a failed start is remembered ($BIRDIE_MCP_RETRY_AFTER)
SKILL_RETRY_HINT = (
    "switch the skill off and on, edit its SKILL.MD or /mcp restart it to retry now")
SCRIPT_SUFFIXES = (".py", ".js", ".mjs", ".cjs", ".ts", ".sh", ".rb", ".pl", ".jar")


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
    retry_at: float | None = None  # failed: when (epoch seconds) the next use starts it again

    def describe(self) -> str:
        if self.state == "running":
            return f"running · {counted(len(self.tools), 'tool')}"
        if self.state == "failed":
            when = f" · retried after {_clock(self.retry_at)}" if self.retry_at else ""
            return f"failed{when}: {self.error}"
        if self.state == "exited":
            return "exited · restarts on next use"
        return self.state


def log_file_name(skill: str) -> str:
    return "mcp-" + (re.sub(r"[^A-Za-z0-9._-]", "_", skill).strip("._") or "server") + ".log"


def retry_after_from(environ: Mapping[str, str]) -> float:
    try:
        value = float(environ.get("BIRDIE_MCP_RETRY_AFTER", "") or DEFAULT_RETRY_AFTER)
    except ValueError:
        return DEFAULT_RETRY_AFTER
    return value if value >= 0 else DEFAULT_RETRY_AFTER


class MCPManager:
    def __init__(self, logs_dir: Path, *, start_timeout: float = DEFAULT_START_TIMEOUT,
                 call_timeout: float = 120.0, retry_after: float | None = None,
                 environ: Mapping[str, str] = os.environ, failures_file: Path | None = None,
                 retry_hint: str = SKILL_RETRY_HINT):
        self.logs_dir = Path(logs_dir)
        self.retry_hint = retry_hint  # how to retry a failed server sooner, said in its row
        self.start_timeout = start_timeout
        self.call_timeout = call_timeout
        self.retry_after = retry_after if retry_after is not None else retry_after_from(environ)
        self.environ = environ
        # $BIRDIE_HOME/mcp_failures.json (logs_dir is $BIRDIE_HOME/logs)
        self.failures = FailureMemory(failures_file or self.logs_dir.parent / FILE_NAME,
                                      self.retry_after)
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
    async def start_all(self, skills: list[Skill]) -> None:
        """Start the servers of `skills` at once: two that hang cost one start timeout, not
        two. Returns when each is running or failed."""
        await asyncio.gather(*(self.connection(s) for s in skills if s.mcp_server is not None))

    async def connection(self, skill: Skill) -> ServerConnection | None:
        """The running connection for `skill`, started (or restarted) if needed; None if its
        server failed (now, or recently enough to be remembered)."""
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
            # Another process (an earlier --print) may have seen this server fail just now.
            stamp = _stamp(skill, spec)
            remembered = self.failures.recall(spec, stamp=stamp)
            restarts = 0
            if conn is not None:
                restarts = conn.restarts + (conn.state == "exited")
                await conn.stop()
            if remembered is not None:
                self._conns[key] = self._remembered(spec, remembered, restarts)
                return None
            conn = self._new_connection(spec, restarts, stamp)
            self._conns[key] = conn
            await conn.start()
            return conn if conn.alive else None

    def _retry_due(self, conn: ServerConnection) -> bool:
        return conn.failed_at is None or time.monotonic() - conn.failed_at >= self.retry_after

    def _new_connection(self, spec: ServerSpec, restarts: int,
                        stamp: int = 0) -> ServerConnection:
        from birdie_tui.mcp.connection import ServerConnection

        _quiet_mcp_logging(self.logs_dir)

        def remember(conn: ServerConnection) -> None:  # a start failed: the next runs know
            failure = self.failures.remember(conn.spec, conn.error or "", stamp=stamp)
            conn.retry_wall = failure.retry_at

        return ServerConnection(spec, log_path=self.logs_dir / log_file_name(spec.skill),
                                start_timeout=self.start_timeout, restarts=restarts,
                                on_failed=remember)

    def _remembered(self, spec: ServerSpec, failure: Failure, restarts: int) -> ServerConnection:
        """A connection that stays failed, as another process left it: nothing is started."""
        conn = self._new_connection(spec, restarts)
        conn.fail(failure.error)
        conn.failed_at = time.monotonic() - max(0.0, time.time() - failure.failed_at)
        conn.inherited_from, conn.retry_wall = failure.failed_at, failure.retry_at
        return conn

    def _forget_failure(self, name: str) -> None:
        """The next use of `name`'s server starts it, even if it failed a moment ago."""
        conn = self._conns.get(name.lower())
        self.failures.forget(conn.spec if conn is not None else None, skill=name)

    async def restart(self, skill: Skill) -> ServerConnection | None:
        """Stop the skill's server (if any) and start it again now (`/mcp restart`)."""
        key = skill.name.lower()
        async with self._locks.setdefault(key, asyncio.Lock()):
            self._forget_failure(skill.name)
            conn = self._conns.pop(key, None)
            if conn is not None:
                await conn.stop()
        return await self.connection(skill)

    async def forget(self, name: str) -> None:
        """Stop `name`'s server if it runs: its skill changed or went away (live reload). A
        remembered failure is forgotten: the edited skill starts at once on its next use."""
        key = name.lower()
        async with self._locks.setdefault(key, asyncio.Lock()):
            self._forget_failure(name)
            conn = self._conns.pop(key, None)
            if conn is not None:
                await conn.stop()

    async def retry(self, name: str) -> None:
        """A failed server of `name` starts on its next use, however recently it failed (it
        was asked for again); a running one is left alone."""
        key = name.lower()
        async with self._locks.setdefault(key, asyncio.Lock()):
            self._forget_failure(name)
            conn = self._conns.get(key)
            if conn is not None and conn.state == "failed":
                del self._conns[key]  # its start is over: nothing left to stop

    async def aclose(self) -> None:
        self._closed = True
        conns, self._conns = list(self._conns.values()), {}
        await asyncio.gather(*(c.stop() for c in conns), return_exceptions=True)

    # ------------------------------------------------------------------ state
    def status(self, skills: list[Skill], is_enabled: Callable[[Skill], bool]
               ) -> list[ServerStatus]:
        """One row per MCP skill: not started / running (tools) / failed (reason, remembered
        until when) / ... A failed server whose skill is seen switched off is forgotten, so
        switching it back on retries at once (the front end asks for rows after a toggle)."""
        rows = []
        for skill in skills:
            if skill.mcp_server is None:
                continue
            spec = resolve(skill, self.environ)
            key = skill.name.lower()
            conn = self._conns.get(key)
            if conn is not None and conn.spec != spec:
                conn = None  # config changed: a new server starts on next use
            enabled = is_enabled(skill)
            if conn is not None and conn.state == "failed" and not enabled:
                self._forget_failure(skill.name)
                del self._conns[key]  # its start is over: nothing left to stop
                conn = None
            known = conn if conn is not None and conn.state in ("running", "exited") else None
            names = tuple(safe_name(t.name) for t in known.tools) if known is not None else ()
            failed = conn if conn is not None and conn.state == "failed" else None
            rows.append(ServerStatus(
                skill=skill.name, transport=spec.transport, target=spec.target,
                state=conn.state if conn is not None else "not started",
                enabled=enabled, tools=names,
                error=(failed.error or "") + self._note(failed) if failed is not None else
                (conn.error if conn is not None else None),
                log_path=str(self.logs_dir / log_file_name(skill.name)),
                restarts=conn.restarts if conn is not None else 0,
                retry_at=self._retry_at(failed) if failed is not None else None))
        return rows

    def _retry_at(self, conn: ServerConnection) -> float:
        if conn.retry_wall is not None:
            return conn.retry_wall
        return time.time() + self.retry_after - (time.monotonic() - (conn.failed_at or 0.0))

    def _note(self, conn: ServerConnection) -> str:
        """Why a failed server is not being started, and how to start it sooner. The words
        stay the same for one failure (the front end tells each new failure once)."""
        if self.retry_after <= 0:
            return ""  # not remembered: the next use starts it again
        sooner = self.retry_hint
        if conn.inherited_from is not None:
            return (f" — remembered from a run at {_clock(conn.inherited_from)}: retried after "
                    f"{_clock(self._retry_at(conn))}; {sooner}")
        return f" — remembered for {_duration(self.retry_after)}, then retried; {sooner}"


def _stamp(skill: Skill, spec: ServerSpec) -> int:
    """The newest change to the skill's file, the server's command or its script: an edit
    retries at once, even in the next process. (Not every file argument: a server's own
    database or log changes all the time.)"""
    paths: list[str | Path] = [skill.path, *([spec.command] if spec.command else []),
             *(a for a in spec.args if os.path.isabs(a) and a.endswith(SCRIPT_SUFFIXES))]
    newest = 0
    for path in paths:
        try:
            newest = max(newest, os.stat(path).st_mtime_ns)
        except (OSError, ValueError):
            continue
    return newest


def _clock(epoch: float | None) -> str:
    return time.strftime("%H:%M:%S", time.localtime(epoch)) if epoch else "?"


def _duration(seconds: float) -> str:
    if seconds >= 90:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


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
