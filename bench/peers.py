"""Peers of birdie-tui for the side-by-side bench: install them, and know how to run them.

Each peer gets its own venv under ``${XDG_CACHE_HOME:-~/.cache}/birdie-tui-bench/`` (skipped when
it is already there), built from a pyenv interpreter the peer supports:

- **mistral-vibe 3.0.3** on Python 3.12. Its wheel pins every dependency exactly, and one pin
  (``certifi``) names a release the index does not serve. So the requirements are read from the
  wheel's METADATA, written to a requirements file, and any exact pin that pip says it cannot find
  is relaxed to the bare name, then ``pip install --no-deps mistral-vibe==3.0.3``.
- **deepagents-code** on Python 3.13: the newest release whose ``Requires-Python`` 3.13 meets
  (pip picks it; 0.2.x wants 3.14, which this machine does not have).

Each peer is described by a ``Peer``: how to build its private HOME/config for a run against the
loopback server (dummy key), the command line, the string that shows its UI is up, and how to
type a prompt and submit it through tmux.

    python bench/peers.py install [--only vibe,deepagents]
    python bench/peers.py status
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
VIBE_VERSION = "3.0.3"


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "birdie-tui-bench"


def _python(version_prefix: str) -> Path | None:
    """The newest pyenv interpreter whose version starts with ``version_prefix``."""
    if not PYENV.is_dir():
        return None
    found = sorted((p for p in PYENV.iterdir() if p.name.startswith(version_prefix + ".")),
                   key=lambda p: [int(x) if x.isdigit() else 0 for x in p.name.split(".")])
    for p in reversed(found):
        exe = p / "bin" / "python"
        if exe.exists():
            return exe
    return None


def _run(cmd: list[str], log: Path, **kw) -> subprocess.CompletedProcess:
    with log.open("a") as fh:
        fh.write("\n$ " + " ".join(map(str, cmd)) + "\n")
        fh.flush()
        proc = subprocess.run(cmd, text=True, capture_output=True, **kw)
        fh.write(proc.stdout)
        fh.write(proc.stderr)
    return proc


def _make_venv(py: Path, venv: Path, log: Path) -> Path:
    if venv.exists():
        shutil.rmtree(venv)
    proc = _run([str(py), "-m", "venv", str(venv)], log)
    if proc.returncode:
        raise RuntimeError(f"venv failed: {proc.stderr.strip()[-400:]}")
    return venv / "bin" / "python"


def _pip_version(vpy: Path, dist: str) -> str | None:
    proc = subprocess.run([str(vpy), "-c",
                           f"import importlib.metadata as m; print(m.version({dist!r}))"],
                          capture_output=True, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


# ----------------------------------------------------------------------------- install: vibe

_NOT_FOUND = re.compile(r"No matching distribution found for ([A-Za-z0-9_.\-]+)==")
_NOT_FOUND2 = re.compile(r"Could not find a version that satisfies the requirement ([A-Za-z0-9_.\-]+)==")


def install_vibe(log: Path) -> dict:
    root = cache_root()
    venv = root / f"vibe-{VIBE_VERSION}"
    marker = venv / ".bench-ok"
    if marker.exists():
        return json.loads(marker.read_text())
    py = _python("3.12")
    if py is None:
        raise RuntimeError("no pyenv Python 3.12 (mistral-vibe needs >= 3.12)")
    vpy = _make_venv(py, venv, log)
    _run([str(vpy), "-m", "pip", "install", "-q", "--upgrade", "pip"], log)
    wheels = Path(tempfile.mkdtemp(prefix="vibe-wheel-"))
    proc = _run([str(vpy), "-m", "pip", "download", "--no-deps", "-d", str(wheels),
                 f"mistral-vibe=={VIBE_VERSION}"], log)
    if proc.returncode:
        raise RuntimeError(f"download failed: {proc.stderr.strip()[-400:]}")
    whl = next(wheels.glob("mistral_vibe-*.whl"))
    with zipfile.ZipFile(whl) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        text = zf.read(meta).decode()
    reqs = []
    for line in text.splitlines():
        if line.startswith("Requires-Dist:"):
            req = line.split(":", 1)[1].strip()
            if "extra ==" in req:
                continue
            reqs.append(req)
    relaxed: list[str] = []
    req_file = wheels / "requirements.txt"
    for _attempt in range(12):
        req_file.write_text("\n".join(reqs) + "\n")
        proc = _run([str(vpy), "-m", "pip", "install", "-r", str(req_file)], log)
        if proc.returncode == 0:
            break
        m = _NOT_FOUND.search(proc.stderr) or _NOT_FOUND2.search(proc.stderr)
        if not m:
            raise RuntimeError(f"requirements failed: {proc.stderr.strip()[-600:]}")
        name = m.group(1).lower().replace("_", "-")
        new = []
        for r in reqs:
            rname = re.split(r"[=<>!~; \[]", r, maxsplit=1)[0].lower().replace("_", "-")
            if rname == name:
                marker_part = (";" + r.split(";", 1)[1]) if ";" in r else ""
                new.append(rname + marker_part)
                relaxed.append(r.split(";")[0].strip())
            else:
                new.append(r)
        if new == reqs:
            raise RuntimeError(f"cannot relax {name}: {proc.stderr.strip()[-400:]}")
        reqs = new
    else:
        raise RuntimeError("gave up relaxing pins")
    proc = _run([str(vpy), "-m", "pip", "install", "--no-deps", str(whl)], log)
    if proc.returncode:
        raise RuntimeError(f"vibe wheel failed: {proc.stderr.strip()[-400:]}")
    info = {"name": "mistral-vibe", "version": _pip_version(vpy, "mistral-vibe"),
            "python": _run([str(vpy), "--version"], log).stdout.strip(),
            "venv": str(venv), "relaxed_pins": relaxed}
    marker.write_text(json.dumps(info))
    shutil.rmtree(wheels, ignore_errors=True)
    return info


# ----------------------------------------------------------------------- install: deepagents

def install_deepagents(log: Path) -> dict:
    root = cache_root()
    venv = root / "deepagents-code"
    marker = venv / ".bench-ok"
    if marker.exists():
        return json.loads(marker.read_text())
    py = _python("3.13")
    if py is None:
        raise RuntimeError("no pyenv Python 3.13")
    vpy = _make_venv(py, venv, log)
    _run([str(vpy), "-m", "pip", "install", "-q", "--upgrade", "pip"], log)
    # pip picks the newest release whose Requires-Python accepts 3.13.
    proc = _run([str(vpy), "-m", "pip", "install", "deepagents-code"], log)
    if proc.returncode:
        raise RuntimeError(f"install failed: {proc.stderr.strip()[-600:]}")
    info = {"name": "deepagents-code", "version": _pip_version(vpy, "deepagents-code"),
            "python": _run([str(vpy), "--version"], log).stdout.strip(), "venv": str(venv),
            "why_version": "newest release installable on Python 3.13 (0.2.x requires Python >= 3.14)"}
    marker.write_text(json.dumps(info))
    return info


INSTALLERS: dict[str, Callable[[Path], dict]] = {"vibe": install_vibe, "deepagents": install_deepagents}


def install(names: list[str]) -> dict[str, dict]:
    """Install each peer (or reuse it); returns name -> info, or {"error": why}."""
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    out = {}
    for name in names:
        log = root / f"install-{name}.log"
        try:
            out[name] = INSTALLERS[name](log)
        except Exception as exc:  # noqa: BLE001 - recorded, the peer is skipped
            out[name] = {"error": f"{type(exc).__name__}: {exc}", "log": str(log)}
    return out


# ------------------------------------------------------------------------------ run specs

PROMPT = "Please write the bird survey report"
PROMPT_WORD = "survey"


@dataclass
class AppSpec:
    """How to run one app against the loopback server, in a private home."""

    key: str
    label: str
    version: str
    argv: list[str]
    env: dict[str, str]
    cwd: str
    ready_text: str  # a string on the app's first full frame
    notes: list[str] = field(default_factory=list)
    # The text in the app's message box on a captured screen, or None where the bench does not
    # know where that box is (only birdie-tui's is located: `birdie_composer`).
    composer: Callable[[str], str | None] | None = None

    def ready(self, screen: str) -> bool:
        return self.ready_text in screen


def base_env(home: Path) -> dict[str, str]:
    """The same minimal environment for every app; all config/state dirs inside ``home``."""
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    return {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "COLORTERM": "truecolor",
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TMPDIR": str(home / "tmp"),
        "NO_UPDATE_NOTIFIER": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def _workdir(home: Path) -> Path:
    work = home / "work"
    work.mkdir(parents=True, exist_ok=True)
    (work / "README.md").write_text("A scratch folder for the side-by-side bench.\n")
    return work


def birdie_code_env() -> dict[str, str]:
    """The bench's own PYTHONPATH for birdie-tui, so a worktree run with `PYTHONPATH=$PWD`
    measures that tree's code, not the one the venv's entry point was installed from; that
    code's bytecode compiled first (`compile_birdie_code`)."""
    path = os.environ.get("PYTHONPATH")
    compile_birdie_code()
    return {"PYTHONPATH": path} if path else {}


