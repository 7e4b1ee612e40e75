"""The shared history database: LangGraph's PostgreSQL checkpointer (``AsyncPostgresSaver`` on a
``psycopg_pool.AsyncConnectionPool``) plus the few indexed queries the engine runs beside it.
The twin of `agent.sqlite_checkpoints` (`saver`, `head`, `prune`, `no_interrupt_written`,
`aclose`).

Pruning keeps storage linear, as `store.checkpoint_prune` does for sqlite: LangGraph writes a
checkpoint per graph step, and only a thread's latest one (with its pending writes, and the
channel blobs it references) is ever read again. Older checkpoints, their writes, and blobs no
remaining checkpoint references go after each checkpoint the engine writes.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from birdie_tui.network import network_timeout, quiet_client_libraries
from birdie_tui.store.pg import nul_text
from birdie_tui.store.pg.connect import CONNECT_TIMEOUT, DatabaseUnavailable, application_name
from birdie_tui.store.pg.urls import mask_url, where

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

__all__ = ["PgCheckpoints", "open_pg_checkpoints"]

POOL_MAX = 4
SETUP_LOCK = 0x6B1D1E  # with 1: the checkpointer's setup (store.pg.migrations uses 0)
_HEAD = ("SELECT max(checkpoint_id) AS head FROM checkpoints "
         "WHERE thread_id = %s AND checkpoint_ns = ''")
# (thread_id, head) each: everything of the thread's root namespace older than the head, and
# the blobs no checkpoint left references (a newer checkpoint's blobs stay: it references them).
PRUNE_THREAD = (
    "DELETE FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = '' "
    "AND checkpoint_id < %s",
    "DELETE FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' AND checkpoint_id < %s",
    "DELETE FROM checkpoint_blobs AS b WHERE b.thread_id = %s AND b.checkpoint_ns = '' "
    "AND %s::text IS NOT NULL AND NOT EXISTS (SELECT 1 FROM checkpoints AS c, "
    "jsonb_each_text(c.checkpoint -> 'channel_versions') AS v WHERE c.thread_id = b.thread_id "
    "AND c.checkpoint_ns = b.checkpoint_ns AND v.key = b.channel AND v.value = b.version)",
)
_INTERRUPT = ("SELECT 1 FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = '' "
              "AND channel = '__interrupt__' AND checkpoint_id = (" + _HEAD + ") LIMIT 1")


class PgCheckpoints:
    def __init__(self, pool: Any, saver: Any) -> None:
        self.pool, self.saver = pool, saver

    async def head(self, thread_id: str) -> str | None:
        """The id of the thread's latest checkpoint (one indexed query); None if unknown."""
        try:
            async with self.pool.connection() as conn:
                row = await (await conn.execute(_HEAD, (thread_id,))).fetchone()
        except Exception:  # noqa: BLE001 - no cache is always correct
            return None
        return row["head"] if row else None

    async def prune(self, thread_id: str, head: str) -> None:
        """Drop the thread's checkpoints and writes older than `head`, and blobs nothing
        references any more (best effort: what stays goes with the next checkpoint)."""
        try:
            async with self.pool.connection() as conn, conn.transaction():
                for statement in PRUNE_THREAD:
                    await conn.execute(statement, (thread_id, head))
        except Exception:  # noqa: BLE001 - pruning never fails a turn
            pass

    async def discard(self) -> None:
        """Nothing to roll back: each write runs in its own transaction, undone on failure."""

    async def no_interrupt_written(self, thread_id: str) -> bool:
        """True when the thread's latest checkpoint surely has no interrupt pending; False
        when it may, or cannot be told."""
        try:
            async with self.pool.connection() as conn:
                row = await (await conn.execute(_INTERRUPT, (thread_id, thread_id))).fetchone()
        except Exception:  # noqa: BLE001 - not sure: read the state
            return False
        return row is None

    async def aclose(self) -> None:
        pool, self.pool = self.pool, None
        if pool is not None:
            await pool.close()


async def open_pg_checkpoints(url: str, user: str = "birdie-tui") -> PgCheckpoints:
    """The checkpointer on `url`, set up (LangGraph's tables created or migrated).
    DatabaseUnavailable (one line) when the database cannot be reached or set up."""
    from psycopg import AsyncConnection
    from psycopg import Error as PsycopgError
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool, PoolTimeout

    kwargs: dict[str, Any] = {"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row,
              "application_name": application_name(user), "connect_timeout": CONNECT_TIMEOUT}
    try:  # one plain connection first: a refused one is said at once, with its reason
        await (await AsyncConnection.connect(url, **kwargs)).close()
    except (PsycopgError, OSError) as exc:
        raise DatabaseUnavailable(f"cannot connect to {where(url)}: {_line(exc, url)}") from None
    quiet_client_libraries()  # a stopped database: one line from us, not the pool's retries
    wait = network_timeout()
    pool = AsyncConnectionPool(url, min_size=1, max_size=POOL_MAX, open=False,
                               timeout=wait, reconnect_timeout=wait, kwargs=kwargs,
                               configure=_configure)
    try:
        await pool.open(wait=True, timeout=wait)
        saver = _guarded(url)(pool)
        # LangGraph's setup is not safe against itself: one process at a time sets up.
        async with pool.connection() as conn:
            await conn.execute("SELECT pg_advisory_lock(%s, 1)", (SETUP_LOCK,))
            try:
                await saver.setup()
            finally:
                await conn.execute("SELECT pg_advisory_unlock(%s, 1)", (SETUP_LOCK,))
    except (PoolTimeout, PsycopgError, OSError) as exc:
        with contextlib.suppress(Exception):
            await pool.close()
        raise DatabaseUnavailable(
            f"cannot open the history in {where(url)}: {_line(exc, url)}") from None
    except BaseException:
        with contextlib.suppress(Exception):
            await pool.close()
        raise
    return PgCheckpoints(pool, saver)


def _guarded(url: str) -> type[AsyncPostgresSaver]:
    """The saver, its reads and writes failing as one `DatabaseUnavailable` line naming the
    database (not `OperationalError: consuming input failed`) when the database goes away."""
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from psycopg import OperationalError
    from psycopg_pool import PoolTimeout

    @contextlib.asynccontextmanager
    async def said() -> Any:
        try:
            yield
        except (OperationalError, PoolTimeout) as exc:
            raise DatabaseUnavailable(
                f"lost the connection to {where(url)}: {_line(exc, url)}") from None

    class GuardedSaver(AsyncPostgresSaver):
        async def aget_tuple(self, config: Any) -> Any:
            async with said():
                return await super().aget_tuple(config)

        async def aput(self, *args: Any, **kwargs: Any) -> Any:
            async with said():
                return await super().aput(*args, **kwargs)

        async def aput_writes(self, *args: Any, **kwargs: Any) -> Any:
            async with said():
                return await super().aput_writes(*args, **kwargs)

    return GuardedSaver


async def _configure(conn: Any) -> None:
    # A NUL in a message is stored, not refused with DataError (see store.pg.nul_text).
    nul_text.register(conn)


def _line(exc: BaseException, url: str) -> str:
    return " ".join(str(exc).split()).replace(url, mask_url(url)) or type(exc).__name__
