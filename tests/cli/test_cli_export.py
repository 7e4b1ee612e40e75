"""`birdie-tui sessions export ID` with the provenance of each model call: real
`--print` turns with the offline model, then the real export command, as subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig

from ..agent.conftest import write_skills
from .helpers import run_cli

pytestmark = pytest.mark.integration

ROW_KEYS = ["id", "title", "created_at", "updated_at", "turns", "input_tokens", "output_tokens"]
TURN_KEYS = ["turn", "user", "reply", "tool_calls", "calls"]
TOOL_CALL_KEYS = ["id", "name", "args", "result", "error"]


def _three_turns(home: Path, skills: Path) -> str:
    """A session: a plain turn, a turn whose message triggers the `ssh` skill, a tool call."""
    turns = ["hello there", "how do I log in to a remote server",
             'call echo_text {"text":"tusk"}']
    sid = ""
    for text in turns:
        proc = run_cli(home, "--print", text, "--output-format", "stream-json",
                       "--skills-dir", str(skills), *(["--session-id", sid] if sid else []))
        assert proc.returncode == 0, proc.stderr
        sid = sid or json.loads(proc.stdout.splitlines()[0])["id"]
    return sid


def _export(home: Path, sid: str, fmt: str) -> str:
    proc = run_cli(home, "sessions", "export", sid, "--format", fmt)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    return proc.stdout


def test_json_export_has_turns_with_calls_and_tool_results(isolated_home, tmp_path):
    """The JSON keeps `session` and `messages` as before and adds `turns`: per turn the user
    text, the reply, the tool calls with results and each model call's provenance record (a
    `trigger` segment in the turn that triggered the skill, a `history` segment in every call)."""
    skills = write_skills(tmp_path / "skills")
    sid = _three_turns(isolated_home, skills)
    data = json.loads(_export(isolated_home, sid, "json"))

    assert list(data)[:2] == ["session", "messages"] and "turns" in data
    assert list(data["session"]) == ROW_KEYS and data["session"]["turns"] == 3
    roles = [m["role"] for m in data["messages"]]
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant", "tool",
                     "assistant"]
    assert isinstance(data.get("summary", ""), str)

    turns = data["turns"]
    assert [t["turn"] for t in turns] == [1, 2, 3]
    assert all(list(t) == TURN_KEYS for t in turns)
    assert turns[1]["user"] == "how do I log in to a remote server"
    assert "remote server" in turns[1]["reply"]
    kinds = [[s["kind"] for s in call["segments"]] for t in turns for call in t["calls"]]
    assert all("history" in k for k in kinds)
    triggered = [t["turn"] for t in turns for call in t["calls"]
                 if any(s["kind"] == "trigger" and s.get("name") == "ssh"
                        for s in call["segments"])]
    assert triggered == [2]
    assert [c["call"] for c in turns[2]["calls"]] == [1, 2]  # a tool round: two model calls
    assert all(c["turn"] == t["turn"] for t in turns for c in t["calls"])

    assert turns[0]["tool_calls"] == [] and turns[1]["tool_calls"] == []
    [call] = turns[2]["tool_calls"]
    assert list(call) == TOOL_CALL_KEYS
    assert call["name"] == "echo_text" and call["args"] == {"text": "tusk"}
    assert call["result"] == "tusk" and call["error"] is False
    assert call["id"] == data["messages"][6]["tool_call_id"]
    reply_ids = {c.get("message_id") for t in turns for c in t["calls"]}
    assert "" not in reply_ids and None not in reply_ids


def test_markdown_export_has_a_heading_and_a_context_block_per_turn(isolated_home, tmp_path):
    """The Markdown has `## Turn N` headings, the user's message, then a Context block listing
    each call's segments (the trigger, the history), then the reply and the tool call."""
    skills = write_skills(tmp_path / "skills")
    sid = _three_turns(isolated_home, skills)
    md = _export(isolated_home, sid, "markdown")

    assert md.startswith(f"# {sid}")
    assert "no prompt record" not in md
    blocks = md.split("## Turn ")[1:]
    assert [b.split("\n", 1)[0] for b in blocks] == ["1", "2", "3"]
    for block in blocks:
        you, context, birdie = (block.index(s) for s in ("### You", "#### Context",
                                                         "### Birdie"))
        assert you < context < birdie
        assert "**Call 1**" in block and "**history**" in block
    assert "**trigger** `ssh`" in blocks[1] and "**trigger**" not in blocks[0]
    assert "**Call 2**" in blocks[2]
    assert '**→ echo_text** `{"text": "tusk"}`' in blocks[2]
    assert "**← echo_text result**" in blocks[2] and "tusk" in blocks[2]
    assert "{'" not in md  # no raw dicts


async def _session_without_records(home: Path, skills: Path) -> str:
    """A saved session whose history was written straight into the checkpoint: it has
    messages (with a tool call) but no provenance records, like one made before this version."""
    engine = Engine(EngineOptions(skills_dirs=[skills], provider=ProviderConfig(vendor="offline")))
    await engine.start()
    try:
        await engine.open_session()
        meta = engine.persist_session()
        call = {"name": "echo_text", "args": {"text": "old"}, "id": "call_old"}
        history = [HumanMessage("an old question"), AIMessage("", tool_calls=[call]),
                   ToolMessage("old", tool_call_id="call_old", name="echo_text"),
                   AIMessage("an old answer")]
        await engine.host.graph.aupdate_state(engine.history.config(), {"messages": history},
                                          as_node="agent")
        assert await engine.contexts() == []
        return meta.id
    finally:
        await engine.aclose()


async def test_a_session_without_records_exports_in_both_formats(isolated_home, tmp_path):
    """A session from before provenance records exports without error: its turns have no
    calls, and the Markdown says once that there is no prompt record."""
    skills = write_skills(tmp_path / "skills")
    sid = await _session_without_records(isolated_home, skills)

    data = json.loads(_export(isolated_home, sid, "json"))
    assert list(data)[:2] == ["session", "messages"]
    [turn] = data["turns"]
    assert turn["calls"] == [] and turn["user"] == "an old question"
    assert turn["reply"] == "an old answer"
    assert turn["tool_calls"] == [{"id": "call_old", "name": "echo_text",
                                   "args": {"text": "old"}, "result": "old", "error": False}]

    md = _export(isolated_home, sid, "markdown")
    assert md.count("no prompt record: session from before this version") == 1
    assert "## Turn 1" in md and "#### Context" not in md and "an old answer" in md
