"""The runs view (F9, `/runs`, the palette) in the real app over the fake door: who runs the
triggers, the next runs, the run log; Enter opens a run's session (a pending one asks its
approval there); every text from a run is sanitised; `r` and the timer read the door again."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone

import pytest

from birdie_tui.service.rows import RunRecord, Trigger, TriggerRow
from birdie_tui.tui import create_app
from birdie_tui.tui.screens import run_rows, runs
from birdie_tui.tui.screens.approval import ApprovalScreen
from birdie_tui.tui.screens.runs import RunsScreen
from tests.tui.app.conftest import send, session_id, wait_for, wait_ready
from tests.tui.fake_door import FakeDoor

NOW = datetime(2026, 1, 2, 9, 30, tzinfo=timezone.utc)
DIGEST = Trigger(key="digest:every", kind="every", agent="digest", every_s=1800)
REVIEW = Trigger(key="reviewer:watch", kind="watch", agent="reviewer", watch=("drafts/*.md",))
STANDUP = Trigger(key="schedule:standup", kind="cron", agent=None, cron="0 9 * * 1-5",
                  tz="Europe/Paris", prompt="What is on today?")


def record(run_id: str, status: str, minutes_ago: float, **more: object) -> RunRecord:
    started = NOW - timedelta(minutes=minutes_ago)
    fields: dict[str, object] = {"agent": "digest", "trigger_key": "digest:every",
                                 "trigger": "every 30m", "user": "tester",
                                 "host": "box:4242"}
    fields.update(more)
    finished = None if status in ("running", "pending") else started + timedelta(seconds=42)
    return RunRecord(run_id=run_id, status=status, started_at=started,  # type: ignore[arg-type]
                     finished_at=finished, **fields)  # type: ignore[arg-type]


def sample_runs() -> list[RunRecord]:
    return [
        record("r1", "done", 30, session_id="fake_s1", input_tokens=5200, output_tokens=880,
               answer="Inbox: 3 new mails, one from the bank.\nMore below."),
        record("r2", "failed", 60, session_id="fake_s2",
               error="provider failed: 429 Too Many Requests"),
        record("r3", "skipped", 90, error="the previous run was still going"),
        record("r4", "missed", 600, error="2 firings missed while no scheduler ran"),
    ]


def sample_triggers(last: RunRecord | None = None) -> list[TriggerRow]:
    return [TriggerRow(DIGEST, next_fire=NOW + timedelta(minutes=12), last=last),
            TriggerRow(REVIEW),
            TriggerRow(STANDUP, next_fire=NOW + timedelta(hours=23, minutes=30))]


@pytest.fixture
def fixed_clock(monkeypatch):
    """"Now" is NOW, in UTC: "in 12m" and the times shown do not move."""
    monkeypatch.setattr(run_rows, "utc_now", lambda: NOW)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def app_over(door: FakeDoor):
    return create_app([], cursor_blink=False, door_factory=FakeDoor.factory(door))


@pytest.fixture
def door() -> FakeDoor:
    made = FakeDoor()
    made.runs = sample_runs()
    made.triggers = sample_triggers(made.runs[0])
    made.holder = "box:4242"
    return made


def run_texts(screen: RunsScreen) -> list[str]:
    options = screen.run_list.options
    return [str(option.prompt) for option in options]


def trigger_texts(screen: RunsScreen) -> list[str]:
    return [str(option.prompt) for option in screen.trigger_list.options]


def shown(screen: RunsScreen, widget_id: str) -> str:
    return str(screen.query_one(widget_id).render())


async def open_by_key(pilot, app) -> RunsScreen:
    await wait_ready(pilot, app)
    await pilot.press("f9")
    await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen)
                   and app.screen.snapshot is not None)
    await pilot.pause()
    return app.screen


@pytest.mark.app
async def test_f9_shows_the_holder_the_next_runs_and_the_run_log(door, fixed_clock):
    """F9 opens the view: the scheduler's holder, each trigger with its next firing and last
    status, and the runs newest first with status, agent, trigger, time, tokens, first line."""
    app = app_over(door)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_by_key(pilot, app)
        assert "scheduler running on box:4242" in shown(screen, "#runs-holder")
        digest, review, standup = trigger_texts(screen)
        assert "digest" in digest and "every 30m" in digest and "09:42 · in 12m" in digest
        assert "✓ done" in digest
        assert "reviewer" in review and "watch drafts/*.md" in review and "on change" in review
        assert "never run" in review
        assert "standup" in standup and "cron 0 9 * * 1-5 (Europe/Paris)" in standup
        assert "in 23h30m" in standup
        done, failed, skipped, missed = run_texts(screen)
        assert done.startswith("✓ done") and "every 30m" in done and "09:00" in done
        assert "↑5.2k ↓880" in done and "42s" in done
        assert "Inbox: 3 new mails, one from the bank." in done and "More below" not in done
        assert failed.startswith("✗ failed") and "429 Too Many Requests" in failed
        assert skipped.startswith("↷ skipped") and missed.startswith("○ missed")
        assert "session fake_s1" in shown(screen, "#runs-detail")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RunsScreen))


@pytest.mark.app
async def test_runs_command_and_palette_open_the_view(door):
    """`/runs` opens the view, and so does the palette's entry; both list the same runs."""
    app = app_over(door)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        await send(pilot, app, "/runs")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen)
                       and app.screen.snapshot is not None)
        assert len(run_texts(app.screen)) == 4
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, RunsScreen))
        await pilot.press("ctrl+p")
        await pilot.pause(0.2)
        for ch in "runs of agents":
            await pilot.press(ch if ch != " " else "space")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RunsScreen))


