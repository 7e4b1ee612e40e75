"""The real file watcher over a temporary skills directory (inotify, and forced polling)."""

from __future__ import annotations

import asyncio
import logging
import shutil
import textwrap
from pathlib import Path

import pytest

from birdie_tui.skills.watcher import SkillPathFilter, watch_skill_dirs


def skill_text(name: str, tools: int = 1) -> str:
    blocks = "".join(textwrap.dedent(f"""
        ### {name.lower()}_t{n}
        description: tool {n}
        entrypoint: bash:true
        schema: {{type: object, properties: {{}}}}
        """) for n in range(tools))
    return f"---\nname: {name}\ndescription: {name} skill.\n---\n\n## Tools\n{blocks}"


class Batches:
    """Runs the watcher in a task and collects its batches."""

    def __init__(self, root: Path, **kw):
        self.root = root
        self.batches: list[set[Path]] = []
        self.stop = asyncio.Event()
        self.kw = kw
        self.fallbacks: list[str] = []

    async def __aenter__(self):
        self.task = asyncio.create_task(self._run())
        await asyncio.sleep(0.3)  # the OS watch (or the first poll snapshot) is in place
        return self

    async def _run(self):
        async for batch in watch_skill_dirs([self.root], stop_event=self.stop,
                                            on_fallback=self.fallbacks.append, **self.kw):
            self.batches.append(batch)

    async def __aexit__(self, *exc):
        self.stop.set()
        await asyncio.wait_for(self.task, 5)

    async def next_batch(self, after: int = 0, timeout: float = 5.0) -> set[Path]:
        for _ in range(int(timeout / 0.02)):
            if len(self.batches) > after:
                return self.batches[after]
            await asyncio.sleep(0.02)
        raise AssertionError("no change reported")

    async def quiet(self, seconds: float = 0.6) -> int:
        """Wait, then say how many batches have arrived in all."""
        await asyncio.sleep(seconds)
        return len(self.batches)


@pytest.fixture(params=[False, True], ids=["inotify", "polling"])
def polling(request):
    return request.param


async def test_add_change_break_and_delete_are_reported(tmp_path, polling):
    """The watcher reports a skill folder's creation, edits, breakage and deletion."""
    root = tmp_path / "skills"
    root.mkdir()
    async with Batches(root, force_polling=polling) as w:
        (root / "notes").mkdir()
        # Let the new folder be seen (and, with inotify, watched) before a file lands in it:
        # otherwise inotify may report only the folder (see the burst test below).
        assert root / "notes" in await w.next_batch()
        n = await w.quiet()
        (root / "notes" / "SKILL.MD").write_text(skill_text("Notes"))
        assert root / "notes" / "SKILL.MD" in await w.next_batch(n)
        n = await w.quiet()
        (root / "notes" / "SKILL.MD").write_text("---\nname: [broken\n")
        assert root / "notes" / "SKILL.MD" in await w.next_batch(n)
        n = await w.quiet()
        (root / "notes" / "tools.py").write_text("def f():\n    return 1\n")
        assert root / "notes" / "tools.py" in await w.next_batch(n)
        n = await w.quiet()
        shutil.rmtree(root / "notes")
        assert any(p.name in ("notes", "SKILL.MD", "tools.py") for p in await w.next_batch(n))


async def test_a_burst_of_fifty_skills_is_one_batch(tmp_path, polling):
    """Fifty skills added at once arrive as one batch (rarely a few), not fifty."""
    root = tmp_path / "skills"
    root.mkdir()
    async with Batches(root, force_polling=polling) as w:
        for n in range(50):
            (root / f"s{n}").mkdir()
            (root / f"s{n}" / "SKILL.MD").write_text(skill_text(f"S{n}"))
        await w.next_batch()
        total = await w.quiet(0.8)
        seen = {p for b in w.batches for p in b}
        # inotify may report only the new folder when a file lands before its watch is set:
        # the reload rescans that folder anyway.
        assert all(root / f"s{n}" in seen or root / f"s{n}" / "SKILL.MD" in seen
                   for n in range(50))
        assert total <= 3  # one batch, rarely split when the machine stalls mid-burst; not 50


async def test_editor_droppings_and_caches_are_ignored(tmp_path):
    """Swap files, backups, caches and .git changes trigger no batch; a real edit does."""
    root = tmp_path / "skills"
    (root / "notes" / "__pycache__").mkdir(parents=True)
    async with Batches(root) as w:
        (root / "notes" / ".SKILL.MD.swp").write_text("x")
        (root / "notes" / "SKILL.MD~").write_text("x")
        (root / "notes" / "4913").write_text("x")
        (root / "notes" / "__pycache__" / "tools.cpython-311.pyc").write_text("x")
        (root / ".git").mkdir()
        (root / ".git" / "index").write_text("x")
        assert await w.quiet(0.6) == 0
        (root / "notes" / "SKILL.MD").write_text(skill_text("Notes"))
        assert await w.next_batch() == {root / "notes" / "SKILL.MD"}


