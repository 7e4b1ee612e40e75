"""The approval dialog on its own (over a bare app): what it shows, every answer by key and by
click, the rule shown before an "always" answer saves it, "not now", type-ahead, and the
choices staying on screen whatever the size of the call."""

from __future__ import annotations

import pytest
from textual.containers import VerticalScroll
from textual.widgets import Input, Static

from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest
from birdie_tui.tui.screens.approval import ApprovalScreen, Choice
from birdie_tui.tui.screens.approval_text import body, diff_content, visible
from tests.tui.keys import deliver, key_events
from tests.tui.screens.harness import NOT_DISMISSED, ScreenHarness

COMMAND = ApprovalRequest(
    id="call_1", name="run_bash", args={"command": "ls -la [red]x[/red]"}, skill="Shell",
    permissions=("local_shell",), why="skill Shell requires approval for it",
    command="bash -c 'ls -la [red]x[/red]'")
WRITE = ApprovalRequest(
    id="call_2", name="write_file", args={"path": "notes.txt", "content": "one\nTWO\n"},
    skill="filesystem", why="its tool block says approval: ask",
    command="printf '%s' 'one\nTWO\n' > notes.txt",
    diff="--- notes.txt\n+++ notes.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO\n",
    paths_outside=("../elsewhere.txt",))
JSON_ARGS = ApprovalRequest(
    id="call_3", name="get_weather", args={"city": "Oslo", "days": 3}, skill="",
    why="a settings rule asks for it", command='{"city": "Oslo", "days": 3}')
HUGE = ApprovalRequest(
    id="call_4", name="run_bash", args={"command": "x"}, skill="Shell", why="gated",
    command="echo " + "word " * 2000 + "\n".join(f"line {i}" for i in range(300)))
ARMED = ApprovalScreen.ARM_SECONDS + 0.1  # keys after this long are the user's answer


def dialog(request: ApprovalRequest = COMMAND) -> ScreenHarness:
    return ScreenHarness(lambda: ApprovalScreen(request))


def text_of(app, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def answer_with(keys, request=COMMAND) -> list:
    app = dialog(request)
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await pilot.press(*keys)
        await pilot.pause()
        return app.results


# -- what it shows -------------------------------------------------------------------------


async def test_shows_tool_skill_why_and_the_command_literally():
    """Tool, skill, why it is gated (with the skill's permissions) and the command line, with
    no markup read from the model's text."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause()
        assert text_of(app, "#approval-question") == "Birdie wants to run run_bash from skill Shell"
        assert text_of(app, "#approval-why") == ("Asks because skill Shell requires approval for "
                                                "it (permissions: local_shell)")
        assert text_of(app, "#approval-call") == "$ bash -c 'ls -la [red]x[/red]'"
        assert not app.screen.query("#approval-outside")
        labels = [w.label for w in app.screen.query(Choice)]
        assert labels == ["Allow once", "Always allow this exact command",
                          "Always allow run_bash", "Always allow skill Shell (all its tools)",
                          "Deny", "Deny and tell the model why…"]


async def test_a_write_shows_its_diff_coloured_and_the_paths_outside():
    """A file write shows its diff and the paths outside the working directory."""
    app = dialog(WRITE)
    async with app.run_test() as pilot:
        await pilot.pause()
        shown = app.screen.query_one("#approval-call", Static).render()
        assert str(shown).splitlines() == ["--- notes.txt", "+++ notes.txt", "@@ -1,2 +1,2 @@",
                                           " one", "-two", "+TWO"]
        assert "outside the working directory: ../elsewhere.txt" in text_of(
            app, "#approval-outside")


def test_diff_lines_are_coloured_like_git_diff():
    """Added, removed and hunk lines get their own colours."""
    styles = {span.style for span in diff_content("+add\n-del\n@@ -1 +1 @@\n ctx\n").spans}
    assert {"$success", "$error", "$accent"} <= styles


def test_a_call_that_is_not_a_command_line_shows_its_arguments():
    """A non-`bash:` tool's `command` is its args as JSON: shown as pretty JSON instead."""
    assert str(body(JSON_ARGS)) == '{\n  "city": "Oslo",\n  "days": 3\n}'


async def test_no_skill_means_no_skill_choice():
    """A call without a skill offers no skill choice, and s does nothing."""
    app = dialog(JSON_ARGS)
    async with app.run_test() as pilot:
        await pilot.pause()
        assert [w.choice for w in app.screen.query(Choice)] == [
            "once", "command", "tool", "deny", "reason"]
        await pilot.pause(ARMED)
        await pilot.press("s")  # nothing to approve: no answer
        await pilot.pause()
        assert app.result is NOT_DISMISSED


# -- answers by key ------------------------------------------------------------------------


@pytest.mark.parametrize(("keys", "expected"), [
    (["y"], ApprovalAnswer("allow")),
    (["n"], ApprovalAnswer("deny")),
    (["c", "c"], ApprovalAnswer("allow", remember="command")),
    (["t", "enter"], ApprovalAnswer("allow", remember="tool")),
    (["s", "s"], ApprovalAnswer("allow", remember="skill")),
    (["down", "enter"], ApprovalAnswer("allow")),  # ↓ from nothing: the first choice
    (["up", "enter"], None),  # the last choice (reason) opens the input, no answer yet
    (["escape"], None),  # not now: the call stays pending
])
async def test_every_answer_by_key(keys, expected):
    """Each key gives its answer; the always answers need their key twice (or Enter)."""
    results = await answer_with(keys)
    assert results == ([] if keys == ["up", "enter"] else [expected])


async def test_an_always_choice_shows_the_rule_before_saving_it():
    """The first c shows exactly the rule it will save; only a second c (or Enter) saves."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await pilot.press("c")
        await pilot.pause()
        assert app.result is NOT_DISMISSED
        shown = text_of(app, "#approval-preview")
        assert f"Saves the rule {COMMAND.rule_for('command')} — " in shown
        assert "Saves the rule run_bash(ls -la [[]red]x[[]/red]) — " in shown
        assert "c again or enter: allow and save" in shown
        await pilot.press("t")  # another always choice: its own rule, still nothing saved
        await pilot.pause()
        assert "Saves the rule run_bash — every run_bash call runs" in text_of(
            app, "#approval-preview")
        await pilot.press("s")
        await pilot.pause()
        assert "Approves the skill Shell" in text_of(app, "#approval-preview")
        await pilot.press("escape")  # back off the choice: esc does not leave yet
        await pilot.pause()
        assert app.result is NOT_DISMISSED and app.screen.highlighted is None
        await pilot.press("escape")
        await pilot.pause()
        assert app.results == [None]


async def test_deny_with_a_reason_sends_the_reason():
    """r opens a focused input; Enter denies with what was typed."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await pilot.press("r")
        await pilot.pause()
        reason = app.screen.query_one("#approval-reason", Input)
        assert reason.display and app.screen.focused is reason
        await pilot.press(*"use git instead", "enter")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("deny", reason="use git instead")]


