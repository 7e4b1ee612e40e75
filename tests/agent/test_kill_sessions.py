"""Sessions survive a kill: a real `birdie-tui --print` is SIGKILLed at many points
of a tool-heavy turn — at startup, with the session open, mid-stream, during a tool, mid-stream
after a tool, after `done`, and at spread-out moments of a paced turn — all on one session.

After each kill the session on disk is checked *without* running any repair: its history is
valid for every provider (`history_problems`), every turn completed before is still there,
and the session JSON's `turns` and token totals agree with the history. Then another
`--print` continues the session and must work, and the same checks hold."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from birdie_tui.agent.history import history_problems

from ..cli.helpers import raw_history
from ..cli.helpers import session_json as session_file
from ..conftest import clean_env

pytestmark = pytest.mark.integration

SKILL = """\
---
name: Worker
description: Tools that take their time.
---

## Tools

### slow
description: Sleep (leaves its pid and a marker once it runs).
entrypoint: bash:echo $$ > "$BIRDIE_HOME/slow.pid"; touch "$BIRDIE_HOME/slow.started"; exec sleep 20
schema:
  type: object
  properties: {}

### echo_text
description: Print the given text.
entrypoint: bash:printf '%s' {text}
schema:
  type: object
  properties:
    text: {type: string}
  required: [text]
"""


class Run:
    """A `birdie-tui --print ... --output-format stream-json` process, its events read as they
    come (a thread feeds a queue, so a hung process fails the test instead of hanging it)."""

    def __init__(self, home: Path, skills: Path, message: str, *, session: str | None = None,
                 tps: float | None = None) -> None:
        env = clean_env(home)
        if tps:
            env["BIRDIE_OFFLINE_TPS"] = str(tps)
        args = [sys.executable, "-m", "birdie_tui.cli", "--skills-dir", str(skills),
                "--output-format", "stream-json", "--auto-approve"]
        if session:
            args += ["--session-id", session]
        self.proc = subprocess.Popen([*args, "--print", message], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env,
                                     start_new_session=True)
        self.events: list[dict[str, Any]] = []
        self._lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def wait_for(self, kind: str, count: int = 1, timeout: float = 60) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            seen = [e for e in self.events if e["type"] == kind]
            if len(seen) >= count:
                return seen[count - 1]
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise AssertionError(f"no {kind} event in {timeout} s: {self.events}") from None
            if line is None:
                raise AssertionError(f"exited before a {kind} event: {self.proc.stderr.read()}")
            self.events.append(json.loads(line))

    def kill(self, *, may_have_exited: bool = False) -> None:
        """SIGKILL it; unless `may_have_exited`, it must still have been running."""
        if may_have_exited and self.proc.poll() is not None:
            assert self.proc.returncode == 0, self.proc.stderr.read()
            return
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)
        assert self.proc.returncode == -signal.SIGKILL or may_have_exited

    def finish(self, timeout: float = 120) -> int:
        """Wait for the exit; every event it printed is then in `events`."""
        self.proc.wait(timeout)
        while (line := self._lines.get(timeout=10)) is not None:
            self.events.append(json.loads(line))
        return self.proc.returncode


def usage_totals(messages: list[Any]) -> tuple[int, int]:
    usage = [m.usage_metadata or {} for m in messages if isinstance(m, AIMessage)]
    return (sum(int(u.get("input_tokens", 0) or 0) for u in usage),
            sum(int(u.get("output_tokens", 0) or 0) for u in usage))


async def check_on_disk(home: Path, session_id: str, kept: list[str], *,
                        counts: bool = True) -> list[Any]:
    """Valid without repair; the turns completed before (`kept`: their message ids) all there,
    in order; with `counts`, the JSON's turns and token totals agree with the history."""
    history = await raw_history(home, session_id)
    assert history_problems(history) == [], [type(m).__name__ for m in history]
    assert [m.id for m in history[:len(kept)]] == kept, "a completed turn was lost"
    if counts:
        data = session_file(home, session_id)
        humans = sum(isinstance(m, HumanMessage) for m in history)
        assert data["turns"] == humans
        assert (data["input_tokens"], data["output_tokens"]) == usage_totals(history)
    return history


def cleanup_tool(home: Path) -> None:
    """The slow tool's `sleep`, if a kill left it behind (reaping it is
    tests/tools/test_proc_reaper.py's subject)."""
    pid_file = home / "slow.pid"
    if pid_file.exists():
        try:
            os.kill(int(pid_file.read_text().strip()), signal.SIGKILL)
        except (ProcessLookupError, ValueError):
            pass
        pid_file.unlink()
    (home / "slow.started").unlink(missing_ok=True)


async def continue_session(home: Path, skills: Path, session_id: str, note: str) -> list[str]:
    """Another `--print` on the session works; returns the message ids of the history after."""
    run = Run(home, skills, note, session=session_id)
    assert run.finish() == 0, run.proc.stderr.read()
    assert run.events[-1]["type"] == "done"
    history = await check_on_disk(home, session_id, [])
    assert isinstance(history[-2], HumanMessage) and history[-2].content == note
    assert isinstance(history[-1], AIMessage)
    return [m.id for m in history]


