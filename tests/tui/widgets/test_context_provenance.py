"""ContextPanel with provenance records: the segments of a call in words, what changed since the
call before, evictions, stepping through turns and calls, and which bodies it can show."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Markdown, OptionList

from birdie_tui.service.rows import CallContext, InjectionRow, InjectionView, Segment
from birdie_tui.tui.widgets.panels.context_calls import CallBrowser
from birdie_tui.tui.widgets.panels.context_lines import kind_words
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

STABLE = (Segment("tools", tokens=1200, digest="t1"), Segment("base", tokens=40, digest="b1"),
          Segment("system_prompt", "system_prompt.md", 30, digest="s1"),
          Segment("catalog", tokens=108, detail="5 skills", digest="c1"),
          Segment("always", "planner", 6, digest="p1"),
          Segment("project", "/work/proj/AGENTS.md", 90, digest="a1"))


def call(turn: int, n: int, *extra: Segment, stable=STABLE, **kw) -> CallContext:
    history = Segment("history", tokens=100 * turn, detail=f"{2 * turn - 1} messages")
    return CallContext(turn=turn, call=n, segments=(*stable, *extra, history), **kw)


SSH = Segment("trigger", "ssh", 24, detail="ssh", digest="ssh1")
GIT = Segment("loaded", "git-help", 12_500, detail="loaded at turn 3 · 2 more turns of lease",
              digest="g1")
RECORDS = [
    call(1, 1, not_loaded=("ssh", "git-help")),
    call(2, 1, SSH, not_loaded=("git-help",)),
    call(2, 2, SSH, GIT),
    call(3, 1, GIT, Segment("summary", tokens=300, digest="sum"),
         Segment("memory", tokens=20, detail="2 notes", digest="m1"),
         stable=(*STABLE[:4], Segment("always", "planner", 7, digest="p2"), STABLE[5]),
         evicted=(("ssh", "expired"), ("old", "lru")), not_loaded=("ssh",)),
]


class PanelApp(App):
    def compose(self) -> ComposeResult:
        yield ContextPanel(id="context")


def text(panel: ContextPanel, cls: str) -> str:
    return str(panel.query_one(cls).render())


def rows(panel: ContextPanel) -> list[str]:
    return [str(o.prompt) for o in panel.query_one(OptionList).options]


def test_kinds_in_words():
    """Each kind reads as words; a trigger names its phrase, a lease its turn and what is left."""
    assert [kind_words(s) for s in STABLE] == [
        "tool schemas", "base prompt", "system_prompt.md", "skill catalog", "always",
        "project instructions"]
    assert kind_words(SSH) == "trigger “ssh”"
    assert kind_words(GIT) == "loaded (turn 3 · 2 more turns)"
    assert kind_words(Segment("summary")) == "summary"


async def test_latest_call_rows_changes_and_evictions():
    """The latest call: header, every segment in prompt order with its marker, the change since
    the call before (entered, left, changed, stayed, prefix) and what left the prompt."""
    async with PanelApp().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(ContextPanel)
        panel.set_records(RECORDS)
        await pilot.pause()
        assert text(panel, ".context--summary") == "Turn 3 · call 1 of 1 · ≈14.6k tok"
        shown = rows(panel)
        assert [r[0] for r in shown] == ["◆"] * 6 + ["◇"] * 4
        assert shown[0].split() == ["◆", "≈1.2k", "tool", "schemas"]
        assert "project instructions · AGENTS.md" in shown[5]
        assert shown[6].endswith("git-help · loaded (turn 3 · 2 more turns)")
        assert shown[8].endswith("memory · 2 notes") and shown[9].endswith("history · 5 messages")
        changes = text(panel, ".context--changes").splitlines()
        assert changes == ["Since turn 2 · call 2:", "+ summary", "+ memory · 2 notes",
                           "− ssh · trigger “ssh”", "~ planner · always", "= 6 stayed",
                           "prompt cache prefix changed"]
        assert text(panel, ".context--left").splitlines() == [
            "left the prompt: ssh (lease expired), old (pushed out: max loaded)",
            "not loaded: ssh"]


async def test_stepping_through_turns_and_calls():
    """←/→ step through turns (landing on a turn's first call), shift+←/→ through its calls;
    the ends ring the bell and stay put."""
    async with PanelApp().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(ContextPanel)
        panel.set_records(RECORDS)
        await pilot.pause()
        panel.focus_list()
        await pilot.press("left")
        assert text(panel, ".context--summary").startswith("Turn 2 · call 1 of 2")
        assert text(panel, ".context--changes").splitlines()[:2] == [
            "Since turn 1 · call 1:", "+ ssh · trigger “ssh”"]
        assert "prompt cache prefix unchanged" in text(panel, ".context--changes")
        await pilot.press("shift+right")
        assert text(panel, ".context--summary").startswith("Turn 2 · call 2 of 2")
        assert "+ git-help · loaded (turn 3 · 2 more turns)" in text(panel, ".context--changes")
        await pilot.press("shift+right")  # the last call of the turn: stays
        assert panel.record == RECORDS[2]
        await pilot.press("left", "left", "left")
        assert panel.record == RECORDS[0]
        assert text(panel, ".context--changes") == \
            "First call of the session: nothing to compare with."
        await pilot.press("right", "right")
        assert panel.record == RECORDS[3]


async def test_a_live_call_follows_unless_an_older_turn_is_shown():
    """A new call shows at once from the latest turn; when an older turn is shown it stays."""
    async with PanelApp().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(ContextPanel)
        panel.set_records(RECORDS[:2])
        panel.show(InjectionView(context=RECORDS[2]))
        await pilot.pause()
        assert panel.record == RECORDS[2]  # same turn as the one shown: followed
        panel.calls.step_turn(-1)
        panel.show(InjectionView(context=RECORDS[3]))
        await pilot.pause()
        assert panel.record == RECORDS[0] and len(panel.calls.records) == 4


async def test_bodies_of_the_latest_call_and_of_past_ones():
    """The latest call shows its skill bodies; a past call shows a body only when its text is
    the latest call's, and says so; otherwise it says the body is not stored."""
    view = InjectionView(skills=(InjectionRow("git-help", "loaded", 12_500, "## Git\n\nrebase"),
                                 InjectionRow("planner", "always_inject", 7, "Small steps.")),
                         context=RECORDS[3])
    async with PanelApp().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(ContextPanel)
        panel.set_records(RECORDS[:3])
        panel.show(view)
        await pilot.pause()
        body = panel.query_one(Markdown)
        assert body.source == "## Git\n\nrebase"  # the loaded body is highlighted first
        panel.calls.step_turn(-1)
        panel.calls.step_call(1)  # turn 2, call 2: git-help with the same digest
        panel.set_records(panel.calls.records)
        await pilot.pause()
        assert "not stored for past turns" in body.source  # ssh, first: not in the latest
        panel.query_one(OptionList).highlighted = 7
        await pilot.pause()
        assert body.source.startswith("## Git\n\nrebase") and "Not stored for past turns" in \
            body.source
        panel.calls.step_call(-1)  # turn 2, call 1: the ssh body is gone from the latest call
        panel.set_records(panel.calls.records)
        await pilot.pause()
        assert "not stored for past turns" in body.source
        panel.query_one(OptionList).highlighted = 4  # planner: its text changed since
        await pilot.pause()
        assert "not stored for past turns" in body.source
        panel.query_one(OptionList).highlighted = 0  # tool schemas: what it is
        await pilot.pause()
        assert "JSON schemas" in body.source and "Stable" in body.source


def test_a_retried_turn_is_a_group_of_its_own():
    """The same turn run again after /retry is its own group, the first marked as retried."""
    browser = CallBrowser()
    browser.replace([RECORDS[0], RECORDS[1], RECORDS[1], RECORDS[2]])
    place = browser.place()
    assert (place.group, place.groups, place.call, place.calls, place.retried) == (2, 3, 2, 2,
                                                                                   False)
    browser.step_turn(-1)
    assert browser.place().retried and browser.selected == 1


def test_the_doors_copy_of_a_live_call_replaces_it():
    """The door's saved record of a call the live event already added is not a second call."""
    browser = CallBrowser()
    browser.add(RECORDS[0])
    browser.replace([RECORDS[0]])
    saved = CallContext(turn=1, call=1, segments=RECORDS[0].segments, message_id="m-1")
    browser.add(saved)
    assert browser.records == [saved]


async def test_a_reload_of_the_shown_call_keeps_the_highlighted_row():
    """The door's copy of the shown call (the turn-end reload) keeps the row the user chose;
    moving to another call starts again from its first body."""
    async with PanelApp().run_test(size=(60, 50)) as pilot:
        panel = pilot.app.query_one(ContextPanel)
        panel.set_records(RECORDS[:3])
        await pilot.pause()
        options = panel.query_one(OptionList)
        options.highlighted = 1
        panel.set_records(RECORDS[:3])
        await pilot.pause()
        assert options.highlighted == 1
        panel.set_records(RECORDS)
        await pilot.pause()
        assert options.highlighted == 6  # git-help, the first body turn 3 brought
