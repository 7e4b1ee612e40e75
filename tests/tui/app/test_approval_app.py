"""Approvals in the real app (bundled skills, the offline model, a real session on disk): each
answer by key and by click and what it leaves in the session JSON and the model's tool
result; the approval mode (shift+tab, shown in #status; read-only and auto never ask;
`--auto-approve`); `/approvals`; and a new message sent instead of an answer.

`bundled_app` runs over the local door and the fake one (its `Shell` skill's `run_bash` asks
as the bundled one does); what the session JSON keeps is checked on the local door only. Local
only: the file write's diff (a real file), and the mode key moved by a settings.json keymap."""

from __future__ import annotations

import json

import pytest

from birdie_tui.tui import create_app
from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.widgets.chat.notice import Notice
from birdie_tui.tui.widgets.chat.tool_block import ToolBlock

from .conftest import is_fake, send, wait_for, wait_ready, wait_turn

ECHO = 'call run_bash {"command": "echo hi"}'
WRITE = 'call write_file {"path": "a.txt", "content": "x"}'
ARMED = ApprovalScreen.ARM_SECONDS + 0.1


@pytest.fixture
def local_bundled_app(tmp_path, monkeypatch):
    """The app with the bundled skills (Shell's run_bash and filesystem's write_file ask),
    working in a scratch directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIRDIE_WATCH", "0")

    def factory(*argv: str):
        return create_app(list(argv), cursor_blink=False)

    return factory


@pytest.fixture(params=["local", "fake"])
def bundled_app(request, local_bundled_app):
    """`local_bundled_app`, and the same over a fake door whose Shell skill's run_bash asks."""
    from tests.tui.fake_door import FakeDoor
    from tests.tui.fake_tools import default_skills, shell_skill

    if request.param == "local":
        return local_bundled_app

    def factory(*argv: str):
        door = FakeDoor(skills=[*default_skills(), shell_skill()])
        return create_app(list(argv), cursor_blink=False, door_factory=FakeDoor.factory(door))

    return factory


async def open_dialog(pilot, app) -> ApprovalScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
    await pilot.pause(ARMED)
    return app.screen


def session_json(app, home) -> dict:
    sid = app.birdie.status().session_id
    return json.loads((home / "sessions" / "tester" / f"{sid}.json").read_text())


def saved_in_session(app, home) -> dict:
    """The session's saved answers: its JSON on the local door; the fake door keeps them in
    memory, read through the door (`saved_approvals`)."""
    if not is_fake(app):
        return session_json(app, home)
    skills, rules = app.birdie.saved_approvals()
    return {"approved_skills": skills, "approval_rules": rules}


def results(app) -> list[tuple[str, str | None, bool]]:
    return [(b.name, b.content, b.error) for b in app.query(ToolBlock)]


def status_line(app) -> str:
    return str(app.query_one("#status").render())


def notices(app) -> str:
    """Every line the app added to the chat (plain notices and Markdown command output)."""
    chat = app.query_one("#chat")
    return "\n".join(w.text if isinstance(w, Notice) else w.source for w in chat.children
                     if isinstance(w, Notice) or w.has_class("notice"))


@pytest.mark.smoke
async def test_allow_once_runs_it_and_asks_again_next_time(bundled_app, isolated_home):
    """y runs the call once; the same call later is asked again and nothing is saved."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, ECHO)
        dialog = await open_dialog(pilot, app)
        assert dialog.request.name == "run_bash" and dialog.request.skill == "Shell"
        assert dialog.request.command == "bash -c 'echo hi'"
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert results(app) == [("run_bash", "hi\n", False)]
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)  # once is once
        await pilot.press("n")
        await wait_turn(pilot, app)
        data = saved_in_session(app, isolated_home)
        assert not data.get("approval_rules") and not data.get("approved_skills")


@pytest.mark.app
@pytest.mark.parametrize(("how", "key", "saved"), [
    ("keys", "c", ("approval_rules", ["run_bash(echo hi)"])),
    ("keys", "t", ("approval_rules", ["run_bash"])),
    ("keys", "s", ("approved_skills", ["Shell"])),
    ("mouse", "command", ("approval_rules", ["run_bash(echo hi)"])),
    ("mouse", "skill", ("approved_skills", ["Shell"])),
])
async def test_always_answers_are_saved_and_not_asked_again(bundled_app, isolated_home, how,
                                                            key, saved):
    """The rule shown is the rule saved in the session JSON; the same call then runs
    without a dialog."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, ECHO)
        dialog = await open_dialog(pilot, app)
        for press in ("shows the rule", "saves it"):
            if how == "keys":
                await pilot.press(key)
            else:
                await pilot.click(f"#approval-choice-{key}")
            await pilot.pause()
            if press == "shows the rule":
                assert saved[1][0] in str(dialog.query_one("#approval-preview").render())
                assert isinstance(app.screen, ApprovalScreen)  # not saved yet
        await wait_turn(pilot, app)
        field, value = saved
        assert saved_in_session(app, isolated_home)[field] == value
        await send(pilot, app, ECHO)
        await wait_turn(pilot, app)
        assert not isinstance(app.screen, ApprovalScreen)
        assert results(app) == [("run_bash", "hi\n", False)] * 2


