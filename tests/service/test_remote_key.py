"""The key a deployed LangGraph server asks for: $BIRDIE_SERVER_API_KEY goes out as x-api-key;
without it no key is sent (not even a LangSmith key found in the environment), and the key
never shows in what the user sees. A loopback HTTP server records what arrives."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from birdie_tui.secrets import scrub
from birdie_tui.service import BirdieError, remote_birdie

pytestmark = pytest.mark.integration


@pytest.fixture
def recorder():
    seen: list[dict[str, str]] = []

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            seen.append({k.lower(): v for k, v in self.headers.items()})
            body = json.dumps({"detail": "no such graph here"}).encode()
            self.send_response(404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = _answer

        def log_message(self, *args) -> None:  # keep the test output quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", seen
    server.shutdown()


@pytest.mark.parametrize("env, sent", [
    ({"BIRDIE_SERVER_API_KEY": "lsv2_birdie_test_key_0123456789"},
     "lsv2_birdie_test_key_0123456789"),
    ({}, None),
])
async def test_the_server_key_is_sent_only_when_given_for_it(recorder, env, sent, monkeypatch):
    """The catalog request carries the key given for the server, and only that one (the
    SDK would otherwise send a LangSmith key it finds in the environment); the failure (a
    server that is not Birdie's) is one line without it."""
    for name in ("LANGSMITH_API_KEY", "LANGGRAPH_API_KEY", "LANGCHAIN_API_KEY"):
        monkeypatch.setenv(name, "lsv2_not_for_this_server_98765")
    url, seen = recorder
    door = remote_birdie(url, environ={"BIRDIE_HOME": "/nonexistent-home", **env})
    with pytest.raises(BirdieError) as caught:
        await door.start()
    assert seen and seen[0].get("x-api-key") == sent
    for value in env.values():
        assert value not in scrub(str(caught.value))
    assert "\n" not in str(caught.value)
