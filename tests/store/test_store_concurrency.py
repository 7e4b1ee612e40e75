"""Several real processes allocate session ids in one BIRDIE_HOME at the same moment."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from birdie_tui.store import BirdiePaths, SessionStore

REPO = Path(__file__).resolve().parents[2]

ALLOCATE = r"""
import pathlib, sys, time
from datetime import date
from birdie_tui.store import BirdiePaths, SessionStore
home, go, ready, count = sys.argv[1:5]
pathlib.Path(ready).touch()
while not pathlib.Path(go).exists():
    time.sleep(0.001)
store = SessionStore(BirdiePaths(pathlib.Path(home)), "alice")
for _ in range(int(count)):
    print(store.create(date(2026, 1, 1)).id, flush=True)
"""

LIST_WHILE_CREATING = r"""
import pathlib, sys, time
from birdie_tui.store import BirdiePaths, SessionStore
home, go, ready, done = sys.argv[1:5]
pathlib.Path(ready).touch()
while not pathlib.Path(go).exists():
    time.sleep(0.001)
store = SessionStore(BirdiePaths(pathlib.Path(home)), "alice")
while not pathlib.Path(done).exists():
    store.list()
print("\n".join(store.warnings))
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    return env


def _start(script: str, *args: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
        cwd=REPO,
    )


def _wait_ready(markers: list[Path], procs: list[subprocess.Popen[str]]) -> None:
    deadline = time.monotonic() + 60
    while not all(m.exists() for m in markers):
        for p in procs:
            assert p.poll() is None, p.communicate()[1]
        assert time.monotonic() < deadline, "workers never became ready"
        time.sleep(0.01)


@pytest.mark.parametrize("workers", [2, 4])
def test_concurrent_processes_never_share_an_id(tmp_path: Path, workers: int) -> None:
    """Processes creating sessions at once get distinct sequential ids; readers see no damage."""
    per_worker = 20
    home, go = tmp_path / "home", tmp_path / "go"
    markers = [tmp_path / f"ready-{i}" for i in range(workers + 1)]
    done = tmp_path / "done"
    procs = [_start(ALLOCATE, home, go, markers[i], per_worker) for i in range(workers)]
    lister = _start(LIST_WHILE_CREATING, home, go, markers[-1], done)
    _wait_ready(markers, procs + [lister])
    go.touch()  # every process is waiting on this: they start allocating together

    ids: list[str] = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        ids.extend(out.split())
    done.touch()
    lister_out, lister_err = lister.communicate(timeout=60)
    assert lister.returncode == 0, lister_err

    total = workers * per_worker
    assert len(ids) == total and len(set(ids)) == total
    assert sorted(ids, key=lambda s: int(s.rsplit("_", 1)[1])) == [
        f"2026-01-01_{n}" for n in range(1, total + 1)
    ]
    files = sorted(p.name for p in (home / "sessions" / "alice").glob("2026-01-01_*.json"))
    assert len(files) == total
    # A reader racing the writers never mistook a half-created session for a corrupt one.
    assert lister_out.strip() == ""
    store = SessionStore(BirdiePaths(home), "alice")
    assert len(store.list(include_empty=True)) == total and store.warnings == []
