"""The front door between a front end and Birdie (see `protocol.py`).

`Birdie` is the protocol; `LocalBirdie` (in `local/`) runs the engine in this process.
Importing this package is cheap: its error and the workspace are loaded with it, and the
protocol and the events it names (plain Python, but ~100 dataclasses: ~40 ms) when first asked
for, so a front end's first frame does not wait for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from birdie_tui.modes import APPROVAL_MODES, LOADING_MODES, ApprovalMode, LoadingMode
from birdie_tui.service.errors import BirdieError
# What a front end may lend a turn's tools (files and terminals it hosts): a leaf it implements.
from birdie_tui.workspace import RunResult, Workspace, WorkspaceError

if TYPE_CHECKING:
    from birdie_tui.events import ChangeEvent, TurnEvent  # what the door's signatures name
    from birdie_tui.service.local import LocalBirdie
    from birdie_tui.service.protocol import Approver, Birdie
    from birdie_tui.service.remote import RemoteBirdie

_LATER = {"ChangeEvent": "birdie_tui.events", "TurnEvent": "birdie_tui.events",
          "Approver": "birdie_tui.service.protocol", "Birdie": "birdie_tui.service.protocol"}


def __getattr__(name: str) -> Any:  # PEP 562: the names loaded when first asked for
    if name in _LATER:
        value = getattr(importlib.import_module(_LATER[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["APPROVAL_MODES", "LOADING_MODES", "ApprovalMode", "Approver", "Birdie", "BirdieError",
           "ChangeEvent", "LoadingMode", "LocalBirdie", "RunResult", "TurnEvent", "Workspace",
           "WorkspaceError", "local_birdie", "remote_birdie"]


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
