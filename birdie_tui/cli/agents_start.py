"""`birdie-tui agents start`: the scheduler in the foreground, for every trigger of the agent
files and settings' schedules (docs/schedules.md, The scheduler).

One scheduler per home: `$BIRDIE_HOME/scheduler.lock` (`schedules/lock.py`); a second one
exits 1 naming the holder. It prints one line when it starts (the triggers and their next
firing) and one per firing; bad triggers are printed with file and line and the others run.
SIGTERM or SIGINT stops it: no new firing, the running runs cancelled (recorded "cancelled",
their sessions kept), the lock released, exit 0. No triggers at all: it says so and exits 0
(there is nothing to wait for; `agents check` shows why a file's trigger was refused). Agent
files and settings edited while it runs are read again (`schedules/reload.py`): added,
removed and changed triggers take effect, and a line says which.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
from collections.abc import Coroutine, Mapping
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from birdie_tui.cli.args import PROG
from birdie_tui.cli.signals import SignalWatch
from birdie_tui.schedules.reload import definitions_stamp, follow_definitions
from birdie_tui.screen_text import one_line
from birdie_tui.text import counted

if TYPE_CHECKING:
    from birdie_tui.agent_files.models import AgentDef
    from birdie_tui.schedules.scheduler import RunFn, Scheduler
    from birdie_tui.store.paths import BirdiePaths
    from birdie_tui.store.protocols import RunLogProtocol


def say(line: str) -> None:
    print(one_line(line), flush=True)


def start_command(args: argparse.Namespace) -> int:
    from birdie_tui.schedules.lock import SchedulerLock, written_holder
    from birdie_tui.store.database import InvalidDatabaseUrl, resolve_database_url
    from birdie_tui.store.paths import BirdiePaths, InvalidName, default_user, validate_user

    paths = BirdiePaths.from_env()
    try:
        user = validate_user(args.user or default_user())
        url = resolve_database_url(args.database_url, os.environ, paths)
    except (InvalidName, InvalidDatabaseUrl) as exc:
        return _fail(str(exc), 2)
    lock = SchedulerLock(paths.home)
    if not lock.acquire():
        who = written_holder(paths.home) or "just starting"
        return _fail(f"a scheduler already runs for {paths.home} ({who}); stop it first "
                     "(SIGTERM) or use another BIRDIE_HOME", 1)
    try:
        return asyncio.run(_serve(args, paths, user, url))
    finally:
        lock.release()


def _fail(message: str, code: int) -> int:
    print(one_line(f"{PROG}: {message}"), file=sys.stderr, flush=True)
    return code


async def _serve(args: argparse.Namespace, paths: BirdiePaths, user: str,
                 url: str | None) -> int:
    from birdie_tui.agent_files.loader import default_agent_dirs
    from birdie_tui.schedules.loading import load_triggers
    from birdie_tui.schedules.scheduler import Scheduler
    from birdie_tui.store.run_log import open_run_log

    folders = default_agent_dirs(paths, os.environ, Path.cwd(), extra=args.agents_dir or ())
    load = load_triggers(paths, os.environ, Path.cwd(), folders)
    for problem in load.problems:
        say(f"ERROR {problem}")
    timed = [t for t in load.triggers if t.kind != "manual"]
    if not timed:
        say("no triggers: nothing to schedule (add every:, cron: or watch: to an agent file, "
            "or a schedule to settings.json; `agents check` lists them)")
        return 0
    try:
        run_log = open_run_log(paths, user, url)
    except OSError as exc:
        return _fail(f"cannot open the run log: {exc}", 1)
    agents = dict(load.agents)  # what the runner runs; a reload updates it in place
    owner = f"{socket.gethostname()}:{os.getpid()}"
    scheduler = Scheduler(timed, run=_runner(args, user, url, agents, run_log),
                          run_log=run_log, owner=owner, say=say)

    async def reload() -> None:
        again = load_triggers(paths, os.environ, Path.cwd(), folders)
        for problem in again.problems:
            say(f"ERROR {problem}")
        agents.clear()
        agents.update(again.agents)
        added, removed, changed = await scheduler.apply(again.triggers)
        say(f"reloaded: {counted(len(scheduler.triggers), 'trigger')}" + "".join(
            f"; {what} {', '.join(keys)}" for what, keys in
            (("added", added), ("removed", removed), ("changed", changed)) if keys))

    stamp = partial(definitions_stamp, [f for f, _ in folders], paths.settings_file)
    try:
        return await _until_signal(scheduler, follow_definitions(stamp, reload))
    finally:
        run_log.close()


async def _until_signal(scheduler: Scheduler, follow: Coroutine[Any, Any, None]) -> int:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    watch = SignalWatch(lambda signum: stop.set())
    watch.install(loop)
    try:
        loop.add_signal_handler(signal.SIGINT, stop.set)
    except (NotImplementedError, RuntimeError):
        pass
    following = loop.create_task(follow, name="follow trigger definitions")
    try:
        await scheduler.start()
        say(_started_line(scheduler))
        await stop.wait()
        following.cancel()
        say(f"stopping: {counted(len(scheduler.running), 'running run')} cancelled")
        await scheduler.stop()
    finally:
        following.cancel()
        loop.remove_signal_handler(signal.SIGINT)
        watch.remove()
        watch.disarm()
    say("stopped")
    return 0


def _started_line(scheduler: Scheduler) -> str:
    fires = scheduler.next_fires()
    shown = []
    for key, trigger in scheduler.triggers.items():
        nxt = fires.get(key)
        when = f"next {_local(nxt)}" if nxt else trigger.describe()
        shown.append(f"{key} ({when})")
    return (f"scheduler started, pid {os.getpid()}: {counted(len(shown), 'trigger')}: "
            + ", ".join(shown))


def _local(when: datetime) -> str:
    local = when.astimezone()
    same_day = local.date() == datetime.now().astimezone().date()
    return local.strftime("%H:%M:%S" if same_day else "%Y-%m-%d %H:%M")


def _runner(args: argparse.Namespace, user: str, url: str | None,
            agents: Mapping[str, AgentDef], run_log: RunLogProtocol) -> RunFn:
    """One run: `runner.run_trigger` with what `--print` would get from these options. The
    engine is imported at the first run, not before: a scheduler waiting for tomorrow's cron
    stays small (bench/RESULTS.md §29)."""
    from birdie_tui.schedules.models import RunRecord, Trigger

    async def run(trigger: Trigger, fire_time: datetime, paths: tuple[str, ...]) -> RunRecord:
        from birdie_tui.agent.options import EngineOptions
        from birdie_tui.schedules.runner import run_trigger

        options = EngineOptions(user=user, skills_dirs=args.skills_dir,
                                agents_dirs=args.agents_dir, config_file=args.config,
                                database_url=url)
        return await run_trigger(trigger, options=options, changed_paths=paths,
                                 fire_time=fire_time, run_log=run_log, agents=agents)

    return run
