"""The main screen: the layout, the keys of the chat, and the dispatch of Birdie's events.

Every event from the front door (a turn's events and the change events between turns) arrives
as one `EngineEvent` and is dispatched with `match` on its class: turn events to `TurnView`, the
rest to the handlers here. An event nobody handles is reported, never dropped in silence.

The composer owns the keyboard: a click on a panel, a tab or a tool block does not take focus
from it, and printable keys that reach another focused widget are moved to it, in order.
"""

from __future__ import annotations

import uuid

import logging
from typing import TYPE_CHECKING, Any, Never

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Footer, Static, TabbedContent, TabPane

from birdie_tui.text import one_line
from birdie_tui.tui.cmds import CommandContext, completions, parse, run_line
from birdie_tui.tui.cmds.compact import auto_compaction_notice
from birdie_tui.tui.layout import FOLD_PANEL, FOLD_SIDEBAR, side_widths
from birdie_tui.tui.layout_pass import SettledScreen
from birdie_tui.tui.mention_completion import MentionCompletion
from birdie_tui.tui.messages import EngineEvent
from birdie_tui.tui.screen_actions import ScreenActions
from birdie_tui.tui.sessions import SessionControl
from birdie_tui.tui.turns import TurnRunner
from birdie_tui.tui.widgets.chat.chat_log import ChatLog
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.mention_list import MentionList
from birdie_tui.tui.widgets.attach_bar import AttachBar, Attached
from birdie_tui.tui.widgets.queue_bar import QueueBar
from birdie_tui.tui.widgets.search_bar import SearchBar
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel
from birdie_tui.tui.widgets.panels.token_panel import TokenPanel
from birdie_tui.tui.widgets.skills.skill_sidebar import SkillSidebar
from birdie_tui.tui.widgets.status_bar import StatusBar

if TYPE_CHECKING:
    from birdie_tui.tui.turn_view import TurnView
    from birdie_tui.events import (
        AgentFinished,
        AgentsChanged,
        AgentStarted,
        ApprovalDecided,
        ChildEvent,
        Compacted,
        McpFailed,
        MemoryChanged,
        Recovered,
        SessionBusy,
        SessionOpened,
        SkillsChanged,
        SkillsInjected,
        SkillsReloaded,
        StatusChanged,
        TokenStreamed,
        ToolCallStarted,
        ToolFinished,
        TotalsChanged,
        TurnCancelled,
        TurnDone,
        TurnError,
        UsageReported,
    )
    from birdie_tui.service import Birdie

log = logging.getLogger("birdie_tui.tui")

# Only these take focus from a click; everything else is clicked without stealing the keyboard.
CLICK_FOCUSABLE = frozenset({"composer", "search-input"})  # widget ids
# Keys the skill list keeps while it has focus (it is focused on purpose, with its own key).
SKILL_LIST_KEYS = ("space",)


