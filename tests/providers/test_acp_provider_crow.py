"""A real third-party ACP agent as the model: crow-cli (from the package index, Python 3.13, in
its own venv) pointed at a loopback OpenAI-compatible server. Birdie runs `--print` with
LLM_VENDOR=acp, and crow-cli calls a Birdie tool over the MCP bridge."""

from __future__ import annotations

import fcntl
import glob
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig
from tests.agent.conftest import write_skills
from tests.providers.wire import frames
from tests.providers.wire.loopback import LoopbackServer, Reply

pytestmark = pytest.mark.integration

CROW_VERSION = "0.1.48"
READY = ".birdie-ready"


def _unavailable(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _python313() -> str | None:
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    found = sorted(glob.glob(os.path.join(root, "versions", "3.13*", "bin", "python")))
    return found[-1] if found else shutil.which("python3.13")


def _ready(venv: Path) -> bool:
    if (venv / READY).exists():
        return True
    if not (venv / "bin" / "crow-cli").exists():
        return False
    ok = subprocess.run([str(venv / "bin" / "python"), "-c", "import crow_cli"],
                        capture_output=True, timeout=60).returncode == 0
    if ok:
        (venv / READY).write_text(CROW_VERSION)
    return ok


@pytest.fixture(scope="session")
def crow_cli() -> Path:
    """crow-cli's console script, its venv built once (under a lock) in the tests' cache.
    Built in place, not renamed: a venv's scripts name its folder."""
    root = Path(os.path.expanduser("~/.cache/birdie-tui-tests"))
    venv = root / f"crow-cli-{CROW_VERSION}"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"crow-cli-{CROW_VERSION}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if not _ready(venv):
                python = _python313()
                if python is None:
                    _unavailable("crow-cli needs Python 3.13, and pyenv has none here")
                shutil.rmtree(venv, ignore_errors=True)
                made = subprocess.run(
                    f"{python} -m venv {venv} && {venv}/bin/python -m pip install -q "
                    f"--disable-pip-version-check crow-cli=={CROW_VERSION}",
                    shell=True, capture_output=True, text=True, timeout=900)
                if made.returncode != 0 or not _ready(venv):
                    shutil.rmtree(venv, ignore_errors=True)
                    _unavailable(f"cannot install crow-cli=={CROW_VERSION}: "
                                 f"{(made.stderr or made.stdout).strip()[-400:]}")
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    return venv / "bin" / "crow-cli"


@pytest.fixture
def server():
    srv = LoopbackServer().start()
    yield srv
    srv.stop()


def crow_config(tmp_path: Path, server: LoopbackServer) -> dict[str, object]:
    """crow-cli's own config folder (its model: the loopback server) and a provider JSON
    with every acp key: command, args, env, cwd."""
    folder = tmp_path / "crow"
    folder.mkdir()
    (folder / "config.yaml").write_text(
        f"providers:\n  local:\n    base_url: {server.url}/v1\n    api_key: test-key\n"
        "models:\n  local:\n    provider: local\n    model: gpt-4o\n"
        f"db_uri: sqlite:///{tmp_path}/crow.db\nskills_dir: {tmp_path}/crow-skills\n"
        'redis_url: ""\n')
    return {"vendor": "acp", "model": "crow-cli", "args": ["acp", "--config-dir", str(folder)],
            "env": {"HOME": str(tmp_path / "home")}, "cwd": str(tmp_path), "timeout": 90}


def test_print_answers_with_crow_cli_streaming_the_servers_text(crow_cli, server, tmp_path):
    """`--print` through crow-cli answers with the loopback model's streamed text."""
    server.script(Reply(events=frames.openai_stream(["Hello ", "from ", "a loopback model"])))
    config = {**crow_config(tmp_path, server), "command": str(crow_cli)}
    env = {**os.environ, "LLM_PROVIDER_CONFIG": json.dumps(config),
           "BIRDIE_HOME": str(tmp_path / "birdie")}
    env.pop("LLM_VENDOR", None)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print", "say hello"],
                          env=env, capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip().startswith("Hello from a loopback model"), proc.stdout
    [request] = server.requests
    sent = json.dumps(request.body["messages"])
    assert "Human: say hello" in sent  # Birdie's conversation reached crow-cli's model
    assert time.monotonic() - started < 200


async def test_crow_cli_calls_a_birdie_tool_over_the_bridge(crow_cli, server, tmp_path,
                                                             monkeypatch):
    """crow-cli is offered Birdie's tools over the bridge, calls one, and gets its result."""
    monkeypatch.setenv("BIRDIE_HOME", str(tmp_path / "birdie"))
    data = crow_config(tmp_path, server)
    config = ProviderConfig(vendor="acp", model="crow-cli", timeout=90.0, cwd=str(tmp_path),
                            command=(str(crow_cli), *data["args"]),  # type: ignore[misc]
                            env=data["env"])  # type: ignore[arg-type]
    engine = Engine(EngineOptions(skills_dirs=[write_skills(tmp_path / "skills")],
                                  provider=config, tool_timeout=10))
    await engine.start()
    await engine.open_session()
    try:
        server.script(Reply(events=frames.openai_stream(["ready"])))
        await _turn(engine, "hello")
        offered = [t["function"]["name"] for t in server.requests[0].body.get("tools", [])]
        name = next((n for n in offered if n.endswith("echo_text")), None)
        assert name is not None, f"crow-cli did not offer Birdie's tools: {offered}"
        server.script(
            Reply(events=frames.openai_stream(calls=[("call_1", name, '{"text": "via bridge"}')])),
            Reply(events=frames.openai_stream(["the tool said it"])))
        events = await _turn(engine, "use echo_text")
        results = [e for e in events if e.type == "tool_result"]
        assert [(e.name, e.content) for e in results] == [("echo_text", "via bridge")]
        assert "via bridge" in json.dumps(server.requests[-1].body["messages"])
        assert [e.text for e in events if e.type == "done"] == ["the tool said it"]
    finally:
        await engine.aclose()


async def _turn(engine: Engine, text: str) -> list[object]:
    return [event async for event in engine.run_turn(text)]
