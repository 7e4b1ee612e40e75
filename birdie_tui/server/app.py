"""The server's HTTP app hook (`langgraph.json` `http.app`): no routes of its own, only a
lifespan that stops the MCP servers and the model client runs started, when the server stops."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette

from birdie_tui.server.runtime import close_runtime


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    yield
    await close_runtime()


app = Starlette(lifespan=lifespan)
