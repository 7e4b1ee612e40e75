"""Slash commands: every command of the original Birdie CLI plus `/sessions`, `/rename`,
`/theme`, `/memory`. Output goes into the chat as notices; mistakes get a one-line hint."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from birdie_tui.tui.usage import UsageError

if TYPE_CHECKING:
    from birdie_tui.tui.app import BirdieApp

SLASH_COMMANDS = [
    "/help", "/info", "/remember", "/memory", "/memory list", "/memory delete",
    "/tool list", "/tool output full", "/tool output short", "/tool output off",
    "/skill list", "/skill enable", "/skill disable", "/skill reload",
    "/session new", "/session switch", "/session delete", "/session list", "/session info",
    "/sessions", "/new", "/rename", "/clear", "/theme", "/quit", "/mcp", "/mcp restart",
    "/model", "/retry",
]

HELP = """\
| Command | What it does |
|---|---|
| `/help` | this list |
| `/info` | user, session, turns, model, skill folders |
| `/remember <text>` | save a note to long-term memory (every session sees it) |
| `/memory [list]` · `/memory delete <id or n>` | list or delete long-term memory entries |
| `/tool list` | tools callable right now |
| `/tool output full\\|short\\|off` | how much tool output the chat shows |
| `/skill list` · `/skill enable <name>` · `/skill disable <name>` | skills for this session |
| `/skill reload` | rescan the skill folders |
| `/mcp` · `/mcp restart <skill>` | MCP servers: state, tools, errors · start one again |
| `/session new\\|switch <id>\\|delete <id>\\|list\\|info` | sessions |
| `/new` | new session · `/sessions` opens the browser |
| `/rename <title>` | name this session |
| `/theme [name]` | list themes or switch (saved) |
| `/model` · `/model VENDOR[/MODEL]` · `/model MODEL` | list models · switch for this session |
| `/retry` | run your last message again (after an error or Esc) |
| `/clear` | clear the screen (history is kept) |
| `/quit` | exit |

