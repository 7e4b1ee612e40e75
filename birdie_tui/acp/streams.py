"""The protocol's byte streams: stdin and a private copy of stdout, with stdout itself sent
to stderr so that nothing else in the process (a library's print, a child that inherits the
descriptor) can write into the JSON-RPC stream an editor is reading.

Lines that are not JSON-RPC are answered here as JSON-RPC 2.0 says (parse error -32700,
invalid request -32600, id null): the SDK would log them and say nothing, or stop reading.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any

log = logging.getLogger("birdie_tui.acp")

LINE_LIMIT = 64 * 1024 * 1024  # bytes of one message (an embedded file can be large)


def claim_stdout() -> int:
    """A private descriptor for the protocol's output; fd 1 then goes to stderr."""
    sys.stdout.flush()
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    return protocol_fd


class _WriteProtocol(asyncio.BaseProtocol):
    """Flow control for the output pipe (what `StreamWriter.drain` waits on)."""

    def __init__(self) -> None:
        self._paused = False
        self._waiters: list[asyncio.Future[None]] = []

    def pause_writing(self) -> None:
        self._paused = True

    def resume_writing(self) -> None:
        self._paused = False
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)
        self._waiters.clear()

    def connection_lost(self, exc: Exception | None) -> None:
        self.resume_writing()

    async def _drain_helper(self) -> None:
        if self._paused:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            await waiter


async def open_streams(input_fd: int, output_fd: int
                       ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """(what the SDK reads: only well-formed requests, notifications and responses; the
    writer to the client). A task filters the raw input into the first."""
    loop = asyncio.get_running_loop()
    raw = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(raw),
                                 os.fdopen(input_fd, "rb", buffering=0, closefd=False))
    protocol = _WriteProtocol()
    transport, _ = await loop.connect_write_pipe(
        lambda: protocol, os.fdopen(output_fd, "wb", buffering=0))
    writer = asyncio.StreamWriter(transport, protocol, None, loop)
    checked = asyncio.StreamReader(limit=LINE_LIMIT)
    task = loop.create_task(_filter(raw, checked, writer), name="acp-input")
    checked._birdie_filter = task  # type: ignore[attr-defined] # kept alive with the reader
    return checked, writer


async def _filter(raw: asyncio.StreamReader, checked: asyncio.StreamReader,
                  writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            try:
                line = await raw.readline()
            except (asyncio.LimitOverrunError, ValueError):
                _answer(writer, -32700, "Parse error: message too long")
                await _skip_line(raw)
                continue
            if not line:
                break
            problem = _problem(line)
            if problem is None:
                checked.feed_data(line if line.endswith(b"\n") else line + b"\n")
            elif problem:
                code, message = problem
                _answer(writer, code, message)
    except Exception:  # noqa: BLE001 - the client is gone or the pipe broke: end the input
        log.exception("reading the ACP input failed")
    finally:
        checked.feed_eof()


async def _skip_line(raw: asyncio.StreamReader) -> None:
    """Drop the rest of an over-long line."""
    while True:
        chunk = await raw.read(65536)
        if not chunk or b"\n" in chunk:
            return


def _problem(line: bytes) -> tuple[int, str] | tuple[()] | None:
    """None: pass the line on; () : ignore it (blank); else the error to answer."""
    text = line.strip()
    if not text:
        return ()
    try:
        message: Any = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        log.warning("ACP input is not JSON: %.200r", text)
        return (-32700, "Parse error: not a JSON object")
    if not isinstance(message, dict):
        return (-32600, "Invalid Request: a message is a JSON object")
    if "method" not in message and "id" not in message:
        return (-32600, "Invalid Request: neither a method nor an id")
    if "method" in message and not isinstance(message["method"], str):
        return (-32600, "Invalid Request: method must be a string")
    return None


def _answer(writer: asyncio.StreamWriter, code: int, message: str) -> None:
    payload = {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
    writer.write((json.dumps(payload) + "\n").encode())
