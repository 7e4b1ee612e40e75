"""sse and streamable_http transports against FastMCP served on a loopback port."""

from __future__ import annotations

import pytest

from .conftest import mcp_skill, of_type, status_of, turn

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(("transport", "declared", "path"), [
    ("sse", "sse", "/sse"),
    ("streamable-http", "streamable_http", "/mcp"),
    ("streamable-http", "http", "/mcp"),  # the short alias
])
async def test_http_transports(skills_root, engine_for, http_server, transport, declared, path):
    """SSE and streamable HTTP servers run tool calls and keep their session across turns."""
    url = http_server(transport) + path
    mcp_skill(skills_root, "remote", {"transport": declared, "url": url})
    eng = await engine_for()
    events = await turn(eng, 'call add {"a": 2, "b": 40}')
    result = of_type(events, "tool_result")[0]
    assert (result.content, result.error) == ("42", False)
    status = status_of(eng, "remote")
    assert status.state == "running" and status.tools == ("add",)
    assert status.transport == ("sse" if declared == "sse" else "streamable_http")
    assert status.target == url and status.log_path.endswith("mcp-remote.log")
    events = await turn(eng, 'call add {"a": 1, "b": 1}')  # the kept session
    assert of_type(events, "tool_result")[0].content == "2"


async def test_headers_come_from_the_environment(skills_root, engine_for, http_server,
                                                 monkeypatch):
    """Header values come from environment variables and never show in the MCP status."""
    url = http_server("streamable-http", token="s3cret") + "/mcp"
    monkeypatch.setenv("LAB_TOKEN", "s3cret")
    mcp_skill(skills_root, "remote", {"transport": "http", "url": url,
                                      "headers": {"Authorization": "Bearer ${LAB_TOKEN}"}})
    eng = await engine_for()
    events = await turn(eng, 'call add {"a": 3, "b": 4}')
    assert of_type(events, "tool_result")[0].content == "7"
    assert all("s3cret" not in str(s) for s in eng.mcp_status())


async def test_wrong_token_and_dead_url_fail_cleanly(skills_root, engine_for, http_server):
    """A rejected token or an unreachable URL marks that server failed; the turn still ends."""
    from .conftest import free_port

    url = http_server("streamable-http", token="right") + "/mcp"
    mcp_skill(skills_root, "denied", {"transport": "http", "url": url,
                                      "headers": {"Authorization": "Bearer wrong"}})
    mcp_skill(skills_root, "nobody", {"transport": "sse",
                                      "url": f"http://127.0.0.1:{free_port()}/sse"})
    eng = await engine_for(mcp_start_timeout=10)
    events = await turn(eng, "hello")
    assert events[-1].type == "done"
    denied, nobody = status_of(eng, "denied"), status_of(eng, "nobody")
    assert denied.state == "failed" and "401" in denied.error
    assert nobody.state == "failed" and "cannot connect" in nobody.error
