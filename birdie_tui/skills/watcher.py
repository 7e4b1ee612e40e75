"""Watching skills directories for edits (watchfiles), as batches of changed paths.

What counts: any file inside a skill's folder (SKILL.MD/SKILL.md and what its tools use:
tools.py, an MCP server.py, scripts), and skill folders themselves (added, removed, renamed).
Editor droppings (swap files, backups, `4913` probes) and caches do not. A burst of writes
(`git checkout` touching 50 skills) arrives as one batch: watchfiles groups changes until
`step` ms pass quietly, up to `debounce` ms.

Polling (no inotify, or forced) is our own: watchfiles' poller compares mtimes at one-second
granularity and misses a second save within the same second; ours compares nanosecond
mtime, size and inode.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Iterable
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

DEBOUNCE_MS = 300  # the longest a burst is grouped before it is delivered anyway
STEP_MS = 80  # quiet time that ends a batch: a single save shows up after about this long
POLL_DELAY_MS = 100
APPEAR_POLL_S = 1.0  # how often a skills folder that does not exist yet is looked for
POLL_MAX_DEPTH = 4  # levels below a skills directory (skill/scripts/lib/x.py)

# Editor droppings, version control and caches: never an edit, for live reload as for the
# agents' `watch:` triggers (schedules/watching.py).
NOISE_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", "node_modules", ".venv",
                        ".mypy_cache"})
NOISE_NAME = re.compile(r"(\.sw[a-p]|~|\.tmp|\.part|\.py[cod]|\.DS_Store|^4913|^\.#.*)$")
_IGNORED_DIRS = NOISE_DIRS | {".pytest_cache", ".idea", ".vscode"}


class SkillPathFilter:
    """watchfiles filter: True for paths that can change a skill under one of `roots`."""

    def __init__(self, roots: Iterable[Path]):
        self.roots = [os.path.abspath(os.fspath(r)) for r in roots]

    def __call__(self, _change: Any, path: str) -> bool:
        path = os.path.abspath(path)
        for root in self.roots:
            if not path.startswith(root + os.sep):
                continue
            parts = path[len(root) + 1:].split(os.sep)
            if parts[0].startswith((".", "__")):  # the loader skips these folders too
                return False
            if any(p in _IGNORED_DIRS for p in parts[1:-1]):
                return False
            return len(parts) == 1 or not NOISE_NAME.search(parts[-1])
        return False


def watchable(dirs: Iterable[Path]) -> list[Path]:
    """The directories that exist (watchfiles refuses missing ones), without duplicates."""
    out: list[Path] = []
    for d in dirs:
        p = Path(d).expanduser().resolve()
        if p.is_dir() and p not in out:
            out.append(p)
    return out


async def watch_skill_dirs(
    dirs: Iterable[Path],
    *,
    stop_event: Any = None,
    force_polling: bool | None = None,
    debounce_ms: int = DEBOUNCE_MS,
    step_ms: int = STEP_MS,
    poll_delay_ms: int = POLL_DELAY_MS,
    on_fallback: Callable[[str], None] | None = None,
    appear_poll_s: float = APPEAR_POLL_S,
    _awatch: Callable[..., Any] | None = None,
) -> AsyncIterator[set[Path]]:
    """Yield sets of changed paths under `dirs` until `stop_event` is set (or cancelled).

    A folder of `dirs` that does not exist yet (a new user's `$BIRDIE_HOME/skills`) is
    looked for every `appear_poll_s`; when it appears it is yielded as a change and watched
    from then on. If the OS watcher cannot start (no inotify, or its watch limit is used
    up), fall back to polling, log it once and tell `on_fallback`.
    """
    wanted = [Path(d).expanduser() for d in dirs]
    while stop_event is None or not stop_event.is_set():
        roots = watchable(wanted)
        missing = [d for d in wanted if d.expanduser().resolve() not in roots]
        if not missing:
            async for batch in _watch_roots(roots, stop_event, force_polling, debounce_ms,
                                            step_ms, poll_delay_ms, on_fallback, _awatch):
                yield batch
            return
        # watchfiles refuses a missing folder: watch the others until one of these appears.
        until = _UntilAppears(stop_event, missing, appear_poll_s)
        if roots:
            async for batch in _watch_roots(roots, until, force_polling, debounce_ms,
                                            step_ms, poll_delay_ms, on_fallback, _awatch):
                yield batch
        while not until.is_set():
            await asyncio.sleep(appear_poll_s)
        if until.appeared:
            yield set(until.appeared)


class _UntilAppears:
    """A stop event for one watch: set by the caller's event, or once a missing folder is a
    directory (checked at most every `every` seconds, it is asked far more often)."""

    def __init__(self, outer: Any, missing: list[Path], every: float):
        self.outer, self.missing, self.every = outer, missing, every
        self.appeared: list[Path] = []
        self._checked = 0.0
        self._stopped = False

    def set(self) -> None:
        """watchfiles sets its stop event when cancelled, so its thread ends too."""
        self._stopped = True

    def is_set(self) -> bool:
        if self._stopped or (self.outer is not None and self.outer.is_set()):
            return True
        if not self.appeared and time.monotonic() - self._checked >= self.every:
            self._checked = time.monotonic()
            self.appeared = [d for d in self.missing if d.is_dir()]
        return bool(self.appeared)


async def _watch_roots(
    roots: list[Path], stop_event: Any, force_polling: bool | None, debounce_ms: int,
    step_ms: int, poll_delay_ms: int, on_fallback: Callable[[str], None] | None,
    _awatch: Callable[..., Any] | None,
) -> AsyncIterator[set[Path]]:
    """Batches of changes under `roots` (which all exist) until `stop_event` is set."""
    if _awatch is None:
        from watchfiles import awatch
        _awatch = awatch
    if force_polling is None and os.environ.get("BIRDIE_WATCH_POLLING", "").strip():
        force_polling = True
    path_filter = SkillPathFilter(roots)
    if not force_polling:
        try:
            async for changes in _awatch(
                *roots, watch_filter=path_filter, debounce=debounce_ms, step=step_ms,
                stop_event=stop_event, ignore_permission_denied=True,
            ):
                yield {Path(path) for _change, path in changes}
            return
        except (OSError, RuntimeError) as exc:
            message = (f"file watching unavailable ({type(exc).__name__}: {exc}); "
                       f"polling skills directories every {poll_delay_ms} ms instead")
            log.warning(message)
            if on_fallback is not None:
                on_fallback(message)
    async for batch in poll_skill_dirs(roots, path_filter, stop_event=stop_event,
                                       poll_delay_ms=poll_delay_ms, step_ms=step_ms,
                                       debounce_ms=debounce_ms):
        yield batch


Stamp = tuple[int, int, int]


def snapshot(roots: list[Path], path_filter: SkillPathFilter) -> dict[str, Stamp]:
    """Every relevant file and folder under `roots` with (mtime_ns, size, inode)."""
    out: dict[str, Stamp] = {}

    def walk(folder: str, depth: int) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            if not path_filter(None, entry.path):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
                is_dir = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue
            out[entry.path] = (0 if is_dir else st.st_mtime_ns, 0 if is_dir else st.st_size,
                               st.st_ino)
            if is_dir and depth < POLL_MAX_DEPTH:
                walk(entry.path, depth + 1)

    for root in roots:
        walk(str(root), 0)
    return out


def _diff(old: dict[str, Stamp], new: dict[str, Stamp]) -> set[str]:
    changed = {p for p, stamp in new.items() if old.get(p) != stamp}
    return changed | (old.keys() - new.keys())


async def poll_skill_dirs(
    roots: list[Path],
    path_filter: SkillPathFilter,
    *,
    stop_event: Any = None,
    poll_delay_ms: int = POLL_DELAY_MS,
    step_ms: int = STEP_MS,
    debounce_ms: int = DEBOUNCE_MS,
) -> AsyncIterator[set[Path]]:
    """Yield batches of changed paths by comparing snapshots (each taken off the loop)."""
    previous = await asyncio.to_thread(snapshot, roots, path_filter)
    while stop_event is None or not stop_event.is_set():
        await asyncio.sleep(poll_delay_ms / 1000)
        current = await asyncio.to_thread(snapshot, roots, path_filter)
        changed = _diff(previous, current)
        if not changed:
            continue
        # Keep gathering while the burst goes on (quiet for `step`), up to `debounce`.
        started = time.monotonic()
        while time.monotonic() - started < debounce_ms / 1000:
            await asyncio.sleep(step_ms / 1000)
            latest = await asyncio.to_thread(snapshot, roots, path_filter)
            more = _diff(current, latest)
            current = latest
            if not more:
                break
            changed |= more
        previous = current
        yield {Path(p) for p in changed}
