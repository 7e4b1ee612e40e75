"""`birdie-tui acp`: Birdie as an Agent Client Protocol agent, on the door every front end uses.

One door (`Birdie`) serves every ACP session of the connection; an ACP session id is a Birdie
session id, so a session started in an editor opens in the TUI and the other way round. The
door shows one session at a time: every step that reads or changes a session shows it first,
under `_desk`, and a turn keeps running on its own session while another is shown (the door
parks it). A turn starts with its session's working directory; turns of sessions in other
directories wait for it (`turns.py`: tools run in the process's directory).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any

from acp import (
    PROTOCOL_VERSION,
    RequestError,
    tool_terminal_ref,
    update_agent_message_text,
    update_tool_call,
)
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    AvailableCommandsUpdate,
    ClientCapabilities,
    CloseSessionResponse,
    ConfigOptionUpdate,
    CurrentModeUpdate,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from birdie_tui import version
from birdie_tui.acp import commands
from birdie_tui.acp.client_workspace import ClientWorkspace, TerminalHook
from birdie_tui.acp.options import config_options, set_option
from birdie_tui.acp.mcp_specs import BadMcpServer, mcp_capabilities, mcp_specs
from birdie_tui.acp.permissions import SessionApprover
from birdie_tui.acp.prompt_text import prompt_text
from birdie_tui.acp.turns import FolderGate, TurnRelay
from birdie_tui.acp.updates import message_chunk, replay
from birdie_tui.modes import APPROVAL_MODES, ApprovalMode, approval_mode_of
from birdie_tui.service import Birdie, BirdieError
from birdie_tui.service.rows import McpRow, McpServerSpec

log = logging.getLogger("birdie_tui.acp")

PAGE = 50  # sessions per `session/list` page
MODE_TEXT: dict[ApprovalMode, tuple[str, str]] = {
    "ask": ("Ask", "Tools that need approval ask first"),
    "auto": ("Auto", "Tools that need approval run without asking"),
    "read-only": ("Read-only", "Tools that need approval never run"),
}


@dataclass
class AcpSession:
    id: str
    cwd: str
    mode: ApprovalMode
    approver: SessionApprover
    turn: asyncio.Task[PromptResponse] | None = None


class BirdieAgent:
    """The ACP agent (`acp.interfaces.Agent`); `server.run` wires it to stdio."""

    def __init__(self, door: Birdie, *, default_mode: ApprovalMode | None = None,
                 enable: Sequence[str] = (), disable: Sequence[str] = ()) -> None:
        self._door = door
        self._grants = ((tuple(enable), True), (tuple(disable), False))  # every new session
        self._default_mode = default_mode
        self._client: Client | None = None
        self._started: asyncio.Task[None] | None = None
        self._problems: tuple[str, ...] = ()
        self._sessions: dict[str, AcpSession] = {}
        self._desk = asyncio.Lock()
        self._turns = TurnRelay(door, self._desk, FolderGate(), self._send)
        self._client_caps: ClientCapabilities | None = None
        self._watch: asyncio.Task[None] | None = None
        self._with_servers: set[str] = set()  # sessions the client gave MCP servers
        self._pending_sends: set[asyncio.Task[None]] = set()  # held until sent

    # ------------------------------------------------------------------ life
    def on_connect(self, conn: Client) -> None:
        self._client = conn

    def _begin(self) -> asyncio.Task[None]:
        if self._started is None:
            self._started = asyncio.get_running_loop().create_task(self._start_door())
        return self._started

    async def _start_door(self) -> None:
        started = await self._door.start()
        self._problems = started.problems + started.warnings
        if self._default_mode is None:
            self._default_mode = self._door.approval_mode()
        # Each ACP session keeps its own mode (see permissions.py): the door always asks.
        self._door.set_approval_mode("ask")
        # Skill files are followed as in the TUI (and the log file opened with it).
        self._watch = asyncio.get_running_loop().create_task(self._door.watch_skills())

    async def _ready(self) -> None:
        try:
            await asyncio.shield(self._begin())
        except BirdieError as exc:
            raise RequestError.internal_error({"message": str(exc)}) from None

    async def aclose(self) -> None:
        """The client went away: every turn is cancelled (its history repaired), then the door
        closes (tool processes and MCP servers end with it)."""
        turns = [s.turn for s in self._sessions.values() if s.turn is not None and not s.turn.done()]
        for turn in turns:
            turn.cancel()
        if turns:
            await asyncio.gather(*turns, return_exceptions=True)
        if self._started is not None:
            with contextlib.suppress(BaseException):
                await self._started
        if self._watch is not None:
            self._watch.cancel()
            await asyncio.gather(self._watch, return_exceptions=True)
        await self._door.close()

    # ------------------------------------------------------------------ handshake
    async def initialize(self, protocol_version: int, client_capabilities: Any = None,
                         client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        self._client_caps = client_capabilities
        self._begin()  # the engine loads while the client goes on
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(embedded_context=True),
                mcp_capabilities=mcp_capabilities(),
                session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
            ),
            agent_info=Implementation(name="birdie-tui", title="Birdie", version=version()),
            auth_methods=[],
        )

    async def authenticate(self, method_id: str, **kwargs: Any) -> AuthenticateResponse:
        return AuthenticateResponse()  # keys come from the environment, as everywhere

    # ------------------------------------------------------------------ sessions
    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None,
                          **kwargs: Any) -> NewSessionResponse:
        await self._ready()
        folder = _folder(cwd)
        specs = _specs(mcp_servers, folder)  # refused before anything is created
        async with self._desk:
            await self._door.new_session()
            session_id = self._door.save_session()
            self._grant()
            servers = await self._attach(session_id, specs)
            options = config_options(self._door)
        session = self._add(session_id, folder)
        self._after_response(self._greet(session, servers))
        return NewSessionResponse(session_id=session_id, modes=self._modes(session),
                                  config_options=options)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        await self._ready()
        folder = _folder(cwd)
        specs = _specs(mcp_servers, folder)
        known = self._sessions.get(session_id)
        if known is not None and known.turn is not None and not known.turn.done():
            raise RequestError.invalid_request({"message": "a prompt is running in this session"})
        async with self._desk:
            await self._open_stored(session_id)
            items = await self._door.transcript()
            servers = await self._attach(session_id, specs)
            options = config_options(self._door)
        session = known or self._add(session_id, folder)
        session.cwd = folder
        for update in replay(items, folder):  # the whole conversation before the answer
            await self._send(session.id, update)
        self._after_response(self._greet(session, servers))
        return LoadSessionResponse(modes=self._modes(session), config_options=options)

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> ListSessionsResponse:
        await self._ready()
        # Sessions nobody wrote in are left out, as `sessions list` and the browser do.
        rows = [row for row in self._door.session_rows()
                if row.turns or row.id in self._sessions]
        try:
            start = int(cursor) if cursor else 0
        except ValueError:
            raise RequestError.invalid_params({"cursor": cursor}) from None
        page = rows[start:start + PAGE]
        infos = [SessionInfo(session_id=row.id, title=row.title or None,
                             cwd=self._sessions[row.id].cwd if row.id in self._sessions
                             else (cwd or os.getcwd()),
                             updated_at=row.updated_at or None) for row in page]
        more = start + PAGE < len(rows)
        return ListSessionsResponse(sessions=infos, next_cursor=str(start + PAGE) if more else None)

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        session = self._session(session_id)
        if session.turn is not None and not session.turn.done():
            session.turn.cancel()
            await asyncio.gather(session.turn, return_exceptions=True)
        del self._sessions[session_id]
        return CloseSessionResponse()

    async def resume_session(self, session_id: str, cwd: str,
                             additional_directories: list[str] | None = None,
                             mcp_servers: list[Any] | None = None,
                             **kwargs: Any) -> ResumeSessionResponse:
        """`session/load` without the replay: the client still shows the conversation."""
        await self._ready()
        folder = _folder(cwd)
        async with self._desk:
            await self._open_stored(session_id)
        session = self._sessions.get(session_id) or self._add(session_id, folder)
        session.cwd = folder
        self._after_response(self._greet(session))
        return ResumeSessionResponse(modes=self._modes(session))

    async def fork_session(self, session_id: str, cwd: str,
                           additional_directories: list[str] | None = None,
                           mcp_servers: list[Any] | None = None,
                           **kwargs: Any) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignored ACP notification %s", method)

    async def _open_stored(self, session_id: str) -> None:
        """Show a stored session (under `_desk`); one the store lacks is invalid params."""
        try:
            await self._door.open_session(session_id)
        except BirdieError as exc:
            raise RequestError.invalid_params({"sessionId": session_id,
                                               "message": str(exc)}) from None

    def _add(self, session_id: str, cwd: str) -> AcpSession:
        mode = self._default_mode or "ask"
        holder: dict[str, AcpSession] = {}
        approver = SessionApprover(session_id, self._ask_permission,
                                   lambda: holder["s"].mode, lambda: holder["s"].cwd)
        session = AcpSession(session_id, cwd, mode, approver)
        holder["s"] = session
        self._sessions[session_id] = session
        return session

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError.invalid_params(
                {"sessionId": session_id,
                 "message": "unknown session: start it with session/new or session/load"})
        return session

    # ------------------------------------------------------------------ modes and options
    def _modes(self, session: AcpSession) -> SessionModeState:
        return SessionModeState(
            current_mode_id=session.mode,
            available_modes=[SessionMode(id=mode, name=MODE_TEXT[mode][0],
                                         description=MODE_TEXT[mode][1])
                             for mode in APPROVAL_MODES])

    async def set_session_mode(self, session_id: str, mode_id: str,
                               **kwargs: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        mode = approval_mode_of(mode_id)
        if mode is None:
            raise RequestError.invalid_params(
                {"modeId": mode_id, "message": f"one of {', '.join(APPROVAL_MODES)}"})
        session.mode = mode
        await self._send(session.id, CurrentModeUpdate(session_update="current_mode_update",
                                                       current_mode_id=mode))
        return SetSessionModeResponse()

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **kwargs: Any) -> SetSessionConfigOptionResponse:
        session = self._session(session_id)
        async with self._desk:
            await self._door.open_session(session.id)
            try:
                await set_option(self._door, config_id, value)
            except BirdieError as exc:
                raise RequestError.invalid_params({"configId": config_id,
                                                   "message": str(exc)}) from None
            return SetSessionConfigOptionResponse(config_options=config_options(self._door))

    # ------------------------------------------------------------------ turns
    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        await self._ready()
        session = self._session(session_id)
        if session.turn is not None and not session.turn.done():
            raise RequestError.invalid_request(
                {"message": "a prompt is already running in this session; cancel it first"})
        try:
            text = prompt_text(prompt)
        except BirdieError as exc:
            raise RequestError.invalid_params({"message": str(exc)}) from None
        if not text:
            raise RequestError.invalid_params({"message": "the prompt is empty"})
        command = commands.find(text)
        runner = self._run_command(session, command, text) if command is not None \
            else self._run_turn(session, text)
        session.turn = asyncio.get_running_loop().create_task(runner)
        return await session.turn

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        session = self._sessions.get(session_id)
        if session is not None and session.turn is not None and not session.turn.done():
            session.turn.cancel()

    async def _run_command(self, session: AcpSession, command: commands.Command,
                           text: str) -> PromptResponse:
        try:
            async with self._desk:
                await self._door.open_session(session.id)
                reply = await command.run(commands.Context(self._door, session_mode=session.mode,
                                                           set_mode=self._mode_setter(session)),
                                          commands.argument(text))
        except BirdieError as exc:
            reply = str(exc)
        except asyncio.CancelledError:
            return PromptResponse(stop_reason="cancelled")
        await self._send(session.id, message_chunk(reply))
        if command.name in ("skill", "model"):
            async with self._desk:
                await self._door.open_session(session.id)
                options = config_options(self._door)
            await self._send(session.id, ConfigOptionUpdate(
                session_update="config_option_update", config_options=options))
        return PromptResponse(stop_reason="end_turn")

    def _mode_setter(self, session: AcpSession) -> commands.ModeSetter:
        async def set_mode(mode: ApprovalMode) -> None:
            session.mode = mode
            await self._send(session.id, CurrentModeUpdate(session_update="current_mode_update",
                                                           current_mode_id=mode))
        return set_mode

    async def _run_turn(self, session: AcpSession, text: str) -> PromptResponse:
        workspace = None
        if self._client is not None:
            workspace = ClientWorkspace(self._client, session.id, self._client_caps,
                                        on_terminal=self._terminal_shown(session.id))
        return await self._turns.run(session.id, session.cwd, session.approver, text,
                                     workspace)

    def _terminal_shown(self, session_id: str) -> TerminalHook:
        """A `bash:` call runs in the client's terminal: its tool call shows that terminal."""
        def shown(call_id: str | None, terminal_id: str) -> None:
            if call_id is None:
                return
            update = update_tool_call(call_id, status="in_progress",
                                      content=[tool_terminal_ref(terminal_id)])
            self._keep(self._send(session_id, update))
        return shown

    # ------------------------------------------------------------------ to the client
    async def _ask_permission(self, session_id: str, tool_call: Any, options: list[Any]) -> Any:
        if self._client is None:
            raise BirdieError("no client to ask")
        return await self._client.request_permission(session_id=session_id,
                                                     tool_call=tool_call, options=options)

    async def _send(self, session_id: str, update: Any) -> None:
        if self._client is None:
            return
        await self._client.session_update(session_id=session_id, update=update)

    def _after_response(self, work: Coroutine[Any, Any, None]) -> None:
        """Updates that follow a session's creation are sent once the client has its id."""
        loop = asyncio.get_running_loop()
        loop.call_soon(self._keep, work)

    def _keep(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._pending_sends.add(task)
        task.add_done_callback(self._pending_sends.discard)

    def _grant(self) -> None:
        """--enable / --disable, for every new session (the shown one, under `_desk`)."""
        for names, on in self._grants:
            for name in names:
                try:
                    if any(row.name == name for row in self._door.agent_rows()) and not any(
                            row.name == name for row in self._door.skill_rows()):
                        self._door.set_agent(name, on)  # a sub-agent's name, as --enable takes
                    else:
                        self._door.set_skill(name, on)
                except BirdieError as exc:
                    self._problems = (*self._problems, str(exc))

    async def _attach(self, session_id: str, specs: list[McpServerSpec]) -> list[McpRow]:
        """The client's MCP servers for the shown session (the list replaces the last one)."""
        if not specs and session_id not in self._with_servers:
            return []
        try:
            rows = await self._door.attach_mcp_servers(specs)
        except BirdieError as exc:
            raise RequestError.invalid_params({"mcpServers": str(exc)}) from None
        if specs:
            self._with_servers.add(session_id)
        else:
            self._with_servers.discard(session_id)
        return rows

    async def _greet(self, session: AcpSession, servers: Sequence[McpRow] = ()) -> None:
        await self._send(session.id, self._commands_update())
        notes = [f"Birdie: {problem}" for problem in self._problems]
        self._problems = ()
        notes += [f"Birdie: the MCP server {row.skill} failed: {row.error or row.state}"
                  for row in servers if row.state == "failed"]
        if notes:
            await self._send(session.id, update_agent_message_text("\n".join(notes) + "\n\n"))

    def _commands_update(self) -> AvailableCommandsUpdate:
        return AvailableCommandsUpdate(session_update="available_commands_update",
                                       available_commands=commands.available(self._door))


def _specs(servers: list[Any] | None, cwd: str) -> list[McpServerSpec]:
    try:
        return mcp_specs(servers, cwd=cwd)
    except BadMcpServer as exc:
        raise RequestError.invalid_params({"mcpServers": str(exc)}) from None


def _folder(cwd: str) -> str:
    if not cwd or not os.path.isabs(cwd):
        raise RequestError.invalid_params({"cwd": cwd, "message": "cwd must be an absolute path"})
    if not os.path.isdir(cwd):
        raise RequestError.invalid_params({"cwd": cwd, "message": "no such directory"})
    return os.path.realpath(cwd)
