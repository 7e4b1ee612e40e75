"""The session browser with many sessions: rows come from a worker thread while the UI keeps
taking keys, filtering keeps up with bursts of typing, and the list makes options only for the
rows within reach. Speed itself is measured in bench/sessions_scale.py, never here."""

from __future__ import annotations

import threading
import time

from textual.widgets import Input, OptionList

import pytest

from birdie_tui.service.rows import SessionRow
from birdie_tui.tui.screens.session_browser import LOADING_MESSAGE, SessionBrowser, matches
from birdie_tui.tui.screens.session_list import PAGE
from tests.tui.keys import burst
from tests.tui.screens.harness import NOT_DISMISSED, ScreenHarness
from tests.tui.screens.test_session_browser import MemorySessions, sample_rows

WORDS = ["Refactor the parser", "Weather in Lisbon", "Grocery list", "Plan the trip",
         "Fix the billing bug", "Review the README", "Draft a cover letter"]


def many_rows(n: int, current: int | None = None) -> list[SessionRow]:
    """n rows, newest first, titles cycling through WORDS with a number."""
    return [SessionRow(f"2026-01-01_{n - i}", f"{WORDS[i % len(WORDS)]} {i}",
                       "2026-03-02T14:05:09+00:00", 3, 1200, 300, current=i == current)
            for i in range(n)]


class GatedSessions(MemorySessions):
    """Rows held back until the test opens the gate; records which thread asked."""

    def __init__(self, rows: list[SessionRow]) -> None:
        super().__init__(rows)
        self.gate = threading.Event()
        self.threads: list[threading.Thread] = []

    def session_rows(self) -> list[SessionRow]:
        self.threads.append(threading.current_thread())
        # On the UI thread this would freeze the app: the test would see no key handled.
        self.gate.wait(timeout=10)
        return super().session_rows()


class FailingSessions(MemorySessions):
    def session_rows(self) -> list[SessionRow]:
        raise OSError("disk on fire")


def browser_app(actions: MemorySessions) -> ScreenHarness:
    return ScreenHarness(lambda: SessionBrowser(actions, cursor_blink=False))


def option_list(app: ScreenHarness) -> OptionList:
    return app.screen.query_one("#sessions", OptionList)


def shown(app: ScreenHarness) -> list[str]:
    options = option_list(app)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


def shown_ids(app: ScreenHarness) -> list[str | None]:
    options = option_list(app)
    return [options.get_option_at_index(i).id for i in range(options.option_count)]


def filter_value(app: ScreenHarness) -> str:
    return app.screen.query_one("#sessions-filter", Input).value


def highlighted(app: ScreenHarness) -> str | None:
    option = option_list(app).highlighted_option
    return option.id if option is not None else None


async def until(pilot, predicate, timeout: float = 15.0) -> None:
    """Poll app state (rows arrive from a thread), never sleep a fixed time."""
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "condition not met in time"
        await pilot.pause(0.02)


def loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, SessionBrowser) and screen._loaded is not None


async def test_rows_load_in_a_worker_thread_while_keys_typed_meanwhile_filter_them():
    """Until the rows arrive the list says it is loading and the UI keeps taking keys; the
    rows are fetched off the UI thread and arrive filtered by what was typed meanwhile."""
    actions = GatedSessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        assert shown(app) == [LOADING_MESSAGE] and shown_ids(app) == [None]
        await pilot.press(*"lisb")
        assert filter_value(app) == "lisb"
        assert shown(app) == [LOADING_MESSAGE]
        actions.gate.set()
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        assert shown_ids(app) == ["s3"]
        assert actions.threads and threading.main_thread() not in actions.threads
        assert app.result is NOT_DISMISSED


async def test_enter_and_moves_typed_before_the_rows_arrive_act_once_they_do():
    """Keys that need rows are kept, in order, until the rows come: nothing typed is lost."""
    actions = GatedSessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        await pilot.press("s", "down", "enter")  # s3, s2 (current, highlighted), s1 all match
        assert app.result is NOT_DISMISSED
        actions.gate.set()
        await until(pilot, lambda: app.result is not NOT_DISMISSED)
        assert app.results == [("switch", "s1")]


