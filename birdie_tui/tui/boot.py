"""Starting Birdie after the first paint, and never ending up with a dead app.

A start can fail in two ways. A bad request (an unknown or corrupt `--session-id`, an unknown
`--enable` skill) is said in one line by the front door and a working session opens anyway. A
failed start (an import or provider that cannot start) is shown with what to do next; ctrl+n or
/retry tries again, and nothing waits forever for it: `settled` is set on success and on
failure alike.
"""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from birdie_tui.service import BirdieError

if TYPE_CHECKING:
    from birdie_tui.service import Birdie
    from birdie_tui.service.rows import Started
    from birdie_tui.tui.app import BirdieApp

# Builds the (not yet started) front door from the command line and the environment. The app
# is given one, so a test can hand it a fake door or a local one made its own way.
DoorFactory = Callable[[argparse.Namespace, Mapping[str, str]], "Birdie"]


def door_from_args(args: argparse.Namespace, environ: Mapping[str, str]) -> Birdie:
    """The door `birdie-tui <argv>` uses: remote with `--server`, else the local engine."""
    from birdie_tui.service import local_birdie, remote_birdie

    server = getattr(args, "server", None)
    if server:
        return remote_birdie(server, user=args.user, environ=environ)
    return local_birdie(user=args.user, skills_dirs=args.skills_dir, config_file=args.config,
                        agents_dirs=getattr(args, "agents_dir", None), environ=environ, database_url=getattr(args, "database_url", None))


class Boot:
    """Birdie's start for one app: the attempt's state, and the front door it opened."""

    def __init__(self, app: BirdieApp, door_factory: DoorFactory | None = None) -> None:
        self.app = app
        # Injected (a test passes a fake door); by default the door the command line names.
        self.door_factory: DoorFactory = door_factory or door_from_args
        self.settled = asyncio.Event()  # the last start attempt ended, well or not
        self.error: str | None = None  # why the last attempt failed
        self.birdie: Birdie | None = None  # the started front door
        self.skills: tuple[Any, Any] = ((), ())  # a failed start's skills and broken files
        self._unsubscribe: Any = None

    @property
    def failed(self) -> bool:
        return self.error is not None and self.birdie is None

    async def wait(self) -> bool:
        """Wait for the current attempt; True when Birdie is running."""
        await self.settled.wait()
        return self.birdie is not None

    async def start(self, *, retry: bool = False) -> Started | None:
        """Start the app's door and open the session asked for; None after saying why not."""
        self.settled.clear()
        self.error = None
        args = self.app.args
        birdie = self.door_factory(args, self.app.environ)
        # Before start: files repaired while starting are told as it happens.
        unsubscribe = birdie.subscribe(self.app.heard)
        try:
            started = await birdie.start(
                session_id=None if retry else args.session_id,
                continue_last=bool(args.continue_session),
                enable=args.enable or (), disable=args.disable or ())
        except BirdieError as exc:
            unsubscribe()
            self.error = str(exc)
            self.skills = (exc.skills, exc.broken)
            self.settled.set()
            return None
        self.birdie, self._unsubscribe = birdie, unsubscribe
        self.settled.set()
        return started

    async def stop(self) -> None:
        birdie, self.birdie = self.birdie, None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if birdie is not None:
            await birdie.close()
