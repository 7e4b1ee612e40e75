"""SIGTERM and SIGHUP (the terminal closed) end birdie-tui the way Esc ends a turn.

The running turn is cancelled: its tool's process group is killed and the engine leaves a valid
history, as on Esc. Then the process exits with 128+signum (143, 129) and says so in one line on
stderr. `--print` wraps its command in `cancel_on_signal`; the TUI installs a `SignalWatch`
whose callback cancels the turn and exits the app.

The clean way out is bounded: a second signal, or `GRACE_SECONDS` without an exit, ends the
process at once (tool processes still die: the tool reaper sees the app go). SIGKILL cannot be
caught; the reaper (`birdie_tui.tools.reaper`) covers it. SIGINT keeps its own meaning (130).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable
from typing import Any

PROG = "birdie-tui"
TERMINATING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                    if hasattr(signal, name))
GRACE_SECONDS = 15.0  # from the first signal to a forced exit, if the clean one hangs


def exit_status(signum: int) -> int:
    return 128 + signum


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def say(line: str) -> None:
    """One line on stderr, if there is still somewhere to write it (not after a hangup)."""
    try:
        print(f"{PROG}: {line}", file=sys.stderr, flush=True)
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a signal mid-write (reentrant)
        pass


def quiet_dead_streams() -> None:
    """After a hangup the terminal is gone: point stdout/stderr at /dev/null if they no longer
    take writes, so the interpreter's last flush cannot fail (and change the exit status)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            try:
                _to_devnull(stream.fileno())
            except (OSError, ValueError):
                pass


def _to_devnull(fd: int) -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


class SignalWatch:
    """SIGTERM/SIGHUP handled for an asyncio loop (installed from the main thread).

    The first signal calls `on_signal(signum)` on the loop and starts the grace timer; a second
    one exits at once. On SIGHUP the standard streams that were a terminal are pointed at
    /dev/null before anything else runs: the terminal is gone, and a write that fails there
    would kill the thread writing it (Textual's output thread, then its shutdown waits forever).
    `remove()` gives the signals back to whoever had them before."""

    def __init__(self, on_signal: Callable[[int], object], *, grace: float = GRACE_SECONDS) -> None:
        self.on_signal = on_signal
        self.grace = grace
        self.received: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: dict[int, Any] = {}
        self._terminal_fds: list[int] = []
        self._timer: threading.Timer | None = None

    @property
    def hung_up(self) -> bool:
        """The terminal was closed (SIGHUP): nothing more can be shown on it."""
        return self.received is not None and self.received == getattr(signal, "SIGHUP", None)

    def install(self, loop: asyncio.AbstractEventLoop | None = None) -> bool:
        """False where signals cannot be handled here (not the main thread, Windows)."""
        if threading.current_thread() is not threading.main_thread():
            return False
        self._loop = loop or asyncio.get_running_loop()
        # Known now: once the terminal has hung up, isatty() says False.
        self._terminal_fds = [fd for fd in (0, 1, 2) if _isatty(fd)]
        for signum in TERMINATING:
            try:
                previous = signal.getsignal(signum)
                # The loop's handler wakes the loop (its wakeup fd); ours replaces the Python
                # side, so it runs first, between two bytecodes, even if the loop is blocked.
                self._loop.add_signal_handler(signum, _nothing)
                signal.signal(signum, self._raw)
            except (NotImplementedError, RuntimeError, OSError, ValueError):
                continue
            self._previous[signum] = previous
        return bool(self._previous)

    def remove(self) -> None:
        """Stop handling; the grace timer keeps running (a hang in teardown is still ended)."""
        loop, self._loop = self._loop, None
        for signum, previous in self._previous.items():
            try:
                if loop is not None and not loop.is_closed():
                    loop.remove_signal_handler(signum)
                signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
            except (RuntimeError, OSError, ValueError, TypeError):
                pass
        self._previous = {}

    def disarm(self) -> None:
        """Cancel the grace timer (the process is staying alive after all: tests)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _raw(self, signum: int, frame: Any) -> None:
        """In the main thread, between two bytecodes (even with the loop blocked)."""
        if self.received is not None:
            force_exit(signum, "second signal")
        self.received = signum
        if self.hung_up:
            for fd in self._terminal_fds:
                try:
                    _to_devnull(fd)
                except OSError:
                    pass
        self._timer = threading.Timer(self.grace, force_exit, (signum, "clean exit took too long"))
        self._timer.daemon = True
        self._timer.start()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            loop.call_soon_threadsafe(self.on_signal, signum)


def _nothing() -> None:
    pass


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def force_exit(signum: int, why: str) -> None:
    say(f"{signal_name(signum)}: {why}; exiting now")
    os._exit(exit_status(signum))


async def cancel_on_signal(main: Awaitable[int]) -> int:
    """Await `main` (a headless command); SIGTERM/SIGHUP cancel it as Esc cancels a turn and
    the result is 128+signum, with one line on stderr."""
    task = asyncio.current_task()
    assert task is not None
    watch = SignalWatch(lambda signum: task.cancel())
    watch.install()
    try:
        code = await main
    except asyncio.CancelledError:
        if watch.received is None:
            raise
        task.uncancel()
        code = 0
    finally:
        watch.remove()
    if watch.received is None:
        return code
    say(f"stopped by {signal_name(watch.received)}: the running turn was cancelled "
        "and the session kept")
    quiet_dead_streams()
    return exit_status(watch.received)