async def test_a_failed_load_says_so_and_the_browser_stays_usable():
    """A listing that fails shows the error in the list; ctrl+n still works."""
    app = browser_app(FailingSessions([]))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: "disk on fire" in shown(app)[0])
        assert shown(app) == ["Could not list sessions: disk on fire"]
        await pilot.press("enter")
        assert app.result is NOT_DISMISSED
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert app.results == [("new", None)]


async def test_a_burst_of_typed_keys_ends_with_the_whole_word_and_its_rows():
    """A word typed as one burst over 5,000 rows: no key lost or reordered, and the list
    ends showing exactly the rows that word matches, the first page of them as options."""
    rows = many_rows(5000)
    app = browser_app(MemorySessions(rows))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        for word in ("parser 4", "lisbon 12", "grocery list 499", "no such title"):
            burst(app, *word)
            await pilot.pause()
            assert filter_value(app) == word
            expected = [r.id for r in rows if matches(r, word)]
            ids = shown_ids(app)
            assert ids[: min(len(expected), PAGE)] == expected[:PAGE]
            if not expected:
                assert shown(app) == [f"No sessions match “{word}”"]
            elif len(expected) > PAGE:
                assert ids[-1] is None and shown(app)[-1] == \
                    f"… {len(expected) - PAGE:,} more — type to filter"
            else:
                assert len(ids) == len(expected)
            burst(app, *["backspace"] * len(word))
            await pilot.pause()
            assert filter_value(app) == ""


async def test_typing_then_enter_in_one_burst_opens_the_first_match():
    """Enter typed right behind the filter keys opens a row of the new filter, not the old."""
    rows = many_rows(3000)
    app = browser_app(MemorySessions(rows))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        burst(app, *"plan the trip 2999", "enter")
        await pilot.pause()
        assert app.results == [("switch", "2026-01-01_1")]


@pytest.mark.slow
async def test_a_long_list_makes_a_page_of_options_and_grows_as_the_end_nears():
    """1,000 rows: a page of options and a "more" line; moving down grows the list a page at
    a time, so every row can still be reached, the last one too."""
    rows = many_rows(1000)
    app = browser_app(MemorySessions(rows))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        assert option_list(app).option_count == PAGE + 1
        assert shown(app)[-1] == f"… {1000 - PAGE:,} more — type to filter"
        assert highlighted(app) == rows[0].id
        for _ in range(PAGE):
            await pilot.press("down")
        assert highlighted(app) == rows[PAGE].id
        assert option_list(app).option_count > PAGE + 1
        app.screen.query_one("#sessions").focus()
        for _ in range(30):
            await pilot.press("end")
            if highlighted(app) == rows[-1].id:
                break
        assert highlighted(app) == rows[-1].id
        assert shown_ids(app) == [r.id for r in rows]  # no "more" line left


async def test_scrolling_the_list_to_its_bottom_adds_rows():
    """Scrolling (the mouse wheel's way) to the bottom makes the next page of options."""
    app = browser_app(MemorySessions(many_rows(1000)))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        before = option_list(app).option_count
        option_list(app).scroll_end(animate=False, immediate=True)
        await pilot.pause()
        assert option_list(app).option_count > before


async def test_the_current_session_far_down_the_list_is_highlighted_on_open():
    """The open session starts highlighted even when it is past the first page."""
    rows = many_rows(800, current=420)
    app = browser_app(MemorySessions(rows))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        assert highlighted(app) == rows[420].id
        await pilot.press("enter")
        await pilot.pause()
        assert app.results == [("switch", rows[420].id)]


class WordingSessions(MemorySessions):
    """An app that words titles its own way (as the real one may), and whose listing after
    a rename waits at a gate."""

    def __init__(self, rows: list[SessionRow]) -> None:
        super().__init__(rows)
        self.gate = threading.Event()
        self.given: list[str] = []

    def session_rows(self) -> list[SessionRow]:
        if self.given:
            self.gate.wait(timeout=10)
        return super().session_rows()

    async def rename_session(self, session_id: str, title: str) -> None:
        self.given.append(title)
        await super().rename_session(session_id, title.upper())


