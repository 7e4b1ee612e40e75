"""Tool processes never outlive the process that ran them: the reaper, for real. A small app
(a fresh Python running real `bash:` tools through `run_entrypoint`) is killed with SIGKILL,
which nothing can catch, and every process its tools started must go."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from birdie_tui.skills import SkillTool
from birdie_tui.tools.entrypoints import run_entrypoint
from birdie_tui.tools.reaper import OWNER_VARIABLE, REAPER

from ..conftest import clean_env
from .proc_support import TREE_PIDS, alive, tree_command, wait_for_pids, wait_gone

APP = r"""
import asyncio, os, signal, sys
from pathlib import Path
from birdie_tui.skills import SkillTool
from birdie_tui.tools.entrypoints import run_entrypoint
from birdie_tui.tools.reaper import REAPER

mode, commands = sys.argv[1], sys.argv[2:]
if mode == "unregistered":  # killed after the spawn, before `watch` ran (a busy loop's window)
    REAPER.watch = lambda pgid: None

def run(command):
    tool = SkillTool(name="t", description="d", entrypoint="bash:" + command)
    return asyncio.ensure_future(run_entrypoint(tool, {}, skill_dir=Path("."), timeout=600))

async def main():
    tasks = []
    for i, command in enumerate(commands):
        if mode == "restart" and i == 1:  # the reaper dies between two tools
            os.kill(REAPER.pid, signal.SIGKILL)
            os.waitpid(REAPER.pid, 0)
        tasks.append(run(command))
        while REAPER.pid is None:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.3)
    print("reaper", REAPER.pid, flush=True)
    if mode == "finish":
        print([t.content for t in await asyncio.gather(*tasks)], flush=True)
        return
    await asyncio.sleep(600)

asyncio.run(main())
"""


def start_app(home: Path, mode: str, *commands: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", APP, mode, *commands], env=clean_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def kill_app(app: subprocess.Popen) -> None:
    app.kill()
    app.communicate(timeout=60)


def test_a_sigkilled_app_leaves_no_tool_process(isolated_home, tmp_path):
    """SIGKILL of the app: the tool's shell, child and grandchild are all killed by the reaper."""
    pids_file = tmp_path / "pids"
    app = start_app(isolated_home, "hold", tree_command(pids_file))
    pids = wait_for_pids(pids_file, TREE_PIDS, process=app)
    assert all(alive(p) for p in pids)
    kill_app(app)
    assert wait_gone(pids) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                    reason="finding unregistered processes by their mark needs /proc")
def test_a_tool_killed_before_its_registration_is_found_by_its_mark(isolated_home, tmp_path):
    """SIGKILL after the first tool's process started but before its group was registered:
    the reaper already runs (it starts before the spawn) and finds the processes by their mark."""
    pids_file = tmp_path / "pids"
    app = start_app(isolated_home, "unregistered", tree_command(pids_file))
    pids = wait_for_pids(pids_file, TREE_PIDS, process=app)
    kill_app(app)
    assert wait_gone(pids) == []


def test_a_background_job_a_tool_left_dies_with_the_app(isolated_home, tmp_path):
    """A tool that returns at once but leaves a job running (`sleep 300 &`): the job lives as
    long as the app, and goes when the app ends normally."""
    pid_file = tmp_path / "pid"
    app = start_app(isolated_home, "finish",
                    f"sleep 300 >/dev/null 2>&1 & echo $! > {pid_file}; echo started")
    out, err = app.communicate(timeout=120)
    assert app.returncode == 0, err
    assert "started" in out
    assert wait_gone([int(pid_file.read_text())]) == []


@pytest.mark.skipif(not Path("/proc/self/environ").exists() or shutil.which("setsid") is None,
                    reason="finding escaped processes by their mark needs /proc and setsid")
def test_a_process_that_left_the_group_is_found_by_its_mark(isolated_home, tmp_path):
    """A grandchild that moved to its own session (`setsid`) is out of the group's reach; the
    reaper still finds it by the mark in its environment."""
    pids_file, escaped_file = tmp_path / "pids", tmp_path / "escaped"
    escape = f"setsid sleep 300 >/dev/null 2>&1 </dev/null & echo $! > {escaped_file}; "
    app = start_app(isolated_home, "hold", tree_command(pids_file, escape))
    pids = wait_for_pids(pids_file, TREE_PIDS, process=app)
    escaped = wait_for_pids(escaped_file, 1)[0]
    for _ in range(100):  # `echo $!` may run before `setsid` has made its session
        if os.getsid(escaped) == escaped:
            break
        time.sleep(0.02)
    assert os.getsid(escaped) == escaped != os.getpgid(pids[-1])  # really left the group
    kill_app(app)
    assert wait_gone([*pids, escaped]) == []


def test_a_reaper_that_died_is_replaced_and_told_every_group(isolated_home, tmp_path):
    """The reaper is killed while a tool runs; the next tool starts a new one, which learns
    both groups: SIGKILL of the app then leaves neither tool's processes."""
    first, second = tmp_path / "first", tmp_path / "second"
    app = start_app(isolated_home, "restart", tree_command(first), tree_command(second))
    pids = (wait_for_pids(first, TREE_PIDS, process=app)
            + wait_for_pids(second, TREE_PIDS, process=app))
    line = app.stdout.readline()
    assert line.startswith("reaper ")
    kill_app(app)
    assert wait_gone(pids) == []


def test_a_signalled_reaper_reaps_before_it_goes(isolated_home, tmp_path):
    """A reaper sent SIGTERM (by anyone) kills its groups before exiting: fail safe."""
    pids_file = tmp_path / "pids"
    app = start_app(isolated_home, "hold", tree_command(pids_file))
    pids = wait_for_pids(pids_file, TREE_PIDS, process=app)
    reaper = int(app.stdout.readline().split()[1])
    os.kill(reaper, signal.SIGTERM)
    try:
        assert wait_gone(pids) == []
    finally:
        kill_app(app)


async def test_tools_carry_this_apps_mark_and_no_other(tmp_path, monkeypatch):
    """A tool's environment names this app's reaper token; one inherited from an outer app
    (birdie-tui started from a tool) is replaced."""
    monkeypatch.setenv(OWNER_VARIABLE, "outer-app")
    tool = SkillTool(name="t", description="d", entrypoint=f"bash:echo ${OWNER_VARIABLE}")
    out = await run_entrypoint(tool, {}, skill_dir=tmp_path)
    assert out.content.strip() == REAPER.token != "outer-app"
    assert REAPER.pid is not None and alive(REAPER.pid)  # started by the first tool, kept