def test_path_filter_scope(tmp_path):
    """The path filter accepts paths under skill roots, but not hidden, cache or swap paths."""
    root = tmp_path / "skills"
    accept = SkillPathFilter([root])
    assert accept(None, str(root / "a" / "SKILL.MD"))
    assert accept(None, str(root / "a" / "scripts" / "run.sh"))
    assert accept(None, str(root / "a"))  # a folder added, removed or renamed
    assert not accept(None, str(tmp_path / "elsewhere" / "SKILL.MD"))
    assert not accept(None, str(root / ".hidden" / "SKILL.MD"))
    assert not accept(None, str(root / "a" / "node_modules" / "x.js"))
    assert not accept(None, str(root / "a" / "SKILL.MD.swp"))


async def test_a_missing_folder_is_waited_for_then_watched(tmp_path, polling):
    """A skills folder made after start (a new user's first `mkdir`) is reported when it
    appears and watched from then on, while the folders that existed keep being watched."""
    there, later = tmp_path / "bundled", tmp_path / "home" / "skills"
    there.mkdir()
    batches: list[set[Path]] = []
    stop = asyncio.Event()

    async def run():
        async for batch in watch_skill_dirs([there, later], stop_event=stop,
                                            force_polling=polling, appear_poll_s=0.05):
            batches.append(batch)

    async def batch_with(path: Path) -> None:
        for _ in range(250):
            if any(path in b for b in batches):
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"{path} never reported; got {batches}")

    task = asyncio.create_task(run())
    try:
        await asyncio.sleep(0.3)
        (there / "a").mkdir()
        await batch_with(there / "a")
        later.mkdir(parents=True)
        await batch_with(later)
        await asyncio.sleep(0.3)  # the new folder's watch is in place
        (later / "notes").mkdir()
        await batch_with(later / "notes")
        (there / "b").mkdir()
        await batch_with(there / "b")
    finally:
        stop.set()
        await asyncio.wait_for(task, 5)


async def test_only_missing_folders_waits_and_stops_when_asked(tmp_path):
    """Watching only folders that do not exist yields nothing and ends on the stop event."""
    stop = asyncio.Event()
    task = asyncio.create_task(_collect(watch_skill_dirs([tmp_path / "nope"], stop_event=stop,
                                                         appear_poll_s=0.05)))
    await asyncio.sleep(0.2)
    assert not task.done()
    stop.set()
    assert await asyncio.wait_for(task, 5) == []


async def _collect(batches):
    return [b async for b in batches]


async def test_falls_back_to_polling_once_when_the_os_watcher_fails(tmp_path):
    """inotify cannot be exhausted from a test without root, so the OS watcher's failure is
    injected; the fallback then runs the real poller."""
    root = tmp_path / "skills"
    root.mkdir()
    calls: list[tuple] = []

    def failing_awatch(*paths, **kw):
        calls.append(paths)
        raise OSError(28, "OS file watch limit reached")

    logged: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: logged.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("birdie_tui.skills.watcher")
    logger.addHandler(handler)
    try:
        async with Batches(root, _awatch=failing_awatch) as w:
            (root / "a").mkdir()
            (root / "a" / "SKILL.MD").write_text(skill_text("A"))
            assert root / "a" / "SKILL.MD" in await w.next_batch()
    finally:
        logger.removeHandler(handler)
    assert len(calls) == 1
    assert len(w.fallbacks) == 1 and "polling" in w.fallbacks[0]
    assert len(logged) == 1 and "watch limit" in logged[0]


async def test_polling_sees_two_saves_within_one_second(tmp_path):
    """watchfiles' own poller compares whole-second mtimes and misses the second save."""
    root = tmp_path / "skills"
    (root / "a").mkdir(parents=True)
    (root / "a" / "SKILL.MD").write_text(skill_text("A"))
    async with Batches(root, force_polling=True) as w:
        (root / "a" / "SKILL.MD").write_text(skill_text("A", tools=2))
        await w.next_batch()
        n = await w.quiet(0.3)
        (root / "a" / "SKILL.MD").write_text(skill_text("A", tools=3))
        assert root / "a" / "SKILL.MD" in await w.next_batch(n)


async def test_polling_can_be_forced_from_the_environment(tmp_path, monkeypatch):
    """BIRDIE_WATCH_POLLING=1 uses the poller instead of the OS watcher."""
    def no_os_watcher(*paths, **kw):
        raise AssertionError("the OS watcher must not be used when polling is forced")

    root = tmp_path / "skills"
    root.mkdir()
    monkeypatch.setenv("BIRDIE_WATCH_POLLING", "1")
    async with Batches(root, _awatch=no_os_watcher) as w:
        (root / "a").mkdir()
        (root / "a" / "SKILL.MD").write_text(skill_text("A"))
        assert root / "a" / "SKILL.MD" in await w.next_batch()
    assert w.fallbacks == []
