"""bash: tools through a front end's workspace (tools/workspace_calls.py), with the bundled
filesystem skill's own tools: a write goes to the workspace and not to disk, an edit reads and
writes through it, a read comes from it, any other command runs there with the argv this
process would spawn; without a workspace everything runs here as before."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from birdie_tui.skills import Skill, SkillTool, load_skills
from birdie_tui.skills.bundled import bundled_skills_dir
from birdie_tui.tools import entrypoints
from birdie_tui.tools.adapter import make_tool
from birdie_tui.tools.entrypoints import BASH_COMMAND, MAX_TOOL_OUTPUT, run_entrypoint
from birdie_tui.tools.workspace_calls import using_workspace
from birdie_tui.workspace import RunResult

from .workspace_double import MemoryWorkspace

HOSTILE = "$(touch /tmp/x); rm -rf ~"


@pytest.fixture(scope="module")
def filesystem() -> Skill:
    (skill,) = [s for s in load_skills([bundled_skills_dir()]).skills if s.name == "filesystem"]
    return skill


def tool_of(skill: Skill, name: str) -> SkillTool:
    return next(t for t in skill.tools if t.name == name)


def bash_tool(template: str, props: dict) -> SkillTool:
    return SkillTool(name="t", description="d", entrypoint="bash:" + template,
                     schema={"type": "object", "properties": props})


async def test_a_write_goes_to_the_workspace_and_not_to_disk(filesystem, tmp_path, monkeypatch):
    """write_file through a workspace: the editor gets the whole text at the absolute path, the
    result says what was written as the bundled tool does, and nothing is on disk."""
    monkeypatch.chdir(tmp_path)
    ws = MemoryWorkspace()
    out = await run_entrypoint(tool_of(filesystem, "write_file"),
                               {"path": "sub/notes.md", "content": "héllo\n"},
                               skill_dir=filesystem.folder, workspace=ws)
    assert (out.content, out.error) == ("Wrote 7 bytes to sub/notes.md\n", False)
    assert ws.writes == [(str(tmp_path / "sub" / "notes.md"), "héllo\n")]
    assert ws.runs == [] and not (tmp_path / "sub").exists()


async def test_the_bundled_write_says_the_same_locally(filesystem, tmp_path, monkeypatch):
    """The local write_file's result is the text the workspace path imitates."""
    monkeypatch.chdir(tmp_path)
    out = await run_entrypoint(tool_of(filesystem, "write_file"), {"path": "a.txt", "content": "héllo\n"},
                               skill_dir=filesystem.folder)
    assert (out.content, (tmp_path / "a.txt").read_text()) == ("Wrote 7 bytes to a.txt\n", "héllo\n")


async def test_an_edit_reads_and_writes_through_the_workspace(tmp_path, monkeypatch):
    """An old/new pair: the editor's text (an unsaved buffer, not the disk's) is read, the old
    text replaced once, the result written back; an absent old text writes nothing."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.py").write_text("on disk\n")
    target = str(tmp_path / "f.py")
    ws = MemoryWorkspace(files={target: "x = 1\nx = 1\n"})
    edit = bash_tool("python3 edit.py {path} {old_string} {new_string}",
                     {"path": {"type": "string"}, "old_string": {"type": "string"},
                      "new_string": {"type": "string"}})
    out = await run_entrypoint(edit, {"path": "f.py", "old_string": "x = 1", "new_string": "x = 2"},
                               skill_dir=tmp_path, workspace=ws)
    assert (out.content, out.error) == ("Wrote 12 bytes to f.py\n", False)
    assert ws.reads == [target] and ws.files[target] == "x = 2\nx = 1\n"
    out = await run_entrypoint(edit, {"path": "f.py", "old_string": "nope", "new_string": "y"},
                               skill_dir=tmp_path, workspace=ws)
    assert out.error and out.content == "could not edit f.py: the text to replace is not in the file"
    assert len(ws.writes) == 1 and (tmp_path / "f.py").read_text() == "on disk\n"


async def test_an_edit_without_client_reads_reads_the_disk(tmp_path, monkeypatch):
    """A workspace that writes but does not read: the edit starts from the file on disk and
    the result still goes to the editor."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "f.txt").write_text("a b\n")
    ws = MemoryWorkspace(can_read=False)
    edit = bash_tool("sed -i x {file_path}", {"file_path": {"type": "string"},
                                              "old_text": {"type": "string"}, "new_text": {"type": "string"}})
    out = await run_entrypoint(edit, {"file_path": "f.txt", "old_text": "b", "new_text": "c"},
                               skill_dir=tmp_path, workspace=ws)
    assert not out.error and ws.writes == [(str(tmp_path / "f.txt"), "a c\n")] and ws.reads == []


