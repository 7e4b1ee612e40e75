"""Tool processes never outlive the app, whatever kills it (SIGKILL included).

Each `bash:` tool runs in its own process group, which a timeout or a cancel kills. That is not
enough when the app itself dies: nothing is left to do the killing. So one small reaper process
per app (`reaper_child.py`, started before the first tool's process, never again per call)
holds the read end of a pipe the app writes to: `+PGID` when a tool's group starts, `-PGID`
when it is gone.
When the app dies the kernel closes the pipe, and the reaper kills every group still registered
(SIGTERM, a grace second, SIGKILL), then exits. On Linux it also kills every process carrying
`BIRDIE_TOOL_OWNER=<this app's token>` in its environment (`tool_environment`): a tool caught
between its start and its registration, or a grandchild that left the group with `setsid`.

A call costs two small pipe writes. Where the reaper cannot run (no `posix_spawn`: Windows), it
is skipped and tools are still killed on timeout, cancel, SIGTERM and SIGHUP, just not on SIGKILL.
"""

from __future__ import annotations

import os
import secrets
import sys
import threading
from pathlib import Path

OWNER_VARIABLE = "BIRDIE_TOOL_OWNER"
_CHILD = Path(__file__).with_name("reaper_child.py")


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


class Reaper:
    """This process's reaper: started on first use; a forked child starts its own."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owner = 0  # the pid that started the reaper (and owns the token)
        self._token = ""
        self._pid: int | None = None
        self._fd: int | None = None
        self._groups: set[int] = set()
        self.unavailable: str | None = None  # why there is no reaper here, if there is none

    @property
    def token(self) -> str:
        if self._owner != os.getpid():
            self._reset()
        return self._token

    @property
    def pid(self) -> int | None:
        """The reaper process, once started (tests and diagnostics)."""
        return self._pid if self._owner == os.getpid() else None

    def ready(self) -> None:
        """Called before a tool's process is spawned: the reaper must already run then, or a
        SIGKILL between the spawn and `watch` (the first tool's, while the loop is busy) would
        leave the tool with nothing to kill it. Running, it finds such a tool by its mark."""
        with self._lock:
            self._running()

    def watch(self, pgid: int) -> None:
        """A tool's process group started: kill it if the app dies."""
        with self._lock:
            running = self._running()
            self._groups.add(pgid)
            if running:
                self._send(f"+{pgid}\n")

    def release(self, pgid: int) -> None:
        """The group is gone (ended or killed): forget it."""
        with self._lock:
            if self._owner != os.getpid():
                return
            self._groups.discard(pgid)
            if self._fd is not None:
                self._send(f"-{pgid}\n")

    def settle(self, pgid: int) -> None:
        """After a tool's command ended: released if its group is empty; a background job it
        left running stays registered, and dies with the app (the reaper drops it once gone)."""
        if not group_alive(pgid):
            self.release(pgid)

    # ------------------------------------------------------------------ the process
    def _running(self) -> bool:
        """(Under the lock.) This process's reaper runs, started now if it did not."""
        if self._owner != os.getpid():
            self._reset()
        return self._fd is not None or self._start()

    def _reset(self) -> None:
        """A fresh state for this pid (first use, or a forked child: the parent's pipe and
        token are not ours)."""
        self._owner, self._token = os.getpid(), f"{os.getpid()}.{secrets.token_hex(8)}"
        self._pid = self._fd = None
        self._groups = set()

    def _start(self) -> bool:
        if not hasattr(os, "posix_spawn") or not hasattr(os, "killpg"):
            self.unavailable = "no posix_spawn on this platform"
            return False
        read_end, write_end = os.pipe()
        try:
            self._pid = _spawn(read_end, self._token)
        except OSError as exc:
            os.close(write_end)
            self.unavailable = f"cannot start the tool reaper: {exc}"
            return False
        finally:
            os.close(read_end)
        os.set_blocking(write_end, False)  # a stuck reaper never blocks the app
        self._fd, self.unavailable = write_end, None
        return True

    def _send(self, line: str) -> None:
        try:
            os.write(self._fd, line.encode())  # type: ignore[arg-type]
            return
        except BlockingIOError:  # the reaper is stopped: timeouts and cancels still kill
            return
        except OSError:  # the reaper died: start another and tell it everything again
            pass
        self._forget_process()
        if self._start():
            try:
                os.write(self._fd, "".join(f"+{g}\n" for g in self._groups).encode())  # type: ignore[arg-type]
            except OSError:
                self._forget_process()

    def _forget_process(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
        if self._pid is not None:
            try:
                os.waitpid(self._pid, os.WNOHANG)  # no zombie left behind
            except ChildProcessError:
                pass
        self._pid = self._fd = None


def _spawn(read_end: int, token: str) -> int:
    """The reaper, in its own session (a closed terminal's SIGHUP and a ctrl+c reach the app,
    never the reaper), reading `read_end` as its standard input."""
    argv = [sys.executable, "-I", "-S", str(_CHILD), token]
    actions = [(os.POSIX_SPAWN_DUP2, read_end, 0),
               (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
    try:
        return os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions,
                              setsid=True, setsigmask=())
    except NotImplementedError:  # an older libc: its own process group is enough
        return os.posix_spawn(sys.executable, argv, os.environ, file_actions=actions,
                              setpgroup=0, setsigmask=())


REAPER = Reaper()


def tool_environment() -> dict[str, str]:
    """What a tool process's environment carries so the reaper can find it."""
    return {OWNER_VARIABLE: REAPER.token}