async def test_esc_in_the_reason_goes_back_to_the_choices():
    """Esc in the reason input goes back; letters typed there were never answers."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await pilot.press("r", "y", "escape")  # "y" is typed into the reason, not an answer
        await pilot.pause()
        assert app.result is NOT_DISMISSED
        assert not app.screen.query_one("#approval-reason", Input).display
        await pilot.press("y")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("allow")]


async def test_a_keymap_moves_an_answer_and_the_label_follows():
    """A keymap moves an answer to another key, and the choice shows that key."""
    app = dialog()
    async with app.run_test() as pilot:
        app.set_keymap({"approval.allow_once": "a"})
        await pilot.pause(ARMED)
        app.screen._show_keys()
        assert "a" in str(app.screen.query_one("#approval-choice-once", Choice).render())[:3]
        await pilot.press("y")  # no longer bound
        await pilot.pause()
        assert app.result is NOT_DISMISSED
        await pilot.press("a")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("allow")]


# -- answers by mouse ----------------------------------------------------------------------


@pytest.mark.parametrize(("clicks", "expected"), [
    (["#approval-choice-once"], ApprovalAnswer("allow")),
    (["#approval-choice-deny"], ApprovalAnswer("deny")),
    (["#approval-choice-command"] * 2, ApprovalAnswer("allow", remember="command")),
    (["#approval-choice-tool"] * 2, ApprovalAnswer("allow", remember="tool")),
    (["#approval-choice-skill"] * 2, ApprovalAnswer("allow", remember="skill")),
])
async def test_every_answer_by_click(clicks, expected):
    """A click is a key press: once for the one-step answers, twice for the ones that save."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await pilot.click(clicks[0])
        await pilot.pause()
        if len(clicks) == 2:
            assert app.result is NOT_DISMISSED
            assert "Saves" in text_of(app, "#approval-preview") or "Approves" in text_of(
                app, "#approval-preview")
            await pilot.click(clicks[1])
            await pilot.pause()
        assert app.results == [expected]


async def test_clicking_deny_with_reason_opens_the_input():
    """Clicking the reason choice opens the input like r."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await pilot.click("#approval-choice-reason")
        await pilot.pause()
        await pilot.press(*"no", "enter")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("deny", reason="no")]


# -- type-ahead ----------------------------------------------------------------------------


async def test_keys_typed_before_it_showed_never_answer():
    """Someone typing when the dialog pops up must not allow a shell command."""
    stale = key_events("y", "c", "c", "enter")
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause(ARMED)
        await deliver(pilot, app, stale)
        assert app.result is NOT_DISMISSED and app.screen.highlighted is None


async def test_keys_and_clicks_right_after_it_showed_are_type_ahead():
    """Within ARM_SECONDS of showing, keys and clicks are still the user's previous intent."""
    app = dialog()
    async with app.run_test() as pilot:
        app.screen.ARM_SECONDS = 60.0  # this test's keys are surely "too soon"
        await pilot.press("y", "n", "escape")
        await pilot.click("#approval-choice-once")
        await pilot.pause()
        assert app.result is NOT_DISMISSED
        app.screen.ARM_SECONDS = 0.0
        await pilot.press("y")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("allow")]


