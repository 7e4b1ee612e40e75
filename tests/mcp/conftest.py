"""MCP tests run real servers as subprocesses: the bundled demo, `mcp-server-time` from PyPI,
a lab server (tests/mcp/servers/lab_server.py) and FastMCP over HTTP on a loopback port."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig

SERVERS = Path(__file__).parent / "servers"


def mcp_skill(root: Path, name: str, server: dict, *, enabled: bool = True,
              extra: str = "") -> Path:
    """Write `<root>/<name>/SKILL.MD` declaring `server` as its mcp_server block."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    lines = [f"  {key}: {json.dumps(value)}" for key, value in server.items()]
    text = "\n".join([
        "---", f"name: {name}", f"description: MCP skill {name}.",
        f"enabled_by_default: {'true' if enabled else 'false'}", "mcp_server:", *lines, "---",
        "", f"Tools of {name} come from an MCP server.", textwrap.dedent(extra)])
    (folder / "SKILL.MD").write_text(text + "\n")
    return folder


def lab_skill(root: Path, name: str = "lab", *args: str, **kw) -> Path:
    """The lab server, copied into the skill folder and started as `python lab_server.py`
    (a relative path the manager must resolve against the skill folder)."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(SERVERS / "lab_server.py", folder / "lab_server.py")
    return mcp_skill(root, name, {"transport": "stdio", "command": "python",
                                  "args": ["lab_server.py", *args]}, **kw)


def bash_skill(root: Path) -> Path:
    folder = root / "local"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.MD").write_text(textwrap.dedent("""\
        ---
        name: local
        description: A plain bash tool next to the MCP skills.
        ---

        ## Tools

        ### say
        description: Print the text.
        entrypoint: bash:printf '%s' {text}
        schema:
          type: object
          properties:
            text: {type: string}
          required: [text]
        """))
    return folder


def make_engine(skills_dir: Path, **options) -> Engine:
    return Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"),
                                **{"tool_timeout": 20, "mcp_start_timeout": 20, **options}))


@pytest.fixture
def skills_root(tmp_path) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    return root


@pytest.fixture
async def engine_for(skills_root):
    """`await engine_for(**options)`: a started engine over `skills_root`, with a session;
    closed (servers included) at the end of the test."""
    made: list[Engine] = []

    async def factory(**options) -> Engine:
        eng = make_engine(skills_root, **options)
        await eng.start()
        await eng.open_session()
        made.append(eng)
        return eng

    yield factory
    for eng in made:
        await eng.aclose()


async def turn(engine: Engine, text: str, **kw) -> list:
    return [event async for event in engine.run_turn(text, **kw)]


def of_type(events, kind: str) -> list:
    return [e for e in events if e.type == kind]


def status_of(engine: Engine, skill: str):
    return next(s for s in engine.mcp_status() if s.skill == skill)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_port(port: int, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited: {proc.stderr.read() if proc.stderr else ''}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


@pytest.fixture
def http_server():
    """`http_server(transport, token=None)` → the base URL of a FastMCP server subprocess."""
    procs: list[subprocess.Popen] = []

    def start(transport: str, token: str | None = None) -> str:
        port = free_port()
        proc = subprocess.Popen(
            [sys.executable, str(SERVERS / "http_server.py"), transport, str(port),
             *([token] if token else [])],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        wait_port(port, proc)
        return f"http://127.0.0.1:{port}"

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
