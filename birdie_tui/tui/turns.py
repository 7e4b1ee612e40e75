"""Running a turn from the screen: the worker that reads the front door's turn stream, the
approval dialog the engine waits on, and cancelling (Esc, a session switch).

A turn belongs to its session, not to the screen: showing another session parks the runner
(`shown` False; `tui/sessions.py` keeps it) and the turn runs on. Its events are recorded, so
showing the session again replays them and the stream goes on live (`replay`); an approval it
reaches meanwhile waits, the session marked "waiting for approval", until it is shown.

An approval is a dialog the engine awaits (`approve`). Its answer may be "not now" (Esc, a
session switch, the app leaving): the turn then ends with the step still pending in the
session, and the chat says how to come back to it. A session opened with a pending step
(after a restart, a switch, or a `--print` that stopped to ask) is asked again and the rest of
its turn runs as a normal turn (`ask_pending`). A new message instead closes the waiting calls
as "not run" (the engine does it; the chat says so).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from birdie_tui.mentions.attach import typed_text
from birdie_tui.text import one_line
from birdie_tui.tui import notify
from birdie_tui.tui.messages import EngineEvent

if TYPE_CHECKING:
    from birdie_tui.events import ApprovalDecided, TurnEvent
    from birdie_tui.service.rows import ApprovalAnswer, ApprovalRequest
    from birdie_tui.tui.main_screen import MainScreen


# A turn left at its approval dialog ends by itself at once; this only bounds a wait that
# something else holds up (then the turn is cancelled as Esc does).
LEAVE_SECONDS = 10.0
# Tokens are posted to the screen at most this often, joined: a source that sends a token a
# loop turn would otherwise cost a message each, more than the frames that show them.
TOKEN_POST_SECONDS = 1 / 60

# What a gated call's block says while its dialog is open, and after "not now".
WAITING = "waiting for approval"
NOT_RUN = "not run"

Opener = Callable[[], Awaitable["AsyncIterator[TurnEvent] | None"]]


class TurnRunner:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.worker: Any = None
        self.dialog: Any = None  # the approval dialog the turn waits on, if any
        self.waiting: list[ApprovalRequest] = []  # left pending in the open session
        self._leaving = False  # this turn's unanswered approvals stay pending
        # Streamed, not yet posted: runs of the parent's tokens and of each child's, in order
        # (the key: "" for the parent, else the child's id).
        self._tokens: list[tuple[str, str, list[str]]] = []
        self._flush_handle: asyncio.Handle | None = None
        self._posted_at = float("-inf")  # when tokens were last posted (the loop's clock)
        self.text = ""  # the message this turn answers ("" for a resumed step)
        self.record: list[Any] = []  # the turn's events so far, to show it again
        self.shown = True  # its session is the one on screen
        self._on_screen = asyncio.Event()  # set while shown: a parked approval waits for it
        self._on_screen.set()
        self.asking_away = False  # parked, and waiting to ask for an approval
        self.session_id = ""  # set when parked: the session the turn runs in

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def start(self, text: str) -> None:
        screen = self.screen
        screen.chat.add_user(text)
        if self.waiting:  # the engine closes the step the user did not answer
            names = ", ".join(sorted({request.name for request in self.waiting}))
            screen.chat.add_notice(f"Not run: {names} (it was waiting for your approval; "
                                   "you sent a new message instead).")
            self.waiting = []

        async def opener() -> AsyncIterator[TurnEvent] | None:
            birdie = screen.birdie  # None only if Birdie stopped since the message was sent
            if birdie is None:
                return None
            return birdie.send(await screen.mentions.attach(text), approver=self.approve)

        self.text = text

        self._launch(opener)

    def _launch(self, opener: Opener) -> None:
        self.screen.turn.reset()
        self._leaving = False
        self.record = []
        self.shown = True  # only the screen's runner starts a turn
        self._on_screen.set()
        # A group of its own: an exclusive group shared by every runner would cancel the turn
        # another session left running in the background when this one starts.
        self.worker = self.screen.run_worker(self._run(opener), group=f"turn-{id(self)}",
                                             exclusive=True, exit_on_error=False)
        self.screen.show_status()

    async def _run(self, opener: Opener) -> None:
        from birdie_tui import events as ev  # loaded with the first turn

        screen = self.screen
        clean = False  # a finished turn's records all came live: no need to read them back
        left: list[ApprovalDecided] = []  # approvals left pending
        try:
            stream = await opener()
            if stream is None:
                return
            async for event in stream:
                if isinstance(event, ev.TokenStreamed):
                    self._buffer("", "", event.text)
                    continue
                if isinstance(event, ev.ChildEvent) and isinstance(event.event, ev.TokenStreamed):
                    self._buffer(event.child, event.agent, event.event.text)
                    continue
                self._post_tokens()  # whatever came before this event, in order
                if isinstance(event, ev.ApprovalDecided) and event.decision == "pending":
                    left.append(event)  # said once, after the turn (see `_left_pending`)
                    continue
                clean = clean or isinstance(event, ev.TurnDone)
                self._post(event)
                if isinstance(event, (ev.TurnDone, ev.TurnError)):
                    self._tell_end(isinstance(event, ev.TurnDone))
        except asyncio.CancelledError:
            self._post_tokens()
            if screen.app.is_running:  # not when the app is leaving: no chat to show it in
                self._post(ev.TurnCancelled())
            raise
        except Exception as exc:  # noqa: BLE001 - engine bugs become a block, not an exit
            self._post_tokens()
            self._post(ev.TurnError(one_line(exc)))
        finally:
            self._post_tokens()
            self._ended(left, clean)

    def _ended(self, left: list[Any], clean: bool) -> None:
        screen = self.screen
        if not self.shown:  # its session is not on screen: opening it shows the history
            screen.call_later(screen.sessions.ended_away, self)
            return
        if left and screen.app.is_running:
            screen.call_later(self._left_pending, left)
        screen.call_later(screen.show_status, False)  # after the turn's own events
        if not clean:  # cancelled, failed or left pending: the saved records are the truth
            screen.call_later(screen.sessions.reload_contexts)
        if not left:  # a message typed meanwhile goes now (not over a question left open)
            screen.call_later(screen.send_queued)

    def _tell_end(self, done: bool) -> None:
        what = "the turn finished" if done else "the turn failed"
        notify.tell(self.screen.app, f"Birdie: {what}")
        if not self.shown:
            self.screen.notify(f"Session {self.session_id}: {what}", timeout=4)

    def _post(self, event: Any) -> None:
        """One of the turn's events: to the chat while shown; recorded either way."""
        self.record.append(event)
        if self.shown:
            self.screen.post_message(EngineEvent(event))

    # ------------------------------------------------------------------ its session's place
    def park(self, session_id: str) -> None:
        """Another session is shown: the turn runs on, its events recorded. A dialog open for
        it closes unanswered (a question about one session never stands over another): the
        step stays pending and is asked again when its session is shown."""
        self._post_tokens()
        self.session_id, self.shown = session_id, False
        self._on_screen.clear()
        if self.dialog is not None:
            self.dialog.leave()

    def before_turn(self, items: list[Any]) -> list[Any]:
        """The transcript without what this (still running) turn added: `replay` shows it."""
        if self.text:
            for index in range(len(items) - 1, -1, -1):
                if items[index].role == "user" and typed_text(items[index].content) == self.text:
                    return items[:index]
        return items

    def replay(self) -> None:
        """Its session is shown again: the turn so far, then the live stream."""
        screen = self.screen
        screen.turn.reset()
        if self.text:
            screen.chat.add_user(self.text)
        for event in self.record:
            screen.post_message(EngineEvent(event))
        self.shown = True
        self._on_screen.set()

    def _buffer(self, child: str, agent: str, text: str) -> None:
        if self._tokens and self._tokens[-1][0] == child:
            self._tokens[-1][2].append(text)
        else:
            self._tokens.append((child, agent, [text]))
        if self._flush_handle is None:
            # On the loop's next turn, joined with whatever else the stream had ready, unless
            # tokens were posted less than TOKEN_POST_SECONDS ago: a provider's chunk (merged
            # per window already, providers/coalesce.py) waits for no timer (bench/RESULTS.md
            # §37), a flood of tokens is still posted 60 times a second at most.
            loop = asyncio.get_running_loop()
            wait = self._posted_at + TOKEN_POST_SECONDS - loop.time()
            self._flush_handle = (loop.call_soon(self._post_tokens) if wait <= 0 else
                                  loop.call_later(wait, self._post_tokens))

    def _post_tokens(self) -> None:
        """The tokens buffered so far, one `token` event per run of one stream (a sub-agent's
        wrapped as its child's)."""
        from birdie_tui import events as ev  # loaded with the first turn

        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        runs, self._tokens = self._tokens, []
        if runs:
            self._posted_at = asyncio.get_running_loop().time()
        for child, agent, texts in runs:
            token = ev.TokenStreamed("".join(texts))
            self._post(ev.ChildEvent(child, agent, token) if child else token)

    # ------------------------------------------------------------------ approvals
    async def approve(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        """The engine's approver: the dialog's answer; None leaves the step pending (and
        every later call of the same step with it, unasked)."""
        if self._leaving:
            return None
        if not self.shown:  # asked when its session is shown again
            self.asking_away = True
            self.screen.call_later(self.screen.show_status)
            try:
                await self._on_screen.wait()
            finally:
                self.asking_away = False
        answer = await self.ask(request)
        if answer is None:
            self._leaving = True
        return answer

    async def ask(self, request: ApprovalRequest) -> ApprovalAnswer | None:
        """Show the dialog and wait for its answer (None: not now)."""
        from birdie_tui.tui.screens.approval import ApprovalScreen

        dialog = ApprovalScreen(request, cursor_blink=self.screen.cursor_blink)
        self.dialog = dialog
        # Queued behind the call's own event, so its block exists when this runs.
        self.screen.call_later(self._hold, [request.id], WAITING)
        try:
            await self.screen.app.push_screen(dialog)
            asks = f"{request.agent} (sub-agent)" if request.agent else "Birdie"
            notify.tell(self.screen.app, f"{asks}: approve {request.name}?")
            answer = await dialog.answered
            if answer is None:
                self.screen.call_later(self._hold, [request.id], NOT_RUN)
            return answer
        except asyncio.CancelledError:
            dialog.leave()
            raise
        finally:
            self.dialog = None

    async def ask_pending(self) -> None:
        """The open session stopped at an approval (a restart, a switch, a `--print`): show
        its calls, ask again, and run the rest of the turn. Not while a turn runs."""
        birdie = self.screen.birdie
        self.waiting = []
        if birdie is None or self.running:
            return
        pending = await birdie.pending_approvals()
        if not pending:
            return
        self.waiting = list(pending)
        self._show_calls(pending)
        self.screen.chat.add_notice("This session stopped at an approval: asking again.")

        async def opener() -> AsyncIterator[TurnEvent] | None:
            answers = await self._answer_pending(pending)
            if answers is None:  # said as for a live turn
                self.screen.call_later(self._left_pending, pending)
                return None
            self.waiting = []
            return birdie.resume(answers, approver=self.approve)

        self._launch(opener)

    async def _answer_pending(self, pending: list[ApprovalRequest]
                              ) -> dict[str, ApprovalAnswer] | None:
        """An answer for each pending call, or None if one was left for later. The mode and
        rules apply as the engine decides them (`decided_answer`): only what they leave to
        the user is asked. (Asked here, before the turn starts, so that "not now" leaves the
        chat as it was: no turn ran.)"""
        birdie = self.screen.birdie
        assert birdie is not None  # asked by `ask_pending`, which needs Birdie running
        answers: dict[str, ApprovalAnswer] = {}
        for request in pending:
            answer = birdie.decided_answer(request)  # the engine decides; the TUI asks
            if answer is None:
                answer = await self.ask(request)
            if answer is None:
                return None
            answers[request.id] = answer
        return answers

    def _show_calls(self, pending: list[ApprovalRequest]) -> None:
        """The pending calls as running blocks at the end of the chat (the replayed ones
        show the engine's stand-in result), so the resumed turn's results land in them."""
        from birdie_tui.tui.widgets.chat.tool_block import ToolBlock

        chat = self.screen.chat
        ids = {request.id for request in pending}
        for block in list(chat.query(ToolBlock)):
            if block.call_id in ids:
                block.remove()
        for request in pending:
            chat.add_tool_call(request.id, request.name, dict(request.args))

    def _hold(self, ids: list[str], why: str | None) -> None:
        """Say on the calls' blocks why they are not running (None: they run now)."""
        from birdie_tui.tui.widgets.chat.tool_block import ToolBlock

        for block in self.screen.chat.query(ToolBlock):
            if block.call_id in ids:
                block.hold(why)

    def _left_pending(self, calls: list[Any]) -> None:
        """Calls left waiting for approval (`approval … pending` events, or the requests):
        their blocks say `not run` (nothing ran), one line says how to come back to them."""
        from birdie_tui.service.rows import ApprovalRequest

        chat = self.screen.chat
        self._hold([call.id for call in calls], NOT_RUN)
        self.waiting = [ApprovalRequest(id=call.id, name=call.name, args=dict(call.args or {}))
                        for call in calls]
        names = ", ".join(sorted({call.name for call in calls}))
        chat.add_notice(f"⏸ {names} is waiting for your approval. /approvals ask answers it "
                        "(so does opening this session again); a new message skips it.")

    # ------------------------------------------------------------------ cancel
    async def cancel(self) -> bool:
        """End the running turn. One waiting at an approval is left there (the step stays
        pending, asked again when the session is opened); any other is cancelled, and this
        waits until its history is repaired."""
        worker = self.worker
        if worker is None or worker.is_finished:
            return False
        dialog = self.dialog
        if dialog is not None:
            self._leaving = True
            dialog.leave()
            try:
                await asyncio.wait_for(worker.wait(), LEAVE_SECONDS)
            except Exception:  # noqa: BLE001 - held up or failed: cancel it as Esc would
                pass
            if worker.is_finished:
                return True
        worker.cancel()
        while not worker.is_finished:  # the engine repairs the history before it finishes
            await asyncio.sleep(0.01)
        return True
