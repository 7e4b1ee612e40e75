"""The slash commands Birdie users know, in the one command table (/cost, /history, /skill new,
/tool cap, /cd): each handler run against a stub screen, with a stub door where its exact answers matter
and the real door (offline model) where the round trip does."""

from __future__ import annotations

from birdie_tui.service import BirdieError
from birdie_tui.service.rows import CostReport, NewSkill, TurnCost, UserTurn
from birdie_tui.tui.cmds import BY_NAME, completions, help_markdown, palette_entries

from .test_command_table import StubUI, run


class Screen(StubUI):
    """The stub screen, plus the abilities these commands use."""

    def __init__(self, door, *, running: bool = False) -> None:
        super().__init__(door)
        self.turn_running = running
        self.rewatched = 0

    def rewatch_skills(self):
        self.rewatched += 1


class StubDoor:
    """Only the door methods these commands call, with canned answers."""

    def __init__(self, report: CostReport | None = None, turns: int = 0) -> None:
        self.report = report
        self.turns = turns
        self.limit: int | None = 40
        self.cwd = "/somewhere"
        self.asked: list[tuple[str, object]] = []

    def cost(self):
        return self.report

    async def history(self, limit=10):
        self.asked.append(("history", limit))
        every = [UserTurn(n, f"message {n}\nsecond line") for n in range(1, self.turns + 1)]
        return every[-limit:]

    def tool_call_limit(self):
        return self.limit

    def set_tool_call_limit(self, limit):
        self.asked.append(("cap", limit))
        self.limit = limit
        return limit

    def working_dir(self):
        return self.cwd

    def change_dir(self, path):
        self.asked.append(("cd", path))
        if path == "missing":
            raise BirdieError("no such directory: /somewhere/missing")
        self.cwd = f"/somewhere/{path}"
        return self.cwd

    async def new_skill(self, name):
        self.asked.append(("new", name))
        return NewSkill(name, f"/home/u/.birdie/skills/{name}/SKILL.MD", folder_added=True)


def report(**kw) -> CostReport:
    base = dict(model="openai · gpt-4o", turns=2, input=3_000, cached=500, output=120,
                cost_usd=0.0123, per_turn=(
                    TurnCost(1, "openai · gpt-4o", 1_000, 0, 50, 0.004),
                    TurnCost(2, "anthropic · claude", 2_000, 500, 70, None)))
    base.update(kw)
    return CostReport(**base)


def test_the_new_commands_are_in_help_tab_and_palette():
    """/cost, /history, /cd, /tool cap and /skill new are in /help, Tab and the palette."""
    text = help_markdown()
    for usage in ("`/cost [all]`", "`/history [N]`", "`/cd [path]`", "`/tool cap [N\\|off]`",
                  "`/skill new <name>`"):
        assert usage in text
    names = completions()
    assert {"/cost", "/history", "/cd", "/tool cap", "/tool cap off", "/skill new"} <= set(names)
    assert ("Show the session's cost", "/cost") in palette_entries(started=True)
    assert all(BY_NAME[n].needs_birdie for n in ("/cost", "/history", "/cd"))


async def test_cost_shows_totals_and_a_row_per_turn():
    """/cost: the totals line, then a Markdown table with each turn's model, tokens and cost
    (an unknown price says unknown, never $0)."""
    ui = Screen(StubDoor(report()))
    await run(ui, "/cost")
    text = ui.said[-1]
    assert "**Session** 2 turns · ↑3,000 in (500 cached) · ↓120 out · **$0.0123**" in text
    assert "| Turn | Model | In | Cached | Out | Cost |" in text
    assert "| 1 | openai · gpt-4o | 1,000 | 0 | 50 | $0.0040 |" in text
    assert "| 2 | anthropic · claude | 2,000 | 500 | 70 | unknown |" in text
    assert "before per-turn" not in text


async def test_cost_of_an_old_session_says_only_what_is_known():
    """A session from before per-turn records: the totals and how many turns they cover, no
    invented rows; an unknown total price is said as unknown."""
    ui = Screen(StubDoor(report(turns=5, per_turn=(), unrecorded_turns=5, cost_usd=None)))
    await run(ui, "/cost")
    text = ui.said[-1]
    assert "| Turn |" not in text
    assert "**unknown (no price known for a model used)**" in text
    assert "5 turns ran before per-turn costs were recorded" in text


async def test_cost_marks_retried_and_running_turns_and_shortens_long_sessions():
    """Retried and running turns are marked; past 20 turns only the last 20 are listed unless
    `/cost all`; a wrong argument is a usage hint."""
    rows = tuple(TurnCost(n, "m", 10, 0, 1, 0.0, retried=n == 3) for n in range(1, 25)) + (
        TurnCost(25, "m", 5, 0, 0, 0.0, running=True),)
    ui = Screen(StubDoor(report(turns=24, per_turn=rows)))
    await run(ui, "/cost")
    text = ui.said[-1]
    assert "Every turn below: m" in text  # one model: named once, no Model column
    assert "| 25 (running) |" in text and "| 5 | 10 |" not in text
    assert "5 earlier turns not shown: `/cost all` lists every one." in text
    await run(ui, "/cost all")
    assert "| 3 (retried) | 10 |" in ui.said[-1] and "| 1 | 10 |" in ui.said[-1]
    await run(ui, "/cost everything")
    assert ui.toasts[-1] == ("warning", "usage: /cost [all]")