@pytest.mark.app
@pytest.mark.slow
async def test_deny_and_deny_with_a_reason_reach_the_model(bundled_app, isolated_home):
    """n denies; r denies with a reason, which is the tool result the model gets."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)
        await pilot.press("n")
        await wait_turn(pilot, app)
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)
        await pilot.press("r", *"use ls instead", "enter")
        await wait_turn(pilot, app)
        denied = results(app)
        assert [(name, error) for name, _, error in denied] == [("run_bash", True)] * 2
        assert denied[0][1] == "The user denied this tool call."
        assert denied[1][1] == "The user denied this tool call. Reason: use ls instead"
        history = await app.birdie.transcript()
        said = [item.content for item in history if item.role == "tool"]
        assert said[-1] == "The user denied this tool call. Reason: use ls instead"
        assert "Reason: use ls instead" in [i.content for i in history][-1]  # the reply


@pytest.mark.app
async def test_a_file_write_shows_its_diff_and_writes_once_allowed(local_bundled_app, tmp_path):
    """write_file asks with a diff against the file today and writes only once allowed."""
    (tmp_path / "a.txt").write_text("old\n")
    app = local_bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, WRITE)
        dialog = await open_dialog(pilot, app)
        shown = str(dialog.query_one("#approval-call").render()).splitlines()
        assert "-old" in shown and "+x" in shown
        assert (tmp_path / "a.txt").read_text() == "old\n"  # nothing before the answer
        await pilot.click("#approval-choice-once")
        await wait_turn(pilot, app)
        assert (tmp_path / "a.txt").read_text() == "x"


@pytest.mark.app
async def test_the_mode_key_cycles_and_shows_in_status(bundled_app):
    """shift+tab: ask → auto → read-only → ask; only the non-default modes show."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert "auto-approve" not in status_line(app) and "read-only" not in status_line(app)
        seen = []
        for _ in range(3):
            await pilot.press("shift+tab")
            await pilot.pause()
            seen.append((app.birdie.approval_mode(), status_line(app)))
        assert [mode for mode, _ in seen] == ["auto", "read-only", "ask"]
        assert "⏵⏵ auto-approve" in seen[0][1]
        assert "read-only" in seen[1][1] and "auto-approve" not in seen[1][1]
        assert "auto-approve" not in seen[2][1] and "read-only" not in seen[2][1]


@pytest.mark.app
async def test_read_only_denies_and_auto_runs_without_asking(bundled_app):
    """Read-only denies gated calls without a dialog; auto runs them without one."""
    app = bundled_app()
    seen_dialog = []
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press("shift+tab", "shift+tab")  # read-only
        await send(pilot, app, ECHO)
        await wait_turn(pilot, app)
        seen_dialog.append(isinstance(app.screen, ApprovalScreen))
        await pilot.press("shift+tab", "shift+tab")  # ask → auto
        await pilot.pause()
        assert app.birdie.approval_mode() == "auto"
        await send(pilot, app, ECHO)
        await wait_turn(pilot, app)
        seen_dialog.append(isinstance(app.screen, ApprovalScreen))
        got = results(app)
        assert seen_dialog == [False, False]
        assert got[0][0] == "run_bash" and got[0][2] and "read-only" in got[0][1]
        assert got[1] == ("run_bash", "hi\n", False)


