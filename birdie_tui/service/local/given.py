"""The door's side of MCP servers a client gives a session (ACP `mcpServers`): the rows in,
the engine's `attach_mcp` (`mcp/given.py`), the servers' rows out.

A mixin of `LocalBirdie` (see `protocol.py` for the contract): it uses the engine, `_emit` and
`_tell_mcp_failures` of the class it is mixed into. Cheap to import: the core's types only
under TYPE_CHECKING.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from birdie_tui.catalog import mcp_row
from birdie_tui.events import ChangeEvent, SkillsChanged
from birdie_tui.service.local.desk import OnDesk
from birdie_tui.service.protocol import BirdieError
from birdie_tui.service.rows import McpRow, McpServerSpec

if TYPE_CHECKING:
    from birdie_tui.mcp.given import GivenServer


class LocalGivenServers(OnDesk):
    """`attach_mcp_servers` over the local engine."""

    _emit: Callable[[ChangeEvent], None]
    _tell_mcp_failures: Callable[[], None]

    async def attach_mcp_servers(self, servers: Sequence[McpServerSpec], *,
                                 start: bool = True) -> list[McpRow]:
        """Give the shown session exactly `servers` (an empty list stops those it had); with
        `start`, each is started now (at once, each within the start timeout) and its row says
        running or why it failed. Their rows; BirdieError for one that cannot be used."""
        from birdie_tui.agent.options import EngineError

        given = [_given(spec) for spec in servers]
        try:
            statuses = await self._shown.attach_mcp(given, start=start)
        except EngineError as exc:
            raise BirdieError(str(exc)) from None
        self._emit(SkillsChanged())
        self._tell_mcp_failures()
        return [mcp_row(s) for s in statuses]


def _given(spec: McpServerSpec) -> GivenServer:
    from birdie_tui.mcp.given import GivenServer

    return GivenServer(name=spec.name, transport=spec.transport, command=spec.command or None,
                       args=tuple(spec.args), env=tuple(sorted(spec.env.items())),
                       cwd=spec.cwd, url=spec.url or None,
                       headers=tuple(sorted(spec.headers.items())))
