"""Sub-agents through the local door: rows, grants, broken files, reload, runs and children's
model calls — plain rows and change events, as the TUI and ACP read them."""

from __future__ import annotations

import textwrap

import pytest

from birdie_tui.service import BirdieError, local_birdie

AGENT = """
    ---
    name: {name}
    description: Repeats what it is given.
    ---

    ## Input

    ### text
    type: string
    description: What to repeat

    ## Prompt

    Please repeat: {{{{ text }}}}
    """


def write_agent(home, folder: str, name: str) -> None:
    path = home / "agents" / folder / "AGENT.MD"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(AGENT.format(name=name)).lstrip())


@pytest.fixture
async def door(isolated_home, skills_dir):
    write_agent(isolated_home, "repeater", "Repeater")
    (isolated_home / "agents" / "broken").mkdir(parents=True)
    (isolated_home / "agents" / "broken" / "AGENT.MD").write_text("no frontmatter at all\n")
    birdie = local_birdie(skills_dirs=[skills_dir])
    heard: list = []
    birdie.subscribe(heard.append)
    birdie.heard = heard  # type: ignore[attr-defined]
    await birdie.start()
    yield birdie
    await birdie.close()


async def test_rows_grants_and_a_broken_file(door, isolated_home):
    """The door lists agents as rows, toggles them (telling `agents`), reports a broken file and
    refuses an unknown name."""
    rows = {r.name: r for r in door.agent_rows()}
    assert set(rows) == {"Repeater", "Summarizer"}  # the home's, and the bundled one
    assert (rows["Repeater"].enabled, rows["Repeater"].inputs) == (
        False, ("text (string, required)",))
    assert rows["Repeater"].source == "home" and rows["Summarizer"].source == "bundled"
    broken, = door.broken_agent_files()
    assert broken.path.endswith("broken/AGENT.MD") and "frontmatter" in broken.message
    door.heard.clear()
    assert door.set_agent("repeat").enabled  # toggled on, by a unique prefix
    assert [e.type for e in door.heard] == ["agents"]
    assert not door.set_agent("Repeater", False).enabled
    with pytest.raises(BirdieError, match="unknown agent 'Nobody'"):
        door.set_agent("Nobody", True)


async def test_a_new_agent_file_is_read_on_reload(door, isolated_home):
    """An agent file added is read on the next reload, which tells `agents`."""
    write_agent(isolated_home, "second", "Second")
    door.heard.clear()
    await door.reload_skills([isolated_home / "agents" / "second" / "AGENT.MD"])
    assert "agents" in [e.type for e in door.heard]
    assert {r.name for r in door.agent_rows()} == {"Repeater", "Second", "Summarizer"}


async def test_runs_and_a_childs_model_calls(door):
    """After a call the door lists the run, the child's model calls with their provenance, and the
    per-agent spend."""
    door.set_agent("Repeater", True)
    events = [e async for e in door.send('call Repeater {"text": "hi"}')]
    start = next(e for e in events if e.type == "agent_start")
    run, = door.agent_runs()
    assert (run.child, run.agent, run.status, run.turn) == (start.child, "Repeater", "done", 1)
    assert run.input_tokens > 0 and run.calls == 1
    assert door.agent_runs(door.status().session_id) == [run]
    calls = await door.child_contexts(run.child)
    assert len(calls) == 1 and calls[0].turn == 1
    assert any(s.kind == "history" for s in calls[0].segments)
    with pytest.raises(BirdieError, match="not a sub-agent run"):
        await door.child_contexts("2020-01-01_1/agent/X-00000000")
    ledger = door.ledger()
    assert [a.name for a in ledger.agents] == ["Repeater"]
