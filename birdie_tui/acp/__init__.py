"""`birdie-tui acp`: Birdie as an Agent Client Protocol agent on stdin/stdout (docs/editors.md).

A front end like the TUI and `--print`: it reaches Birdie only through the door
(`birdie_tui.service`). `server.py` is the agent, `updates.py` what the client is told,
`turns.py` a prompt's turn, `permissions.py` approvals, `commands.py` the slash commands an editor offers, `options.py`
the session's config options, `mcp_specs.py` the client's MCP servers,
`prompt_text.py` a prompt's content blocks, `streams.py` the protocol's byte streams.
Logs go to `$BIRDIE_HOME/logs/birdie-tui.log`, never to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from birdie_tui.service import Birdie

log = logging.getLogger("birdie_tui.acp")


def acp_command(args: argparse.Namespace) -> int:
    """Serve one client until it closes its end; 0 then, 2 for a bad start."""
    from birdie_tui.acp.streams import claim_stdout

    protocol_fd = claim_stdout()
    try:
        return asyncio.run(_serve(args, sys.stdin.fileno(), protocol_fd))
    except KeyboardInterrupt:
        return 130


async def _serve(args: argparse.Namespace, input_fd: int, output_fd: int) -> int:
    from acp.agent.connection import AgentSideConnection

    from birdie_tui.acp.server import BirdieAgent
    from birdie_tui.acp.streams import open_streams
    from birdie_tui.cli.signals import cancel_on_signal

    door = _door(args)
    agent = BirdieAgent(door, default_mode="auto" if args.auto_approve else None,
                        enable=args.enable or (), disable=args.disable or ())
    reader, writer = await open_streams(input_fd, output_fd)
    connection = AgentSideConnection(agent, writer, reader, listening=False)

    async def serve() -> int:
        try:
            await connection.listen()
        finally:
            await agent.aclose()
        return 0

    return await cancel_on_signal(serve())


def _door(args: argparse.Namespace) -> Birdie:
    from birdie_tui.service import local_birdie, remote_birdie

    server = getattr(args, "server", None)
    if server:
        return remote_birdie(server, user=args.user)
    return local_birdie(user=args.user, skills_dirs=args.skills_dir, config_file=args.config,
                        agents_dirs=getattr(args, "agents_dir", None), database_url=args.database_url)
