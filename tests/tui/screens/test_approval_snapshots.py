"""Snapshot tests of the approval dialog over a bare app (pytest-textual-snapshot): a command,
a file write's diff, and an "always" choice showing the rule it saves, at 80x24 and 120x40.
Deterministic: fixed requests and sizes, no cursor. Update with
`pytest tests/tui/screens/test_approval_snapshots.py --snapshot-update` after a deliberate
change, and look at the SVGs."""

from __future__ import annotations

import pytest

from birdie_tui.service.rows import ApprovalRequest
from birdie_tui.tui.screens.approval import ApprovalScreen
from tests.tui.screens.harness import ScreenHarness

COMMAND = ApprovalRequest(
    id="call_1", name="run_bash",
    args={"command": "find . -name '*.py' -newer setup.cfg | xargs grep -n 'TODO' | sort"},
    skill="Shell", permissions=("local_shell",), why="skill Shell requires approval for it",
    command="bash -c 'find . -name '\"'\"'*.py'\"'\"' -newer setup.cfg | xargs grep -n "
            "'\"'\"'TODO'\"'\"' | sort'")

BEFORE = [f"    line {n} of the old body" for n in range(1, 40)]
DIFF = "".join([
    "--- birdie/config.py\n", "+++ birdie/config.py\n", "@@ -1,7 +1,8 @@\n",
    ' """Settings for the bird feeder."""\n', " \n", "-import os\n", "+import os\n",
    "+import pathlib\n", " \n", "-FEEDER = os.environ.get('FEEDER', 'garden')\n",
    "+FEEDER = os.environ.get('FEEDER', 'balcony')\n", "+SEED_DIR = pathlib.Path('~/seeds')\n",
    " \n", "@@ -20,12 +21,6 @@ def refill(amount):\n",
    *(f"-{line}\n" for line in BEFORE[:6]), *(f" {line}\n" for line in BEFORE[6:18]),
])
WRITE = ApprovalRequest(
    id="call_2", name="write_file", args={"path": "birdie/config.py", "content": "…"},
    skill="filesystem", why="its tool block says approval: ask",
    command="printf '%s' '…' > birdie/config.py", diff=DIFF,
    paths_outside=())
OUTSIDE = ApprovalRequest(
    id="call_3", name="write_file", args={"path": "../notes/todo.md", "content": "- feed\n"},
    skill="filesystem", why="a path is outside the working directory",
    command="printf '%s' '- feed\n' > ../notes/todo.md",
    diff="--- /dev/null\n+++ ../notes/todo.md\n@@ -0,0 +1 @@\n+- feed\n",
    paths_outside=("../notes/todo.md",))


def shown(request: ApprovalRequest) -> ScreenHarness:
    return ScreenHarness(lambda: ApprovalScreen(request, cursor_blink=False))


def press_after_arming(*keys: str):
    async def before(pilot):
        await pilot.pause(ApprovalScreen.ARM_SECONDS + 0.1)
        await pilot.press(*keys)
        await pilot.pause()

    return before


SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])


class TestApprovalDialog:
    @SIZES
    def test_command(self, snap_compare, size):
        """A shell command: tool, skill, why, the command line, the six choices."""
        assert snap_compare(shown(COMMAND), terminal_size=size)

    @SIZES
    def test_diff(self, snap_compare, size):
        """A file write: its diff coloured, scrolling above the docked choices."""
        assert snap_compare(shown(WRITE), terminal_size=size)

    @SIZES
    def test_always_command_shows_its_rule(self, snap_compare, size):
        """c pressed once: the choice highlighted and the exact rule it will save."""
        assert snap_compare(shown(COMMAND), terminal_size=size,
                            run_before=press_after_arming("c"))

    def test_outside_the_working_directory_80x24(self, snap_compare):
        """A path outside the working directory is called out above the call."""
        assert snap_compare(shown(OUTSIDE), terminal_size=(80, 24))

    def test_deny_with_a_reason_80x24(self, snap_compare):
        """r: a one-line reason input in place of the hints."""
        assert snap_compare(shown(COMMAND), terminal_size=(80, 24),
                            run_before=press_after_arming("r", *"use git"))
