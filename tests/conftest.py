"""Suite-wide safety: no test sees the developer's keys, home or skills."""

from __future__ import annotations

import os

import pytest

_SCRUB = (
    "LLM_VENDOR", "LLM_MODEL", "LLM_PROVIDER_CONFIG", "OPENAI_API_KEY", "ANTHROPIC_API_KEY",
    "MISTRAL_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "AZURE_OPENAI_API_KEY",
    "AZURE_OPENAI_ENDPOINT", "BIRDIE_SKILLS_DIR", "BIRDIE_OFFLINE_TPS", "OPENAI_BASE_URL",
    "OLLAMA_BASE_URL", "BIRDIE_SETTINGS_FILE", "BIRDIE_DATABASE_URL",
)



def _stdin_of_children_is_empty() -> None:
    """`--print` reads piped stdin beside its message. The processes tests start inherit the
    runner's fd 0, which under CI may be a pipe nobody closes: make it /dev/null (a terminal,
    where a developer may want a debugger, is left alone). A test that pipes passes `input=`."""
    try:
        if os.isatty(0):
            return
    except OSError:
        pass
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


_stdin_of_children_is_empty()


@pytest.fixture(autouse=True)
def isolated_home(tmp_path_factory, monkeypatch):
    home = tmp_path_factory.mktemp("birdie-home")
    for name in _SCRUB:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BIRDIE_HOME", str(home))
    monkeypatch.setenv("USER", "tester")
    return home


def clean_env(home) -> dict[str, str]:
    """An environment for subprocesses: this one, scrubbed, pointing at `home`."""
    env = {k: v for k, v in os.environ.items() if k not in _SCRUB}
    env["BIRDIE_HOME"] = str(home)
    env["USER"] = "tester"
    return env


# ---------------------------------------------------------------- a real PostgreSQL server
@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for the test session (see tests/pg_server.py), stopped at the
    end; the tests that need it are skipped, saying how to install it, when it is missing."""
    from .pg_server import INSTALL_HINT, PgServer, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip(INSTALL_HINT)
    server = PgServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server):
    """A fresh, empty database for one test (dropped afterwards): its postgresql:// URL."""
    name = pg_server.create_database()
    try:
        yield pg_server.url(name)
    finally:
        pg_server.drop_database(name)


# A real `langgraph dev` for the server tests (see tests/lg_server.py).
from tests.lg_server import lg_server, lg_server_factory, report_server_logs  # noqa: E402,F401


@pytest.fixture(scope="module")
def skills_server(tmp_path_factory):
    """A `langgraph dev` serving the engine tests' skills (tests/agent/conftest.py), one per
    test module, with its own home and working directory."""
    from tests.agent.conftest import write_skills
    from tests.lg_server import start_server

    tmp = tmp_path_factory.mktemp("skills-server")
    started = start_server(home=tmp / "home", workdir=tmp / "work",
                           skills_dirs=[write_skills(tmp / "skills")])
    yield started
    started.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed test's report shows the log tail of the LangGraph servers running."""
    outcome = yield
    report_server_logs(outcome.get_result())
