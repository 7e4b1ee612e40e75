"""A shell command the user typed (`!command` in the TUI): run in the working directory
without a model call, as the model's `run_bash` would run it — the same `bash -c` with the
command passed out of band, the same timeout, output bounds, tool environment (no secrets)
and process cleanup — under the session's approval rules: a deny rule or the read-only mode
refuses it; otherwise typing it is the approval."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from birdie_tui.agent.approvals import ApprovalPolicy
from birdie_tui.skills.models import SkillTool
from birdie_tui.tools.entrypoints import run_entrypoint

# As the bundled Shell skill's `run_bash` (skills/shell/SKILL.MD), so rules written for it
# (`run_bash(git *)`) apply to what the user types too.
SHELL_TOOL = SkillTool(
    name="run_bash", description="A shell command the user typed.",
    entrypoint="bash:bash -c {command}", skill="Shell",
    schema={"type": "object", "properties": {"command": {"type": "string"}},
            "required": ["command"]})


@dataclass(frozen=True)
class ShellLine:
    command: str
    output: str
    error: bool
    refused: str = ""  # why it did not run ("" : it ran)


async def run_shell_line(command: str, *, policy: ApprovalPolicy, timeout: float,
                         max_call_timeout: float | None) -> ShellLine:
    verdict = policy.decide(name=SHELL_TOOL.name, command=command, skill_name="",
                            gated=True, why="typed with !", args={"command": command})
    if verdict.action == "deny":
        return ShellLine(command, f"Not run: {verdict.why}.", True, verdict.why)
    outcome = await run_entrypoint(SHELL_TOOL, {"command": command}, skill_dir=Path.cwd(),
                                   timeout=timeout, max_call_timeout=max_call_timeout)
    return ShellLine(command, outcome.content, outcome.error)
