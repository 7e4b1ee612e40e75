"""One open session's checkpointed history, kept consistent when processes share it and die at
any moment.

- Reading it back costs as much as the history is long, so it is read only when needed:
  `messages` caches it by the thread's latest checkpoint id, and `needs_repair` says whether
  the history may be invalid (just opened, a turn that did not end cleanly, a repair that
  failed). A turn repairs first only then (`repair_session`).
- One turn at a time per session, across processes: `session_turn` holds the session's turn
  lock (`store.session_lock`) for a whole turn. A second process waits, saying for whom (the
  host's `on_wait`), up to `BIRDIE_SESSION_WAIT` seconds (default 300), then gives up with one
  line. Once it holds the lock it re-reads the session JSON, and when the history changed under
  it (another process ran a turn, or died in one) it counts what that left uncounted and marks
  the history for a repair check.
- Every checkpoint written on the session's thread is followed, on the spot, by `after_put`
  (the host dispatches it): the thread's older checkpoints are pruned (`store.checkpoint_prune`:
  storage stays linear) and the session JSON counts what the checkpoint added
  (`TokenAccount.settle`: counts agree with the history whatever moment a kill comes at).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langgraph.types import StateSnapshot

from birdie_tui.agent.accounting import TokenAccount, counted_through
from birdie_tui.agent.graph import replace_all
from birdie_tui.agent.history import repair_history
from birdie_tui.agent.host import AgentHost, Checkpoint, Config
from birdie_tui.agent.session_state import SessionState, thread_config
from birdie_tui.skills.policy import SkillPolicy
from birdie_tui.store import SessionMeta
from birdie_tui.store.protocols import TurnLockProtocol

INTERRUPTED_MARK = "*[interrupted]*"
WAIT_ENV = "BIRDIE_SESSION_WAIT"
DEFAULT_WAIT = 300.0
POLL_SECONDS = 0.05


class SessionHistory:
    def __init__(self, state: SessionState, host: AgentHost, tokens: TokenAccount):
        self._state = state
        self._host = host
        self._tokens = tokens
        # The open session's history may be invalid: repair it before the next turn.
        self.needs_repair = True
        # The latest checkpoint this session wrote or read: a different one at the start of a
        # turn means another process changed the history meanwhile.
        self._known_head: str | None = None
        self._settled_through: str | None = None  # the last message id counted here
        self._lock_held = False  # this session holds its turn lock
        self._cache: tuple[str, str | None, list[BaseMessage]] | None = None

    def opened(self) -> None:
        """Another session was opened: a history not checked yet, nothing known of it."""
        self.needs_repair = True
        self._known_head = self._settled_through = None

    def config(self, session_id: str | None = None) -> dict[str, Any]:
        sid = session_id or self._state.require().id
        return thread_config(sid, self._host.options.max_tool_calls)

    # ----------------------------------------------------------------- reading
    async def messages(self, session_id: str | None = None) -> list[BaseMessage]:
        """The history of `session_id` (default: the open session; [] while it is unsaved)."""
        if self._state.is_unsaved(session_id):
            return []
        sid = session_id or self._state.require().id
        head = await self.head_checkpoint(sid)
        hit = self._cache
        if head is not None and hit is not None and hit[:2] == (sid, head):
            return list(hit[2])
        state = await self._host.graph.aget_state(self.config(session_id))
        history = _messages_of(state)
        self._cache = (sid, head, history)
        return list(history)

    async def head_checkpoint(self, thread_id: str) -> str | None:
        """The id of the thread's latest checkpoint (one indexed query): while it is the same,
        the history read last time is still the history, so opening a session (transcript,
        provenance, context panel) deserialises it once, not four times."""
        return await self._host.checkpoints.head(thread_id)

    async def history_head(self) -> tuple[str | None, bool]:
        """(the open session's latest checkpoint id, whether this session wrote or read it
        last): a head it does not know means another process changed the history."""
        head = await self.head_checkpoint(self._state.require().id)
        return head, head == self._known_head

    def forget_head(self) -> None:
        """The thread was dropped by this session (its own change, not another process's)."""
        self._known_head = None

    # What the approval desk reads and writes (its `StepHistory`).
    async def step_state(self, session_id: str | None = None) -> StateSnapshot:
        return await self._host.graph.aget_state(self.config(session_id))

    async def close_step(self, results: list[BaseMessage]) -> None:
        await self._host.graph.aupdate_state(self.config(), {"messages": results},
                                             as_node="tools")

    async def no_interrupt_written(self, session_id: str) -> bool:
        """True when the thread's latest checkpoint surely has no interrupt pending (one
        indexed query); False when it may, or cannot be told."""
        return await self._host.no_interrupt_written(session_id)

    # ----------------------------------------------------------------- the turn lock
    @contextlib.asynccontextmanager
    async def session_turn(self) -> AsyncIterator[str | None]:
        """Hold the open (saved) session's turn lock for the block. Gives None once held, the
        session JSON and history caught up; or a one-line reason the turn cannot run (waited
        too long, the session was deleted), the lock not held."""
        meta = self._state.require()
        lock = self._host.sessions.turn_lock(meta.id)
        problem = await self._take(lock, meta.id)
        if problem is None:
            try:
                problem = await self._catch_up(meta)
            except BaseException:
                lock.release()
                raise
        if problem is not None:
            lock.release()
            yield problem
            return
        self._lock_held = True
        try:
            yield None
        finally:
            self._lock_held = False
            lock.release()

    @contextlib.asynccontextmanager
    async def history_writable(self) -> AsyncIterator[bool]:
        """True when this session may rewrite its history now (a repair): it holds the turn
        lock, or takes it without waiting (for the block). False while another process runs
        a turn on the session."""
        if self._lock_held:
            yield True
            return
        lock = self._host.sessions.turn_lock(self._state.require().id)
        try:
            free = lock.try_acquire()
        except OSError:  # cannot lock at all (a read-only home): as before locks existed
            free = True
        self._lock_held = free
        try:
            yield free
        finally:
            self._lock_held = False
            lock.release()

    def _patience(self) -> float:
        raw = str(self._host.options.environ.get(WAIT_ENV, "") or "").strip()
        try:
            return max(float(raw), 0.0) if raw else DEFAULT_WAIT
        except ValueError:
            return DEFAULT_WAIT

    async def _take(self, lock: TurnLockProtocol, session_id: str) -> str | None:
        """Take `lock`, waiting (cancellable) while another process runs a turn."""
        try:
            if lock.try_acquire():
                return None
        except OSError as exc:
            return f"cannot lock session {session_id}: {exc}"
        holder = lock.holder()  # a pid (a file lock), or "user@host pid N" (Postgres)
        who = (f"process {holder}" if str(holder).isdigit() else str(holder)) if holder \
            else "another process"
        patience = self._patience()
        if patience > 0:
            self._host.on_wait(
                f"waiting for {who}, which is running a turn on session {session_id}")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while not lock.try_acquire():
            if loop.time() >= deadline:
                return (f"session {session_id} is busy: {who} is running a turn on it "
                        f"(waited {patience:g} s; {WAIT_ENV} sets how long)")
            await asyncio.sleep(POLL_SECONDS)
        return None

    async def _catch_up(self, meta: SessionMeta) -> str | None:
        """Under the lock: the session as other processes left it (JSON, then history)."""
        fresh = self._host.sessions.load(meta.id)
        if fresh is None:
            return f"session {meta.id} no longer exists (deleted by another process?)"
        meta.absorb(fresh)
        grants = SkillPolicy(meta.enabled_skills, meta.disabled_skills)
        policy = self._state.policy
        if (grants.enabled_names, grants.disabled_names) != (
                policy.enabled_names, policy.disabled_names):
            self._state.policy = grants  # toggled in another process meanwhile
        self._tokens.lock_taken()
        head = await self.head_checkpoint(meta.id)
        if head != self._known_head:
            self.needs_repair = True  # another process may have died mid-turn
            self._cache = None
            self.settle(await self.messages())
            self._known_head = head
        return None

    # ----------------------------------------------------------------- checkpoints
    def owns(self, thread_id: str) -> bool:
        """The thread is this session's history. An unsaved session owns none: its
        provisional id may be the one another open session was just saved under."""
        session = self._state.session
        return session is not None and session.saved and session.id == thread_id

    async def after_put(self, config: Config, checkpoint: Checkpoint, saved: Config) -> None:
        meta = self._state.session
        conf = config.get("configurable", {})
        if meta is None or not meta.saved or conf.get("thread_id") != meta.id \
                or conf.get("checkpoint_ns", ""):
            return
        head = saved["configurable"]["checkpoint_id"]
        self._known_head = head
        messages = (checkpoint.get("channel_values") or {}).get("messages") or []
        # Counting needs the lock (a turn, a repair): a write without it (compaction) may
        # stand on a history another process has moved past.
        if self._lock_held and messages and counted_through(messages) != self._settled_through:
            self.settle(messages)  # first, and with no await: a cancel cannot cut it short
        await self._host.prune(meta.id, head)

    def settle(self, messages: Sequence[BaseMessage]) -> None:
        """Count in the session JSON what `messages` (the checkpointed history, read under
        the session's turn lock) adds (`TokenAccount.settle`)."""
        meta = self._state.session
        if meta is None or not meta.saved:
            return
        self._tokens.settle(meta, messages)
        self._settled_through = counted_through(messages)

    # ----------------------------------------------------------------- repair
    async def repair_session(self, partial_reply: str | None = None) -> bool:
        """Make the open session's history valid in place (after a cancel, crash or error).

        With `partial_reply` (text streamed before an interruption) the turn is closed by an
        AI message keeping what arrived, marked as interrupted.
        """
        return (await self.repaired_history(partial_reply))[1]

    async def repaired_history(self, partial_reply: str | None = None
                               ) -> tuple[list[BaseMessage], bool]:
        """`repair_session`, returning (the history as it now stands, whether it changed):
        one read of the checkpoint instead of a repair and then a read. Clears
        `needs_repair` once a saved session's history is known to be valid. Done under the
        session's turn lock (this turn's, or taken for the moment): while another process runs
        a turn on the session, its history is only read (that turn keeps it valid and counted)
        and `needs_repair` stays set."""
        if not self._state.saved:
            return [], False  # no history yet
        async with self.history_writable() as writable:
            return await self._repair_now(partial_reply, writable)

    async def _repair_now(self, partial_reply: str | None, writable: bool
                          ) -> tuple[list[BaseMessage], bool]:
        config = self.config()
        thread = config["configurable"]["thread_id"]
        head = await self.head_checkpoint(thread)
        state = await self._host.graph.aget_state(config)
        history = _messages_of(state)
        # The read serves the transcript and context panel that follow an open, too.
        self._cache = (thread, head, history)
        if not writable:
            return history, False
        self._known_head = head
        self.settle(history)  # what a process killed in the middle of a step left uncounted
        if state is not None and state.interrupts:
            # A step waiting for approval (valid: its calls have stand-in answers) stays as it
            # is, to be asked again or answered by `--approve`/`--deny`.
            self.needs_repair = False
            return history, False
        fixed, changed = repair_history(history)
        ends_open = bool(fixed) and not isinstance(fixed[-1], AIMessage)
        if partial_reply is not None and ends_open:
            text = f"{partial_reply.rstrip()}\n\n{INTERRUPTED_MARK}" if partial_reply.strip() \
                else INTERRUPTED_MARK
            fixed.append(AIMessage(content=text))
            changed = True
        if changed or (state is not None and state.next):
            await self._host.graph.aupdate_state(config, {"messages": replace_all(fixed)},
                                                 as_node="agent")
        self.needs_repair = False
        return fixed, changed


def _messages_of(state: StateSnapshot | None) -> list[BaseMessage]:
    return list(state.values.get("messages", [])) if state and state.values else []


__all__ = ["DEFAULT_WAIT", "INTERRUPTED_MARK", "SessionHistory", "WAIT_ENV"]
