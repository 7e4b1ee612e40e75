from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import Button, Input, Static

from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.dialog import GuardedModal
from birdie_tui.tui.screens.rename import RenameScreen
from tests.tui.keys import deliver, key_events
from tests.tui.screens.harness import NOT_DISMISSED, ScreenHarness


def rendered_text(widget) -> str:
    """What the widget paints, line by line (border and padding included)."""
    width, height = widget.outer_size
    return "\n".join(strip.text for strip in widget.render_lines(Region(0, 0, width, height)))


# -- confirm -------------------------------------------------------------------------------


@pytest.mark.parametrize(("keys", "expected"), [
    (["enter"], [False]),  # the safe button has focus
    (["escape"], [False]),
    (["y"], []),  # no letter answers
    (["n"], []),
    (["y", "enter"], [False]),
    (["space"], []),
])
async def test_confirm_keeps_unless_the_destructive_button_is_chosen(keys, expected):
    """Keep has the focus: Enter or Esc keeps, and letters or Space give no answer at all."""
    app = ScreenHarness(lambda: ConfirmScreen("Delete session s1? This removes its history."))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "Delete session s1?" in str(app.screen.query_one("#confirm-message", Static).render())
        assert app.screen.focused.id == "confirm-keep"
        await pilot.press(*keys)
        await pilot.pause()
        assert app.results == expected


