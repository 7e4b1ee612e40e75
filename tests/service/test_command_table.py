"""One command table drives slash commands, /help, Tab completion and the palette; handlers
run against a small context (the door and a few screen abilities), so they need no App."""

from __future__ import annotations

from birdie_tui.tui.cmds import (
    COMMANDS,
    CommandContext,
    completions,
    help_markdown,
    palette_entries,
    parse,
    run_line,
)


class StubUI:
    """The screen's side of a command, recorded."""

    turn_running = False

    def __init__(self, door) -> None:
        self.birdie = door
        self.said: list[str] = []
        self.toasts: list[tuple[str, str]] = []
        self.started: list[str] = []

    def say(self, text, *, markdown=True):
        self.said.append(text)

    def error(self, text):
        self.said.append(f"error: {text}")

    def toast(self, text, *, severity="information", timeout=None):
        self.toasts.append((severity, text))

    def start_turn(self, text):
        self.started.append(text)


async def run(ui: StubUI, line: str) -> None:
    command, _typed, args, rest = parse(line)
    assert command is not None, line
    await run_line(CommandContext(ui), command, args, rest)


def test_help_tab_and_palette_come_from_the_table():
    """Every command is in /help and Tab completion; palette entries are the table's."""
    text = help_markdown()
    assert all(c.usage in text for c in COMMANDS)
    names = completions()
    assert all(c.name in names for c in COMMANDS)
    assert "/skill reload" in names and "/tool output short" in names
    started = palette_entries(started=True)
    assert ("Reload skills", "/skill reload") in started
    assert ("Show help", "/help") in palette_entries(started=False)
    assert ("Reload skills", "/skill reload") not in palette_entries(started=False)


async def test_memory_commands_through_a_stub_screen(birdie):
    """/remember, /memory and /memory delete work with nothing but the door and a stub."""
    ui = StubUI(birdie)
    await run(ui, "/remember tea, not coffee")
    await run(ui, "/memory")
    assert "tea, not coffee" in ui.said[-1]
    await run(ui, "/memory delete 1")
    assert ui.toasts[-1] == ("information", "Forgot: tea, not coffee")
    await run(ui, "/memory frobnicate")
    assert ui.toasts[-1][0] == "warning" and "usage: /memory" in ui.toasts[-1][1]


async def test_retry_takes_the_last_turn_back_and_runs_it_again(birdie):
    """/retry hands the last message back to the screen to run, and un-counts the turn."""
    [_ async for _ in birdie.send("say it twice")]
    ui = StubUI(birdie)
    await run(ui, "/retry")
    assert ui.started == ["say it twice"] and birdie.status().turns == 0


async def test_skill_commands_say_what_they_did(birdie):
    """/skill disable then /skill list: the toast and the list agree with the door's rows."""
    ui = StubUI(birdie)
    await run(ui, "/skill disable Echoer")
    assert ui.toasts[-1][1] == "Echoer disabled for this session"
    await run(ui, "/skill list")
    assert "○ **Echoer**" in ui.said[-1]


async def test_session_info_counts_memory_when_asked(birdie):
    """/session info reads the memory count itself (the status row no longer carries it)."""
    ui = StubUI(birdie)
    birdie.remember("one note")
    await run(ui, "/session info")
    assert "**memory entries** 1" in ui.said[-1]