async def test_a_read_comes_from_the_workspace_bounded(filesystem, tmp_path, monkeypatch):
    """read_file (`cat -- {path}`) through a workspace: the editor's text, cut as local output
    is; a file the editor cannot read is an error result with its one-line reason."""
    monkeypatch.chdir(tmp_path)
    big = str(tmp_path / "big.txt")
    ws = MemoryWorkspace(files={big: "y" * (MAX_TOOL_OUTPUT + 10)})
    read = tool_of(filesystem, "read_file")
    out = await run_entrypoint(read, {"path": "big.txt"}, skill_dir=filesystem.folder, workspace=ws)
    assert out.content.startswith("y" * MAX_TOOL_OUTPUT)
    assert out.content.endswith("[truncated: 10 characters dropped]") and ws.reads == [big]
    out = await run_entrypoint(read, {"path": "gone.txt"}, skill_dir=filesystem.folder, workspace=ws)
    assert out.error and out.content == f"could not read gone.txt: no such file in the editor: {tmp_path}/gone.txt"
    assert ws.runs == []


async def spawned_locally(monkeypatch, tool: SkillTool, args: dict) -> tuple[list[str], dict[str, str]]:
    """The argv and environment the local path hands to the process it spawns."""
    seen: list[tuple[list[str], dict[str, str]]] = []
    real = asyncio.create_subprocess_exec

    async def spy(*argv, env=None, **kw):
        seen.append((list(argv), dict(env or {})))
        return await real(*argv, env=env, **kw)

    monkeypatch.setattr(entrypoints.asyncio, "create_subprocess_exec", spy)
    await run_entrypoint(tool, args, skill_dir=Path("."))  # grep finds nothing: exit 1, fine
    monkeypatch.setattr(entrypoints.asyncio, "create_subprocess_exec", real)
    (found,) = seen
    return found


async def test_a_command_runs_there_with_the_argv_spawned_here(tmp_path, monkeypatch):
    """Any other bash: tool runs through `run` with exactly the argv the local path spawns;
    a hostile value stays out of the script, in one variable of the environment sent."""
    monkeypatch.chdir(tmp_path)
    grep = bash_tool("grep -rn -- {pattern} {path}", {"pattern": {"type": "string"},
                                                      "path": {"type": "string"}})
    args = {"pattern": HOSTILE, "path": "."}
    argv, env = await spawned_locally(monkeypatch, grep, args)
    ws = MemoryWorkspace()
    out = await run_entrypoint(grep, args, skill_dir=Path("."), timeout=7, workspace=ws)
    assert (out.content, out.error) == ("ran\n", False)
    (asked,) = ws.runs
    assert asked.argv == argv and argv[:len(BASH_COMMAND)] == list(BASH_COMMAND)
    assert HOSTILE not in asked.argv[-1]  # the script names the variable, not the value
    assert {k: v for k, v in asked.env.items() if v == HOSTILE} == {
        k: v for k, v in env.items() if v == HOSTILE} != {}
    assert (asked.cwd, asked.timeout_s) == (str(tmp_path), 7)
    assert ws.reads == ws.writes == []


async def test_the_argv_sent_keeps_a_hostile_value_one_argument(tmp_path, monkeypatch):
    """Run for real, the argv and variables sent print a value as it was, one argument, with
    nothing it names executed."""
    monkeypatch.chdir(tmp_path)
    hostile = f"$(touch {tmp_path}/x); touch {tmp_path}/y"
    count = bash_tool("printf '<%s>' {value}", {"value": {"type": "string"}})
    ws = MemoryWorkspace(execute=True)
    out = await run_entrypoint(count, {"value": hostile}, skill_dir=Path("."), workspace=ws)
    assert (out.content, out.error) == (f"<{hostile}>", False)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


