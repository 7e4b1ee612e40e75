"""`ClientWorkspace` over a real ACP connection: the SDK's own client side
(`acp.connect_to_agent`) and agent side, joined by a Unix socket, with a client that really
reads and writes files in a folder and really runs terminals as subprocesses. The capabilities
come from a real `initialize`; reads, writes, a command with streamed output, a timeout kill
and a cancelled call (killed and released) are checked against what the client saw."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError, connect_to_agent
from acp.agent.connection import AgentSideConnection
from acp.schema import (ClientCapabilities, CreateTerminalResponse, EnvVariable, FileSystemCapabilities,
                        InitializeResponse, KillTerminalResponse, NewSessionResponse, ReadTextFileResponse,
                        ReleaseTerminalResponse, TerminalExitStatus, TerminalOutputResponse,
                        WaitForTerminalExitResponse, WriteTextFileResponse)

from birdie_tui.acp.client_workspace import ClientWorkspace
from birdie_tui.workspace import WorkspaceError


@dataclass
class Terminal:
    proc: asyncio.subprocess.Process
    limit: int | None
    output: bytearray = field(default_factory=bytearray)
    truncated: bool = False
    reader: asyncio.Task[None] | None = None


class FolderClient:
    """An ACP client (editor) over a real folder and real processes."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.terminals: dict[str, Terminal] = {}
        self.created: list[dict[str, Any]] = []
        self.killed: list[str] = []
        self.released: list[str] = []

    def _inside(self, path: str) -> Path:
        p = Path(path)
        if not p.is_absolute() or self.root not in p.parents:
            raise RequestError.invalid_params({"details": f"{path} is outside the project"})
        return p

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kw: Any) -> ReadTextFileResponse:
        try:
            return ReadTextFileResponse(content=self._inside(path).read_text())
        except FileNotFoundError:
            raise RequestError.resource_not_found(path) from None

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kw: Any) -> WriteTextFileResponse:
        self._inside(path).write_text(content)
        return WriteTextFileResponse()

    async def create_terminal(self, session_id: str, command: str, args: list[str] | None = None,
                              env: list[EnvVariable] | None = None, cwd: str | None = None,
                              output_byte_limit: int | None = None, **kw: Any) -> CreateTerminalResponse:
        self.created.append({"command": command, "args": args, "cwd": cwd,
                             "env": {e.name: e.value for e in env or []}, "limit": output_byte_limit})
        proc = await asyncio.create_subprocess_exec(
            command, *(args or []), cwd=cwd, env={**os.environ, **{e.name: e.value for e in env or []}},
            stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True)
        term = Terminal(proc, output_byte_limit)
        term.reader = asyncio.ensure_future(self._pump(term))
        tid = f"term-{len(self.terminals) + 1}"
        self.terminals[tid] = term
        return CreateTerminalResponse(terminal_id=tid)

    async def _pump(self, term: Terminal) -> None:
        assert term.proc.stdout is not None
        while chunk := await term.proc.stdout.read(4096):
            term.output += chunk
            if term.limit is not None and len(term.output) > term.limit:  # keep the end
                del term.output[:len(term.output) - term.limit]
                term.truncated = True

    def _status(self, term: Terminal) -> TerminalExitStatus | None:
        rc = term.proc.returncode
        if rc is None:
            return None
        return TerminalExitStatus(exit_code=rc if rc >= 0 else None,
                                  signal=signal.Signals(-rc).name if rc < 0 else None)

    async def terminal_output(self, session_id: str, terminal_id: str, **kw: Any) -> TerminalOutputResponse:
        term = self.terminals[terminal_id]
        return TerminalOutputResponse(output=term.output.decode(errors="replace"),
                                      truncated=term.truncated, exit_status=self._status(term))

    async def wait_for_terminal_exit(self, session_id: str, terminal_id: str,
                                     **kw: Any) -> WaitForTerminalExitResponse:
        term = self.terminals[terminal_id]
        await term.proc.wait()
        if term.reader is not None:
            await term.reader
        status = self._status(term)
        assert status is not None
        return WaitForTerminalExitResponse(exit_code=status.exit_code, signal=status.signal)

    async def kill_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> KillTerminalResponse:
        self.killed.append(terminal_id)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.terminals[terminal_id].proc.pid, signal.SIGKILL)
        await self.terminals[terminal_id].proc.wait()
        return KillTerminalResponse()

    async def release_terminal(self, session_id: str, terminal_id: str, **kw: Any) -> ReleaseTerminalResponse:
        self.released.append(terminal_id)
        term = self.terminals.pop(terminal_id)
        if term.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(term.proc.pid, signal.SIGKILL)
        return ReleaseTerminalResponse()

    async def request_permission(self, *a: Any, **kw: Any) -> Any:
        raise RequestError.method_not_found("session/request_permission")

    async def session_update(self, session_id: str, update: Any, **kw: Any) -> None:
        return None


