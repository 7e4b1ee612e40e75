"""An in-memory `Workspace` (birdie_tui/workspace.py) for the tools' tests: the seam is ours, so
a double stands in for the editor. Files live in a dict; `run` records what it is asked and
answers with a scripted result (or, with `execute=True`, really runs it)."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field

from birdie_tui.workspace import RunResult, WorkspaceError


@dataclass
class RunAsked:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    timeout_s: float | None
    output_limit: int
    call_id: str | None


@dataclass
class MemoryWorkspace:
    files: dict[str, str] = field(default_factory=dict)
    can_read: bool = True
    can_write: bool = True
    can_run: bool = True
    result: RunResult = field(default_factory=lambda: RunResult("ran\n", 0))
    execute: bool = False  # run argv for real (with env added to this environment)
    reads: list[str] = field(default_factory=list)
    writes: list[tuple[str, str]] = field(default_factory=list)
    runs: list[RunAsked] = field(default_factory=list)

    async def read_text(self, path: str) -> str:
        self.reads.append(path)
        if path not in self.files:
            raise WorkspaceError(f"no such file in the editor: {path}")
        return self.files[path]

    async def write_text(self, path: str, content: str) -> None:
        self.writes.append((path, content))
        self.files[path] = content

    async def run(self, argv: list[str], *, cwd: str, env: dict[str, str],
                  timeout_s: float | None, output_limit: int,
                  on_output: Callable[[str], None] | None = None,
                  call_id: str | None = None) -> RunResult:
        self.runs.append(RunAsked(list(argv), cwd, dict(env), timeout_s, output_limit, call_id))
        if not self.execute:
            return self.result
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env={**os.environ, **env}, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        out, _ = await proc.communicate()
        return RunResult(out.decode(), proc.returncode)
