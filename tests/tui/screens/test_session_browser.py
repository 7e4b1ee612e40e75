from __future__ import annotations

from textual.widgets import Input, OptionList

from birdie_tui.tui.screens.confirm import ConfirmScreen
from birdie_tui.tui.screens.rename import RenameScreen
from birdie_tui.tui.screens.session_browser import EMPTY_MESSAGE, SessionBrowser
from birdie_tui.tui.view_models import SessionRow
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


async def test_rows_render_in_given_order_with_details_and_current_marker():
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert shown_ids(app) == ["s3", "s2", "s1"]
        lines = shown(app)
        assert lines[0] == "  s3 · Weather in Lisbon · 2026-03-02 14:05 · 4 turns · ↑48.2k ↓9.1k"
        assert lines[1] == "● s2 · Refactor the [bold]parser[/] · 2026-03-01 09:30 · 1 turn · ↑950 ↓210"
        assert lines[2].startswith("  s1 · Grocery list · 2026-02-27 22:11 · 12 turns")
        # The highlight starts on the current session.
        assert app.screen.query_one("#sessions", OptionList).highlighted_option.id == "s2"
        assert app.screen.query_one("#sessions-filter", Input).placeholder == "type to filter"


async def test_typing_on_the_list_filters_by_id_or_title_case_insensitively():
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#sessions")
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


async def test_no_match_shows_a_message_and_enter_does_nothing():
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"zzz")
        await pilot.pause()
        assert shown_ids(app) == [None]
        assert "zzz" in shown(app)[0]
        await pilot.press("enter")
        await pilot.pause()
        assert app.result is NOT_DISMISSED


async def test_enter_on_list_switches_to_highlighted_row():
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.results == [("switch", "s1")]


async def test_up_down_from_the_filter_move_the_list():
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.click("#sessions-filter")
        await pilot.press("up", "enter")
        await pilot.pause()
        assert app.results == [("switch", "s3")]


async def test_n_starts_a_new_session():
    app = browser_app(MemorySessions(sample_rows()))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("n")
        await pilot.pause()
        assert app.results == [("new", None)]


async def test_letters_typed_in_the_filter_stay_in_the_filter_and_ctrl_keys_still_act():
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.click("#sessions-filter")
        await pilot.press(*"nrd")
        await pilot.pause()
        assert filter_value(app) == "nrd"
        assert app.result is NOT_DISMISSED
        assert isinstance(app.screen, SessionBrowser)
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.results == [("new", None)]


async def test_escape_clears_filter_first_then_closes():
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


async def test_rename_updates_the_list_and_keeps_the_highlight():
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("down", "r")  # s1
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
        assert app.screen.query_one("#sessions", OptionList).highlighted_option.id == "s1"
        assert app.result is NOT_DISMISSED


async def test_rename_cancelled_changes_nothing():
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


async def test_delete_asks_and_deletes_only_on_yes():
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("up", "d")  # s3
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.message == "Delete session s3? This removes its history."
        await pilot.press("n")
        await pilot.pause()
        assert actions.deleted == []
        assert shown_ids(app) == ["s3", "s2", "s1"]

        await pilot.press("d")
        await pilot.pause()
        await pilot.press("y")
        await pilot.pause()
        assert actions.deleted == ["s3"]
        assert isinstance(app.screen, SessionBrowser)
        assert shown_ids(app) == ["s2", "s1"]
        assert app.result is NOT_DISMISSED


async def test_ctrl_d_deletes_from_the_filter():
    actions = MemorySessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press(*"groc")
        await pilot.pause()
        assert app.screen.focused is app.screen.query_one("#sessions-filter")
        await pilot.press("ctrl+d")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert actions.deleted == ["s1"]


async def test_empty_state_and_n_still_works():
    app = browser_app(MemorySessions([]))
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert shown(app) == [EMPTY_MESSAGE]
        await pilot.press("enter", "r", "d")
        await pilot.pause()
        assert isinstance(app.screen, SessionBrowser)
        await pilot.press("n")
        await pilot.pause()
        assert app.results == [("new", None)]
