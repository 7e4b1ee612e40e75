"""The front door between a front end and Birdie (see `protocol.py`).

`Birdie` is the protocol; `LocalBirdie` (in `local/`) runs the engine in this process.
Importing this package is cheap: rows and the protocol are plain Python.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from birdie_tui.events import ChangeEvent, TurnEvent  # what the door's signatures name
from birdie_tui.service.protocol import Approver, Birdie, BirdieError
# What a front end may lend a turn's tools (files and terminals it hosts): a leaf it implements.
from birdie_tui.workspace import RunResult, Workspace, WorkspaceError

if TYPE_CHECKING:
    from birdie_tui.service.local import LocalBirdie
    from birdie_tui.service.remote import RemoteBirdie

__all__ = ["Approver", "Birdie", "BirdieError", "ChangeEvent", "LocalBirdie", "RunResult",
           "TurnEvent", "Workspace", "WorkspaceError", "local_birdie", "remote_birdie"]


def local_birdie(**options: Any) -> LocalBirdie:
    """A `Birdie` over the engine in this process (`user`, `skills_dirs`, `config_file`,
    `environ`); call `start` before anything else."""
    from birdie_tui.service.local import LocalBirdie

    return LocalBirdie(**options)


def remote_birdie(url: str, **options: Any) -> RemoteBirdie:
    """A `Birdie` over the `birdie` graph of the LangGraph server at `url` (`user`,
    `environ`; the local-only options are ignored); call `start` before anything else."""
    from birdie_tui.service.remote import RemoteBirdie

    return RemoteBirdie(url, **options)
