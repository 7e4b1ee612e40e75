"""A turn sent through the local door with a front end's workspace: its bash: tools write,
read and run there (the engine's turn hands the workspace to the tool step), approvals and
the read-only mode decide first, and a turn without one runs its tools here as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from birdie_tui.service import local_birdie
from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest
from birdie_tui.skills.bundled import bundled_skills_dir
from birdie_tui.workspace import RunResult
from tests.tools.workspace_double import MemoryWorkspace


@pytest.fixture
async def door(isolated_home, tmp_path):
    skills = tmp_path / "skills"
    shutil.copytree(bundled_skills_dir() / "filesystem", skills / "filesystem")
    birdie = local_birdie(skills_dirs=[skills], environ={"BIRDIE_HOME": str(isolated_home),
                                                        "USER": "tester"})
    await birdie.start()
    yield birdie
    await birdie.close()


async def allow(request: ApprovalRequest) -> ApprovalAnswer:
    return ApprovalAnswer("allow")


async def deny(request: ApprovalRequest) -> ApprovalAnswer:
    return ApprovalAnswer("deny", reason="not now")


def call(tool: str, **args: str) -> str:
    return f"call {tool} {json.dumps(args)}"


async def results(stream) -> list[str]:
    events = [event async for event in stream]
    assert events[-1].type == "done", events[-1]
    return [e.content for e in events if e.type == "tool_result"]


async def test_an_approved_write_goes_to_the_workspace(door, tmp_path: Path):
    """write_file, allowed: the editor gets the file, the model the bundled tool's words, and
    nothing is written here."""
    target = tmp_path / "out.txt"
    ws = MemoryWorkspace()
    done = await results(door.send(call("write_file", path=str(target), content="from the turn"),
                                   approver=allow, workspace=ws))
    assert done == [f"Wrote 13 bytes to {target}\n"]
    assert ws.writes == [(str(target), "from the turn")] and not target.exists()


async def test_approvals_and_the_read_only_mode_decide_first(door, tmp_path: Path):
    """A denied call and the read-only mode never reach the workspace."""
    target = tmp_path / "out.txt"
    ws = MemoryWorkspace()
    done = await results(door.send(call("write_file", path=str(target), content="x"),
                                   approver=deny, workspace=ws))
    assert done[0].startswith("The user denied this tool call.") and ws.writes == []
    door.set_approval_mode("read-only")
    done = await results(door.send(call("write_file", path=str(target), content="x"),
                                   approver=allow, workspace=ws))
    assert done[0].startswith("Not run") and ws.writes == [] and not target.exists()


async def test_reads_and_commands_go_to_the_workspace_and_none_runs_here(door, tmp_path: Path):
    """read_file reads the editor's buffer, list_files runs in its terminal; the next turn,
    sent without a workspace, reads the disk."""
    ws = MemoryWorkspace(files={str(tmp_path / "a.md"): "unsaved buffer"},
                         result=RunResult("listed by the editor\n", 0))
    # (outside the working directory: asked, and allowed)
    assert await results(door.send(call("read_file", path=str(tmp_path / "a.md")),
                                   approver=allow, workspace=ws)) == ["unsaved buffer"]
    assert await results(door.send(call("list_files", path=str(tmp_path)),
                                   approver=allow, workspace=ws)) == ["listed by the editor\n"]
    (tmp_path / "b.md").write_text("on disk")
    assert await results(door.send(call("read_file", path=str(tmp_path / "b.md")),
                                   approver=allow)) == ["on disk"]
    assert len(ws.reads) == len(ws.runs) == 1


async def test_resume_hands_the_workspace_to_the_answered_step(door, tmp_path: Path):
    """A step left pending (no approver) and answered later with `resume` writes through the
    workspace given to `resume`."""
    target = tmp_path / "later.txt"
    ws = MemoryWorkspace()
    events = [e async for e in door.send(call("write_file", path=str(target), content="late"))]
    assert [e.decision for e in events if e.type == "approval"] == ["pending"]
    (request,) = await door.pending_approvals()
    events = [e async for e in door.resume({request.id: ApprovalAnswer("allow")}, workspace=ws)]
    assert ws.writes == [(str(target), "late")] and not target.exists()