class CapsAgent:
    """Just enough agent to be initialized and asked for a session: it keeps the client's
    capabilities as `initialize` brought them."""

    caps: ClientCapabilities | None = None

    async def initialize(self, protocol_version: int, client_capabilities: ClientCapabilities | None = None,
                         client_info: Any = None, **kw: Any) -> InitializeResponse:
        self.caps = client_capabilities
        return InitializeResponse(protocol_version=protocol_version)

    async def new_session(self, cwd: str, mcp_servers: Any = None, **kw: Any) -> NewSessionResponse:
        return NewSessionResponse(session_id="s-1")


@dataclass
class Wired:
    client: FolderClient
    agent_side: AgentSideConnection
    caps: ClientCapabilities | None
    session: str


@contextlib.asynccontextmanager
async def wired(root: Path, caps: ClientCapabilities):
    """The SDK's client and agent connections over a Unix socket, initialized, one session."""
    agent, client = CapsAgent(), FolderClient(root)
    joined: asyncio.Future[AgentSideConnection] = asyncio.get_running_loop().create_future()

    async def accepted(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        joined.set_result(AgentSideConnection(agent, writer, reader))

    sock = str(root / "acp.sock")
    server = await asyncio.start_unix_server(accepted, sock)
    reader, writer = await asyncio.open_unix_connection(sock)
    client_side = connect_to_agent(client, writer, reader)
    agent_side = await asyncio.wait_for(joined, 10)
    try:
        await client_side.initialize(protocol_version=1, client_capabilities=caps)
        session = (await client_side.new_session(cwd=str(root), mcp_servers=[])).session_id
        yield Wired(client, agent_side, agent.caps, session)
    finally:
        for term in client.terminals.values():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(term.proc.pid, signal.SIGKILL)
        await client_side.close()
        await agent_side.close()
        server.close()


ALL = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                         terminal=True)


async def test_the_flags_follow_what_initialize_offered(tmp_path):
    """A client offering nothing gives a workspace that does nothing; one offering all, all."""
    async with wired(tmp_path, ClientCapabilities()) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps)
        assert (ws.can_read, ws.can_write, ws.can_run) == (False, False, False)
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps)
        assert (ws.can_read, ws.can_write, ws.can_run) == (True, True, True)


async def test_reads_and_writes_go_through_the_client(tmp_path):
    """A write lands where the client puts it, a read returns the client's text, and the
    client's refusal is a one-line WorkspaceError with its reason."""
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps)
        await ws.write_text(str(tmp_path / "a.txt"), "héllo\n")
        assert (tmp_path / "a.txt").read_text() == "héllo\n"
        assert await ws.read_text(str(tmp_path / "a.txt")) == "héllo\n"
        with pytest.raises(WorkspaceError) as refused:
            await ws.read_text("/etc/passwd")
        assert "the editor could not read /etc/passwd" in str(refused.value)
        assert "outside the project" in str(refused.value) and "\n" not in str(refused.value)


