"""Sub-agent commands, as Birdie 0.15.1 has them: /agent list|enable|disable|output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from birdie_tui.tui.cmds.context import CommandContext
from birdie_tui.tui.usage import UsageError

if TYPE_CHECKING:
    from birdie_tui.service.rows import AgentRow, BrokenAgentFile

OUTPUT_WORDS = {
    "full": "the chat shows all of a sub-agent's text and tool output",
    "short": "the chat shows a sub-agent's first 1,000 characters and short tool output",
    "off": "the chat shows one line per sub-agent call (click it to open)",
}
USAGE = "usage: /agent list | enable <name> | disable <name> | output full|short|off"


async def cmd_agent(ctx: CommandContext, args: list[str], rest: str) -> None:
    sub = args[0].lower() if args else "list"
    if sub == "list" and len(args) <= 1:
        ctx.say(agents_markdown(ctx.birdie.agent_rows(), ctx.birdie.broken_agent_files()))
    elif sub in ("enable", "disable") and len(args) >= 2:
        row = ctx.birdie.set_agent(" ".join(args[1:]), sub == "enable")
        ctx.toast(f"Agent {row.name} {'enabled' if row.enabled else 'disabled'} for this "
                  "session", timeout=2)
    elif sub == "output" and len(args) == 2 and args[1].lower() in OUTPUT_WORDS:
        mode = args[1].lower()
        ctx.ui.set_agent_output(mode)
        ctx.toast(f"Agent output: {mode} — {OUTPUT_WORDS[mode]}", timeout=3)
    elif sub == "output" and len(args) == 1:
        mode = ctx.birdie.settings().agent_output
        ctx.say(f"Agent output: **{mode}** — {OUTPUT_WORDS.get(mode, '')}. "
                "`/agent output full|short|off` changes it (saved).")
    else:
        raise UsageError(USAGE)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def agents_markdown(rows: list[AgentRow], broken: list[BrokenAgentFile]) -> str:
    """Birdie's `/agent list` table: name, on/off, inputs, description; then broken files."""
    if rows:
        lines = ["| Agent | State | Inputs | Description |", "|---|---|---|---|"]
        for row in rows:
            state = "● on" if row.enabled else "○ off"
            inputs = ", ".join(row.inputs) or ("task" if row.format == "markdown" else "—")
            lines.append(f"| **{_cell(row.name)}** | {state} | {_cell(inputs)} | "
                         f"{_cell(row.description)} |")
        text = "\n".join(lines) + ("\n\n`/agent enable <name>` lets the model call one "
                                   "(for this session).")
    else:
        text = ("No sub-agents loaded. An agent is an `AGENT.MD` in `agents/<name>/` of "
                "`$BIRDIE_HOME` or the project's `.birdie/`, or a Markdown agent file in "
                "`.agents/agents/`.")
    if broken:
        text += "\n\n**Agent files that could not be read:**\n" + "\n".join(
            f"- `{b.path}{f':{b.line}' if b.line else ''}`: {_cell(b.message)}" for b in broken)
    return text
