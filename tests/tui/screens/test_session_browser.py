from __future__ import annotations

import pytest
from textual import events
from textual.widgets import Input, OptionList

from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.rename import RenameScreen
from birdie_tui.tui.screens.session_browser import EMPTY_MESSAGE, HINTS, SessionBrowser
from birdie_tui.service.rows import SessionRow
from tests.tui.keys import deliver, key_events
from tests.tui.screens.harness import NOT_DISMISSED, ScreenHarness


class MemorySessions:
    """An in-memory SessionActions: rows newest first, as the app would give them."""

    def __init__(self, rows: list[SessionRow]) -> None:
        self.rows = rows
        self.renamed: list[tuple[str, str]] = []
        self.deleted: list[str] = []

    def session_rows(self) -> list[SessionRow]:
        return list(self.rows)

    async def rename_session(self, session_id: str, title: str) -> None:
        self.renamed.append((session_id, title))
        self.rows = [
            SessionRow(r.id, title, r.updated_at, r.turns, r.input_tokens, r.output_tokens, r.current)
            if r.id == session_id
            else r
            for r in self.rows
        ]

    async def delete_session(self, session_id: str) -> None:
        self.deleted.append(session_id)
        self.rows = [r for r in self.rows if r.id != session_id]


def sample_rows() -> list[SessionRow]:
    return [
        SessionRow("s3", "Weather in Lisbon", "2026-03-02T14:05:09+00:00", 4, 48213, 9120),
        SessionRow("s2", "Refactor the [bold]parser[/]", "2026-03-01T09:30:00", 1, 950, 210, current=True),
        SessionRow("s1", "Grocery list", "2026-02-27T22:11:00", 12, 12000, 3300),
    ]


def browser_app(actions: MemorySessions) -> ScreenHarness:
    return ScreenHarness(lambda: SessionBrowser(actions))


def shown(app: ScreenHarness) -> list[str]:
    option_list = app.screen.query_one("#sessions", OptionList)
    return [str(option_list.get_option_at_index(i).prompt) for i in range(option_list.option_count)]


def shown_ids(app: ScreenHarness) -> list[str | None]:
    option_list = app.screen.query_one("#sessions", OptionList)
    return [option_list.get_option_at_index(i).id for i in range(option_list.option_count)]


def filter_value(app: ScreenHarness) -> str:
    return app.screen.query_one("#sessions-filter", Input).value


def highlighted(app: ScreenHarness) -> str | None:
    option = app.screen.query_one("#sessions", OptionList).highlighted_option
    return option.id if option is not None else None


def type_ahead(app: ScreenHarness, *keys: str) -> None:
    """Queue keys in one burst, as a fast typist's arrive: none is handled before the last is sent."""
    for key in keys:
        character = " " if key == "space" else key if len(key) == 1 else None
        app.post_message(events.Key(key, character))


async def test_rows_render_in_given_order_with_details_and_current_marker():
    """Rows keep their order and details, the current one marked; typing goes to the filter."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert shown_ids(app) == ["s3", "s2", "s1"]
        lines = shown(app)
        assert lines[0] == "  s3 · Weather in Lisbon · 2026-03-02 14:05 · 4 turns · ↑48.2k ↓9.1k"
        assert lines[1] == "● s2 · Refactor the [bold]parser[/] · 2026-03-01 09:30 · 1 turn · ↑950 ↓210"
        assert lines[2].startswith("  s1 · Grocery list · 2026-02-27 22:11 · 12 turns")
        # The highlight starts on the current session; typing starts in the filter.
        assert highlighted(app) == "s2"
        field = app.screen.query_one("#sessions-filter", Input)
        assert field.placeholder == "type to filter"
        assert app.screen.focused is field


async def test_hints_tell_the_keys_and_no_plain_letter_is_bound():
    """The hint line names the keys, and only ctrl chords are bound, so letters always filter."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        hints = str(app.screen.query_one("#sessions-hints").render())
        assert hints == HINTS
        for part in ("type to filter", "enter open", "^n new", "^r rename", "^d delete", "esc close"):
            assert part in hints
        keys = app.screen._bindings.key_to_bindings
        assert not [key for key in keys if len(key) == 1], "a plain key would act instead of filter"
        assert {"ctrl+n", "ctrl+r", "ctrl+d"} <= set(keys)


