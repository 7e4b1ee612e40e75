"""The one command table: every slash command's name, usage, help and handler.

It drives running a typed line (`run_line`), `/help` (`help_markdown`), Tab completion
(`completions`) and the command palette (`palette_entries`). Handlers get a `CommandContext`
(the front door and a few things the screen can do), never the App.
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from birdie_tui.tui.cmds import (agents, approvals, clipboard, compact, export, extras, general,
                                 models, rewind, runs, sessions, skills)
from birdie_tui.tui.cmds.context import CommandContext, CommandUI
from birdie_tui.tui.usage import UsageError

Handler = Callable[[CommandContext, list[str], str], Awaitable[None]]

__all__ = ["COMMANDS", "Command", "CommandContext", "CommandUI", "completions",
           "help_markdown", "palette_entries", "run_line"]


@dataclass(frozen=True)
class Command:
    name: str  # "/skill"
    usage: str  # markdown for /help: "`/skill list` · `/skill enable <name>` …"
    help: str
    handler: Handler
    subcommands: tuple[str, ...] = ()  # completed by Tab: "/skill list", …
    needs_birdie: bool = True  # False: works before Birdie has started (or after it failed)
    palette: tuple[tuple[str, str], ...] = ()  # (title, line) entries in ctrl+p


async def cmd_help(ctx: CommandContext, args: list[str], rest: str) -> None:
    ctx.say(help_markdown())


COMMANDS: tuple[Command, ...] = (
    Command("/help", "`/help`", "this list", cmd_help, needs_birdie=False,
            palette=(("Show help", "/help"),)),
    Command("/info", "`/info`", "user, session, turns, model, skill folders", general.cmd_info),
    Command("/remember", "`/remember <text>`",
            "save a note to long-term memory (every session sees it)", general.cmd_remember),
    Command("/memory", "`/memory [list]` · `/memory delete <id or n>`",
            "list or delete long-term memory entries", general.cmd_memory,
            subcommands=("list", "delete")),
    Command("/tool", "`/tool list` · `/tool output full\\|short\\|off` · `/tool cap [N\\|off]`",
            "tools callable right now · how much tool output the chat shows · tool calls "
            "per turn", general.cmd_tool,
            subcommands=("list", "output full", "output short", "output off", "cap", "cap off"),
            palette=tuple((f"Tool output: {m}", f"/tool output {m}")
                          for m in ("full", "short", "off"))),
    Command("/skill", "`/skill list` · `/skill enable <name>` · `/skill disable <name>` · "
            "`/skill reload` · `/skill new <name>` · `/skill loading [triggers\\|model\\|both]`",
            "skills for this session · rescan the skill folders · scaffold a new skill · "
            "how knowledge bodies reach the prompt",
            skills.cmd_skill, subcommands=("list", "enable", "disable", "reload", "new",
                                           "loading", "loading triggers", "loading model",
                                           "loading both", "loading default"),
            palette=(("Reload skills", "/skill reload"),)),
    Command("/agent", "`/agent list` · `/agent enable <name>` · `/agent disable <name>` · "
            "`/agent output full\\|short\\|off`",
            "sub-agents the model may call in this session · how much of their work the "
            "chat shows", agents.cmd_agent,
            subcommands=("list", "enable", "disable", "output full", "output short",
                         "output off"),
            palette=tuple((f"Agent output: {m}", f"/agent output {m}")
                          for m in ("full", "short", "off"))),
    Command("/mcp", "`/mcp` · `/mcp restart <skill>`",
            "MCP servers: state, tools, errors · start one again", skills.cmd_mcp,
            subcommands=("restart",)),
    Command("/compact", "`/compact [instructions]` · `/compact auto [off\\|<percent>]`",
            "summarise the older turns (the model reads the summary; the chat keeps them) · "
            "the context share that compacts by itself", compact.cmd_compact,
            subcommands=("auto", "auto off"),
            palette=(("Compact the conversation", "/compact"),)),
    Command("/approvals", "`/approvals` · `/approvals mode ask\\|auto\\|read-only` · "
            "`/approvals forget` · `/approvals ask`",
            "approval mode, the skills and rules this session allows without asking · forget "
            "them · ask a waiting approval again", approvals.cmd_approvals,
            subcommands=("mode ask", "mode auto", "mode read-only", "forget", "ask"),
            palette=(("Approvals: ask before gated tools", "/approvals mode ask"),
                     ("Approvals: auto-approve", "/approvals mode auto"),
                     ("Approvals: read-only", "/approvals mode read-only"))),
    Command("/session", "`/session new\\|switch <id>\\|delete <id>\\|list\\|info`", "sessions",
            sessions.cmd_session, subcommands=("new", "switch", "delete", "list", "info")),
    Command("/new", "`/new`", "new session", sessions.cmd_new),
    Command("/sessions", "`/sessions`", "open the session browser", sessions.cmd_sessions),
    Command("/rename", "`/rename <title>`", "name this session", sessions.cmd_rename),
    Command("/runs", "`/runs`",
            "agents that run on their own: who runs the triggers, the next runs, the run "
            "log; enter opens a run's session", runs.cmd_runs),
    Command("/cost", "`/cost [all]`", "what this session cost: totals and each turn",
            extras.cmd_cost, subcommands=("all",),
            palette=(("Show the session's cost", "/cost"),)),
    Command("/history", "`/history [N]`", "your last N messages (default 10) with their turns",
            extras.cmd_history, palette=(("Show my last messages", "/history"),)),
    Command("/copy", "`/copy [N] [code]`",
            "copy the last reply (or the reply to your message N, as /history numbers them) "
            "to the clipboard; `code`: its last code block", clipboard.cmd_copy,
            subcommands=("code",),
            palette=(("Copy the last reply", "/copy"),
                     ("Copy the last reply's last code block", "/copy code"))),
    Command("/cd", "`/cd [path]`", "show or change the working directory tools run in",
            extras.cmd_cd),
    Command("/export", "`/export [markdown\\|json] [PATH]`",
            "write this session to a file (default `./<session-id>.md`): per turn the "
            "messages, tool calls and what each model call was given", export.cmd_export,
            subcommands=("markdown", "json"), palette=(("Export this session", "/export"),)),
    Command("/theme", "`/theme [name]`", "list themes or switch (saved)", general.cmd_theme,
            needs_birdie=False),
    Command("/model", "`/model` · `/model VENDOR[/MODEL]` · `/model MODEL`",
            "list models · switch for this session", models.cmd_model),
    Command("/retry", "`/retry`", "run your last message again (after an error or Esc)",
            models.cmd_retry, palette=(("Retry the last turn", "/retry"),)),
    Command("/rewind", "`/rewind [N]`",
            "go back to before your message N (as /history numbers them; without N, pick "
            "one): it and what followed leave the history, its text comes back to edit",
            rewind.cmd_rewind, palette=(("Rewind to a message…", "/rewind"),)),
    Command("/fork", "`/fork [N]`",
            "a new session with this conversation before your message N (without N, pick "
            "one); the original stays as it is", rewind.cmd_fork,
            palette=(("Fork from a message…", "/fork"),)),
    Command("/clear", "`/clear`", "clear the screen (history is kept)", general.cmd_clear,
            needs_birdie=False, palette=(("Clear the chat", "/clear"),)),
    Command("/quit", "`/quit`", "exit", general.cmd_quit, needs_birdie=False),
)

BY_NAME = {c.name: c for c in COMMANDS}

KEYS_HELP = """\
**Keys** — Enter send · ctrl+j newline · ↑/↓ earlier inputs · ctrl+r earlier inputs of any
session · ctrl+f find in the chat (Enter/↓ next, shift+Enter/↑ previous) · Tab complete a command ·
PageUp/PageDown (ctrl+↑/↓) scroll the chat · Esc cancel the turn · Esc Esc (empty composer)
rewind or fork from an earlier message · ctrl+o skill list (Space
toggles) · ctrl+s sessions · F9 runs of agents on their own · ctrl+n new session ·
ctrl+pageup/pagedown previous/next session ·
ctrl+b skills sidebar · ctrl+t side panel · ctrl+g context panel (←/→ turns, shift+←/→
calls) · shift+tab approval mode (ask → auto → read-only) · ctrl+p palette · ctrl+q quit

