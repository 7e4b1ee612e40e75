"""The way out after SIGTERM/SIGHUP never hangs: a second signal, or the grace period, ends a
process whose clean exit is stuck (real processes, real signals)."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from ..conftest import clean_env

pytestmark = pytest.mark.integration

STUCK = r"""
import asyncio, sys
from birdie_tui.cli.signals import SignalWatch

async def main():
    watch = SignalWatch(lambda signum: print("asked", signum, flush=True),
                        grace=float(sys.argv[1]))
    watch.install()
    print("ready", flush=True)
    await asyncio.sleep(600)  # a clean exit that never comes

asyncio.run(main())
"""


def start(home, grace: float) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", STUCK, str(grace)], env=clean_env(home),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline() == "ready\n"
    return proc


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_second_signal_exits_at_once(isolated_home, sig):
    """The first signal asks for a clean exit; a second one ends the process with 128+signum."""
    proc = start(isolated_home, 600)
    proc.send_signal(sig)
    assert proc.stdout.readline() == f"asked {int(sig)}\n"
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig
    assert err.strip().splitlines() == [f"birdie-tui: {signal.Signals(sig).name}: second signal; exiting now"]


def test_a_clean_exit_that_hangs_is_ended_after_the_grace_period(isolated_home):
    """No second signal: once the grace period is over the process exits 143 anyway."""
    proc = start(isolated_home, 0.5)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and out == "asked 15\n"
    assert err.strip().splitlines() == ["birdie-tui: SIGTERM: clean exit took too long; exiting now"]


def test_handlers_are_given_back(isolated_home):
    """Removed, the watch restores the handlers that were there before (here: the default,
    so SIGTERM ends the process as usual)."""
    code = ("import asyncio, os, signal\n"
            "from birdie_tui.cli.signals import SignalWatch\n"
            "async def main():\n"
            "    w = SignalWatch(print); w.install(); w.remove()\n"
            "    os.kill(os.getpid(), signal.SIGTERM); await asyncio.sleep(30)\n"
            "asyncio.run(main())\n")
    proc = subprocess.run([sys.executable, "-c", code], env=clean_env(isolated_home),
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == -signal.SIGTERM
