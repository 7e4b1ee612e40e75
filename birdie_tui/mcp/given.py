"""MCP servers a front end gives one session (an editor's `mcpServers` in ACP `session/new`).

Each given server stands in as a skill of its own, `acp:<name>`, that no SKILL.MD declares: it
is on for its session only and never in the registry, so no other session sees its tools. Its
server runs exactly as a skill's does: one `MCPManager` per session (its own connections, so two
sessions may give servers of the same name), the same start and call timeouts, restarts,
remembered failures, capped logs and guardian. The servers are keyed by session id: they
outlive a switch to another session and back, and stop when the session is deleted, when its
client gives another list (`attach`, an empty list stops them all) and when the agent closes.

No MCP import here: the manager imports the SDK when the first server starts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from birdie_tui.mcp.manager import MCPManager, ServerStatus
from birdie_tui.skills.models import MCPServerConfig, Skill

PREFIX = "acp:"  # a skill's name never holds ":", so a given server never shadows a skill
TRANSPORTS = ("stdio", "http", "sse")
GIVEN_RETRY_HINT = (
    "open the session again (its client gives the server again) or /mcp restart it to retry now")


@dataclass(frozen=True)
class GivenServer:
    """One server as the client described it (`transport` is stdio, http or sse)."""

    name: str
    transport: str = "stdio"
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None  # relative commands and arguments are taken against it
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def problem(self) -> str | None:
        """Why this server cannot be used, in one line; None when it can."""
        if not self.name.strip():
            return "an MCP server without a name"
        if self.transport not in TRANSPORTS:
            return f"MCP server {self.name!r}: unknown transport {self.transport!r}"
        if self.transport == "stdio" and not (self.command or "").strip():
            return f"MCP server {self.name!r} has no command"
        if self.transport != "stdio" and not (self.url or "").startswith(("http://", "https://")):
            return f"MCP server {self.name!r} needs an http:// or https:// URL, not {self.url!r}"
        return None


def stand_in(server: GivenServer, workdir: Path, prefix: str = PREFIX) -> Skill:
    """The skill a given server runs as (its folder: where relative paths are resolved)."""
    folder = Path(server.cwd).expanduser() if server.cwd else workdir
    config = MCPServerConfig(
        transport="streamable_http" if server.transport == "http" else server.transport,
        command=server.command, args=list(server.args), env=dict(server.env),
        cwd=str(folder), url=server.url, headers=dict(server.headers))
    return Skill(name=prefix + server.name,
                 description=f"Tools of the MCP server {server.name!r} given by the client.",
                 path=folder / f"({prefix}{server.name})", tags=["mcp"], mcp_server=config)


class SessionServers:
    """The servers given to one session: their stand-in skills and the manager running them."""

    def __init__(self, manager: MCPManager) -> None:
        self.manager = manager
        self._skills: list[Skill] = []

    def skills(self) -> list[Skill]:
        return list(self._skills)

    def find(self, name: str) -> Skill | None:
        wanted = name.lower()
        return next((s for s in self._skills if s.name.lower() == wanted), None)

    async def tools_for(self, skill: Skill) -> list[Any]:
        return await self.manager.tools_for(skill)

    def status(self) -> list[ServerStatus]:
        return self.manager.status(self._skills, lambda _skill: True)

    async def replace(self, skills: list[Skill], *, start: bool) -> None:
        """Serve `skills` from now on: a server given again unchanged keeps running, a changed
        one restarts on its next use, one no longer given stops. A failure remembered from
        before is forgotten: giving a server again is asking for it again."""
        kept = {s.name.lower() for s in skills}
        gone = [s.name for s in self._skills if s.name.lower() not in kept]
        await asyncio.gather(*(self.manager.forget(name) for name in gone))
        await asyncio.gather(*(self.manager.retry(s.name) for s in skills))
        self._skills = list(skills)
        if start:
            await self.manager.start_all(self._skills)

    async def restart(self, skill: Skill) -> ServerStatus:
        await self.manager.restart(skill)
        return next(s for s in self.status() if s.skill == skill.name)

    async def aclose(self) -> None:
        await self.manager.aclose()


class GivenServers:
    """Every session's given servers, by session id (one per agent, shared by its views)."""

    def __init__(self, new_manager: Callable[[], MCPManager]) -> None:
        self._new_manager = new_manager
        self._sessions: dict[str, SessionServers] = {}

    def of(self, session_id: str | None) -> SessionServers | None:
        return self._sessions.get(session_id) if session_id is not None else None

    async def attach(self, session_id: str, servers: Sequence[GivenServer], *, workdir: Path,
                     start: bool = True, prefix: str = PREFIX) -> SessionServers | None:
        """Give `session_id` exactly `servers` (an empty list stops the ones it had). Raises
        ValueError, nothing changed, for a server that cannot be used or a name given twice."""
        names: set[str] = set()
        for server in servers:
            problem = server.problem()
            if problem is None and server.name.lower() in names:
                problem = f"two MCP servers are named {server.name!r}"
            if problem is not None:
                raise ValueError(problem)
            names.add(server.name.lower())
        if not servers:
            await self.detach(session_id)
            return None
        held = self._sessions.get(session_id)
        if held is None:
            held = self._sessions[session_id] = SessionServers(self._new_manager())
        await held.replace([stand_in(s, workdir, prefix) for s in servers], start=start)
        return held

    def rename(self, old: str, new: str) -> None:
        """A new session's provisional id was taken when it was written: it keeps its servers."""
        if old != new and old in self._sessions:
            self._sessions[new] = self._sessions.pop(old)

    async def detach(self, session_id: str) -> None:
        held = self._sessions.pop(session_id, None)
        if held is not None:
            await held.aclose()

    async def aclose(self) -> None:
        held, self._sessions = list(self._sessions.values()), {}
        await asyncio.gather(*(h.aclose() for h in held), return_exceptions=True)
