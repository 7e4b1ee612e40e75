"""Tool blocks: status, collapsing, and the three `/tool output` modes."""

from __future__ import annotations

import pytest
from textual.geometry import Region

from birdie_tui.tui.widgets.chat.tool_block import ToolBlock, compact_args
from tests.tui.chat.harness import ChatHarness, plain

OUTPUT = "\n".join(f"line {i} [red]not markup[/red]" for i in range(25))


async def test_running_then_ok_stays_collapsed():
    """A running call shows its name and args; once ok it stays collapsed to one summary line."""
    app = ChatHarness()
    async with app.run_test(size=(100, 30)) as pilot:
        block = app.chat.add_tool_call("c1", "bash", {"cmd": "ls -la [x]"})
        await pilot.pause()
        assert "▸ bash" in plain(block) and "…running" in plain(block)
        assert '"cmd":"ls -la [x]"' in block.title_text
        app.chat.finish_tool("c1", OUTPUT, False)
        await pilot.pause()
        assert block.collapsed and not block.error
        assert block.content == OUTPUT and block.call_id == "c1" and block.name == "bash"
        text = plain(block)
        assert "✓" in text and "25 lines" in text and "line 0" not in text
        assert block.region.height == 1


async def test_full_mode_shows_everything_literally_when_expanded():
    """Expanded in full mode, a block shows pretty arguments and all output, markup literal."""
    app = ChatHarness()
    async with app.run_test(size=(100, 60)) as pilot:
        block = app.chat.add_tool_call("c1", "bash", {"cmd": "x"})
        app.chat.finish_tool("c1", OUTPUT, False)
        await pilot.pause()
        block.focus()
        await pilot.press("enter")
        assert not block.collapsed
        text = plain(block)
        assert "▾ bash" in text
        assert '  "cmd": "x"' in text  # pretty arguments
        assert "  line 24 [red]not markup[/red]" in text
        assert "more line" not in text


async def test_short_mode_trims_to_ten_lines():
    """Short mode shows ten output lines and a count of the rest, and notes missing arguments."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        app.chat.set_tool_output_mode("short")
        block = app.chat.add_tool_call("c1", "bash", {})
        app.chat.finish_tool("c1", OUTPUT, False)
        block.toggle()
        await pilot.pause()
        text = plain(block)
        assert "line 9 [red]" in text and "line 10 [red]" not in text
        assert "… 15 more lines" in text
        assert "(no arguments)" in text


async def test_off_mode_shows_name_and_line_count_only():
    """Off mode shows only the tool name and line count: no output and no arguments."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        app.chat.set_tool_output_mode("off")
        block = app.chat.add_tool_call("c1", "bash", {"cmd": "secret-ish args"})
        app.chat.finish_tool("c1", OUTPUT, False)
        block.toggle()
        await pilot.pause()
        text = plain(block)
        assert "bash" in text and "25 lines" in text
        assert "line 0" not in text and "secret-ish" not in text


async def test_mode_change_applies_to_existing_and_future_blocks():
    """A new output mode restyles existing and future blocks; an unknown mode is refused."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        old = app.chat.add_tool_call("c1", "bash", {})
        app.chat.finish_tool("c1", OUTPUT, False)
        old.toggle()
        await pilot.pause()
        assert "line 20" in plain(old)
        app.chat.set_tool_output_mode("short")
        assert app.chat.tool_output_mode == "short"
        new = app.chat.add_tool_call("c2", "grep", {})
        await pilot.pause()
        assert old.mode == new.mode == "short"
        assert "line 20" not in plain(old) and "… 15 more lines" in plain(old)
        with pytest.raises(ValueError):
            app.chat.set_tool_output_mode("loud")


async def test_error_expands_and_is_styled_as_error():
    """A failed call opens by itself and styles its error text with $error."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        block = app.chat.add_tool_call("c1", "read_file", {"path": "/nope"})
        app.chat.finish_tool("c1", "FileNotFoundError: [Errno 2] /nope", True)
        await pilot.pause()
        assert block.error and not block.collapsed and block.has_class("-error")
        text = plain(block)
        assert "✗" in text and "FileNotFoundError: [Errno 2] /nope" in text
        content = block.render()
        styles = {str(span.style) for span in content.spans}
        assert "$error" in styles and "bold $error" in styles
        # the error text is what carries the $error style
        error_span = next(s for s in content.spans if s.style == "$error")
        assert "FileNotFoundError" in content.plain[error_span.start:error_span.end]


