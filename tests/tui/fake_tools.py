"""The fake door's skills, tools and replies: a small stand-in for the offline model and the
skill tools of `tests.agent.conftest.write_skills`, so a TUI test reads alike on both doors.

A message `call <tool> {json}` calls the tool (as the offline model does); anything else is
echoed back ("You said: ..."). A tool whose skill is off is "not available in this session".
Gated tools (`asks`) go through the approval policy of the door: the mode, the rules saved by
an "always" answer, the skills approved for the session.
"""

from __future__ import annotations

import asyncio
import json
import re
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from birdie_tui.service.rows import SkillRow

# What a tool gives back: (content, error).
ToolRun = Callable[[dict[str, object]], Awaitable[tuple[str, bool]]]
_CALL = re.compile(r"call\s+(\S+)(?:\s+(.*))?", re.DOTALL | re.IGNORECASE)

# The engine's own sentences for calls that did not run (agent/graph.py, agent/approvals.py).
DENIED = "The user denied this tool call."
READ_ONLY = "read-only mode: tools that need approval do not run"
NOT_RUN_NEW_MESSAGE = ("Not run: the user sent a new message instead of answering the "
                       "approval.")


@dataclass(frozen=True)
class FakeTool:
    skill: str
    run: ToolRun
    asks: bool = False  # gated: the approval policy decides, or the user is asked
    bash: str = ""  # the command line it shows in the dialog ({arg} filled in)

    def command(self, args: dict[str, object]) -> str:
        if not self.bash:
            return json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
        return self.bash.format(**{k: shlex.quote(str(v)) for k, v in args.items()})


async def _echo_text(args: dict[str, object]) -> tuple[str, bool]:
    return str(args.get("text", "")), False


async def _fail_hard(args: dict[str, object]) -> tuple[str, bool]:
    return "broken\n(exit code 3)", True


async def _nothing(args: dict[str, object]) -> tuple[str, bool]:
    return "", False


async def _slow(args: dict[str, object]) -> tuple[str, bool]:
    await asyncio.sleep(30)  # cancelled by Esc long before
    return "", False


async def _touch_file(args: dict[str, object]) -> tuple[str, bool]:
    Path(str(args["path"])).touch()  # as the real tool does: a test can look for the file
    return "", False


async def _run_bash(args: dict[str, object]) -> tuple[str, bool]:
    command = str(args.get("command", ""))
    if command.startswith("echo "):  # the only command the tests run
        return command.removeprefix("echo ") + "\n", False
    return f"fake bash cannot run {command!r}", True


TOOLS: dict[str, FakeTool] = {
    "echo_text": FakeTool("Echoer", _echo_text, bash="printf '%s' {text}"),
    "fail_hard": FakeTool("Echoer", _fail_hard),
    "slow": FakeTool("Echoer", _slow),
    "touch_file": FakeTool("Guarded", _touch_file, asks=True, bash="touch {path}"),
    "noop": FakeTool("planner", _nothing),
    "hush": FakeTool("Quiet", _nothing),
    "run_bash": FakeTool("Shell", _run_bash, asks=True, bash="bash -c {command}"),
}


def default_skills() -> list[SkillRow]:
    """The names and tools of tests.agent.conftest.write_skills, so tests read alike on both
    doors (`Shell`, the bundled skill's `run_bash`, is `shell_skill()`)."""
    return [SkillRow("Echoer", "tools", "Echo text back.", 3,
                     tool_names=("echo_text", "fail_hard", "slow")),
            SkillRow("Guarded", "tools", "A tool that asks first.", 1, tool_names=("touch_file",)),
            SkillRow("helper", "agent-skill", "An Agent Skill with a reference file.", 0),
            SkillRow("planner", "always", "Plan step by step.", 1, tool_names=("noop",)),
            SkillRow("Quiet", "tools", "Off unless asked for.", 1, tool_names=("hush",),
                     enabled=False, enabled_by_default=False),
            SkillRow("ssh", "knowledge", "SSH know-how.", 0, triggers=("ssh", "remote server"))]


def shell_skill() -> SkillRow:
    """The bundled Shell skill's gated `run_bash` (the approval tests' tool)."""
    return SkillRow("Shell", "tools", "Run shell commands.", 1, tool_names=("run_bash",))


def parse_call(text: str) -> tuple[str, dict[str, object]] | None:
    """`call <tool> {json}` -> (tool, args); None for prose or unreadable arguments."""
    match = _CALL.fullmatch(text.strip())
    if match is None:
        return None
    raw = (match.group(2) or "").strip()
    if raw and not raw.startswith("{"):
        return None  # "call my mom tomorrow" is prose
    try:
        args = json.loads(raw) if raw else {}
    except json.JSONDecodeError:
        return None
    return (match.group(1), args) if isinstance(args, dict) else None


def echo_reply(text: str, skills: list[str], tools: list[str]) -> str:
    """The reply to a message that calls nothing: what was received, quoted."""
    quote = "\n".join(f"> {line}".rstrip() for line in text.strip().splitlines()) or "> _(empty)_"
    return (f"**Fake model**: I restate what I received.\n\nYou said:\n\n{quote}\n\n"
            f"- **Skills injected this turn:** {', '.join(skills) or 'none'}\n"
            f"- **Tools I could call:** {', '.join(tools) or 'none'}\n")


def unavailable_reply(name: str) -> str:
    return f"The tool `{name}` is not available in this session.\n"


def summary_reply(name: str, content: str, error: bool) -> str:
    """The reply after a tool result: its outcome and the result quoted (as the offline
    model's; a denial reaches the model, so its reason shows in the reply)."""
    outcome = ("denied" if content.startswith(DENIED) else "not run"
               if content.startswith("Not run") else "failed" if error else "returned")
    shown = "\n".join(f"  {line}" for line in content.splitlines()[:6]) or "  (nothing)"
    return f"**Tool results**\n\n- `{name}` → {outcome}:\n\n{shown}\n"


def pieces(text: str) -> list[str]:
    """The reply in word-sized tokens, spaces kept (joined, they are the reply)."""
    words = text.split(" ")
    return [word + " " for word in words[:-1]] + [words[-1]]