**Keys** — Enter send · ctrl+j newline · ↑/↓ earlier inputs · Tab complete a command ·
PageUp/PageDown (ctrl+↑/↓) scroll the chat · Esc cancel the turn · ctrl+o skill list (Space
toggles) · ctrl+s sessions · ctrl+n new session · ctrl+pageup/pagedown previous/next session ·
ctrl+b skills sidebar · ctrl+t side panel · ctrl+p palette · ctrl+q quit
"""


class SlashCommands:
    def __init__(self, app: BirdieApp):
        self.app = app

    @property
    def engine(self) -> Any:
        return self.app.engine

    def say(self, text: str, *, markdown: bool = True) -> None:
        from birdie_tui.tui.widgets.chat.chat_log import ChatLog

        self.app.query_one(ChatLog).add_notice(text, markdown=markdown)

    async def run(self, line: str) -> None:
        try:
            words = shlex.split(line)
        except ValueError:
            words = line.split()
        name, args = words[0].lower(), words[1:]
        rest = line[len(words[0]):].strip()
        handler = getattr(self, "cmd_" + name[1:].replace("-", "_"), None)
        if handler is None or not name[1:].isidentifier():
            self.app.notify(f"Unknown command {name} — /help lists them.", severity="warning")
            return
        try:
            await handler(args, rest)
        except UsageError as exc:
            self.app.notify(str(exc), severity="warning")

    # ------------------------------------------------------------ general
    async def cmd_help(self, args: list[str], rest: str) -> None:
        self.say(HELP)

    async def cmd_quit(self, args: list[str], rest: str) -> None:
        self.app.exit(0)

    async def cmd_clear(self, args: list[str], rest: str) -> None:
        from birdie_tui.tui.widgets.chat.chat_log import ChatLog

        await self.app.query_one(ChatLog).clear_log()

    async def cmd_info(self, args: list[str], rest: str) -> None:
        engine = self.engine
        meta = engine.session
        folders = "\n".join(f"  - `{d}`" for d in engine.skill_dirs)
        self.say(
            f"- **user** `{engine.user}`\n- **session** `{meta.id}` · {meta.title or 'untitled'}"
            f" · {meta.turns} turns\n- **model** {engine.model_label}\n"
            f"- **data** `{engine.paths.home}`\n- **skill folders**\n{folders}")

    # ------------------------------------------------------------ memory
    async def cmd_remember(self, args: list[str], rest: str) -> None:
        if not rest:
            raise UsageError("usage: /remember <text>")
        entry = self.engine.memory.add(rest)
        self._memory_changed()
        self.app.notify(f"Remembered ({entry.id}).", timeout=2)

    def _memory_changed(self) -> None:
        from birdie_tui.tui.sessions import memory_notes
        from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

        self.app.query_one(ContextPanel).set_memory(memory_notes(self.engine))

    async def cmd_memory(self, args: list[str], rest: str) -> None:
        sub = args[0].lower() if args else "list"
        if sub == "list":
            entries = self.engine.memory.entries()
            if not entries:
                self.say("Long-term memory is empty — `/remember <text>` adds a note.")
                return
            self.say("\n".join(f"{n}. `{e.id}` {e.content}" for n, e in
                               enumerate(entries, 1)))
        elif sub == "delete" and len(args) == 2:
            entry = self.engine.memory.delete(args[1])
            if entry is None:
                raise UsageError(f"no memory entry {args[1]!r} — /memory lists them")
            self._memory_changed()
            self.app.notify(f"Forgot: {entry.content}", timeout=3)
        else:
            raise UsageError("usage: /memory [list] | /memory delete <id or number>")

    # ------------------------------------------------------------ tools and skills
    async def cmd_tool(self, args: list[str], rest: str) -> None:
        from birdie_tui.tui.widgets.chat.chat_log import ChatLog

        if args[:1] == ["list"]:
            tools = await self.engine.toolbox.tools()
            if not tools:
                self.say("No tools are callable: every tool skill is off.")
                return
            self.say("\n".join(f"- `{t.name}` — {t.description.splitlines()[0]}"
                               for t in tools))
        elif len(args) == 2 and args[0] == "output" and args[1] in ("full", "short", "off"):
            self.app.query_one(ChatLog).set_tool_output_mode(args[1])
            if self.app.settings is not None:
                self.app.settings.tool_output = args[1]
                self.app.save_settings()
            self.app.notify(f"Tool output: {args[1]}", timeout=2)
        else:
            raise UsageError("usage: /tool list | /tool output full|short|off")

    async def cmd_skill(self, args: list[str], rest: str) -> None:
        sub = args[0].lower() if args else ""
        if sub == "list":
            lines = [f"- {'●' if self.engine.is_enabled(s) else '○'} **{s.name}** "
                     f"({s.kind}) — {s.description}" for s in self.engine.skills()]
            self.say("\n".join(lines) or "No skills loaded.")
        elif sub in ("enable", "disable") and len(args) >= 2:
            self.app.toggle_skill(" ".join(args[1:]), sub == "enable")
        elif sub == "reload":
            await self.app.skill_watch.apply(forced=True)
        else:
            raise UsageError("usage: /skill list | enable <name> | disable <name> | reload")

    async def cmd_mcp(self, args: list[str], rest: str) -> None:
        from birdie_tui.tui.views import mcp_markdown

        sub = args[0].lower() if args else "list"
        if sub == "list" and len(args) <= 1:
            self.say(mcp_markdown(self.engine.mcp_status(), self.engine.paths.logs_dir))
        elif sub == "restart" and len(args) >= 2:
            skill = self.engine.registry.get(" ".join(args[1:]))
            if skill is None or skill.mcp_server is None:
                raise UsageError(f"no MCP skill {' '.join(args[1:])!r} — /mcp lists them")
            if not self.engine.is_enabled(skill):
                raise UsageError(f"{skill.name} is off for this session — enable it first")
            self.app.notify(f"Starting the MCP server of {skill.name}…", timeout=2)
            status = await self.engine.restart_mcp(skill.name)
            self.app.refresh_skills()
            self.say(mcp_markdown([status], self.engine.paths.logs_dir))
        else:
            raise UsageError("usage: /mcp | /mcp restart <skill>")

    # ------------------------------------------------------------ sessions
    async def cmd_session(self, args: list[str], rest: str) -> None:
        sub = args[0].lower() if args else ""
        sessions = self.app.sessions
        if sub == "new":
            await sessions.new()
        elif sub == "switch" and len(args) == 2:
            await sessions.switch(args[1])
        elif sub == "delete" and len(args) == 2:
            from birdie_tui.tui.screens.confirm import ConfirmScreen

            # Typed commands get the same deliberate, keep-by-default question as the browser.
            question = f"Delete session {args[1]}? This removes its history."
            if await self.app.push_screen_wait(ConfirmScreen(question)):
                await sessions.delete_session(args[1])
        elif sub == "list":
            rows = sessions.session_rows()
            self.say("\n".join(f"- {'●' if r.current else '○'} `{r.id}` {r.title} · "
                               f"{r.turns} turns" for r in rows) or "No sessions.")
        elif sub == "info":
            meta = self.engine.session
            memory = len(self.engine.memory.entries())
            self.say(f"- **id** `{meta.id}`\n- **title** {meta.title or 'untitled'}\n"
                     f"- **created** {meta.created_at[:16].replace('T', ' ')}\n"
                     f"- **turns** {meta.turns}\n- **tokens** ↑{meta.input_tokens} "
                     f"↓{meta.output_tokens}\n- **memory entries** {memory}")
        else:
            raise UsageError("usage: /session new | switch <id> | delete <id> | list | info")

    async def cmd_new(self, args: list[str], rest: str) -> None:
        await self.app.sessions.new()

    async def cmd_sessions(self, args: list[str], rest: str) -> None:
        self.app.sessions.open_browser()

    async def cmd_rename(self, args: list[str], rest: str) -> None:
        if not rest:
            raise UsageError("usage: /rename <title>")
        self.engine.rename_session(self.engine.session.id, rest)
        self.app.refresh_status()

    async def cmd_theme(self, args: list[str], rest: str) -> None:
        if not args:
            names = ", ".join(f"`{n}`" for n in sorted(self.app.available_themes))
            self.say(f"Theme **{self.app.theme}**. Available: {names}")
        elif not self.app.set_theme(args[0]):
            raise UsageError(f"unknown theme {args[0]!r} — /theme lists them")

    async def cmd_model(self, args: list[str], rest: str) -> None:
        from birdie_tui.tui.model_commands import model_command

        await model_command(self, args, rest)

    async def cmd_retry(self, args: list[str], rest: str) -> None:
        from birdie_tui.tui.model_commands import retry_command

        await retry_command(self)