async def test_the_environment_sent_holds_no_secret_of_this_process(monkeypatch):
    """Only the values and the variables the skill's env: passes on travel to the front end."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    monkeypatch.setenv("SHARED_TOKEN", "tok")
    ws = MemoryWorkspace()
    await run_entrypoint(bash_tool("echo {x}", {"x": {"type": "string"}}), {"x": "v"},
                         skill_dir=Path("."), workspace=ws, env_allow=("SHARED_TOKEN",))
    (asked,) = ws.runs
    assert "sk-secret" not in asked.env.values() and asked.env["SHARED_TOKEN"] == "tok"
    assert list(asked.env.values()) == ["tok", "v"]


@pytest.mark.parametrize("result, content, error", [
    (RunResult("partial\n", None, timed_out=True),
     "Command timed out after 3s and was killed.\n[partial output]\npartial", True),
    (RunResult("boom\n", 2), "Command exited with code 2.\n[output]\nboom", True),
    (RunResult("", None, signal="SIGKILL"), "Command killed by signal SIGKILL.", True),
    (RunResult("tail\n", 0, truncated=True), "… [the start of the output was dropped]\ntail\n", False),
])
async def test_a_runs_result_is_worded_as_a_local_one(result, content, error):
    """A timeout, a failure, a signal and a cut output read as a local run's would."""
    ws = MemoryWorkspace(result=result)
    out = await run_entrypoint(bash_tool("make", {}), {}, skill_dir=Path("."), timeout=3, workspace=ws)
    assert (out.content, out.error) == (content, error)


async def test_what_the_workspace_does_not_offer_runs_here(filesystem, tmp_path, monkeypatch):
    """A workspace without write, read or run: each call runs in this process as before;
    an appending template is never taken for a whole-file write."""
    monkeypatch.chdir(tmp_path)
    ws = MemoryWorkspace(can_read=False, can_write=False, can_run=False)
    out = await run_entrypoint(tool_of(filesystem, "write_file"), {"path": "a.txt", "content": "x"},
                               skill_dir=filesystem.folder, workspace=ws)
    assert not out.error and (tmp_path / "a.txt").read_text() == "x"
    out = await run_entrypoint(tool_of(filesystem, "read_file"), {"path": "a.txt"},
                               skill_dir=filesystem.folder, workspace=ws)
    assert out.content == "x"
    append = bash_tool("printf '%s' {content} >> {path}", {"path": {"type": "string"},
                                                          "content": {"type": "string"}})
    only_writes = MemoryWorkspace(can_run=False, can_read=False)
    out = await run_entrypoint(append, {"path": "a.txt", "content": "y"}, skill_dir=Path("."),
                               workspace=only_writes)
    assert not out.error and only_writes.writes == [] and (tmp_path / "a.txt").read_text() == "xy"
    assert ws.reads == ws.writes == ws.runs == []


async def test_python_tools_always_run_here(tmp_path):
    """python: tools never go to the workspace, whatever their arguments."""
    (tmp_path / "mod_ws.py").write_text("def hi(path):\n    return 'local ' + path\n")
    tool = SkillTool(name="t", description="d", entrypoint="python:mod_ws.hi",
                     schema={"type": "object", "properties": {"path": {"type": "string"}}})
    ws = MemoryWorkspace()
    out = await run_entrypoint(tool, {"path": "p"}, skill_dir=tmp_path, workspace=ws)
    assert out.content == "local p" and ws.runs == ws.reads == ws.writes == []


async def test_the_langchain_tool_uses_the_turns_workspace_and_knows_its_call(filesystem, tmp_path,
                                                                           monkeypatch):
    """The LangChain tool reads the workspace its turn set (none: local) and the run is told
    the model's call id."""
    monkeypatch.chdir(tmp_path)
    ls = make_tool(tool_of(filesystem, "list_files"), filesystem)
    ws = MemoryWorkspace(result=RunResult("in the editor\n", 0))
    call = {"args": {"path": "."}, "name": "list_files", "id": "call-7", "type": "tool_call"}
    with using_workspace(ws):
        message = await ls.ainvoke(call)
    assert message.content == "in the editor\n" and ws.runs[0].call_id == "call-7"
    message = await ls.ainvoke(call)  # outside the turn's workspace: ls -la here
    assert message.content.startswith("total") and len(ws.runs) == 1
