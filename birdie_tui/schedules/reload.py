"""Triggers edited while `agents start` runs: the agent files of its folders and the settings
file are looked at every `RELOAD_POLL_S`, and a change reads the triggers again.

A stat of each agent file (the loader's own listing, `agent_files`) and of settings.json:
a few dozen stats every few seconds costs nothing at rest, where a recursive watch would have
to cover `$BIRDIE_HOME` (settings.json's folder), whose sessions every run rewrites.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path

from birdie_tui.agent_files.loader import agent_files

RELOAD_POLL_S = 5.0
Stamp = tuple[tuple[str, int, int], ...]


def definitions_stamp(folders: Sequence[Path], settings_file: Path) -> Stamp:
    """(path, mtime in ns, size) of every agent file under `folders` and of the settings
    file: equal stamps, same definitions."""
    files = [path for folder in folders for path, _ in agent_files(Path(folder).expanduser())]
    out = []
    for path in [*files, settings_file]:
        try:
            st = os.stat(path)
        except OSError:
            continue
        out.append((str(path), st.st_mtime_ns, st.st_size))
    return tuple(out)


async def follow_definitions(stamp: Callable[[], Stamp], changed: Callable[[], Awaitable[None]],
                             every: float = RELOAD_POLL_S) -> None:
    """Call `changed()` each time `stamp()` differs from the last one (until cancelled)."""
    last = stamp()
    while True:
        await asyncio.sleep(every)
        now = stamp()
        if now != last:
            last = now
            await changed()