@pytest.mark.app
async def test_auto_approve_on_the_command_line_starts_in_auto_mode(bundled_app):
    """`--auto-approve` starts in auto mode (shown in #status); the mode key still cycles."""
    app = bundled_app("--auto-approve")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        assert app.birdie.approval_mode() == "auto"
        assert "auto-approve" in status_line(app)
        await send(pilot, app, ECHO)
        await wait_turn(pilot, app)
        assert results(app) == [("run_bash", "hi\n", False)]
        await pilot.press("shift+tab")  # the user can still leave it
        await pilot.pause()
        assert app.birdie.approval_mode() == "read-only"


@pytest.mark.app
async def test_the_mode_key_can_be_rebound(local_bundled_app, isolated_home):
    """The mode key has a binding id a settings keymap can move."""
    keymap = {"keymap": {"app.approval_mode": "f2"}}
    (isolated_home / "settings.json").write_text(json.dumps(keymap))
    app = local_bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await pilot.press("f2")
        await pilot.pause()
        assert app.birdie.approval_mode() == "auto"


@pytest.mark.app
async def test_approvals_command_shows_sets_and_forgets(bundled_app, isolated_home):
    """/approvals lists the mode and saved rules; `mode` sets it, `forget` drops the rules."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)
        await pilot.press("t", "t")
        await wait_turn(pilot, app)
        await send(pilot, app, "/approvals")
        await wait_for(pilot, lambda: "Approval mode: ask" in notices(app))
        shown = notices(app)
        assert "`run_bash`" in shown and "Skills approved for this session: none" in shown
        await send(pilot, app, "/approvals mode read-only")
        await wait_for(pilot, lambda: app.birdie.approval_mode() == "read-only")
        await pilot.pause()
        assert "read-only" in status_line(app)
        await send(pilot, app, "/approvals forget")
        await wait_for(pilot, lambda: "Forgot 0 approved skills and 1 rule" in notices(app))
        assert saved_in_session(app, isolated_home).get("approval_rules", []) == []
        await send(pilot, app, "/approvals mode sometimes")
        await pilot.pause(0.2)
        assert app.birdie.approval_mode() == "read-only"  # a usage toast, nothing changed


@pytest.mark.app
async def test_a_new_message_instead_of_an_answer_closes_it_as_not_run(bundled_app):
    """Esc leaves the call pending; the next message tells the user it was not run, the
    engine closes it, and the history stays valid (the turn runs)."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)
        await pilot.press("escape")
        await wait_turn(pilot, app)
        assert "run_bash is waiting for your approval" in notices(app)
        # nothing ran: the block says so, it does not pretend to run
        assert [b.title_text.split("  ")[-1] for b in app.query(ToolBlock)] == ["✗ not run"]
        assert [r.name for r in await app.birdie.pending_approvals()] == ["run_bash"]
        await send(pilot, app, "hello again")
        await wait_turn(pilot, app)
        assert "Not run: run_bash (it was waiting for your approval" in notices(app)
        assert await app.birdie.pending_approvals() == []
        history = await app.birdie.transcript()
        closed = [i for i in history if i.role == "tool"]
        assert len(closed) == 1 and closed[0].content.startswith("Not run")
        assert history[-1].role == "assistant" and "hello again" in history[-1].content


@pytest.mark.app
async def test_the_block_says_waiting_for_approval_then_runs_or_not_run(bundled_app):
    """While its dialog is open a gated call's block says `waiting for approval`, not
    `…running`; allowed, it runs and finishes; denied, it says `not run (denied)`."""
    app = bundled_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)
        block = app.query_one(ToolBlock)
        assert "⏸ waiting for approval" in block.title_text
        assert "running" not in block.title_text and not block.clock_running
        await pilot.press("y")
        await wait_turn(pilot, app)
        assert block.title_text.endswith("✓  1 line") and not block.clock_running
        await send(pilot, app, ECHO)
        await open_dialog(pilot, app)
        await pilot.press("n")
        await wait_turn(pilot, app)
        denied = list(app.query(ToolBlock))[-1]
        assert "✗ not run (denied)" in denied.title_text and "running" not in denied.title_text
