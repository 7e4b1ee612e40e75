"""ACP `mcpServers` (the SDK's own models, parsed from the wire's JSON) as the door's rows,
and what cannot be used refused in one line."""

from __future__ import annotations

import pytest
from acp.schema import NewSessionRequest

from birdie_tui.acp.mcp_specs import BadMcpServer, mcp_capabilities, mcp_specs
from birdie_tui.mcp.given import GivenServer, stand_in
from birdie_tui.service.rows import McpServerSpec


def servers(*items: dict) -> list:
    """`mcpServers` as the SDK parses a `session/new` request's params."""
    return NewSessionRequest.model_validate({"cwd": "/work", "mcpServers": list(items)}).mcp_servers


def test_stdio_http_and_sse_servers_become_rows():
    """Each transport's fields carried over; env and header lists become dicts; the session's
    cwd goes with a stdio server."""
    specs = mcp_specs(servers(
        {"name": "fs", "command": "/usr/bin/fs-mcp", "args": ["--root", "."],
         "env": [{"name": "TOKEN", "value": "s3cret"}, {"name": "MODE", "value": "ro"}]},
        {"type": "http", "name": "api", "url": "https://mcp.example/mcp",
         "headers": [{"name": "Authorization", "value": "Bearer x"}]},
        {"type": "sse", "name": "old", "url": "http://127.0.0.1:9/sse", "headers": []},
    ), cwd="/work")
    assert specs == [
        McpServerSpec(name="fs", command="/usr/bin/fs-mcp", args=("--root", "."),
                      env={"TOKEN": "s3cret", "MODE": "ro"}, cwd="/work"),
        McpServerSpec(name="api", transport="http", url="https://mcp.example/mcp",
                      headers={"Authorization": "Bearer x"}),
        McpServerSpec(name="old", transport="sse", url="http://127.0.0.1:9/sse"),
    ]
    assert mcp_specs(None) == [] and mcp_specs([]) == []


@pytest.mark.parametrize("items, words", [
    ([{"name": "fs", "command": " ", "args": [], "env": []}], "'fs' has no command"),
    ([{"name": "", "command": "x", "args": [], "env": []}], "has no name"),
    ([{"type": "http", "name": "api", "url": "file:///etc/passwd", "headers": []}],
     "http:// or https://"),
    ([{"name": "fs", "command": "x", "args": [], "env": [{"name": "A=B", "value": "1"}]}],
     "bad env name 'A=B'"),
    ([{"type": "acp", "name": "inner", "serverId": "s1"}], "MCP over ACP is not supported"),
    ([{"name": "fs", "command": "x", "args": [], "env": []},
      {"name": "FS", "command": "y", "args": [], "env": []}], "two MCP servers are named"),
])
def test_what_cannot_be_used_is_refused_in_one_line(items, words):
    """No command, no name, a URL that is not http(s), a bad env name, MCP over ACP, a name
    given twice: each refused, one line naming the server."""
    with pytest.raises(BadMcpServer, match=words) as caught:
        mcp_specs(servers(*items))
    assert "\n" not in str(caught.value)


def test_capabilities_offer_http_and_sse():
    """`initialize` offers HTTP and SSE servers besides stdio, not MCP over ACP."""
    caps = mcp_capabilities()
    assert caps.http and caps.sse and not caps.acp


def test_a_given_server_stands_in_as_a_skill_no_file_can_name(tmp_path):
    """`acp:<name>`: a skill file's name never holds a colon, so none is shadowed; a relative
    command is taken against the server's cwd, else where tools run."""
    skill = stand_in(GivenServer(name="fs", command="bin/fs", args=("a",)), tmp_path)
    assert skill.name == "acp:fs" and skill.kind == "mcp" and skill.folder == tmp_path
    assert skill.mcp_server is not None and skill.mcp_server.cwd == str(tmp_path)
    assert not skill.permissions and not skill.requires_approval("anything")
    http = stand_in(GivenServer(name="api", transport="http", url="https://h/mcp"), tmp_path)
    assert http.mcp_server is not None and http.mcp_server.transport == "streamable_http"
