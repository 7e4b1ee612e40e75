"""A scripted loopback HTTP server: each request gets the next scripted reply (an SSE stream,
a JSON error, or a stream cut mid-way), and every request is recorded for shape checks.

SSE replies use chunked transfer encoding like real APIs, so a cut (no final 0-chunk) is a
real transport error for the client, not a clean end of body.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    status: int = 200
    events: list[str] = field(default_factory=list)  # SSE frames, each ending in a blank line
    body: Any = None  # JSON body for errors
    headers: dict[str, str] = field(default_factory=dict)
    cut_after: int | None = None  # close the socket after this many events
    delay: float = 0.0  # seconds before answering (timeout tests)
    gap: float = 0.0  # seconds between events (a paced stream)
    together: bool = False  # every event in one write (a reply sent all at once)

    @classmethod
    def error(cls, status: int, body: Any, **headers: str) -> Reply:
        return cls(status=status, body=body, headers=headers)


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up (timeout tests) is expected, not a test failure


class LoopbackServer:
    def __init__(self) -> None:
        self.replies: list[Reply] = []
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw.decode("utf-8", "replace")
                parts = urlsplit(self.path)
                with owner._lock:
                    owner.requests.append(Recorded(
                        "POST", parts.path, parse_qs(parts.query),
                        {k.lower(): v for k, v in self.headers.items()}, body))
                    reply = owner.replies.pop(0) if owner.replies else Reply.error(
                        500, {"error": {"message": "no scripted reply left"}})
                owner._send(self, reply)

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self.replies.extend(replies)

    def start(self) -> LoopbackServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    @staticmethod
    def _send(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        if reply.delay:
            time.sleep(reply.delay)
        if reply.body is not None or not reply.events:
            data = json.dumps(reply.body if reply.body is not None else {}).encode()
            handler.send_response(reply.status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(data)))
            for key, value in reply.headers.items():
                handler.send_header(key.replace("_", "-"), value)
            handler.end_headers()
            handler.wfile.write(data)
            handler.wfile.flush()
            return
        handler.send_response(reply.status)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        if reply.together:
            data = "".join(reply.events).encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n0\r\n\r\n")
            handler.wfile.flush()
            return
        for number, frame in enumerate(reply.events):
            if number and reply.gap:
                time.sleep(reply.gap)
            if reply.cut_after is not None and number >= reply.cut_after:
                handler.wfile.flush()
                handler.close_connection = True
                handler.connection.shutdown(2)  # no terminating chunk: a truncated body
                return
            data = frame.encode()
            handler.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
            handler.wfile.flush()
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
