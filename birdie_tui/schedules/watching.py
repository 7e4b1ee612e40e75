"""`watch:` triggers: one watchfiles watcher for all of them, a burst of changes to a
trigger's paths fired once, with the burst's paths.

A trigger's entries are paths (a folder: anything under it; a file: that file) or globs
(`drafts/*.md`, `notes/**/*.txt`: matched part by part, `**` for any number of folders),
relative to the scheduler's working directory unless absolute. A burst ends when the trigger's
`debounce_s` passes without a change to its paths (or, for changes that never stop, at
`BURST_CAP` debounces after its first); its paths go to the run deduplicated and sorted.

A folder to watch that does not exist is said once and looked for every `APPEAR_POLL_S`: when
it appears it is watched from then on and its triggers fire once, with the folder as the
changed path (files written into it as it was made are easy to miss otherwise).
"""

from __future__ import annotations

import asyncio
import fnmatch
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from birdie_tui.skills.watcher import NOISE_DIRS, NOISE_NAME

from .models import Trigger

APPEAR_POLL_S = 5.0
BURST_CAP = 10  # a burst is cut after this many debounces from its first change
# How often watchfiles' thread looks for changes: a wake-up each (bench/scheduler_idle.py);
# the bursts are grouped by the trigger's own debounce, not here.
STEP_MS = 250
_GLOB = re.compile(r"[*?\[]")

Fired = Callable[[Trigger, tuple[str, ...]], None]


@dataclass(frozen=True)
class Target:
    """One entry of a trigger's `watch:`: the folder to watch and what under it counts."""

    root: Path  # an existing folder, or the one that should exist
    pattern: tuple[str, ...] | None  # glob parts below root; None: anything under `exact`
    exact: Path  # the path itself for a plain entry (root for a glob)

    def matches(self, path: str) -> bool:
        p = Path(path)
        if self.pattern is None:
            return p == self.exact or self.exact in p.parents
        try:
            parts = p.relative_to(self.root).parts
        except ValueError:
            return False
        return _glob_parts(parts, self.pattern)


def targets(trigger: Trigger, cwd: str | None = None) -> list[Target]:
    """The trigger's `watch:` entries as absolute targets."""
    base = Path(cwd or os.getcwd())
    out = []
    for entry in trigger.watch:
        path = Path(os.path.expanduser(entry))
        path = path if path.is_absolute() else base / path
        parts = path.parts
        glob_at = next((i for i, part in enumerate(parts) if _GLOB.search(part)), None)
        if glob_at is not None:
            out.append(Target(Path(*parts[:glob_at]), tuple(parts[glob_at:]), Path(*parts[:glob_at])))
        elif path.is_file():
            out.append(Target(path.parent, None, path))
        else:
            out.append(Target(path, None, path))
    return out


def _glob_parts(parts: tuple[str, ...], pattern: tuple[str, ...]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_glob_parts(parts[i:], pattern[1:]) for i in range(len(parts) + 1))
    return bool(parts) and fnmatch.fnmatchcase(parts[0], pattern[0]) and _glob_parts(
        parts[1:], pattern[1:])


def _ignored(path: str) -> bool:
    parts = Path(path).parts
    return bool(NOISE_NAME.search(parts[-1])) or any(p in NOISE_DIRS for p in parts[:-1])


@dataclass
class _Burst:
    paths: set[str] = field(default_factory=set)
    first: float = 0.0
    timer: asyncio.TimerHandle | None = None