**Copy** — drag with the mouse to select text in the chat, then ctrl+c copies it (a selection
in the composer is copied first). With nothing selected ctrl+c does not quit: it says that
ctrl+q does. F8 or `/copy` copies the last reply as Markdown; a click on "copy" copies a code
block (on its top edge), a reply or your message (at its top right, under the mouse).
"""


def help_markdown() -> str:
    rows = "\n".join(f"| {c.usage} | {c.help} |" for c in COMMANDS)
    return f"| Command | What it does |\n|---|---|\n{rows}\n\n{KEYS_HELP}"


def completions() -> list[str]:
    """What Tab completes: every command, and every command with each of its subcommands."""
    out: list[str] = []
    for c in COMMANDS:
        out.append(c.name)
        out += [f"{c.name} {sub}" for sub in c.subcommands]
    return out


def palette_entries(*, started: bool) -> list[tuple[str, str]]:
    """(title, command line) for the palette; commands that need Birdie only once it runs."""
    return [entry for c in COMMANDS if started or not c.needs_birdie for entry in c.palette]


def parse(line: str) -> tuple[Command | None, str, list[str], str]:
    """(command or None, the name as typed, its words, the raw rest of the line)."""
    try:
        words = shlex.split(line)
    except ValueError:
        words = line.split()
    typed = words[0].lower() if words else line
    rest = line[len(words[0]):].strip() if words else ""
    return BY_NAME.get(typed), typed, words[1:], rest


async def run_line(ctx: CommandContext, command: Command, args: list[str], rest: str) -> None:
    """Run one parsed command; a usage mistake becomes a one-line toast."""
    try:
        await command.handler(ctx, args, rest)
    except UsageError as exc:
        ctx.toast(str(exc), severity="warning")
