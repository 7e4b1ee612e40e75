"""The engine decides approvals by mode and rules; the door says its answer and the TUI only
asks what is left to the user (no policy of its own)."""

from __future__ import annotations

from pathlib import Path

import birdie_tui
from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest

REQUEST = ApprovalRequest(id="c1", name="touch_file", args={"path": "x"}, skill="Guarded",
                          why="skill Guarded requires approval for it",
                          command='{"path": "x"}')


async def test_the_door_says_the_modes_answer(birdie):
    """ask: None (the user is asked); auto: allow; read-only: deny, with the engine's reason."""
    birdie.set_approval_mode("ask")
    assert birdie.decided_answer(REQUEST) is None
    birdie.set_approval_mode("auto")
    assert birdie.decided_answer(REQUEST).decision == "allow"
    birdie.set_approval_mode("read-only")
    answer = birdie.decided_answer(REQUEST)
    assert answer.decision == "deny" and "read-only mode" in answer.reason


async def test_a_saved_rule_answers_without_asking(birdie):
    """In ask mode, a session's "always" for the skill answers the request without a dialog;
    forgetting it leaves the user to be asked again."""
    birdie.set_approval_mode("ask")
    birdie.engine.approvals.remember(REQUEST, ApprovalAnswer("allow", remember="skill"))
    assert birdie.decided_answer(REQUEST).decision == "allow"
    birdie.forget_approvals()
    assert birdie.decided_answer(REQUEST) is None


def test_the_tui_has_no_approval_policy_of_its_own():
    """No module of the TUI compares the approval mode to decide a call (the engine does)."""
    tui = Path(birdie_tui.__file__).parent / "tui"
    offenders = [str(path.relative_to(tui)) for path in tui.rglob("*.py")
                 if "tools that need approval do not run\")" in path.read_text(encoding="utf-8")
                 or 'mode == "auto"' in path.read_text(encoding="utf-8")]
    assert offenders == []


def test_no_door_builds_an_approval_policy_of_its_own():
    """Both doors decide through the core's one function (`agent.approvals.decided_answer`
    over `session_policy`): no module of the door builds or asks a policy itself."""
    service = Path(birdie_tui.__file__).parent / "service"
    offenders = [path.name for path in service.rglob("*.py")
                 if "ApprovalPolicy" in path.read_text(encoding="utf-8")
                 or ".decide(" in path.read_text(encoding="utf-8")]
    assert offenders == []


def test_a_remote_turn_is_decided_by_its_own_threads_rules():
    """A turn's approvals follow the saved answers and mode of the thread it runs on, not of
    the thread shown meanwhile; both answers come from the core's one policy."""
    from birdie_tui.service.remote import RemoteBirdie
    from birdie_tui.service.remote.thread import RemoteThread

    door = RemoteBirdie("http://127.0.0.1:9")
    running = door.shown
    door._write_meta_sync(approved_skills=["Guarded"])  # an unsaved thread: kept in memory
    door.shown = RemoteThread()  # another thread shown while the first one's turn runs
    door.shown.meta["approval_mode"] = "read-only"
    assert door.thread_answer(running, REQUEST) == ApprovalAnswer(
        "allow", reason="skill Guarded approved for this session")
    answer = door.decided_answer(REQUEST)
    assert answer is not None and answer.decision == "deny" and "read-only" in answer.reason
