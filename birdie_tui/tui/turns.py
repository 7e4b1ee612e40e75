"""Running a turn from the screen: the worker that reads the front door's turn stream, the
approval dialog the engine waits on, and cancelling (Esc, a session switch)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from birdie_tui.agent.events import TokenStreamed, TurnCancelled, TurnError
from birdie_tui.text import one_line
from birdie_tui.tui.messages import EngineEvent

if TYPE_CHECKING:
    from birdie_tui.tui.main_screen import MainScreen


# Tokens are posted to the screen at most this often, joined: a fast model sends hundreds a
# second, and one message per token costs more than the frame that shows them.
TOKEN_BATCH_SECONDS = 1 / 60


class TurnRunner:
    def __init__(self, screen: MainScreen) -> None:
        self.screen = screen
        self.worker: Any = None
        self._tokens: list[str] = []  # streamed, not yet posted
        self._flush_handle: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        return self.worker is not None and not self.worker.is_finished

    def start(self, text: str) -> None:
        screen = self.screen
        screen.chat.add_user(text)
        screen.turn.reset()
        self.worker = screen.run_worker(self._run(text), group="agent-turn", exclusive=True,
                                        exit_on_error=False)
        screen.show_status()

    async def _run(self, text: str) -> None:
        screen = self.screen
        approver = approve_always if screen.app.args.auto_approve else self.ask_approval
        clean = False  # a finished turn's records all came live: no need to read them back
        try:
            async for event in screen.birdie.send(text, approver=approver):
                if event.type == "token":
                    self._buffer(event.text)
                else:
                    clean = clean or event.type == "done"
                    self._post_tokens()  # whatever came before this event, in order
                    screen.post_message(EngineEvent(event))
        except asyncio.CancelledError:
            self._post_tokens()
            screen.post_message(EngineEvent(TurnCancelled()))
            raise
        except Exception as exc:  # noqa: BLE001 - engine bugs become a block, not an exit
            self._post_tokens()
            screen.post_message(EngineEvent(TurnError(one_line(exc))))
        finally:
            self._post_tokens()
            screen.call_later(screen.show_status, False)  # after the turn's own events
            if not clean:  # cancelled or failed: the saved records are the truth
                screen.call_later(screen.sessions.reload_contexts)

    def _buffer(self, text: str) -> None:
        self._tokens.append(text)
        if self._flush_handle is None:
            loop = asyncio.get_running_loop()
            self._flush_handle = loop.call_later(TOKEN_BATCH_SECONDS, self._post_tokens)

    def _post_tokens(self) -> None:
        """The tokens buffered so far, as one `token` event."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
            self._flush_handle = None
        if self._tokens:
            text, self._tokens = "".join(self._tokens), []
            self.screen.post_message(EngineEvent(TokenStreamed(text)))

    async def ask_approval(self, call: dict[str, Any], skill: str) -> bool:
        """An approval is a future the modal resolves (the engine awaits it)."""
        from birdie_tui.tui.screens.approval import ApprovalScreen

        decided: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        dialog = ApprovalScreen(call["name"], skill, dict(call.get("args") or {}))

        def resolve(result: bool | None) -> None:
            if not decided.done():
                decided.set_result(bool(result))

        self.screen.app.push_screen(dialog, resolve)
        try:
            return await decided
        except asyncio.CancelledError:
            if dialog.is_active:
                dialog.dismiss(False)
            raise

    async def cancel(self) -> bool:
        """Cancel the running turn and wait until its history is repaired."""
        worker = self.worker
        if worker is None or worker.is_finished:
            return False
        worker.cancel()
        while not worker.is_finished:  # the engine repairs the history before it finishes
            await asyncio.sleep(0.01)
        return True


async def approve_always(call: dict[str, Any], skill: str) -> bool:
    return True