async def test_a_rename_shows_at_once_and_the_apps_wording_follows():
    """The renamed row shows the typed title at once, then the app's fresh rows replace it;
    the highlight stays on the row throughout."""
    actions = WordingSessions(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.press("down", "ctrl+r")  # s1
        await pilot.pause()
        field = app.screen.query_one("#rename-input", Input)
        field.value = ""
        await pilot.press(*"shopping", "enter")
        await pilot.pause()
        assert actions.given == ["shopping"]
        assert "· shopping ·" in shown(app)[2] and highlighted(app) == "s1"
        actions.gate.set()
        await until(pilot, lambda: "SHOPPING" in shown(app)[2])
        assert highlighted(app) == "s1"


class SlowThenFast(MemorySessions):
    """The first listing is slow (held at a gate) and sees every row; the second is quick
    and sees only the newest one."""

    def __init__(self, rows: list[SessionRow]) -> None:
        super().__init__(rows)
        self.gate = threading.Event()
        self.calls = 0

    def session_rows(self) -> list[SessionRow]:
        self.calls += 1
        if self.calls == 1:
            self.gate.wait(timeout=10)
            return list(self.rows)
        return list(self.rows[:1])


async def test_a_slow_listing_overtaken_by_a_newer_one_is_dropped():
    """Rows from a listing a newer one overtook never replace the newer rows."""
    actions = SlowThenFast(sample_rows())
    app = browser_app(actions)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        app.screen.reload_rows()
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        assert shown_ids(app) == ["s3"]
        actions.gate.set()
        await until(pilot, lambda: not any(w.is_running for w in app.screen.workers))
        await pilot.pause()
        assert actions.calls == 2
        assert shown_ids(app) == ["s3"]


@pytest.mark.app
async def test_the_real_app_lists_real_session_files_from_a_worker_thread(isolated_home,
                                                                         monkeypatch):
    """ctrl+s in the real app over 300 real session files: rows come from the store's index
    in a worker thread, newest first under the open session, and typing filters them."""
    import json
    import os

    from birdie_tui.service.local import rows as local_rows
    from birdie_tui.store import BirdiePaths, SessionStore
    from birdie_tui.store.session_index import INDEX_NAME
    from birdie_tui.tui import create_app

    folder = isolated_home / "sessions" / "tester"
    folder.mkdir(parents=True)
    for n in range(1, 301):
        sid = f"2026-01-02_{n}"
        (folder / f"{sid}.json").write_text(json.dumps({
            "id": sid, "user_id": "tester", "created_at": "2026-01-02T09:30:00+00:00",
            "updated_at": "2026-01-02T09:30:00+00:00", "turns": 1, "enabled_skills": [],
            "disabled_skills": [], "title": f"talk number {n}"}))
        old = time.time() - 3600  # written an hour ago: the index may cache them
        os.utime(folder / f"{sid}.json", (old, old))
    threads: list[threading.Thread] = []
    real_rows = local_rows.session_rows

    def recording(engine):
        threads.append(threading.current_thread())
        return real_rows(engine)

    monkeypatch.setattr(local_rows, "session_rows", recording)
    app = create_app([], cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await until(pilot, lambda: app.birdie is not None and app.ready.is_set(), timeout=60)
        await pilot.pause()
        current = app.birdie.status().session_id
        await pilot.press("ctrl+s")
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        listed = [s.id for s in SessionStore(BirdiePaths(isolated_home), "tester").summaries()]
        assert len(listed) == 300 and listed[0] == "2026-01-02_300"
        assert shown_ids(app)[:PAGE] == [current, *listed[: PAGE - 1]]
        assert threads and threading.main_thread() not in threads
        assert (folder / INDEX_NAME).is_file()
        burst(app, *"number 29")
        await pilot.pause()
        assert shown_ids(app) == [f"2026-01-02_{n}" for n in (*range(299, 289, -1), 29)]
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert not isinstance(app.screen, SessionBrowser)


async def test_enter_handled_before_the_redraw_still_opens_a_row_of_the_new_filter():
    """The filter changed and submitted in one tick (the redraw it asked for not yet run):
    enter acts on the rows of the new filter, never on the list still on screen."""
    rows = many_rows(300)
    app = browser_app(MemorySessions(rows))
    async with app.run_test(size=(120, 30)) as pilot:
        await until(pilot, lambda: loaded(app))
        await pilot.pause()
        assert highlighted(app) == rows[0].id
        field = app.screen.query_one("#sessions-filter", Input)
        field.value = "grocery list 296"
        field.post_message(Input.Submitted(field, field.value))  # what enter posts
        await pilot.pause()
        assert app.results == [("switch", "2026-01-01_4")]
