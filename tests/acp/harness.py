"""A real ACP client for `birdie-tui acp`: the SDK's own client side, over the agent's stdio.

`Recorder` answers permission requests by a policy and keeps every session/update; `agent`
spawns `python -m birdie_tui.cli acp` (this tree's code) in a scratch BIRDIE_HOME.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from acp import text_block
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    RequestPermissionResponse,
)
from acp.stdio import spawn_agent_process

ROOT = Path(__file__).resolve().parents[2]
ACPX = Path.home() / ".cache" / "birdie-tui-tests" / "acpx" / "node_modules" / ".bin" / "acpx"


def acpx_path() -> Path | None:
    """The acpx client `.ci/run` installs (npm), or one on PATH."""
    if ACPX.exists():
        return ACPX
    found = shutil.which("acpx")
    return Path(found) if found else None


def agent_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("LLM_", "OPENAI", "ANTHROPIC", "MISTRAL", "GEMINI", "AZURE"))}
    env.update({"BIRDIE_HOME": str(home), "PYTHONPATH": str(ROOT), "HOME": str(home.parent)})
    env.update(extra)
    return env


class Recorder:
    """The client: records updates; answers permissions with `answer` (an option id, or
    None to cancel, or "wait" to never answer)."""

    def __init__(self, answer: str | None = "allow_once") -> None:
        self.answer = answer
        self.updates: list[tuple[str, Any]] = []
        self.asked: list[Any] = []
        self.changed = asyncio.Event()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, options))
        self.changed.set()
        if self.answer == "wait":
            await asyncio.Event().wait()
        if self.answer is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=self.answer))

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))
        self.changed.set()

    def of_kind(self, kind: str, session_id: str | None = None) -> list[Any]:
        return [u for sid, u in self.updates
                if u.session_update == kind and (session_id is None or sid == session_id)]

    def text(self, session_id: str | None = None, kind: str = "agent_message_chunk") -> str:
        return "".join(u.content.text for u in self.of_kind(kind, session_id))

    async def wait_for(self, predicate: Any, timeout: float = 60.0) -> None:
        async with asyncio.timeout(timeout):
            while not predicate():
                self.changed.clear()
                await self.changed.wait()


@contextlib.asynccontextmanager
async def agent(home: Path, client: Recorder, *args: str, cwd: Path | None = None,
                caps: ClientCapabilities | None = None,
                **env: str) -> AsyncIterator[tuple[Any, Any]]:
    """(connection, process) of a started and initialized `birdie-tui acp` (the client offers
    `caps`: by default neither files nor terminals)."""
    home.mkdir(parents=True, exist_ok=True)
    errors = open(home.parent / "agent.stderr", "ab")  # never a full pipe nobody reads
    async with spawn_agent_process(client, sys.executable, "-m", "birdie_tui.cli", "acp", *args,
                                   env=agent_env(home, **env), cwd=str(cwd or home.parent),
                                   transport_kwargs={"limit": 16 * 1024 * 1024,
                                                     "stderr": errors.fileno()}
                                   ) as (conn, process):
        init = await asyncio.wait_for(conn.initialize(
            protocol_version=1, client_capabilities=caps or ClientCapabilities()), 60)
        conn.init = init
        try:
            yield conn, process
        finally:
            errors.close()


def prompt(text: str) -> list[Any]:
    return [text_block(text)]