def compile_birdie_code() -> None:
    """Compile the birdie-tui code the bench runs, where its bytecode is missing or stale. A
    wheel install has it compiled; a source tree touched by git or an edit, run with
    `PYTHONDONTWRITEBYTECODE=1` (which `base_env` sets), compiles its changed modules at every
    start: a first paint ~25 % later than the same code installed (bench/RESULTS.md §39)."""
    import compileall
    import importlib.util

    spec = importlib.util.find_spec("birdie_tui")
    if spec is not None and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            compileall.compile_dir(folder, quiet=1)


def birdie_composer(screen: str) -> str | None:
    """The text inside birdie-tui's composer: the rows between the last top edge of a tall
    border (``▊▔``) and its bottom edge (``▊▁``), without the border glyphs; None when the
    composer is not on screen. Only those rows, so a status bar or reply never counts."""
    lines = screen.splitlines()
    top = max((i for i, ln in enumerate(lines) if "▊▔" in ln), default=None)
    if top is None:
        return None
    rows = []
    for ln in lines[top + 1:]:
        if "▊▁" in ln:
            return "\n".join(rows)
        inner = ln.split("▊", 1)[-1]
        rows.append(inner.rsplit("▎", 1)[0])
    return None


BIRDIE_MODEL = "gpt-4o-mini"


