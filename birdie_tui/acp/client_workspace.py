"""`ClientWorkspace`: an ACP client's files and terminals as a turn's `Workspace`.

The agent side of the connection (`acp.agent.connection.AgentSideConnection`, which behaves
like the protocol's `Client`) forwards `fs/read_text_file`, `fs/write_text_file` and
`terminal/*` to the editor. What the editor offered in `initialize` (`ClientCapabilities`)
sets the flags: a tool does in this process whatever the client does not offer
(`tools/workspace_calls.py`). The object is handed to the door with each prompt
(`Birdie.send(..., workspace=...)`); this module never reaches the tools.

A command runs in a terminal the client creates: its output is polled while it runs (each
poll's new text goes to `on_output`), and the terminal is killed on timeout or when the call
is cancelled, and always released. `on_terminal(call_id, terminal_id)` is told as soon as a
terminal exists, so the front end can show it in the tool call (a `terminal` content block).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from birdie_tui.service import RunResult, WorkspaceError  # the door names the seam

if TYPE_CHECKING:
    from acp.interfaces import Client
    from acp.schema import ClientCapabilities

log = logging.getLogger("birdie_tui.acp")
T = TypeVar("T")
POLL_SECONDS = 0.1  # how often a running command's output is read for `on_output`
TerminalHook = Callable[[str | None, str], None]  # (the model's call id, the terminal id)


class ClientWorkspace:
    """The `Workspace` (birdie_tui/workspace.py) of one ACP session, over its connection."""

    def __init__(self, conn: Client, session_id: str, caps: ClientCapabilities | None, *,
                 on_terminal: TerminalHook | None = None,
                 poll_seconds: float = POLL_SECONDS) -> None:
        self._conn, self._session = conn, session_id
        fs = caps.fs if caps is not None else None
        self._read = bool(fs and fs.read_text_file)
        self._write = bool(fs and fs.write_text_file)
        self._run = bool(caps is not None and caps.terminal)
        self._on_terminal = on_terminal
        self._poll = poll_seconds

    @property
    def can_read(self) -> bool:
        return self._read

    @property
    def can_write(self) -> bool:
        return self._write

    @property
    def can_run(self) -> bool:
        return self._run

    async def read_text(self, path: str) -> str:
        response = await _asked(f"read {path}", self._conn.read_text_file(
            session_id=self._session, path=path))
        return response.content

    async def write_text(self, path: str, content: str) -> None:
        await _asked(f"write {path}", self._conn.write_text_file(
            session_id=self._session, path=path, content=content))

    async def run(self, argv: list[str], *, cwd: str, env: dict[str, str],
                  timeout_s: float | None, output_limit: int,
                  on_output: Callable[[str], None] | None = None,
                  call_id: str | None = None) -> RunResult:
        from acp.schema import EnvVariable

        if not argv:
            raise WorkspaceError("no command to run")
        created = await _asked("start a terminal", self._conn.create_terminal(
            session_id=self._session, command=argv[0], args=list(argv[1:]), cwd=cwd,
            env=[EnvVariable(name=k, value=v) for k, v in env.items()],
            output_byte_limit=output_limit))
        terminal = created.terminal_id
        try:
            if self._on_terminal is not None:
                self._on_terminal(call_id, terminal)
            return await self._follow(terminal, timeout_s, on_output)
        except BaseException:  # cancelled (Esc, session/cancel), a hook's bug, the client gone
            await asyncio.shield(self._kill(terminal))
            raise
        finally:
            await asyncio.shield(self._release(terminal))

    async def _follow(self, terminal: str, timeout_s: float | None,
                      on_output: Callable[[str], None] | None) -> RunResult:
        """Wait for the command's end (killing it at `timeout_s`), polling its output for
        `on_output` meanwhile; then its whole output."""
        stream = _NewText(on_output)
        poller = asyncio.ensure_future(self._poll_output(terminal, stream)) if on_output else None
        timed_out = False
        exit_code: int | None = None
        signal: str | None = None
        try:
            async with asyncio.timeout(timeout_s):
                ended = await _asked("wait for the terminal", self._conn.wait_for_terminal_exit(
                    session_id=self._session, terminal_id=terminal))
            exit_code, signal = ended.exit_code, ended.signal
        except TimeoutError:
            timed_out = True
            await self._kill(terminal)
        finally:
            if poller is not None:
                poller.cancel()
                with contextlib.suppress(asyncio.CancelledError, WorkspaceError):
                    await poller
        output = await _asked("read the terminal", self._conn.terminal_output(
            session_id=self._session, terminal_id=terminal))
        stream.feed(output.output)
        return RunResult(output.output, None if timed_out else exit_code,
                         None if timed_out else signal, output.truncated, timed_out)

    async def _poll_output(self, terminal: str, stream: _NewText) -> None:
        while True:
            await asyncio.sleep(self._poll)
            output = await _asked("read the terminal", self._conn.terminal_output(
                session_id=self._session, terminal_id=terminal))
            stream.feed(output.output)
            if output.exit_status is not None:
                return

    async def _kill(self, terminal: str) -> None:
        try:
            await self._conn.kill_terminal(session_id=self._session, terminal_id=terminal)
        except Exception as exc:  # noqa: BLE001 - already ended, or the client is gone
            log.info("could not kill terminal %s: %s", terminal, exc)

    async def _release(self, terminal: str) -> None:
        try:
            await self._conn.release_terminal(session_id=self._session, terminal_id=terminal)
        except Exception as exc:  # noqa: BLE001 - the client is gone: nothing left to free
            log.info("could not release terminal %s: %s", terminal, exc)


class _NewText:
    """Hands `on_output` what a terminal printed since the last poll. The client keeps the
    last bytes of a long output (the start is dropped), so when the text seen last is no
    longer a prefix, the new part starts after the longest end of it the output begins with
    (best effort: output that repeats itself exactly may be heard short)."""

    def __init__(self, on_output: Callable[[str], None] | None) -> None:
        self._on_output = on_output
        self._seen = ""

    def feed(self, output: str) -> None:
        if self._on_output is None or output == self._seen:
            return
        if output.startswith(self._seen):
            new = output[len(self._seen):]
        else:
            new = output[_overlap(self._seen, output):]
        self._seen = output
        if new:
            self._on_output(new)


def _overlap(seen: str, output: str) -> int:
    """The length of the longest end of `seen` that `output` starts with (a prefix function
    over output + seen: linear, where trying each length would be quadratic)."""
    text = output + "\x00" + seen
    border = [0] * len(text)
    for i in range(1, len(text)):
        k = border[i - 1]
        while k and text[i] != text[k]:
            k = border[k - 1]
        border[i] = k + 1 if text[i] == text[k] else k
    return min(border[-1], len(output))


async def _asked(what: str, request: Awaitable[T]) -> T:
    """The client's answer to `request`; its refusal (or its absence) as a `WorkspaceError`."""
    try:
        return await request
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        raise WorkspaceError(f"the editor could not {what}: {_reason(exc)}") from exc


def _reason(exc: Exception) -> str:
    data = getattr(exc, "data", None)  # acp.RequestError: the client's details, if any
    details = data.get("details") or data.get("message") if isinstance(data, dict) else None
    text = f"{exc} ({details})" if isinstance(details, str) and details else str(exc)
    text = " ".join(text.split()) or type(exc).__name__
    return text[:300]


__all__ = ["POLL_SECONDS", "ClientWorkspace", "TerminalHook"]


if TYPE_CHECKING:
    from birdie_tui.service import Workspace

    def _a_workspace(workspace: ClientWorkspace) -> Workspace:  # mypy checks it is one
        return workspace