@pytest.mark.app
async def test_enter_opens_a_pending_runs_session_which_asks_its_approval(door):
    """A run stopped for an approval is marked "needs approval" (and counted in the status
    line); Enter opens its session, which asks the pending call as any reopened session."""
    app = app_over(door)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_ready(pilot, app)
        shown_first = session_id(app)
        sid = await door.run_on_its_own("reviewer · watch drafts/*.md",
                                        'call touch_file {"path": "drafts/a.md"}')
        door.runs.append(record("r0", "pending", 1, session_id=sid, agent="reviewer",
                                trigger_key="reviewer:watch", trigger="watch drafts/*.md",
                                changed_paths=("drafts/a.md",)))
        assert session_id(app) == shown_first
        screen = await open_by_key(pilot, app)
        first = run_texts(screen)[0]
        assert first.startswith("⏸ needs approval") and "reviewer" in first
        assert "1 run needs approval" in shown(screen, "#runs-holder")
        assert "changed: drafts/a.md" in shown(screen, "#runs-detail")
        await pilot.press("enter")
        await wait_for(pilot, lambda: session_id(app) == sid)
        await wait_for(pilot, lambda: isinstance(app.screen, ApprovalScreen))
        assert app.screen.request.name == "touch_file"


@pytest.mark.app
async def test_a_run_without_a_session_says_so_and_stays(door):
    """Enter on a skipped run (no session) says why nothing opens; the view stays open."""
    app = app_over(door)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(pilot, app)
        screen.run_list.highlighted = 2  # the skipped one
        before = session_id(app)
        await pilot.press("enter")
        await pilot.pause(0.2)
        assert app.screen is screen and session_id(app) == before
        assert any("no session" in n.message for n in app._notifications)


HOSTILE = "\x1b]52;c;ZXZpbA==\x07pwned\x1b[2J\x1b]0;title\x07 \x9b31m"


@pytest.mark.app
async def test_hostile_text_from_a_run_never_reaches_the_terminal(door):
    """Escape sequences in an agent name, a trigger, an answer, an error and the changed
    paths are shown inert: no ESC, no C1 control in any line the view draws."""
    door.runs = [record("h1", "done", 1, agent=f"ev{HOSTILE}il", trigger=f"watch {HOSTILE}",
                        answer=f"answer {HOSTILE}", changed_paths=(f"a{HOSTILE}.md",),
                        session_id="fake_1"),
                 record("h2", "failed", 2, error=f"boom {HOSTILE}")]
    door.triggers = [TriggerRow(replace(REVIEW, agent=f"x{HOSTILE}", watch=(HOSTILE,)))]
    door.holder = f"host{HOSTILE}:1"
    app = app_over(door)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await open_by_key(pilot, app)
        texts = [*run_texts(screen), *trigger_texts(screen), shown(screen, "#runs-holder"),
                 shown(screen, "#runs-detail")]
        assert any("pwned" in text for text in texts)
        for text in texts:
            assert not any(ch in text for ch in "\x1b\x07\x9b"), repr(text)


@pytest.mark.app
async def test_refresh_key_and_timer_pick_up_new_runs(door, monkeypatch):
    """`r` reads the door again; while open the view also reads it every few seconds, so a
    running run's status moves on screen."""
    monkeypatch.setattr(runs, "REFRESH_SECONDS", 0.3)
    door.runs = []
    door.triggers = []
    door.holder = None
    app = app_over(door)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(pilot, app)
        assert run_texts(screen) == [run_rows.NO_RUNS]
        assert trigger_texts(screen) == [run_rows.NO_TRIGGERS]
        assert "no scheduler running — start one with `birdie-tui agents start`" \
            in shown(screen, "#runs-holder")
        door.runs = [record("n1", "running", 0.1, session_id="fake_1")]
        await wait_for(pilot, lambda: run_texts(screen)[0].startswith("● running"))
        door.runs = [replace(door.runs[0], status="done", answer="all good",
                             finished_at=NOW)]
        await wait_for(pilot, lambda: run_texts(screen)[0].startswith("✓ done"))
        calls = door.calls.count("scheduled_runs")
        monkeypatch.setattr(screen, "refresh_every", 1000.0)
        await pilot.press("r")
        await wait_for(pilot, lambda: door.calls.count("scheduled_runs") > calls)