def birdie_spec(base_url: str, home: Path, exe: str | None = None,
                model: str = BIRDIE_MODEL) -> AppSpec:
    exe = exe or str(Path(sys.executable).with_name("birdie-tui"))
    if not Path(exe).exists():
        exe = "/work/venv/bin/birdie-tui"
    bh = home / "birdie"
    bh.mkdir(parents=True, exist_ok=True)
    env = base_env(home) | {
        "OPENAI_API_KEY": "dummy", "OPENAI_BASE_URL": base_url, "LLM_VENDOR": "openai",
        "LLM_MODEL": model, "BIRDIE_HOME": str(bh), "BIRDIE_WATCH": "0"} | birdie_code_env()
    version = subprocess.run([str(Path(exe).with_name("python")), "-c",
                              "import importlib.metadata as m; print(m.version('birdie-tui'))"],
                             capture_output=True, text=True).stdout.strip() or "?"
    return AppSpec("birdie", "birdie-tui", version, [exe], env, str(_workdir(home)),
                   ready_text="Quit", composer=birdie_composer)


def vibe_spec(base_url: str, home: Path, info: dict) -> AppSpec:
    """mistral-vibe: a custom OpenAI-style provider in ``$VIBE_HOME/config.toml``.

    ``[[providers]]`` with ``api_base`` = the loopback server, ``api_style = "openai"``, the
    key read from ``BENCH_API_KEY``; one ``[[models]]`` entry aliased ``bench`` is the
    ``active_model``. Telemetry, update checks, notifications, the greeting and the banner
    animation are off; ``--trust`` skips the trust-this-folder prompt (not persisted).
    """
    vh = home / ".vibe"
    vh.mkdir(parents=True, exist_ok=True)
    (vh / "config.toml").write_text(f'''active_model = "bench"
enable_telemetry = false
enable_update_checks = false
enable_notifications = false
show_greeting = false
disable_welcome_banner_animation = true
experimental_enable_tab_status = false

[[providers]]
name = "bench"
api_base = "{base_url}"
api_key_env_var = "BENCH_API_KEY"
api_style = "openai"

[[models]]
name = "gpt-4o-mini"
provider = "bench"
alias = "bench"
max_context_length = 128000
''')
    env = base_env(home) | {"VIBE_HOME": str(vh), "BENCH_API_KEY": "dummy"}
    exe = str(Path(info["venv"]) / "bin" / "vibe")
    return AppSpec("vibe", "mistral-vibe", info["version"], [exe, "--trust"], env,
                   str(_workdir(home)), ready_text="Type /help")


