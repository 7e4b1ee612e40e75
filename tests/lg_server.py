"""A real `langgraph dev` serving this repository's `langgraph.json`, for tests.

`start_server(home=..., workdir=...)` starts one on a free loopback port (offline: no
analytics, no browser, no reloader), with `BIRDIE_HOME`, the skills folders and the working
directory the test gives, waits for `GET /ok` and returns a `LangGraphServer`: the URL itself
(a `str`), with the paths and the log. `stop()` ends the whole process group. A server that
does not come up fails with the tail of its log.

The `lg_server` fixture (session scope, registered in tests/conftest.py) is one such server
with the bundled skills, shared by the tests that need just "a server"; a test that needs its
own skills or settings starts its own (`lg_server_factory`). Startup takes ~10 s: mark the
tests that use either `slow`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "langgraph.json"
START_TIMEOUT = 120.0  # seconds; a cold start imports LangGraph, the API and the graphs
# Scrubbed from the server's environment: no developer key, home or skills leaks in.
_SCRUB = (
    "LLM_VENDOR", "LLM_MODEL", "LLM_PROVIDER_CONFIG", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
    "MISTRAL_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT", "BIRDIE_SKILLS_DIR", "BIRDIE_OFFLINE_TPS", "OPENAI_BASE_URL",
    "OLLAMA_BASE_URL", "BIRDIE_SETTINGS_FILE", "BIRDIE_CONFIG_FILE", "LANGSMITH_API_KEY",
    "LANGCHAIN_API_KEY",
)


LIVE: list[LangGraphServer] = []  # started and not yet stopped (their logs go with a failure)


class LangGraphServer(str):
    """The server's base URL, carrying its process, paths and log."""

    proc: subprocess.Popen
    home: Path
    workdir: Path
    log: Path

    @property
    def url(self) -> str:
        return str(self)

    def log_tail(self, lines: int = 60) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return "(no log)"
        return "\n".join(text.splitlines()[-lines:])

    def stop(self) -> None:
        """End the server and everything it started (its process group)."""
        _stop(self.proc)
        if self in LIVE:
            LIVE.remove(self)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def server_env(home: Path, *, skills_dirs: list[Path] | None = None,
               extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This environment scrubbed, pointing at `home` (and `skills_dirs`, when given)."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env.update(BIRDIE_HOME=str(home), USER="tester", LANGGRAPH_CLI_NO_ANALYTICS="1",
               LANGSMITH_TRACING="false", PYTHONUNBUFFERED="1", LOG_COLOR="false")
    if skills_dirs:
        env["BIRDIE_SKILLS_DIR"] = os.pathsep.join(str(p) for p in skills_dirs)
    env.update(extra or {})
    return env


def langgraph_command(port: int, *, allow_blocking: bool = False) -> list[str]:
    """`langgraph dev` flags a blocking call on its event loop as an error; the agent's own
    path (MCP start-up included) makes none, so tests keep that check on (`allow_blocking`
    turns it off). Eight runs at once: the default is one, server-wide."""
    exe = Path(sys.executable).with_name("langgraph")
    return [str(exe), "dev", "--no-browser", "--no-reload", "--host", "127.0.0.1",
            "--port", str(port), "--n-jobs-per-worker", "8", "--config", str(CONFIG),
            *(["--allow-blocking"] if allow_blocking else [])]


def start_server(*, home: Path, workdir: Path, skills_dirs: list[Path] | None = None,
                 env: Mapping[str, str] | None = None, log: Path | None = None,
                 timeout: float = START_TIMEOUT, allow_blocking: bool = False
                 ) -> LangGraphServer:
    """Start `langgraph dev` in `workdir` (the agent's working directory) and wait until it
    answers `GET /ok`; raise with the log's tail if it does not."""
    home.mkdir(parents=True, exist_ok=True)
    workdir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    log = log or home.parent / f"langgraph-{port}.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            langgraph_command(port, allow_blocking=allow_blocking), cwd=workdir, stdin=subprocess.DEVNULL, stdout=out,
            stderr=subprocess.STDOUT, start_new_session=True,
            env=server_env(home, skills_dirs=skills_dirs, extra=env))
    server = LangGraphServer(f"http://127.0.0.1:{port}")
    server.proc, server.home, server.workdir, server.log = proc, home, workdir, log
    LIVE.append(server)
    try:
        _wait_ok(server, timeout)
    except BaseException:
        server.stop()
        raise
    return server


def _wait_ok(server: LangGraphServer, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.proc.poll() is not None:
            raise RuntimeError(f"langgraph dev exited ({server.proc.returncode}) before it "
                               f"answered; log tail:\n{server.log_tail()}")
        try:
            with urllib.request.urlopen(f"{server}/ok", timeout=2) as reply:
                if reply.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"langgraph dev did not answer /ok in {timeout:.0f} s; log tail:\n"
                       f"{server.log_tail()}")


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 15), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    try:  # the group may outlive its leader (a tool's child): never leave it behind
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def running_server(tmp: Path, **kwargs) -> Iterator[LangGraphServer]:
    """A generator fixture body: a server under `tmp`, stopped afterwards; a test that fails
    while it runs gets the server's log tail in its report."""
    server = start_server(home=tmp / "home", workdir=tmp / "work", **kwargs)
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def lg_server(tmp_path_factory) -> Iterator[LangGraphServer]:
    """One `langgraph dev` for the session: bundled skills, offline model, an empty home."""
    yield from running_server(tmp_path_factory.mktemp("lg-server"))


@pytest.fixture
def lg_server_factory(tmp_path_factory):
    """Start a server of your own: `lg_server_factory(skills_dirs=[...], env={...})`; every
    one started is stopped at the end of the test."""
    started: list[LangGraphServer] = []

    def start(**kwargs) -> LangGraphServer:
        tmp = tmp_path_factory.mktemp("lg-server")
        server = start_server(home=kwargs.pop("home", tmp / "home"),
                              workdir=kwargs.pop("workdir", tmp / "work"), **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def report_server_logs(report) -> None:
    """A failed test's report gets the log tail of every server running (called from the
    `pytest_runtest_makereport` hook in tests/conftest.py)."""
    if report.when != "call" or not report.failed:
        return
    for server in LIVE:
        report.sections.append((f"langgraph dev log ({server})", server.log_tail()))