async def test_typing_filters_by_id_or_title_case_insensitively():
    """Typing filters rows by title or id, ignoring case; Enter opens the row left."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"LISB")
        await pilot.pause()
        assert filter_value(app) == "LISB"
        assert shown_ids(app) == ["s3"]
        await pilot.press(*["backspace"] * 4, "s", "1")
        await pilot.pause()
        assert shown_ids(app) == ["s1"]  # matches the id
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [("switch", "s1")]


@pytest.mark.parametrize("focus", ["#sessions-filter", "#sessions", "#sessions-delete", "#sessions-new"])
async def test_a_word_full_of_action_letters_only_filters_wherever_focus_is(focus):
    """Type-ahead once deleted a session: n, r, d, e, y and space must all land in the filter."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.screen.query_one(focus).focus()
        await pilot.pause()
        await pilot.press(*"random", "space", *"dyne")
        await pilot.pause()
        assert filter_value(app) == "random dyne"
        assert isinstance(app.screen, SessionBrowser)  # no rename or confirm dialog opened
        assert app.screen.focused is app.screen.query_one("#sessions-filter")
        assert app.result is NOT_DISMISSED  # no new session
        assert actions.renamed == [] and actions.deleted == []
        assert [row.id for row in actions.rows] == ["s3", "s2", "s1"]


async def test_no_match_shows_a_message_and_enter_does_nothing():
    """A filter matching nothing shows a message row naming it, and Enter does nothing."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"zzz")
        await pilot.pause()
        assert shown_ids(app) == [None]
        assert "zzz" in shown(app)[0]
        await pilot.press("enter")
        await pilot.pause()
        assert app.result is NOT_DISMISSED


async def test_enter_switches_to_highlighted_row():
    """Enter switches to the row highlighted with Down from the filter."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.results == [("switch", "s1")]


async def test_enter_on_the_focused_list_switches_too():
    """Enter on the focused session list switches to its highlighted row as well."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.screen.query_one("#sessions").focus()
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.results == [("switch", "s3")]


async def test_up_down_move_the_list_while_typing_in_the_filter():
    """Up and Down move the list's highlight while the focus stays in the filter."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("s")  # all three match
        await pilot.press("up")
        await pilot.pause()
        assert highlighted(app) == "s3"
        await pilot.press("down", "down")
        await pilot.pause()
        assert highlighted(app) == "s1"
        assert app.screen.focused is app.screen.query_one("#sessions-filter")
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [("switch", "s1")]


async def test_ctrl_n_starts_a_new_session_from_the_filter():
    """The letters n, r and d only filter; Ctrl+N starts a new session from the filter."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"nrd")
        await pilot.pause()
        assert filter_value(app) == "nrd" and app.result is NOT_DISMISSED
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.results == [("new", None)]


async def test_escape_clears_filter_first_then_closes():
    """Esc first clears the filter and shows every row again; a second Esc closes the browser."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"gro")
        await pilot.pause()
        assert shown_ids(app) == ["s1"]
        await pilot.press("escape")
        await pilot.pause()
        assert filter_value(app) == ""
        assert shown_ids(app) == ["s3", "s2", "s1"]
        assert app.result is NOT_DISMISSED
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


async def test_ctrl_r_renames_updates_the_list_and_keeps_the_highlight():
    """Ctrl+R renames the highlighted session, refreshes its row and keeps it highlighted."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down", "ctrl+r")  # s1
        await pilot.pause()
        assert isinstance(app.screen, RenameScreen)
        field = app.screen.query_one("#rename-input", Input)
        assert field.value == "Grocery list"
        field.value = ""
        await pilot.press(*"Shopping", "enter")
        await pilot.pause()
        assert actions.renamed == [("s1", "Shopping")]
        assert isinstance(app.screen, SessionBrowser)
        assert "Shopping" in shown(app)[2]
        assert highlighted(app) == "s1"
        assert app.result is NOT_DISMISSED


async def test_rename_cancelled_changes_nothing():
    """Cancelling the rename dialog renames nothing and returns to the browser."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert isinstance(app.screen, RenameScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert actions.renamed == []
        assert isinstance(app.screen, SessionBrowser)