async def test_a_command_runs_in_a_client_terminal_with_its_output_streamed(tmp_path):
    """argv, cwd, env and the byte limit reach the terminal as given; output arrives in pieces
    while it runs, the exit code at the end; the terminal is told, then released."""
    told: list[tuple[str | None, str]] = []
    heard: list[str] = []
    script = 'for i in 1 2 3; do echo "line $i $BIRDIE_ARG_0_x"; sleep 0.3; done; exit 3'
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps,
                             on_terminal=lambda call, term: told.append((call, term)),
                             poll_seconds=0.05)
        result = await ws.run(["bash", "-c", script], cwd=str(tmp_path),
                              env={"BIRDIE_ARG_0_x": "$(nope) two words"}, timeout_s=20,
                              output_limit=4096, on_output=heard.append, call_id="call-1")
        assert (result.exit_code, result.timed_out, result.truncated) == (3, False, False)
        assert result.output == "".join(f"line {i} $(nope) two words\n" for i in (1, 2, 3))
        assert "".join(heard) == result.output and len(heard) >= 2
        assert w.client.created == [{"command": "bash", "args": ["-c", script], "cwd": str(tmp_path),
                                     "env": {"BIRDIE_ARG_0_x": "$(nope) two words"}, "limit": 4096}]
        assert told == [("call-1", "term-1")] and w.client.released == ["term-1"]
        assert w.client.killed == []


async def test_a_command_over_its_time_is_killed_and_released(tmp_path):
    """At timeout_s the terminal is killed, the partial output kept, and it is released."""
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps)
        result = await ws.run(["bash", "-c", "echo started; sleep 30"], cwd=str(tmp_path), env={},
                              timeout_s=0.5, output_limit=4096)
        assert (result.timed_out, result.exit_code, result.output) == (True, None, "started\n")
        assert w.client.killed == ["term-1"] and w.client.released == ["term-1"]
        assert w.client.terminals == {}


async def test_a_cancelled_call_kills_and_releases_its_terminal(tmp_path):
    """Cancelling the call (Esc, session/cancel) kills the command and releases the terminal."""
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps)
        marker = tmp_path / "started"
        call = asyncio.ensure_future(ws.run(
            ["bash", "-c", f"touch {marker}; sleep 30"], cwd=str(tmp_path), env={}, timeout_s=60,
            output_limit=4096, on_output=lambda text: None))
        for _ in range(200):
            if marker.exists():
                break
            await asyncio.sleep(0.05)
        proc = w.client.terminals["term-1"].proc
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert w.client.killed == ["term-1"] and w.client.released == ["term-1"]
        assert proc.returncode == -signal.SIGKILL


async def test_a_client_without_terminals_refuses_in_one_line(tmp_path):
    """A client that answers terminal/create with an error: a WorkspaceError, nothing left."""
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps)
        with pytest.raises(WorkspaceError, match="^the editor could not start a terminal: "):
            await ws.run([str(tmp_path / "missing-program")], cwd=str(tmp_path), env={},
                         timeout_s=5, output_limit=100)
        assert w.client.released == []


@pytest.mark.skipif(sys.platform != "linux", reason="process groups as on Linux")
async def test_a_long_output_is_cut_by_the_client_and_said(tmp_path):
    """The client keeps only `output_limit` bytes (the end): the result says it was cut, and
    what `on_output` heard ends with what was kept."""
    heard: list[str] = []
    async with wired(tmp_path, ALL) as w:
        ws = ClientWorkspace(w.agent_side, w.session, w.caps, poll_seconds=0.02)
        result = await ws.run(["bash", "-c", "for i in $(seq 1 400); do echo row-$i; sleep 0.001; done"],
                              cwd=str(tmp_path), env={}, timeout_s=20, output_limit=200,
                              on_output=heard.append)
        assert result.truncated and result.exit_code == 0 and result.output.endswith("row-400\n")
        assert len(result.output.encode()) <= 200 and "".join(heard).endswith(result.output[-50:])
        rows = [int(line[4:]) for line in "".join(heard).splitlines() if line.startswith("row-")]
        assert rows == sorted(set(rows)) and len(rows) > 20  # each heard once, in order
