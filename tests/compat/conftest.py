"""The real Birdie, installed from the package index into its own venv, as a test oracle.

`birdie_env` is session-scoped and parametrized by version (use
`@pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)`). Each version gets one venv,
cached outside the repo in `${XDG_CACHE_HOME:-~/.cache}/birdie-tui-tests/birdie-agent-<version>/`
so reruns take milliseconds. A lock file serialises concurrent builds and the venv is built in
a temporary folder then renamed into place, so no run ever sees a half-built venv. A cached
venv that no longer imports Birdie, or was built with other pins, is rebuilt.

When the install fails the tests are skipped, except under CI=true, where they fail: CI must
never silently stop checking compatibility.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

# Extra requirements per Birdie version (STACK-NOTES.md: 0.1.5 resolves only with these pins).
PINS: dict[str, tuple[str, ...]] = {
    "0.1.5": ("langchain-core==1.7.2", "mcp<2"),
}
PYTHON = "python3.11"
INSTALL_TIMEOUT_S = 1200
LOCK_TIMEOUT_S = 1500
ORACLE = Path(__file__).with_name("birdie_oracle.py")
_MARKER = "birdie-tui-venv.json"


class InstallError(Exception):
    pass


@dataclass(frozen=True)
class BirdieEnv:
    version: str
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def site_packages(self) -> Path:
        return self.venv / "lib" / "python3.11" / "site-packages"

    @property
    def skills_dir(self) -> Path:
        return self.site_packages / "birdie" / "skills"

    def run_oracle(self, *args: str) -> Any:
        """Run `birdie_oracle.py` with Birdie's interpreter and return the JSON it prints."""
        proc = subprocess.run([str(self.python), str(ORACLE), *args], capture_output=True, text=True,
                              timeout=300, cwd=self.venv, env=_venv_env())
        assert proc.returncode == 0, f"Birdie oracle failed:\n{proc.stderr[-3000:]}"
        return json.loads(proc.stdout)


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "birdie-tui-tests"


def _venv_env() -> dict[str, str]:
    # Nothing of this test process's Python setup may leak into Birdie's interpreter.
    drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP", "PYTHONSAFEPATH")
    return {k: v for k, v in os.environ.items() if k not in drop}


def _spec(version: str) -> dict[str, Any]:
    return {"package": f"birdie-agent=={version}", "pins": list(PINS.get(version, ())), "python": PYTHON}


def _is_ready(venv: Path, version: str) -> bool:
    try:
        if json.loads((venv / _MARKER).read_text()) != _spec(version):
            return False
    except (OSError, ValueError):
        return False
    probe = "import importlib.metadata as m, birdie.core.loader; print(m.version('birdie-agent'))"
    try:
        proc = subprocess.run([str(venv / "bin" / "python"), "-c", probe], capture_output=True,
                              text=True, timeout=120, env=_venv_env())
    except (OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and proc.stdout.strip() == version


def _run(cmd: list[str], what: str) -> None:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S, env=_venv_env())
    except (OSError, subprocess.SubprocessError) as exc:
        raise InstallError(f"{what}: {exc}") from None
    if proc.returncode != 0:
        tail = "\n".join((proc.stderr or proc.stdout).strip().splitlines()[-15:])
        raise InstallError(f"{what} exited {proc.returncode}:\n{tail}")


def _build(venv: Path, version: str) -> None:
    python = shutil.which(PYTHON)
    if python is None:
        raise InstallError(f"{PYTHON} is not on PATH")
    tmp = venv.with_name(f"{venv.name}.tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        _run([python, "-m", "venv", str(tmp)], f"{PYTHON} -m venv")
        spec = _spec(version)
        # Always `python -m pip`: the venv is renamed afterwards, so its script shebangs go stale.
        _run([str(tmp / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check",
              "--no-input", "-q", spec["package"], *spec["pins"]], f"pip install {spec['package']}")
        (tmp / _MARKER).write_text(json.dumps(spec))
        if not _is_ready(tmp, version):
            raise InstallError(f"{spec['package']} installed but `import birdie` fails")
        shutil.rmtree(venv, ignore_errors=True)  # a broken or outdated cached venv
        os.rename(tmp, venv)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ensure_birdie_venv(version: str) -> Path:
    """The cached venv with `birdie-agent==version`, built once (under a lock) if needed."""
    root = cache_root()
    venv = root / f"birdie-agent-{version}"
    if _is_ready(venv, version):
        return venv
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"birdie-agent-{version}.lock", "w") as lock:
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise InstallError(f"timed out waiting for {lock.name}") from None
                time.sleep(1)
        try:
            if not _is_ready(venv, version):  # another run may have built it meanwhile
                _build(venv, version)
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return venv


def _unavailable(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


@pytest.fixture(scope="session")
def birdie_env(request: pytest.FixtureRequest) -> BirdieEnv:
    version = getattr(request, "param", None)
    if version is None:
        raise pytest.UsageError('parametrize it: @pytest.mark.parametrize("birdie_env", ["0.1.5"], indirect=True)')
    if sys.platform == "win32":
        _unavailable("the Birdie compatibility venv is built for POSIX only")
    try:
        venv = ensure_birdie_venv(version)
    except InstallError as exc:
        _unavailable(f"cannot install birdie-agent=={version} for the compatibility tests: {exc}")
    return BirdieEnv(version, venv)


@pytest.fixture(scope="session")
def birdie_view(birdie_env: BirdieEnv) -> dict[str, Any]:
    """Birdie's own parse of its bundled skills: {"module", "skills": [...], "errors": [...]}."""
    return birdie_env.run_oracle(str(birdie_env.skills_dir))
