from __future__ import annotations

import pytest
from textual.geometry import Region
from textual.widgets import Button, Input, Static

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


async def test_rename_puts_the_cursor_at_the_end_of_the_old_title():
    """Rename opens with the cursor after the old title and nothing selected: typing adds
    to the title instead of replacing it."""
    app = ScreenHarness(lambda: RenameScreen("Old title"))
    async with app.run_test() as pilot:
        await pilot.pause()
        field = app.screen.query_one("#rename-input", Input)
        assert field.cursor_position == len("Old title") and field.selection.is_empty
        await pilot.press(*" 2", "enter")
        await pilot.pause()
        assert app.results == ["Old title 2"]