class WatchHub:
    """Watches the folders of every `watch:` trigger with one watcher; calls `fired(trigger,
    paths)` once per burst."""

    def __init__(self, triggers: Iterable[Trigger], fired: Fired, *,
                 say: Callable[[str], None] = lambda line: None, cwd: str | None = None,
                 force_polling: bool | None = None, appear_poll_s: float = APPEAR_POLL_S) -> None:
        self.watched = [(t, targets(t, cwd)) for t in triggers]
        self.fired, self.say = fired, say
        self.force_polling, self.appear_poll_s = force_polling, appear_poll_s
        self._bursts: dict[str, _Burst] = {}
        self._restart = asyncio.Event()
        self._closing = False
        self._task: asyncio.Task[None] | None = None
        self._waiting: set[Path] = set()  # folders said missing, not seen since

    def roots(self) -> list[Path]:
        """The folders to watch, none inside another."""
        wanted = sorted({target.root for _, ts in self.watched for target in ts})
        return [r for r in wanted if not any(o in r.parents for o in wanted)]

    async def start(self) -> None:
        if not self.watched:
            return
        for root in self.roots():
            if not root.is_dir():
                self._waiting.add(root)
                keys = ", ".join(t.key for t, ts in self.watched if any(
                    x.root == root or root in x.root.parents for x in ts))
                self.say(f"{keys}: watch folder {root} does not exist; waiting for it to "
                         f"appear (looked for every {self.appear_poll_s:g}s)")
        self._task = asyncio.get_running_loop().create_task(self._run(), name="watch hub")

    async def stop(self) -> None:
        self._closing = True
        self._restart.set()
        for burst in self._bursts.values():
            if burst.timer is not None:
                burst.timer.cancel()
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 3.0)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pass
            except Exception:  # stopping: the watcher's own failure no longer matters
                pass

    async def _run(self) -> None:
        force_polling = self.force_polling
        while not self._closing:
            roots = self.roots()
            present = [r for r in roots if r.is_dir()]
            self._appeared([r for r in present if r in self._waiting])
            missing = [r for r in roots if r not in present]
            self._waiting.update(missing)
            self._restart = asyncio.Event()
            poll = (asyncio.get_running_loop().create_task(self._look_for(missing))
                    if missing else None)
            try:
                await self._watch(present, force_polling)
            except (OSError, RuntimeError) as exc:  # no inotify, or its watches used up
                if force_polling:
                    raise
                self.say(f"file watching failed ({exc}); polling instead")
                force_polling = True
            finally:
                if poll is not None:
                    poll.cancel()

    def _appeared(self, roots: list[Path]) -> None:
        if not roots or self._closing:
            return
        self._waiting.difference_update(roots)
        shown = [str(r) for r in roots]
        self.say(f"watch folder {', '.join(shown)} appeared; watching it")
        self._changed(shown, appeared=True)

    async def _watch(self, present: list[Path], force_polling: bool | None) -> None:
        if not present:
            await self._restart.wait()
            return
        from watchfiles import awatch

        async for changes in awatch(*present, watch_filter=None, stop_event=self._restart,
                                    step=STEP_MS, force_polling=force_polling,
                                    poll_delay_ms=300):
            self._changed([path for _change, path in changes if not _ignored(path)])

    async def _look_for(self, missing: list[Path]) -> None:
        while not any(r.is_dir() for r in missing):
            await asyncio.sleep(self.appear_poll_s)
        self._restart.set()

    def _changed(self, paths: list[str], *, appeared: bool = False) -> None:
        loop = asyncio.get_running_loop()
        for trigger, ts in self.watched:
            hits = {p for p in paths
                    if any(t.matches(p) or (appeared and Path(p) == t.root) for t in ts)}
            if not hits:
                continue
            burst = self._bursts.setdefault(trigger.key, _Burst(first=loop.time()))
            if not burst.paths:
                burst.first = loop.time()
            burst.paths |= hits
            if burst.timer is not None:
                burst.timer.cancel()
            cap_at = burst.first + BURST_CAP * trigger.debounce_s
            delay = max(0.0, min(trigger.debounce_s, cap_at - loop.time()))
            burst.timer = loop.call_later(delay, self._flush, trigger)

    def _flush(self, trigger: Trigger) -> None:
        burst = self._bursts.pop(trigger.key, None)
        if burst is None or not burst.paths or self._closing:
            return
        self.fired(trigger, tuple(sorted(burst.paths)))