async def test_click_on_title_toggles():
    """Clicking a block's title line expands it, and clicking again collapses it."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        block = app.chat.add_tool_call("c1", "bash", {})
        app.chat.finish_tool("c1", "ok", False)
        await pilot.pause()
        await pilot.click(block, offset=(3, 0))
        assert not block.collapsed
        await pilot.click(block, offset=(3, 0))
        assert block.collapsed


async def test_unknown_call_id_still_shows_a_block():
    """A result for an unknown call id still shows as a block of its own."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        app.chat.finish_tool("ghost", "orphan result", True)
        await pilot.pause()
        block = app.chat.query_one(ToolBlock)
        assert block.call_id == "ghost" and block.content == "orphan result" and block.error


async def test_cancel_marks_running_calls():
    """Cancelling marks still-running tool calls as cancelled instead of running."""
    app = ChatHarness()
    async with app.run_test(size=(100, 40)) as pilot:
        block = app.chat.add_tool_call("c1", "sleep", {"s": 10})
        app.chat.cancel_running_tools()
        await pilot.pause()
        assert "cancelled" in plain(block) and "running" not in plain(block)


def test_compact_args_is_one_line_and_truncated():
    """Compact arguments are one line cut to 80 characters with an ellipsis; none gives ''."""
    text = compact_args({"text": "a\nb " * 100})
    assert "\n" not in text and len(text) == 80 and text.endswith("…")
    assert compact_args({}) == ""


def painted_lines(widget) -> list[str]:
    """The rows the widget paints at its current size (border and padding included)."""
    return [strip.text for strip in widget.render_lines(Region(0, 0, *widget.region.size))]


async def test_a_300_char_output_line_wraps_at_80_columns_and_nothing_is_cut():
    """A 300-character output line wraps within 80 columns, every character painted in order."""
    long_line = "".join(chr(ord("a") + i % 26) for i in range(300))
    app = ChatHarness()
    async with app.run_test(size=(80, 40)) as pilot:
        block = app.chat.add_tool_call("c1", "bash", {"cmd": "x"})
        app.chat.finish_tool("c1", f"before\n{long_line}\nafter", False)
        block.toggle()
        await pilot.pause()
        assert block.region.width <= 80
        lines = painted_lines(block)
        assert all(len(line) <= block.region.width for line in lines)
        painted = "".join("".join(line.replace("▌", "").split()) for line in lines)
        assert f"before{long_line}after" in painted  # every character, in order
        assert len(lines) >= 1 + 3 + 1 + 300 // 80 + 1  # the long line took several rows


async def test_a_long_running_call_shows_its_elapsed_time_until_it_finishes():
    """A running call's title counts seconds (a one-second timer, only while it runs); a
    held call (waiting for approval) has no timer, and a finished one stops it."""
    app = ChatHarness()
    async with app.run_test(size=(100, 30)) as pilot:
        block = app.chat.add_tool_call("c1", "bash", {"cmd": "sleep 100"})
        await pilot.pause()
        assert block.clock_running and block.title_text.endswith("…running")
        block.hold("waiting for approval")
        assert not block.clock_running and block.title_text.endswith("⏸ waiting for approval")
        block.hold(None)  # approved: it runs from now
        assert block.clock_running
        block._started -= 12  # as if it started twelve seconds ago
        await pilot.pause(1.2)  # one tick of the timer redraws it
        assert block.title_text.endswith("…running 12s") or block.title_text.endswith(
            "…running 13s")
        app.chat.finish_tool("c1", "done", False)
        await pilot.pause()
        assert not block.clock_running and "running" not in block.title_text
        assert block.title_text.endswith("✓  1 line")


async def test_hostile_output_keeps_colours_and_shows_the_rest_inertly():
    """Tool output with colours, a title change, a clipboard write and a progress bar: the
    colours become styles, the OSC strings show as `␛]…`, the bar shows its last state, and
    the arguments spell out their escapes."""
    app = ChatHarness()
    async with app.run_test(size=(120, 40)) as pilot:
        block = app.chat.add_tool_call("c1", "run_bash", {"command": "echo \x1b]0;t\x07\x9b2J"})
        app.chat.finish_tool(
            "c1", "\x1b[32mPASSED\x1b[0m\x1b]0;pwned\x07\n10%\r55%\r100%\n"
                  "\x1b]52;c;ZXZpbA==\x07\x1b[?1049l end", False)
        await pilot.pause()
        block.focus()
        await pilot.press("enter")
        await pilot.pause()
        text = plain(block)
        assert "PASSED␛]0;…" in text and "100%" in text and "10%" not in text
        assert "␛]52;…" in text and " end" in text and "\x1b" not in text
        # The arguments as JSON (which escapes C0) with the rest spelled out (C1 here).
        assert 'echo \\u001b]0;t\\u0007\\x9b2J"' in block.title_text
        body = block.render()
        green = [body.plain[span.start:span.end] for span in body.spans
                 if "ansi=2)" in repr(span.style)]  # SGR 32: the terminal's own green
        assert green == ["PASSED"], body.spans