def deepagents_spec(base_url: str, home: Path, info: dict) -> AppSpec:
    """deepagents-code (``dcode``): its OpenAI provider, Chat Completions, our base URL.

    ``~/.deepagents/config.toml`` (HOME is the temp dir) sets ``[models].default`` and
    ``[models.providers.openai]`` with ``base_url`` and ``params.use_responses_api = false``
    (langchain-openai would otherwise call the Responses API). First-run onboarding, update
    checks, auto-update and the price-table refresh are off by environment.
    """
    dh = home / ".deepagents"
    dh.mkdir(parents=True, exist_ok=True)
    (dh / "config.toml").write_text(f'''[models]
default = "openai:gpt-4o-mini"

[models.providers.openai]
base_url = "{base_url}"
api_key_env = "OPENAI_API_KEY"

[models.providers.openai.params]
use_responses_api = false
''')
    env = base_env(home) | {
        "OPENAI_API_KEY": "dummy", "DEEPAGENTS_CODE_ONBOARDING": "0",
        "DEEPAGENTS_CODE_NO_UPDATE_CHECK": "1", "DEEPAGENTS_CODE_AUTO_UPDATE": "0",
        "DEEPAGENTS_CODE_PRICES_AUTO_UPDATE": "0", "LANGSMITH_TRACING": "false"}
    exe = str(Path(info["venv"]) / "bin" / "dcode")
    return AppSpec("deepagents", "deepagents-code", info["version"],
                   [exe, "-M", "openai:gpt-4o-mini"], env, str(_workdir(home)), ready_text="dcode")


def spec(key: str, base_url: str, home: Path, infos: dict[str, dict],
         birdie_model: str = BIRDIE_MODEL) -> AppSpec:
    if key == "birdie":
        return birdie_spec(base_url, home, model=birdie_model)
    if key == "vibe":
        return vibe_spec(base_url, home, infos["vibe"])
    if key == "deepagents":
        return deepagents_spec(base_url, home, infos["deepagents"])
    raise KeyError(key)


def main() -> None:
    parser = argparse.ArgumentParser(description="install / show the peers for the side-by-side bench")
    parser.add_argument("action", choices=["install", "status"])
    parser.add_argument("--only", default="vibe,deepagents")
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n]
    if args.action == "install":
        print(json.dumps(install(names), indent=2))
    else:
        for n in names:
            venv = cache_root() / ("vibe-" + VIBE_VERSION if n == "vibe" else "deepagents-code")
            marker = venv / ".bench-ok"
            print(n, marker.read_text() if marker.exists() else "not installed")


if __name__ == "__main__":
    main()
