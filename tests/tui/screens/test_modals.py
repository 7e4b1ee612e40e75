from __future__ import annotations

import pytest
from textual.widgets import Input, Static

from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.rename import RenameScreen
from tests.tui.screens.harness import NOT_DISMISSED, ScreenHarness


@pytest.mark.parametrize(("key", "expected"), [("y", True), ("enter", True), ("n", False), ("escape", False)])
async def test_confirm_keys(key, expected):
    app = ScreenHarness(lambda: ConfirmScreen("Delete session s1? This removes its history."))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "Delete session s1?" in str(app.screen.query_one("#confirm-message", Static).render())
        await pilot.press(key)
        await pilot.pause()
        assert app.results == [expected]


async def test_confirm_no_button():
    app = ScreenHarness(lambda: ConfirmScreen("Sure?"))
    async with app.run_test() as pilot:
        await pilot.click("#confirm-no")
        await pilot.pause()
        assert app.results == [False]


async def test_confirm_message_is_not_markup():
    app = ScreenHarness(lambda: ConfirmScreen("Delete [bold]x[/]?"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "[bold]x[/]" in str(app.screen.query_one("#confirm-message", Static).render())


async def test_rename_prefilled_and_enter_returns_stripped_text():
    app = ScreenHarness(lambda: RenameScreen("Old title"))
    async with app.run_test() as pilot:
        await pilot.pause()
        field = app.screen.query_one("#rename-input", Input)
        assert field.value == "Old title"
        assert app.screen.focused is field
        field.value = ""
        await pilot.press(*"  New name ", "enter")
        await pilot.pause()
        assert app.results == ["New name"]


async def test_rename_blank_or_escape_gives_none():
    app = ScreenHarness(lambda: RenameScreen("Old"))
    async with app.run_test() as pilot:
        app.screen.query_one("#rename-input", Input).value = "   "
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [None]

    app = ScreenHarness(lambda: RenameScreen("Old"))
    async with app.run_test() as pilot:
        await pilot.press("x", "escape")
        await pilot.pause()
        assert app.results == [None]


ARGS = {"command": "ls -la [red]oops[/red]", "timeout": 30, "env": {"HOME": "/tmp"}}


@pytest.mark.parametrize(("key", "expected"), [("y", True), ("n", False), ("escape", False)])
async def test_approval_keys(key, expected):
    app = ScreenHarness(lambda: ApprovalScreen("run_shell", "bash-tools", ARGS))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(key)
        await pilot.pause()
        assert app.results == [expected]


async def test_approval_shows_tool_skill_and_pretty_args_without_markup():
    app = ScreenHarness(lambda: ApprovalScreen("run_shell", "bash-tools", ARGS))
    async with app.run_test() as pilot:
        await pilot.pause()
        question = str(app.screen.query_one("#approval-question", Static).render())
        assert question == "Birdie wants to run run_shell (skill bash-tools)"
        shown = str(app.screen.query_one("#approval-args-json", Static).render())
        assert '  "command": "ls -la [red]oops[/red]",' in shown  # indented and literal
        assert '    "HOME": "/tmp"' in shown


async def test_approval_enter_does_not_approve_and_buttons_work():
    app = ScreenHarness(lambda: ApprovalScreen("t", "s", {}))
    async with app.run_test() as pilot:
        await pilot.press("enter")
        await pilot.pause()
        assert app.result is NOT_DISMISSED  # an Enter meant for the composer must not approve
        await pilot.click("#approval-allow")
        await pilot.pause()
        assert app.results == [True]

    app = ScreenHarness(lambda: ApprovalScreen("t", "s", {}))
    async with app.run_test() as pilot:
        await pilot.click("#approval-deny")
        await pilot.pause()
        assert app.results == [False]
