"""`birdie-tui agents start|stop|logs --server URL` as a subprocess against a real
`langgraph dev` (the offline model) whose home is the client's too (the same agent files on
both sides): start makes the triggers cron jobs and exits, refusing a watch trigger and an
interval no cron schedule fires exactly, each named with its file and line; again it keeps
them, a changed trigger's job is replaced and a gone one's deleted; a bad trigger file
changes nothing; logs lists the jobs (JSON too); stop deletes them; an unreachable server is
one line and exit 2."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import assert_one_line_error, run_cli
from tests.lg_server import free_port

pytestmark = [pytest.mark.integration, pytest.mark.slow]

AGENT = """\
---
name: {name}
description: Does one thing.
allowed_skills: [planning]
{trigger}
input:
  path: notes
---

## Input

### path
type: string

## Prompt

Plan {{{{ path }}}}
"""


def write_agent(home, name: str, trigger: str) -> None:
    folder = home / "agents" / name.lower()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "AGENT.MD").write_text(AGENT.format(name=name, trigger=trigger))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    from tests.lg_server import start_server

    tmp = tmp_path_factory.mktemp("cli-cron-server")
    home = tmp / "home"
    write_agent(home, "Planner", "every: 5m")
    write_agent(home, "Watcher", "watch: drafts/*.md")
    write_agent(home, "Odd", "every: 7m")
    (home / "settings.json").write_text(json.dumps({"schedules": [
        {"name": "inbox", "prompt": "check the inbox", "cron": "0 8 * * 1-5",
         "tz": "Europe/Paris"}]}))
    started = start_server(home=home, workdir=tmp / "work")
    yield started
    started.stop()


def agents(server, *args: str):
    return run_cli(server.home, "agents", *args, "--server", server.url,
                   env={"BIRDIE_SERVER": ""})


def lines(proc, word: str) -> list[str]:
    return [line for line in proc.stdout.splitlines() if line.startswith(word)]


def test_start_syncs_refuses_keeps_replaces_deletes_and_stop_deletes(server):
    """The whole life of the jobs through the command line."""
    first = agents(server, "start")
    assert first.returncode == 1, first.stdout + first.stderr  # two refusals
    created = "\n".join(lines(first, "created"))
    assert "Planner:every" in created and "every 5m → cron */5 * * * * (UTC)" in created
    assert "schedule:inbox" in created and "cron 0 8 * * 1-5 (Europe/Paris)" in created
    [watch] = lines(first, "refused  Watcher:watch")
    assert "needs a local `agents start`" in watch and "watcher/AGENT.MD:5)" in watch
    [odd] = lines(first, "refused  Odd:every")
    assert "every 7m is no cron schedule" in odd and "odd/AGENT.MD:5)" in odd

    again = agents(server, "start")
    assert len(lines(again, "kept")) == 2 and not lines(again, "created")

    write_agent(server.home, "Planner", "every: 10m")
    (server.home / "settings.json").write_text("{}")
    changed = agents(server, "start")
    assert "every 10m → cron */10 * * * *" in "\n".join(lines(changed, "replaced"))
    assert [line.split()[1] for line in lines(changed, "deleted")] == ["schedule:inbox"]

    listed = agents(server, "logs", "--json")
    assert listed.returncode == 0, listed.stderr
    [job] = json.loads(listed.stdout)["jobs"]
    assert (job["trigger"], job["schedule"], job["describe"]) == (
        "Planner:every", "*/10 * * * *", "every 10m")
    assert job["next_run"]
    text = agents(server, "logs", "Planner")
    assert "1 cron job on" in text.stdout and "Planner:every" in text.stdout

    stopped = agents(server, "stop")
    assert stopped.returncode == 0 and "1 cron job deleted" in stopped.stdout
    assert json.loads(agents(server, "logs", "--json").stdout)["jobs"] == []


def test_a_bad_trigger_file_changes_nothing_on_the_server(server):
    """A cron expression APScheduler refuses: the problem at its file and line, exit 1, and
    the jobs of the good triggers stay as they were (none made, none deleted)."""
    agents(server, "start")
    before = json.loads(agents(server, "logs", "--json").stdout)["jobs"]
    write_agent(server.home, "Broken", 'cron: "61 * * * *"')
    try:
        bad = agents(server, "start")
        assert bad.returncode == 1
        [error] = lines(bad, "ERROR")
        assert "broken/AGENT.MD:5" in error
        assert "nothing was changed" in bad.stdout
        assert json.loads(agents(server, "logs", "--json").stdout)["jobs"] == before
    finally:
        (server.home / "agents" / "broken" / "AGENT.MD").unlink()
        agents(server, "stop")


def test_an_unreachable_server_is_one_line_and_exit_2(tmp_path):
    """Nothing listens on the port: `cannot reach the LangGraph server at URL`."""
    proc = run_cli(tmp_path, "agents", "start", "--server", f"http://127.0.0.1:{free_port()}")
    assert proc.returncode == 2
    assert "cannot reach the LangGraph server" in assert_one_line_error(proc)


def test_stop_without_a_server_says_what_it_needs(tmp_path):
    """No --server and no $BIRDIE_SERVER: one line, exit 2."""
    proc = run_cli(tmp_path, "agents", "stop", env={"BIRDIE_SERVER": ""})
    assert proc.returncode == 2 and "needs --server URL" in assert_one_line_error(proc)
