"""What keeps a session consistent when processes share it and die at any moment (a mixin of
`Engine`).

- One turn at a time per session, across processes: `session_turn` holds the session's turn
  lock (`store.session_lock`) for a whole turn. A second process waits, saying for whom
  (`on_wait`), up to `BIRDIE_SESSION_WAIT` seconds (default 300), then gives up with one line.
  Once it holds the lock it re-reads the session JSON, and when the history changed under it
  (another process ran a turn, or died in one) it counts what that left uncounted and marks the
  history for a repair check.
- Every checkpoint this engine writes is followed, on the spot, by `_after_put`: the thread's
  older checkpoints are pruned (`store.checkpoint_prune`: storage stays linear) and the session
  JSON counts what the checkpoint added (`accounting.settle`: counts agree with the history
  whatever moment a kill comes at).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from birdie_tui.agent.accounting import TokenAccount
from birdie_tui.skills.policy import SkillPolicy

WAIT_ENV = "BIRDIE_SESSION_WAIT"
DEFAULT_WAIT = 300.0
POLL_SECONDS = 0.05


def _tell_stderr(message: str) -> None:
    print(f"birdie-tui: {message}", file=sys.stderr, flush=True)


class SessionGuard:
    """Needs from the engine: `session`, `sessions`, `policy`, `options`, `tokens`,
    `messages()`, `_head_checkpoint()`, `_saver`, `_checkpoints`."""

    session: Any
    sessions: Any
    policy: SkillPolicy
    options: Any
    needs_repair: bool
    _saver: Any
    _checkpoints: Any  # agent.sqlite_checkpoints / agent.pg_checkpoints
    _history_cache: Any
    tokens: TokenAccount
    # Told once when a turn has to wait for another process (the TUI may show it instead).
    on_wait: Callable[[str], None] = staticmethod(_tell_stderr)
    prune_checkpoints = True  # bench/storage.py turns it off to measure the difference
    # The latest checkpoint this engine wrote or read for the open session: a different one
    # at the start of a turn means another process changed the history meanwhile.
    _known_head: str | None = None
    _settled_through: str | None = None  # the last message id counted by this engine
    _lock_held = False  # this engine holds the open session's turn lock

    messages: Any  # SessionOps, like `_head_checkpoint`
    _head_checkpoint: Any

    # ----------------------------------------------------------------- the turn lock
    @contextlib.asynccontextmanager
    async def session_turn(self) -> AsyncIterator[str | None]:
        """Hold the open (saved) session's turn lock for the block. Gives None once held, the
        session JSON and history caught up; or a one-line reason the turn cannot run (waited
        too long, the session was deleted), the lock not held."""
        meta = self.session
        lock = self.sessions.turn_lock(meta.id)
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
        """True when this engine may rewrite the open session's history now (a repair): it
        holds the turn lock, or takes it without waiting (for the block). False while another
        process runs a turn on the session."""
        if self._lock_held:
            yield True
            return
        lock = self.sessions.turn_lock(self.session.id)
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
        raw = str(self.options.environ.get(WAIT_ENV, "") or "").strip()
        try:
            return max(float(raw), 0.0) if raw else DEFAULT_WAIT
        except ValueError:
            return DEFAULT_WAIT

    async def _take(self, lock: Any, session_id: str) -> str | None:
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
            self.on_wait(f"waiting for {who}, which is running a turn on session {session_id}")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + patience
        while not lock.try_acquire():
            if loop.time() >= deadline:
                return (f"session {session_id} is busy: {who} is running a turn on it "
                        f"(waited {patience:g} s; {WAIT_ENV} sets how long)")
            await asyncio.sleep(POLL_SECONDS)
        return None

    async def _catch_up(self, meta: Any) -> str | None:
        """Under the lock: the session as other processes left it (JSON, then history)."""
        fresh = self.sessions.load(meta.id)
        if fresh is None:
            return f"session {meta.id} no longer exists (deleted by another process?)"
        meta.absorb(fresh)
        grants = SkillPolicy(meta.enabled_skills, meta.disabled_skills)
        if (grants.enabled_names, grants.disabled_names) != (
                self.policy.enabled_names, self.policy.disabled_names):
            self.policy = grants  # toggled in another process meanwhile
        self.tokens.lock_taken()
        head = await self._head_checkpoint(meta.id)
        if head != self._known_head:
            self.needs_repair = True  # another process may have died mid-turn
            self._history_cache = None
            self._settle(await self.messages())
            self._known_head = head
        return None

    # ----------------------------------------------------------------- checkpoints
    def _watch_checkpoints(self) -> None:
        """Run `_after_put` after each checkpoint the saver writes (graph steps, repairs,
        retries, compaction: all go through `aput`)."""
        saver = self._saver
        put = saver.aput

        async def aput(config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
            try:
                saved = await put(config, checkpoint, metadata, versions)
            except BaseException:
                await self._checkpoints.discard()  # nothing of a failed write stays visible
                raise
            await self._after_put(config, checkpoint, saved)
            return saved

        saver.aput = aput

    async def _after_put(self, config: Any, checkpoint: Any, saved: Any) -> None:
        meta = self.session
        conf = config.get("configurable", {})
        if meta is None or not meta.saved or conf.get("thread_id") != meta.id \
                or conf.get("checkpoint_ns", ""):
            return
        head = saved["configurable"]["checkpoint_id"]
        self._known_head = head
        messages = (checkpoint.get("channel_values") or {}).get("messages") or []
        # Counting needs the lock (a turn, a repair): a write without it (compaction) may
        # stand on a history another process has moved past.
        if self._lock_held and messages and messages[-1].id != self._settled_through:
            self._settle(messages)  # first, and with no await: a cancel cannot cut it short
        if self.prune_checkpoints:
            await self._prune(meta.id, head)

    async def _prune(self, thread_id: str, head: str) -> None:
        """Drop the thread's checkpoints older than `head` (best effort: never fails a turn)."""
        await self._checkpoints.prune(thread_id, head)

    def _settle(self, messages: Sequence[Any]) -> None:
        """Count in the session JSON what `messages` (the checkpointed history, read under
        the session's turn lock) adds (`TokenAccount.settle`)."""
        meta = self.session
        if meta is None or not meta.saved:
            return
        self.tokens.settle(meta, messages)
        self._settled_through = messages[-1].id if messages else None
