"""The `mcpServers` of ACP `session/new` and `session/load` as the door's `McpServerSpec` rows.

stdio servers (name, command, args, env) and, as `mcp_capabilities()` tells the client, HTTP
and SSE servers (name, url, headers). The protocol's lists of name/value pairs become dicts;
a stdio server's relative command and arguments are taken against the session's `cwd`, as a
bare command is looked up on PATH (a command that does not exist fails when it is started and
its row says so). What cannot be used is refused with `BadMcpServer`, one line naming the
server: the agent answers the request with invalid params and starts nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from acp.schema import (AcpMcpServer, EnvVariable, HttpHeader, HttpMcpServer, McpCapabilities,
                        McpServerStdio, SseMcpServer)

from birdie_tui.service.rows import McpServerSpec

AcpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


class BadMcpServer(ValueError):
    """A server of `mcpServers` that cannot be used; the text is the one line to answer."""


def mcp_capabilities() -> McpCapabilities:
    """What `initialize` says of MCP: stdio always; HTTP (streamable) and SSE too. MCP over
    ACP itself (unstable in the protocol) is not offered."""
    return McpCapabilities(http=True, sse=True)


def mcp_specs(servers: Sequence[AcpServer] | None, *, cwd: str | None = None
              ) -> list[McpServerSpec]:
    """The door's rows for `servers` (None: the client gave none), in order. Raises
    BadMcpServer for the first one that cannot be used, or a name given twice."""
    specs: list[McpServerSpec] = []
    seen: set[str] = set()
    for server in servers or ():
        spec = mcp_spec(server, cwd=cwd)
        if spec.name.lower() in seen:
            raise BadMcpServer(f"two MCP servers are named {spec.name!r}")
        seen.add(spec.name.lower())
        specs.append(spec)
    return specs


def mcp_spec(server: AcpServer, *, cwd: str | None = None) -> McpServerSpec:
    name = server.name.strip()
    if not name:
        raise BadMcpServer("an MCP server in mcpServers has no name")
    if isinstance(server, AcpMcpServer):
        raise BadMcpServer(f"MCP server {name!r}: MCP over ACP is not supported; "
                           "give a stdio, http or sse server")
    if isinstance(server, McpServerStdio):
        if not server.command.strip():
            raise BadMcpServer(f"MCP server {name!r} has no command")
        return McpServerSpec(name=name, transport="stdio", command=server.command,
                             args=tuple(server.args), env=_pairs(name, "env", server.env),
                             cwd=cwd)
    if not server.url.startswith(("http://", "https://")):
        raise BadMcpServer(f"MCP server {name!r} needs an http:// or https:// URL, "
                           f"not {server.url!r}")
    return McpServerSpec(name=name, transport="sse" if isinstance(server, SseMcpServer)
                         else "http", url=server.url,
                         headers=_pairs(name, "header", server.headers))


def _pairs(server: str, what: str, items: Iterable[EnvVariable | HttpHeader]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for item in items:
        if not item.name.strip() or (what == "env" and "=" in item.name):
            raise BadMcpServer(f"MCP server {server!r}: bad {what} name {item.name!r}")
        pairs[item.name] = item.value
    return pairs