@pytest.mark.app
async def test_a_refresh_keeps_the_highlighted_run(door):
    """A new run arriving on a refresh does not move the highlight off the run being read,
    even far down the list."""
    door.runs = [record(f"old{n}", "done", 10 + n, answer=f"answer {n}") for n in range(40)]
    app = app_over(door)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_by_key(pilot, app)
        screen.run_list.highlighted = 30
        await pilot.pause()
        door.runs.append(record("new", "running", 0.1))
        await pilot.press("r")
        await wait_for(pilot, lambda: run_texts(screen)[0].startswith("● running"))
        assert screen.highlighted_run.run_id == "old30"
        assert "answer 30" in shown(screen, "#runs-detail")


@pytest.mark.app
async def test_at_80x24_the_columns_fold_and_every_row_fits(door, fixed_clock):
    """At 80 columns the trigger, duration and tokens columns fold away (the detail line has
    them); no row is wider than the list."""
    app = app_over(door)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_by_key(pilot, app)
        width = screen.run_list.scrollable_content_region.width
        done = run_texts(screen)[0]
        assert "every 30m" not in done and "↑5.2k" not in done
        assert "every 30m" in shown(screen, "#runs-detail")
        for option in [*screen.run_list.options, *screen.trigger_list.options]:
            assert option.prompt.cell_length <= width


def test_the_view_is_a_documented_binding():
    """F9 is the runs view's key; no other binding of the main screen or app takes it."""
    from birdie_tui.tui.app import BirdieApp
    from birdie_tui.tui.keymap import default_keys

    keys = default_keys(BirdieApp.__new__(BirdieApp))
    assert keys["app.runs"] == "f9"
    assert [name for name, key in keys.items() if "f9" in key.split(",")] == ["app.runs"]


@pytest.mark.app
def test_snapshot_runs_view_80x24_pending_run_marked(snap_compare, door, fixed_clock):
    """The runs view at 80x24: the scheduler line with one run needing approval, the next
    runs, the run log with the pending run first (columns folded), the detail line."""
    door.runs.append(record("r0", "pending", 1, session_id="fake_9", agent="reviewer",
                            trigger_key="reviewer:watch", trigger="watch drafts/*.md",
                            changed_paths=("drafts/a.md",)))

    async def before(pilot):
        await open_by_key(pilot, pilot.app)
        await pilot.pause(0.2)

    assert snap_compare(app_over(door), terminal_size=(80, 24), run_before=before)


@pytest.mark.app
async def test_a_real_pending_run_answered_from_the_view(isolated_home, tmp_path, monkeypatch):
    """Over the local door: a real run (offline model) stops pending on its gated call; the
    view marks it, Enter opens its session, the dialog answers it, the call runs, and the
    view then shows the run done."""
    from birdie_tui.agent.options import EngineOptions
    from birdie_tui.providers.config import ProviderConfig
    from birdie_tui.schedules.runner import run_trigger
    from birdie_tui.store.paths import BirdiePaths
    from birdie_tui.store.run_log import open_run_log
    from tests.agent.conftest import write_agents, write_skills
    from tests.tui.app.test_approval_app import open_dialog

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("BIRDIE_WATCH", "0")
    skills, agents = write_skills(tmp_path / "skills"), write_agents(tmp_path / "agents")
    canary = tmp_path / "canary"
    log = open_run_log(BirdiePaths(isolated_home), "tester", None)
    trigger = Trigger(key="Toucher:every", kind="every", agent="Toucher", every_s=3600,
                      inputs={"path": str(canary)})
    options = EngineOptions(skills_dirs=[skills], agents_dirs=[agents],
                            provider=ProviderConfig(vendor="offline"), tool_timeout=10)
    try:
        record = await run_trigger(trigger, options=options, run_log=log)
    finally:
        log.close()
    assert record.status == "pending" and not canary.exists()

    app = create_app(["--skills-dir", str(skills), "--agents-dir", str(agents)],
                     cursor_blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await open_by_key(pilot, app)
        assert run_texts(screen)[0].startswith("⏸ needs approval")
        assert "Toucher" in run_texts(screen)[0]
        await pilot.press("enter")
        await wait_for(pilot, lambda: session_id(app) == record.session_id)
        dialog = await open_dialog(pilot, app)
        assert dialog.request.name == "touch_file"
        await pilot.press("y")
        await wait_for(pilot, canary.exists)
        await wait_for(pilot, lambda: not app.main.turn_running)
        screen = await open_by_key(pilot, app)
        await wait_for(pilot, lambda: run_texts(screen)[0].startswith("✓ done"))