async def test_history_lists_your_last_messages_with_their_turns():
    """/history 2 asks the door for two and shows them on one line each with turn numbers;
    /history alone asks for 10; a bad N is a usage hint and asks nothing."""
    door = StubDoor(turns=12)
    ui = Screen(door)
    await run(ui, "/history 2")
    assert ui.said[-1] == ("Your last 2 of 12 messages:\n"
                           "  turn 11 · message 11 second line\n"
                           "  turn 12 · message 12 second line")
    await run(ui, "/history")
    assert door.asked[-1] == ("history", 10) and ui.said[-1].startswith("Your last 10 of 12")
    asked = len(door.asked)
    for bad in ("/history 0", "/history many", "/history 1 2"):
        await run(ui, bad)
        assert ui.toasts[-1][0] == "warning" and "usage: /history [N]" in ui.toasts[-1][1]
    assert len(door.asked) == asked


async def test_history_of_a_new_session_says_so():
    """No messages yet: one line saying so."""
    ui = Screen(StubDoor(turns=0))
    await run(ui, "/history")
    assert ui.said[-1] == "No messages yet in this session."


async def test_tool_cap_shows_sets_and_refuses():
    """/tool cap shows the limit; /tool cap 5 and /tool cap off set it through the door;
    0 or a word is a usage hint that changes nothing."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, "/tool cap")
    assert "Tool calls per turn: **40**" in ui.said[-1]
    await run(ui, "/tool cap 5")
    assert door.limit == 5 and ui.toasts[-1][1] == "Tool calls per turn: at most 5"
    await run(ui, "/tool cap off")
    assert door.limit is None and ui.toasts[-1][1] == "Tool calls per turn: no limit"
    await run(ui, "/tool cap")
    assert "**no limit**" in ui.said[-1]
    for bad in ("/tool cap 0", "/tool cap lots", "/tool cap 3 4"):
        await run(ui, bad)
        assert ui.toasts[-1][0] == "warning" and "usage: /tool cap" in ui.toasts[-1][1]
    assert door.limit is None


async def test_cd_shows_changes_and_waits_for_a_running_turn():
    """/cd shows the directory; /cd <path> (spaces kept, quotes honoured) goes through the
    door; during a turn it is refused without asking the door."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, "/cd")
    assert ui.said[-1] == "Working directory: `/somewhere`"
    await run(ui, "/cd my dir")
    assert door.asked[-1] == ("cd", "my dir") and ui.said[-1].endswith("`/somewhere/my dir`")
    await run(ui, '/cd "a b"')
    assert door.asked[-1] == ("cd", "a b")
    busy = Screen(door, running=True)
    await run(busy, "/cd elsewhere")
    assert busy.toasts[-1][0] == "warning" and door.asked[-1] == ("cd", "a b")


async def test_cd_to_a_missing_directory_is_the_doors_one_line_error():
    """The door's error reaches the screen unchanged (the screen shows it as an error)."""
    ui = Screen(StubDoor())
    try:
        await run(ui, "/cd missing")
    except BirdieError as exc:
        assert str(exc) == "no such directory: /somewhere/missing"
    else:
        raise AssertionError("no error")


async def test_skill_new_says_where_the_file_is_and_rewatches_an_added_folder():
    """/skill new demo: the chat names the file; a folder new to the session is watched."""
    door = StubDoor()
    ui = Screen(door)
    await run(ui, "/skill new demo")
    assert door.asked[-1] == ("new", "demo")
    assert "`/home/u/.birdie/skills/demo/SKILL.MD`" in ui.said[-1]
    assert "`/home/u/.birdie/skills` is now one of this session's skill folders" in ui.said[-1]
    assert ui.rewatched == 1
    await run(ui, "/skill new")
    assert ui.toasts[-1][0] == "warning" and "usage: /skill new <name>" in ui.toasts[-1][1]


async def test_skill_new_and_cost_through_the_real_door(birdie, isolated_home):
    """With the real door: /skill new writes and loads the skill, a second time is refused
    (nothing overwritten); /cost after a turn lists it."""
    ui = Screen(birdie)
    await run(ui, "/skill new demo")
    path = isolated_home / "skills" / "demo" / "SKILL.MD"
    assert f"`{path}`" in ui.said[-1] and ui.rewatched == 1
    assert "demo" in [r.name for r in birdie.skill_rows()]
    before = path.read_text()
    try:
        await run(ui, "/skill new demo")
    except BirdieError as exc:
        assert "already loaded" in str(exc)
    else:
        raise AssertionError("a second /skill new demo was not refused")
    assert path.read_text() == before
    [_ async for _ in birdie.send("hello")]
    await run(ui, "/cost")
    assert "Every turn below: offline model" in ui.said[-1] and "| 1 | " in ui.said[-1]