def kill_at(run: Run, point: str, home: Path) -> None:
    if point == "session open":
        run.wait_for("session")
    elif point in ("mid-stream", "mid-stream after a tool"):
        run.wait_for("tool_result" if point.endswith("tool") else "session")
        run.wait_for("token", 3 + len([e for e in run.events if e["type"] == "token"]))
    elif point == "during a tool":
        run.wait_for("tool_call")
        deadline = time.monotonic() + 30
        while not (home / "slow.started").exists():
            assert time.monotonic() < deadline, "the slow tool never started"
            time.sleep(0.02)
    elif point == "after done":
        run.wait_for("done")
    else:  # startup: before the engine is up
        time.sleep(0.15)
    run.kill()


POINTS = [  # (where, message, offline tokens per second)
    ("startup", "hello from a process killed at startup", None),
    ("session open", "hello from a process killed with the session open", None),
    ("mid-stream", "a long enough message to stream for a while " * 3, 40),
    ("during a tool", "call slow", None),
    ("mid-stream after a tool", 'call echo_text {"text": "tool output"}', 40),
    ("after done", "hello from a process killed after done", None),
]


@pytest.mark.slow
async def test_a_session_survives_kills_at_every_point(tmp_path, isolated_home):
    """Kill -9 at each point of a turn: the history on disk is valid without repair, no
    completed turn is lost, turns and tokens agree with it, and the session goes on."""
    skills = tmp_path / "skills"
    (skills / "worker").mkdir(parents=True)
    (skills / "worker" / "SKILL.MD").write_text(SKILL)
    first = Run(isolated_home, skills, 'call echo_text {"text": "first"}')
    assert first.finish() == 0, first.proc.stderr.read()
    session_id = first.events[0]["id"]
    kept = [m.id for m in await check_on_disk(isolated_home, session_id, [])]
    for point, message, tps in POINTS:
        run = Run(isolated_home, skills, message, session=session_id, tps=tps)
        try:
            kill_at(run, point, isolated_home)
        finally:
            if run.proc.poll() is None:
                run.proc.kill()
            cleanup_tool(isolated_home)
        await check_on_disk(isolated_home, session_id, kept)
        kept = await continue_session(isolated_home, skills, session_id, f"after: {point}")
    assert session_file(isolated_home, session_id)["turns"] == \
        sum(1 for m in await raw_history(isolated_home, session_id) if m.type == "human")


@pytest.mark.slow
async def test_kills_at_spread_out_moments_of_a_paced_turn(tmp_path, isolated_home):
    """Kill -9 at moments spread over a paced turn with a tool (timing decides where each one
    lands): each time the history is valid without repair and no completed turn is lost;
    the next `--print` continues it, and then the counts agree with the history."""
    skills = tmp_path / "skills"
    (skills / "worker").mkdir(parents=True)
    (skills / "worker" / "SKILL.MD").write_text(SKILL)
    first = Run(isolated_home, skills, "start")
    assert first.finish() == 0, first.proc.stderr.read()
    session_id = first.events[0]["id"]
    kept = [m.id for m in await check_on_disk(isolated_home, session_id, [])]
    for delay in (0.0, 0.1, 0.3, 0.5, 0.8):
        run = Run(isolated_home, skills, 'call echo_text {"text": "paced"}', session=session_id,
                  tps=80)
        try:
            run.wait_for("session")
            time.sleep(delay)
            run.kill(may_have_exited=True)  # a slow machine may land past the end
        finally:
            if run.proc.poll() is None:
                run.proc.kill()
        # A kill between a checkpoint and its JSON write (a millisecond) is counted on the
        # next open: the counts are checked after the session goes on.
        await check_on_disk(isolated_home, session_id, kept, counts=False)
        kept = await continue_session(isolated_home, skills, session_id, f"after {delay}")


@pytest.mark.slow
async def test_a_turn_killed_mid_stream_is_marked_interrupted_when_continued(tmp_path,
                                                                             isolated_home):
    """After kill -9 mid-stream, the Markdown export marks the reply-less turn as
    interrupted with the /retry hint, and opening the session (as `-c` does) closes it with
    the same `[interrupted]` reply a SIGTERM leaves; /retry then takes that turn back."""
    from birdie_tui.agent.engine import INTERRUPTED_MARK, Engine, EngineOptions
    from birdie_tui.providers.config import ProviderConfig

    skills = tmp_path / "skills"
    (skills / "worker").mkdir(parents=True)
    (skills / "worker" / "SKILL.MD").write_text(SKILL)
    message = "a long enough message to stream for a while " * 3
    run = Run(isolated_home, skills, message, tps=40)
    try:
        kill_at(run, "mid-stream", isolated_home)
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    session_id = run.events[0]["id"]
    assert isinstance((await raw_history(isolated_home, session_id))[-1], HumanMessage)
    exported = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "sessions", "export",
                               session_id], env=clean_env(isolated_home),
                              capture_output=True, text=True, timeout=120)
    assert exported.stdout.rstrip().endswith(
        "*[interrupted]* — no reply was saved; /retry runs the turn again")

    engine = Engine(EngineOptions(skills_dirs=[skills], provider=ProviderConfig(vendor="offline")))
    await engine.start()
    try:
        await engine.open_session(session_id)
        history = await engine.messages()
        assert [type(m).__name__ for m in history] == ["HumanMessage", "AIMessage"]
        assert history[-1].content == INTERRUPTED_MARK
        assert history_problems(history) == []
        assert (await engine.take_last_turn()).strip() == message.strip()
    finally:
        await engine.aclose()