async def test_ctrl_d_asks_and_enter_escape_and_y_all_keep():
    """Ctrl+D asks first, naming the session's title; y gives no answer, and Enter or Esc
    keeps the session."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("up", "ctrl+d")  # s3
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        # named by its title as well as its id
        assert app.screen.message == \
            "Delete session s3 \u201cWeather in Lisbon\u201d? This removes its history."
        await pilot.press("y")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)  # no letter answers
        await pilot.press("enter")  # the safe button has focus
        await pilot.pause()
        assert isinstance(app.screen, SessionBrowser)
        await pilot.press("ctrl+d")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert actions.deleted == []
        assert shown_ids(app) == ["s3", "s2", "s1"]
        assert app.result is NOT_DISMISSED


@pytest.mark.parametrize("move", ["tab", "left", "shift+tab"])
async def test_ctrl_d_then_moving_to_delete_and_enter_deletes(move):
    """Moving to Delete and pressing Enter deletes the row; the next row takes the highlight."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("up", "ctrl+d")  # s3
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press(move)
        await pilot.pause()
        assert app.screen.focused.id == "confirm-delete"
        await pilot.press("enter")
        await pilot.pause()
        assert actions.deleted == ["s3"]
        assert isinstance(app.screen, SessionBrowser)
        assert shown_ids(app) == ["s2", "s1"]
        assert highlighted(app) == "s2"  # the row that slid into its place
        assert app.result is NOT_DISMISSED


async def test_type_ahead_after_ctrl_d_never_deletes():
    """ctrl+d, y, enter typed in one burst: the dialog opens, the y and enter land nowhere."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        type_ahead(app, "ctrl+d", "y", "tab", "enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.focused.id == "confirm-keep"
        assert actions.deleted == []
        await pilot.press("escape")
        await pilot.pause()
        assert actions.deleted == [] and [row.id for row in actions.rows] == ["s3", "s2", "s1"]
        assert filter_value(app) == ""  # nor did the y reach the filter underneath


async def test_keys_typed_before_the_confirm_dialog_showed_are_ignored():
    """Keys stamped before the delete confirmation showed neither move its focus nor delete."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        stale = key_events("tab", "enter")  # stamped now, delivered once the dialog is up
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await deliver(pilot, app, stale)
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.focused.id == "confirm-keep"
        assert actions.deleted == []


async def test_ctrl_d_deletes_from_the_filter():
    """Ctrl+D from the filter deletes the filtered row, and the filter text stays."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"groc")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#sessions-filter")
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.click("#confirm-delete")
        await pilot.pause()
        assert actions.deleted == ["s1"]
        assert filter_value(app) == "groc"


async def test_click_picks_a_row_and_a_second_click_opens_it():
    """A first click highlights a row; a second click on it opens that session."""
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        options = app.screen.query_one("#sessions", OptionList)
        await pilot.click(options, offset=(5, 2))  # the third row, s1
        await pilot.pause()
        assert highlighted(app) == "s1"
        assert app.result is NOT_DISMISSED
        await pilot.click(options, offset=(5, 2))
        await pilot.pause()
        assert app.results == [("switch", "s1")]


async def test_buttons_act_on_the_picked_row():
    """The Delete, Rename and Open buttons act on the picked row; New starts a session."""
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.click(app.screen.query_one("#sessions", OptionList), offset=(5, 0))  # s3
        await pilot.click("#sessions-delete")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert "s3" in app.screen.message
        await pilot.click("#confirm-delete")
        await pilot.pause()
        assert actions.deleted == ["s3"]

        await pilot.click("#sessions-rename")
        await pilot.pause()
        assert isinstance(app.screen, RenameScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.click("#sessions-open")
        await pilot.pause()
        assert app.results == [("switch", "s2")]

    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.click("#sessions-new")
        await pilot.pause()
        assert app.results == [("new", None)]


async def test_empty_state_says_how_to_start_and_letters_do_nothing():
    """With no sessions a message points to Ctrl+N, and no other key does anything."""
    app = browser_app(MemorySessions([]))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert shown(app) == [EMPTY_MESSAGE]
        assert "press n" not in EMPTY_MESSAGE and "ctrl+n" in EMPTY_MESSAGE
        await pilot.press("enter", "ctrl+r", "ctrl+d", *"nrd")
        await pilot.pause()
        assert isinstance(app.screen, SessionBrowser) and app.result is NOT_DISMISSED
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.results == [("new", None)]