# -- size ----------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (60, 20)])
@pytest.mark.parametrize("request_", [HUGE, WRITE], ids=["huge-command", "diff"])
async def test_the_choices_never_scroll_out_of_view(size, request_):
    """However long the command or diff, every choice is whole and on screen; the call
    scrolls inside the dialog, to its end, by keys."""
    app = dialog(request_)
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.screen
        for choice in screen.query(Choice):
            assert screen.region.contains_region(choice.region), choice.choice
            assert choice.region.height == 1
        assert screen.region.contains_region(screen.query_one("#approval-preview").region)
        body_box = screen.query_one("#approval-body", VerticalScroll)
        assert screen.query_one("#approval-dialog").region.contains_region(body_box.region)
        await pilot.pause(ARMED)
        if request_ is HUGE:
            assert body_box.max_scroll_y > 0 and body_box.max_scroll_x == 0
            await pilot.press("end")
            await pilot.pause()
            assert body_box.scroll_y == body_box.max_scroll_y
        await pilot.click("#approval-choice-once")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("allow")]


async def test_closing_without_an_answer_resolves_as_not_now():
    """The screen goes away unanswered (the app exits under it): `answered` is None, so the
    engine keeps the call pending."""
    app = dialog()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        await app.pop_screen()
        await pilot.pause()
        assert screen.answered.done() and screen.answered.result() is None


async def test_a_megabyte_command_is_shown_cut_with_a_note():
    """A 5 MB command (a model can send one) shows its first 100,000 characters and says how
    many more there are; the dialog still answers."""
    script = "echo " + "y" * 5_000_000
    huge = ApprovalRequest(id="c", name="run_bash", args={"command": script}, skill="Shell",
                           why="gated", command=f"bash -c '{script}'")
    app = dialog(huge)
    async with app.run_test() as pilot:
        await pilot.pause()
        shown = text_of(app, "#approval-call")
        assert shown.endswith("… 4,900,015 more characters not shown")
        assert len(shown) < 100_100
        await pilot.pause(ARMED)
        await pilot.press("c")  # the rule shown is cut too, saying how long it is
        await pilot.pause()
        assert "… (5,000,015 characters)" in text_of(app, "#approval-preview")
        await pilot.press("n")
        await pilot.pause()
        assert app.results == [ApprovalAnswer("deny")]


def test_a_multi_line_rule_is_shown_on_one_line():
    """A rule holding line breaks or tabs is previewed on one line: ⏎ for a break, and a tab
    or an escape shown as such (`\\t`, `␛`)."""
    assert visible("a\nb\tc\x1b[2J") == "a⏎b\\tc␛[2J"


def test_always_for_a_file_write_speaks_of_the_call_not_the_shell_template():
    """For a write shown as a diff, "always" names the call (tool and arguments), not the
    `printf … > path` command line behind the tool; a shell command keeps its command."""
    from birdie_tui.tui.screens.approval_text import choices_for, preview

    labels = {choice: label for choice, _, label in choices_for(WRITE)}
    assert labels["command"] == "Always allow this exact call"
    shown = preview(WRITE, "command", "c").plain
    assert 'Saves the rule write_file(path="notes.txt", content="one\\nTWO\\n") — ' in shown
    assert "printf" not in shown
    assert {c: label for c, _, label in choices_for(COMMAND)}["command"] == \
        "Always allow this exact command"
    assert "Saves the rule run_bash(ls -la " in preview(COMMAND, "command", "c").plain


@pytest.mark.parametrize("request_", [COMMAND, WRITE, JSON_ARGS], ids=["bash", "write", "json"])
def test_the_rule_previewed_is_the_rule_saved(request_):
    """One source of truth: the rule under "always allow this exact command/call" is, to the
    character, what the answer saves (`rule_for`), in the rule grammar: run_bash by its script,
    other tools by every argument."""
    from birdie_tui.tui.screens.approval_text import preview

    saved = request_.rule_for("command")
    assert f"Saves the rule {saved} — " in preview(request_, "command", "c").plain
    assert saved in ("run_bash(ls -la [[]red]x[[]/red])",
                     'write_file(path="notes.txt", content="one\\nTWO\\n")',
                     'get_weather(city="Oslo", days=3)')


def test_the_keys_line_says_a_sub_agents_call_cannot_wait():
    """Esc is "not now" for the session's own calls (they stay pending); a sub-agent's call
    cannot wait, and the line says it is then not run."""
    from birdie_tui.tui.screens.approval_text import preview

    own = ApprovalRequest(id="c1", name="write_file", args={})
    child = ApprovalRequest(id="c2", name="write_file", args={}, agent="Writer")
    assert "stays pending" in preview(own, None, "y").plain
    assert "cannot wait" in preview(child, None, "y").plain