async def test_confirm_buttons_name_the_action():
    """The buttons read Delete and Keep, or the labels given, and the hint says Enter keeps."""
    app = ScreenHarness(lambda: ConfirmScreen("Sure?"))
    async with app.run_test() as pilot:
        await pilot.pause()
        labels = [str(button.label) for button in app.screen.query(Button)]
        assert labels == ["Delete", "Keep"]
        hint = str(app.screen.query_one("#confirm-hint").render())
        assert "enter keep" in hint and "esc keep" in hint

    app = ScreenHarness(lambda: ConfirmScreen("Sure?", action="Discard", keep="Cancel"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert [str(b.label) for b in app.screen.query(Button)] == ["Discard", "Cancel"]


@pytest.mark.parametrize("move", ["tab", "shift+tab", "left", "right"])
async def test_confirm_moving_to_delete_then_enter_confirms(move):
    """Moving to Delete with Tab, Shift+Tab or an arrow, then Enter, confirms."""
    app = ScreenHarness(lambda: ConfirmScreen("Sure?"))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(move)
        await pilot.pause()
        assert app.screen.focused.id == "confirm-delete"
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [True]


async def test_confirm_click_either_button():
    """Clicking Keep answers False and clicking Delete answers True."""
    app = ScreenHarness(lambda: ConfirmScreen("Sure?"))
    async with app.run_test() as pilot:
        await pilot.click("#confirm-keep")
        await pilot.pause()
        assert app.results == [False]

    app = ScreenHarness(lambda: ConfirmScreen("Sure?"))
    async with app.run_test() as pilot:
        await pilot.click("#confirm-delete")
        await pilot.pause()
        assert app.results == [True]


async def test_confirm_message_is_not_markup():
    """The confirm message shows square brackets literally, not as markup."""
    app = ScreenHarness(lambda: ConfirmScreen("Delete [bold]x[/]?"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert "[bold]x[/]" in str(app.screen.query_one("#confirm-message", Static).render())


async def test_confirm_ignores_keys_typed_before_it_showed():
    """Keys stamped before the dialog showed are ignored; the same keys typed after it count."""
    stale = key_events("tab", "enter")  # stamped before the dialog exists
    app = ScreenHarness(lambda: ConfirmScreen("Sure?"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GuardedModal) and app.screen.shown_at is not None
        assert all(event.time < app.screen.shown_at for event in stale)
        await deliver(pilot, app, stale)
        assert app.result is NOT_DISMISSED
        assert app.screen.focused.id == "confirm-keep"  # the stale tab did not move focus
        await pilot.press("tab", "enter")  # the same keys, typed now, do count
        await pilot.pause()
        assert app.results == [True]


# -- rename --------------------------------------------------------------------------------


async def test_rename_prefilled_and_enter_returns_stripped_text():
    """Rename opens focused on the old title; Enter returns the new title stripped."""
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
    """A blank title or Esc dismisses the rename dialog with None."""
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


async def test_rename_ignores_keys_typed_before_it_showed():
    """Keys typed before the rename dialog showed neither edit nor submit the title."""
    stale = key_events("x", "y", "enter")
    app = ScreenHarness(lambda: RenameScreen("Old title"))
    async with app.run_test() as pilot:
        await pilot.pause()
        await deliver(pilot, app, stale)
        assert app.result is NOT_DISMISSED
        assert app.screen.query_one("#rename-input", Input).value == "Old title"


# -- approval ------------------------------------------------------------------------------

ARGS = {"command": "ls -la [red]oops[/red]", "timeout": 30, "env": {"HOME": "/tmp"}}
HUGE_ARGS = {
    "command": "echo " + "word " * 1000,  # a 5,000-char command
    "lines": [f"line {i}" for i in range(200)],  # 200 lines of args
    "token": "T" * 700,  # one very long token
}


@pytest.mark.parametrize(("keys", "expected"), [
    (["tab", "enter"], True),  # to Allow, then Enter
    (["tab", "right", "enter"], False),  # to Deny
    (["shift+tab", "enter"], False),  # backwards lands on Deny
    (["escape"], False),
])
async def test_approval_keys(keys, expected):
    """Tab then Enter allows; Deny reached by Right or Shift+Tab, or Esc, refuses."""
    app = ScreenHarness(lambda: ApprovalScreen("run_shell", "bash-tools", ARGS))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        assert app.results == [expected]


async def test_approval_letters_and_enter_never_answer():
    """Letters, Space and Enter on the initial focus never answer the approval dialog."""
    app = ScreenHarness(lambda: ApprovalScreen("run_shell", "bash-tools", ARGS))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press(*"yes ok ny", "enter", "space")
        await pilot.pause()
        assert app.result is NOT_DISMISSED  # an Enter meant for the composer must not approve


async def test_approval_shows_tool_skill_and_pretty_args_without_markup():
    """The dialog names tool and skill, shows indented literal JSON args and Allow/Deny buttons."""
    app = ScreenHarness(lambda: ApprovalScreen("run_shell", "bash-tools", ARGS))
    async with app.run_test() as pilot:
        await pilot.pause()
        question = str(app.screen.query_one("#approval-question", Static).render())
        assert question == "Birdie wants to run run_shell (skill bash-tools)"
        shown = str(app.screen.query_one("#approval-args-json", Static).render())
        assert '  "command": "ls -la [red]oops[/red]",' in shown  # indented and literal
        assert '    "HOME": "/tmp"' in shown
        assert [str(b.label) for b in app.screen.query(Button)] == ["Allow", "Deny"]


async def test_approval_buttons_work():
    """Clicking Allow answers True and clicking Deny answers False."""
    app = ScreenHarness(lambda: ApprovalScreen("t", "s", {}))
    async with app.run_test() as pilot:
        await pilot.click("#approval-allow")
        await pilot.pause()
        assert app.results == [True]

    app = ScreenHarness(lambda: ApprovalScreen("t", "s", {}))
    async with app.run_test() as pilot:
        await pilot.click("#approval-deny")
        await pilot.pause()
        assert app.results == [False]


async def test_approval_ignores_keys_typed_before_it_showed():
    """Someone typing a message when the dialog pops must not approve a shell command."""
    stale = key_events("tab", "enter")
    app = ScreenHarness(lambda: ApprovalScreen("run_bash", "Shell", {"command": "rm -rf build"}))
    async with app.run_test() as pilot:
        await pilot.pause()
        await deliver(pilot, app, stale)
        assert app.result is NOT_DISMISSED
        assert app.screen.focused.id == "approval-args"


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_approval_with_huge_args_keeps_both_buttons_on_screen_and_answerable(size):
    """Huge args scroll inside the dialog while both buttons stay whole, on screen and usable."""
    app = ScreenHarness(lambda: ApprovalScreen("run_bash", "Shell", HUGE_ARGS))
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        for button_id in ("#approval-allow", "#approval-deny"):
            button = screen.query_one(button_id)
            assert screen.region.contains_region(button.region), button_id
            assert button.region.height == 3  # whole, not squeezed
        dialog = screen.query_one("#approval-dialog")
        assert screen.region.contains_region(dialog.region)
        # The args scroll inside the dialog; the keyboard reaches their end.
        args = screen.query_one("#approval-args")
        assert dialog.region.contains_region(args.region)
        assert args.max_scroll_y > 0 and args.max_scroll_x == 0
        assert screen.focused is args
        await pilot.press("end")
        await pilot.pause()
        assert args.scroll_y == args.max_scroll_y
        await pilot.press("tab", "enter")
        await pilot.pause()
        assert app.results == [True]


async def test_approval_long_token_wraps_instead_of_being_cut():
    """A 700-character token wraps in the args view, nothing hidden off to the right."""
    app = ScreenHarness(lambda: ApprovalScreen("run_bash", "Shell", {"token": "T" * 700}))
    async with app.run_test(size=(80, 40)) as pilot:
        await pilot.pause()
        args = app.screen.query_one("#approval-args")
        await pilot.press("end")
        await pilot.pause()
        text = rendered_text(app.screen.query_one("#approval-args-json"))
        assert text.count("T") == 700
        assert args.max_scroll_x == 0  # nothing hides to the right
