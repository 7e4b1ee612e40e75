"""Sub-agents on the command line: `--print` and stream-json carry the nested events, a
sub-agent's call --print cannot ask about is refused with exit 3, `--enable` and
`--agents-dir` take agents (real subprocesses, the offline model)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from .helpers import assert_one_line_error, events_of, run_cli, session_json

pytestmark = pytest.mark.integration

WRITER = """
    ---
    name: Writer
    description: Writes a note with the bundled filesystem skill.
    allowed_skills: [filesystem]
    ---

    ## Input

    ### path
    type: string
    description: The note's file

    ## Prompt

    call write_file {"path": "{{ path }}", "content": "from the child"}
    """


@pytest.fixture
def agents_dir(tmp_path) -> Path:
    folder = tmp_path / "my-agents" / "writer"
    folder.mkdir(parents=True)
    (folder / "AGENT.MD").write_text(textwrap.dedent(WRITER).lstrip())
    return folder.parent


def test_stream_json_nests_a_childs_events_between_its_start_and_end(isolated_home, agents_dir,
                                                                      tmp_path):
    """stream-json carries the child's events, each with its child id and agent, between
    agent_start and agent_end; the session counts them."""
    work = tmp_path / "work"
    work.mkdir()
    proc = run_cli(isolated_home, "--agents-dir", str(agents_dir), "--enable", "Writer",
                   "--auto-approve", "--output-format", "stream-json",
                   "--print", 'call Writer {"path": "' + str(work / "n.md") + '"}')
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc)
    kinds = [e["type"] for e in events]
    start = events[kinds.index("agent_start")]
    end = events[kinds.index("agent_end")]
    assert start["name"] == "Writer" and start["inputs"] == {"path": str(work / "n.md")}
    assert list(end) == ["type", "child", "call_id", "name", "status", "usage"]
    assert end["status"] == "done" and end["usage"]["calls"] == 2
    nested = events[kinds.index("agent_start") + 1:kinds.index("agent_end")]
    assert nested and all(e["child"] == start["child"] and e["agent"] == "Writer"
                           for e in nested)
    assert {e["type"] for e in nested} >= {"injected", "usage", "tool_call", "approval",
                                            "tool_result"}
    assert (work / "n.md").read_text() == "from the child"
    # The session's totals hold the child's calls; its file keeps Birdie's grant key.
    saved = session_json(isolated_home, events[0]["id"])
    spent = sum(e["input_tokens"] for e in events if e["type"] == "usage")
    assert saved["input_tokens"] == spent and saved["enabled_agents"] == ["Writer"]


def test_a_childs_call_print_cannot_ask_about_is_refused_with_exit_3(isolated_home, agents_dir,
                                                                     tmp_path):
    """A child's gated call is refused in --print: exit 3, said on stderr, nothing written."""
    work = tmp_path / "work"
    work.mkdir()
    proc = run_cli(isolated_home, "--agents-dir", str(agents_dir), "--enable", "writer",
                   "--print", 'call Writer {"path": "' + str(work / "n.md") + '"}')
    assert proc.returncode == 3, proc.stderr
    assert "not run: Writer › write_file" in proc.stderr
    assert not (work / "n.md").exists()


def test_an_unknown_name_for_enable_is_a_usage_error(isolated_home, agents_dir):
    """A name that is neither a skill's nor an agent's is one line and exit 2."""
    proc = run_cli(isolated_home, "--agents-dir", str(agents_dir), "--enable", "Nobody",
                   "--print", "hi")
    assert "unknown skill or agent 'Nobody'" in assert_one_line_error(proc)