class MainScreen(ScreenActions, SettledScreen[None]):
    # Ids keep the `app.` prefix: they are what users name in their keymap
    # (docs/contracts.md, Key binding ids).
    BINDINGS = [
        # Esc cancels a running turn (the footer shows this one: the first for the key); with
        # nothing to cancel it passes on, and Esc Esc in an empty composer opens the rewind
        # picker.
        Binding("escape", "cancel_turn", "Cancel", id="app.cancel_turn"),
        Binding("escape", "rewind_picker", "Rewind", id="app.rewind_picker", show=False),
        Binding("ctrl+s", "sessions", "Sessions", id="app.sessions"),
        # Agents that ran on their own; not f6/f7 (the composer's select line / all). Not in
        # the footer: at 80 columns it would push ^q Quit off (/help and the palette say it).
        Binding("f9", "runs", "Runs", id="app.runs", show=False),
        Binding("ctrl+n", "new_session", "New", id="app.new_session"),
        Binding("ctrl+o", "focus_skills", "Skills", id="app.focus_skills"),
        Binding("ctrl+g", "focus_context", "Context", id="app.focus_context", show=False),
        Binding("pageup", "scroll_chat('page_up')", "Scroll up", id="app.chat_page_up",
                show=False),
        Binding("pagedown", "scroll_chat('page_down')", "Scroll down", id="app.chat_page_down",
                show=False),
        Binding("ctrl+up", "scroll_chat('up')", "Scroll up", id="app.chat_up", show=False),
        Binding("ctrl+down", "scroll_chat('down')", "Scroll down", id="app.chat_down",
                show=False),
        Binding("ctrl+pageup", "cycle_session(-1)", "Prev session", id="app.prev_session",
                show=False),
        Binding("ctrl+pagedown", "cycle_session(1)", "Next session", id="app.next_session",
                show=False),
        Binding("ctrl+f", "search", "Find", id="app.search", show=False),
        Binding("ctrl+b", "toggle_sidebar", "Sidebar", id="app.toggle_sidebar", show=False),
        Binding("ctrl+t", "toggle_panel", "Panel", id="app.toggle_panel", show=False),
        # Not ctrl+y (the composer's redo) nor f6 (its select line).
        Binding("f8", "copy_reply", "Copy reply", id="app.copy_reply", show=False),
        # ask → auto-approve → read-only (the composer leaves shift+tab alone: no focus to move)
        Binding("shift+tab", "cycle_approval_mode", "Approvals", id="app.approval_mode",
                show=False),
    ]

    def __init__(self, *, cursor_blink: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cursor_blink = cursor_blink
        self.birdie: Birdie | None = None  # set by the app once Birdie has started
        self.sidebar_forced: bool | None = None  # ctrl+b overrides the width rule
        self.panel_forced: bool | None = None
        self.pending: list[str] = []  # typed before Birdie was ready
        self._turn: TurnView | None = None
        self.turns = TurnRunner(self)
        self.sessions = SessionControl(self)
        self.commands = CommandContext(self)
        self.mentions = MentionCompletion(self)

    @property
    def turn(self) -> TurnView:
        """How the running turn shows up; made with the first turn, and the event vocabulary
        with it (~100 dataclasses the first frame does not need)."""
        if self._turn is None:
            from birdie_tui.tui.turn_view import TurnView

            self._turn = TurnView(self)
        return self._turn

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield StatusBar(id="status")
        with Horizontal(id="body"):
            yield SkillSidebar(id="skills")
            with Vertical(id="center"):
                yield SearchBar(id="search")
                yield ChatLog(id="chat")
                yield MentionList(id="mentions")
                yield AttachBar(id="attached")
                yield QueueBar(id="queue")
                yield Composer(id="composer", cursor_blink=self.cursor_blink)
                yield Static("", id="composer-hint", markup=False)
            with TabbedContent(id="panels"):
                with TabPane("Context", id="tab-context"):
                    yield ContextPanel(id="context")
                with TabPane("Tokens", id="tab-tokens"):
                    yield TokenPanel(id="tokens")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        composer = self.query_one(Composer)
        composer.set_commands(completions())
        composer.mention_popup = self.query_one(MentionList)
        composer.take_queued = self.query_one(QueueBar).take_last  # ↑ in an empty composer
        composer.focus()
        self.apply_width(self.app.size.width)
        if self.birdie is None:
            self.show_engine_state("starting…", busy=True)

    def on_resize(self, event: events.Resize) -> None:
        self.apply_width(event.size.width)

    def apply_width(self, width: int) -> None:
        show_sidebar = self.sidebar_forced if self.sidebar_forced is not None \
            else width >= FOLD_SIDEBAR
        show_panel = self.panel_forced if self.panel_forced is not None else width >= FOLD_PANEL
        sidebar, panel = self.query_one(SkillSidebar), self.query_one("#panels")
        sidebar.display, panel.display = show_sidebar, show_panel
        sidebar.styles.width, panel.styles.width = side_widths(width, show_sidebar, show_panel)

    # ------------------------------------------------------------------ Birdie's events
    async def on_engine_event(self, message: EngineEvent) -> None:
        """Turn events to `TurnView`, change events here; mypy checks no class is missed, and
        one that is (a newer door, a test) is reported at run time, never dropped."""
        from birdie_tui import events as ev  # loaded with the first event, not the first frame

        event = message.event
        match event:
            case (ev.SkillsInjected() | ev.TokenStreamed() | ev.ToolCallStarted()
                  | ev.ToolFinished() | ev.ApprovalDecided() | ev.UsageReported()
                  | ev.TurnDone() | ev.TurnError() | ev.TurnCancelled() | ev.AgentStarted()
                  | ev.AgentFinished() | ev.ChildEvent()):
                await self.turn.handle(event)
            case ev.AgentsChanged():
                self.on_agents_changed(event)
            case ev.SessionOpened():
                await self.on_session_opened(event)
            case ev.SkillsChanged():
                self.on_skills_changed(event)
            case ev.SkillsReloaded():
                self.on_skills_reloaded(event)
            case ev.StatusChanged():
                self.on_status_changed(event)
            case ev.TotalsChanged():
                self.on_totals_changed(event)
            case ev.MemoryChanged():
                self.on_memory_changed(event)
            case ev.McpFailed():
                self.on_mcp_failed(event)
            case ev.Recovered():
                self.on_recovered(event)
            case ev.SessionBusy():
                self.on_session_busy(event)
            case ev.Compacted():
                self.on_compacted(event)
            case _:
                self.unhandled(event)

    def on_agents_changed(self, event: AgentsChanged) -> None:
        """The sub-agent rows changed (a grant, a reload)."""
        self.show_agents()

    def show_agents(self) -> None:
        """The sidebar's agents and the names Tab completes after `/agent enable|disable`."""
        if self.birdie is None:
            return
        rows = self.birdie.agent_rows()
        self.query_one(SkillSidebar).set_agents(rows, self.birdie.broken_agent_files())
        self.query_one(Composer).set_commands(
            completions() + [f"/agent {verb} {row.name}" for row in rows
                             for verb in ("enable", "disable")])

    def unhandled(self, event: Never) -> None:
        """An event of no known class (typed `Never`: mypy fails if a class of the vocabulary
        reaches here); said in a notification, not dropped."""
        unknown: object = event
        log.error("no handler for engine event %r", unknown)
        self.notify("Birdie sent an event this screen cannot show: "
                    f"{getattr(unknown, 'type', type(unknown).__name__)}", severity="error")

    async def on_session_opened(self, event: SessionOpened) -> None:
        await self.sessions.show_current(new=event.new)

    def on_skills_changed(self, event: SkillsChanged) -> None:
        if self.birdie is not None:
            self.query_one(SkillSidebar).set_skills(self.birdie.skill_rows(),
                                                    self.birdie.broken_files())

    def on_skills_reloaded(self, event: SkillsReloaded) -> None:
        trouble = event.trouble
        self.notify(event.summary, title="Skills", timeout=8 if trouble else 4,
                    severity="warning" if trouble else "information")

    def on_status_changed(self, event: StatusChanged) -> None:
        self.show_status()

    def on_totals_changed(self, event: TotalsChanged) -> None:
        self.show_status()

    def on_memory_changed(self, event: MemoryChanged) -> None:
        if self.birdie is not None:
            self.query_one(ContextPanel).set_memory([n.content for n in self.birdie.memory()])

    def on_mcp_failed(self, event: McpFailed) -> None:
        self.notify(f"{event.skill}: {event.error}", title="MCP server failed",
                    severity="error", timeout=8)

    def on_session_busy(self, event: SessionBusy) -> None:
        self.notify(event.message, title="Waiting", severity="warning", timeout=12)

    def on_recovered(self, event: Recovered) -> None:
        self.notify(event.message, title="Recovered", severity="warning", timeout=12)

    def on_compacted(self, event: Compacted) -> None:
        """/compact tells its own result; an automatic compaction (before a turn) is told here.
        Either way the context panel reloads the records."""
        if event.auto or event.error:
            percent = self.birdie.auto_compact_percent() if self.birdie is not None else 0
            text, failed = auto_compaction_notice(event, percent)
            if failed:
                self.chat.add_error(text)
            else:
                self.chat.add_notice(text, markdown=False)
        self.sessions.reload_contexts()

    def show_status(self, busy: bool | None = None) -> None:
        """Status bar and token panel, from the ledger (the one owner of the figures)."""
        if self.birdie is None:
            return
        busy = self.turns.running if busy is None else busy
        status, ledger = self.birdie.status(), self.birdie.ledger()
        self.query_one(StatusBar).update_status(
            model=status.model, session_id=status.session_id, title=status.title,
            context_tokens=ledger.context_tokens, context_window=ledger.context_window,
            session_in=ledger.session_in, session_out=ledger.session_out, busy=busy,
            approval_mode=status.approval_mode,
            others=self.sessions.others_line(status.session_id))
        self.query_one(TokenPanel).show(ledger)

    def show_engine_state(self, label: str, *, busy: bool) -> None:
        """The status bar while Birdie is not running (starting, or a start that failed)."""
        self.query_one(StatusBar).update_status(
            model=label, session_id="", title=None, context_tokens=0, context_window=None,
            session_in=0, session_out=0, busy=busy)

    # ------------------------------------------------------------------ input
    @on(Composer.Submitted)
    def _composer_submitted(self, event: Composer.Submitted) -> None:
        if self.birdie is not None:
            self.birdie.record_input(event.text)  # for ctrl+r, in any session
        self.submit(event.text)

    @on(Composer.MentionQuery)
    def _mention_query(self, event: Composer.MentionQuery) -> None:
        self.mentions.query(event.query)

    @on(MentionList.Chosen)
    def _mention_chosen(self, event: MentionList.Chosen) -> None:
        self.query_one(Composer).insert_mention(event.value)

    @on(Composer.Hint)
    def _composer_hint(self, event: Composer.Hint) -> None:
        self.query_one("#composer-hint", Static).update(event.text)

    def submit(self, text: str) -> None:
        text = text.strip()
        if not text:
            return
        # Whatever was just sent (message or command) and what it brings is shown, even if
        # the user had scrolled up to read.
        self.chat.follow()
        if text.startswith("/"):
            self.run_line(text)
        elif text.startswith("!") and text[1:].strip() and self.birdie is not None:
            self.run_worker(self._shell(text[1:].strip()), group="shell", exit_on_error=False)
        elif self.birdie is None:
            self.pending.append(text)
            self.chat.add_user(text)
            self.chat.add_notice(
                f"Not sent: Birdie is not running ({self.app.booting.error}), so this waits: "
                "ctrl+n or /retry tries to start it again." if self.app.boot_failed else
                "Starting up — your message will be sent as soon as Birdie is ready.")
        elif self.turns.running:
            # Sent when the turn ends; Esc cancels the turn, not this.
            self.query_one(QueueBar).add(self.birdie.status().session_id, text)
        elif too_big := self.birdie.check_message(text):
            self.query_one(Composer).load_text(text)  # not sent: nothing typed is lost
            self.chat.add_error(too_big)
        else:
            self.start_turn(text)

    async def _shell(self, command: str) -> None:
        """`!command`: run now, shown as a tool block; its output goes with the next message."""
        assert self.birdie is not None
        call_id = f"shell-{uuid.uuid4().hex[:12]}"
        self.chat.add_tool_call(call_id, "!", {"command": command})
        try:
            run = await self.birdie.run_shell(command)
        except Exception as exc:  # noqa: BLE001 - a door that cannot run it says why
            self.chat.finish_tool(call_id, one_line(exc), True)
            return
        self.chat.finish_tool(call_id, run.output, run.error)
        if not run.refused:
            self.query_one(AttachBar).add(Attached(command, run.output, run.error))

    def action_attach_drop(self, index: int) -> None:
        self.query_one(AttachBar).drop(index)

    def send_queued(self) -> None:
        """The shown session's next queued message, once no turn runs in it."""
        if self.birdie is None:
            return
        queue = self.query_one(QueueBar)
        queue.show_for(self.birdie.status().session_id)
        if self.turns.running:
            return
        text = queue.take_first()
        if text is not None:
            self.submit(text)

    def action_queue_drop(self, index: int) -> None:
        self.query_one(QueueBar).drop(index)

    def send_pending(self) -> None:
        """What the user sent before Birdie was running, in order."""
        queued, self.pending = self.pending, []
        for text in queued:
            self.submit(text)

    def run_line(self, line: str) -> None:
        """A slash command, in its own worker (it may wait for a dialog or for Birdie)."""
        self.run_worker(self._run_line(line), group="slash", exit_on_error=False)

    async def _run_line(self, line: str) -> None:
        command, typed, args, rest = parse(line)
        if command is None or not typed[1:].replace("-", "_").isidentifier():
            self.notify(f"Unknown command {typed} — /help lists them.", severity="warning")
            return
        if typed == "/retry" and self.app.retry_boot():
            return
        if command.needs_birdie and not await self.app.wait_started():
            self.notify(f"{typed} needs Birdie running: ctrl+n or /retry starts it again.",
                        severity="warning")
            return
        try:
            await run_line(self.commands, command, args, rest)
        except Exception as exc:  # noqa: BLE001 - a command failure is a message
            self.chat.add_error(f"{typed}: {one_line(exc, as_is=(self.app.birdie_error,))}")

    def start_turn(self, text: str) -> None:
        attached = self.query_one(AttachBar).take_all()
        self.turns.start(f"{attached}\n\n{text}" if attached else text)

    @property
    def turn_running(self) -> bool:
        return self.turns.running

    # ------------------------------------------------------------------ focus guard
    def get_focusable_widget_at(self, x: int, y: int) -> Widget | None:
        widget = super().get_focusable_widget_at(x, y)
        if widget is None:
            return None
        return widget if widget.id in CLICK_FOCUSABLE else None

    def _forward_event(self, event: events.Event) -> None:
        # Clicking empty space would blur the composer (Screen sets focus to None).
        if isinstance(event, events.MouseDown) and self.focused is not None:
            focused = self.focused
            super()._forward_event(event)
            if self.focused is None and focused.is_attached:
                self.set_focus(focused, scroll_visible=False)
            return
        super()._forward_event(event)

    def on_key(self, event: events.Key) -> None:
        if not event.is_printable or event.character is None:
            return
        composer = self.query_one(Composer)
        focused = self.focused
        if focused is composer:
            return
        if focused is not None and focused.has_class("skills--list") \
                and event.key in SKILL_LIST_KEYS:
            return
        event.stop()
        event.prevent_default()
        composer.focus(scroll_visible=False)
        composer.insert(event.character)
