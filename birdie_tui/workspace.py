"""What a turn's tools may ask of the front end that hosts them (a leaf: it imports nothing).

An editor speaking the Agent Client Protocol can read and write files itself (so an unsaved
buffer is what a tool reads, and a write shows up as a change in the editor) and run commands
in a terminal of its own (the output streams into the editor). A front end that offers this
passes a `Workspace` through the door with a turn (`Birdie.send(..., workspace=...)`); the
turn's `bash:` tools then use it (`tools/workspace_calls.py` says which call goes where).
Without one, and for `python:`, `http:` and MCP tools always, tools run in this process.

Paths are absolute: tools resolve them against this process's working directory first, as
they do when they run locally. A failure raises `WorkspaceError`, whose text is one line.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


class WorkspaceError(Exception):
    """A read, write or run the front end could not do; the text is one line for the model."""


@dataclass(frozen=True)
class RunResult:
    """What a command run by the front end gave."""

    output: str  # stdout and stderr as the terminal captured them, interleaved
    exit_code: int | None  # None when a signal ended it (or it was killed on timeout)
    signal: str | None = None  # the signal that ended it, if one did
    truncated: bool = False  # the front end dropped the start of a long output
    timed_out: bool = False  # still running at `timeout_s`: killed, `output` is what it printed


class Workspace(Protocol):
    """Files and commands as the front end sees them. A flag that is False means the matching
    method is not offered: a tool then does that part in this process."""

    @property
    def can_read(self) -> bool: ...
    @property
    def can_write(self) -> bool: ...
    @property
    def can_run(self) -> bool: ...

    async def read_text(self, path: str) -> str: ...
    async def write_text(self, path: str, content: str) -> None: ...

    async def run(self, argv: list[str], *, cwd: str, env: dict[str, str],
                  timeout_s: float | None, output_limit: int,
                  on_output: Callable[[str], None] | None = None,
                  call_id: str | None = None) -> RunResult:
        """Run `argv` (argv[0] the program, never a shell line to parse) in `cwd`, with `env`
        added to the front end's own environment (the tool's values travel there, out of
        band). At most `output_limit` bytes of output are kept; `on_output` hears new output
        as it comes; `call_id` is the model's tool call this run belongs to, if known. On
        timeout the command is killed and `timed_out` set; cancelling the call kills it."""
        ...


__all__ = ["RunResult", "Workspace", "WorkspaceError"]
