"""/compact and /compact auto in the one command table, run against a stub screen: a stub door
where the exact answers matter, the real door (offline model) for the round trip."""

from __future__ import annotations

import pytest

from birdie_tui.service import BirdieError
from birdie_tui.service.rows import CompactionRow
from birdie_tui.tui.cmds import BY_NAME, completions, help_markdown, palette_entries

from .test_command_table import StubUI, run


class Screen(StubUI):
    def __init__(self, door, *, running: bool = False) -> None:
        super().__init__(door)
        self.turn_running = running


class StubDoor:
    """The door methods /compact calls, with canned answers."""

    def __init__(self, *, fail: str = "") -> None:
        self.fail = fail
        self.percent = 80
        self.asked: list[tuple[str, object]] = []

    async def compact(self, instructions=""):
        self.asked.append(("compact", instructions))
        if self.fail:
            raise BirdieError(self.fail)
        return CompactionRow(messages=42, summarised=42, kept=6, tokens_before=18_200,
                             tokens_after=3_100, summary="…")

    def auto_compact_percent(self):
        return self.percent

    def set_auto_compact(self, percent):
        self.asked.append(("auto", percent))
        self.percent = percent
        return percent


def test_compact_is_in_the_table_help_tab_and_palette():
    """/compact has its usage in /help, `auto` in Tab completion and a palette entry."""
    assert "/compact" in BY_NAME
    assert "`/compact [instructions]`" in help_markdown()
    assert {"/compact", "/compact auto", "/compact auto off"} <= set(completions())
    assert ("Compact the conversation", "/compact") in palette_entries(started=True)


async def test_compact_passes_its_instructions_and_says_what_happened():
    """The rest of the line is the instructions; the chat gets the one sentence."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, "/compact keep the file names, drop the jokes")
    assert door.asked == [("compact", "keep the file names, drop the jokes")]
    assert ui.said == ["Compacted 42 messages into a summary: context ≈18.2k → ≈3.1k tokens. "
                       "The messages stay in the chat; the model now sees the summary."]
    await run(ui, "/compact")
    assert door.asked[-1] == ("compact", "")


async def test_compact_is_refused_while_a_turn_runs():
    """During a turn /compact is a warning toast and the door is not asked."""
    door = StubDoor()
    ui = Screen(door, running=True)
    await run(ui, "/compact")
    assert door.asked == [] and ui.toasts[-1][0] == "warning"
    assert "still answering" in ui.toasts[-1][1]


async def test_a_door_error_reaches_the_screen():
    """The door's sentence is raised to the screen, which shows it as a chat error."""
    ui = Screen(StubDoor(fail="Nothing to compact yet: the last 3 turns are always kept"))
    with pytest.raises(BirdieError, match="Nothing to compact yet"):
        await run(ui, "/compact")


@pytest.mark.parametrize(("line", "expected"), [
    ("/compact auto off", 0), ("/compact auto 70", 70), ("/compact AUTO 55%", 55),
    ("/compact auto 100", 100)])
async def test_compact_auto_sets_the_threshold(line, expected):
    """`off` is 0 (never); a percentage from 1 to 100 is the threshold for this session."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, line)
    assert door.asked == [("auto", expected)]
    assert ui.toasts[-1][0] == "information"
    assert ("off" in ui.toasts[-1][1]) == (expected == 0)


@pytest.mark.parametrize("line", ["/compact auto 0", "/compact auto 101", "/compact auto lots",
                                  "/compact auto 50 60"])
async def test_compact_auto_refuses_what_is_not_a_threshold(line):
    """Out of range, not a number, or two values: the usage, and nothing changes."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, line)
    assert door.asked == [] and ui.toasts[-1][0] == "warning"
    assert "usage: /compact auto" in ui.toasts[-1][1]


async def test_compact_auto_alone_shows_the_threshold():
    """`/compact auto` says the current threshold, or that it is off."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, "/compact auto")
    assert "at **80 %** of the context window" in ui.said[-1]
    door.percent = 0
    await run(ui, "/compact auto")
    assert "Automatic compaction: **off**" in ui.said[-1]


async def test_compact_through_the_real_door(birdie):
    """With the offline model: too early is an error; after five turns it compacts, and the
    threshold set by /compact auto is the door's."""
    ui = Screen(birdie)
    with pytest.raises(BirdieError, match="Nothing to compact"):
        await run(ui, "/compact")
    for n in range(5):
        [_ async for _ in birdie.send(f"question {n}")]
    await run(ui, "/compact")
    assert ui.said[-1].startswith("Compacted 4 messages into a summary")
    await run(ui, "/compact auto 65")
    assert birdie.auto_compact_percent() == 65


def test_a_compaction_that_freed_almost_nothing_does_not_read_as_a_success():
    """≈70.1k → ≈70.0k is told as freeing almost nothing, with what to do; a real saving
    keeps the usual sentence."""
    from birdie_tui.tui.cmds.compact import compaction_sentence

    little = compaction_sentence(4, 70_100, 70_000)
    assert little.startswith("Compacting 4 messages freed almost nothing")
    assert "≈70.1k → ≈70.0k" in little and "/model" in little
    assert compaction_sentence(42, 18_200, 3_100).startswith("Compacted 42 messages")
