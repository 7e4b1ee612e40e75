"""Connections to the shared database: autocommit psycopg connections named after who opened
them, failures as one line, and one reconnect when a connection was dropped.

The ``application_name`` of every connection is ``birdie-tui <user>@<host> pid <pid>``: the
turn lock reads it back to say who holds a session (`turn_lock`), and ``pg_stat_activity``
shows a team's processes by it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import psycopg

from birdie_tui.network import network_timeout, quiet_client_libraries

from . import nul_text
from .urls import mask_url, where

__all__ = ["APP_PREFIX", "DatabaseUnavailable", "PgClient", "application_name", "connect"]

APP_PREFIX = "birdie-tui "
CONNECT_TIMEOUT = 10  # seconds: an unreachable host is said, not waited for forever
_NAME_BYTES = 63  # PostgreSQL cuts application_name there (NAMEDATALEN - 1)

T = TypeVar("T")


class DatabaseUnavailable(ConnectionError):
    """The database cannot be reached or used (one line, no password). A ConnectionError, so
    code that survives a read-only home (OSError) survives an unreachable database too."""

    user_facing = True  # already a sentence naming the database: shown as it is


def application_name(user: str) -> str:
    """``birdie-tui <user>@<host> pid <pid>``, the host shortened to fit PostgreSQL's limit."""
    tail = f" pid {os.getpid()}"
    head = f"{APP_PREFIX}{user}@"
    room = max(_NAME_BYTES - len(head.encode()) - len(tail), 1)
    host = socket.gethostname().encode()[:room].decode(errors="ignore")
    return f"{head}{host}{tail}"


def _one_line(exc: BaseException, url: str) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    password = None
    with contextlib.suppress(ValueError):
        from urllib.parse import urlsplit
        password = urlsplit(url).password
    if password:
        text = text.replace(password, "***")
    return text.replace(url, mask_url(url))


def connect(url: str, user: str = "birdie-tui") -> psycopg.Connection:
    """An autocommit connection to `url`; DatabaseUnavailable (one line) if it cannot be had."""
    quiet_client_libraries()
    try:
        conn = psycopg.connect(url, autocommit=True, application_name=application_name(user),
                               # str(): the text psycopg makes of the number anyway
                               connect_timeout=str(min(CONNECT_TIMEOUT, network_timeout())))
    except psycopg.Error as exc:
        raise DatabaseUnavailable(
            f"cannot connect to {where(url)}: {_one_line(exc, url)}") from None
    nul_text.register(conn)  # a NUL in a message is stored, not refused (see nul_text)
    return conn


def scalar(conn: psycopg.Connection[Any], query: str,
           params: tuple[object, ...] | None = None) -> Any:
    """The first column of the one row `query` returns (a function call, a RETURNING)."""
    row = conn.execute(query, params).fetchone()
    if row is None:  # only a statement that returns no row gets here: a bug, said plainly
        raise LookupError(f"no row from {query.split()[0]} statement")
    return row[0]


class PgClient:
    """One connection, opened on first use, shared by the threads of one store (one operation
    at a time). `run(work)` calls ``work(conn)``; when the connection turns out to have been
    dropped (a server restart, a network cut) it reconnects and runs `work` once more.
    ``on_connect(conn)`` runs on every new connection (migrations)."""

    def __init__(self, url: str, user: str,
                 on_connect: Callable[[psycopg.Connection], object] | None = None) -> None:
        self.url, self.user = url, user
        self._on_connect = on_connect
        self._conn: psycopg.Connection | None = None
        self._lock = threading.RLock()

    def _connection(self) -> psycopg.Connection:
        conn = self._conn
        if conn is None or conn.closed or conn.broken:
            self._drop()
            conn = connect(self.url, self.user)
            try:
                if self._on_connect is not None:
                    self._on_connect(conn)
            except psycopg.OperationalError as exc:  # the server went away meanwhile
                conn.close()
                raise DatabaseUnavailable(f"lost the connection to {where(self.url)}: "
                                          f"{_one_line(exc, self.url)}") from None
            except BaseException:
                conn.close()
                raise
            self._conn = conn
        return conn

    def _drop(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def run(self, work: Callable[[psycopg.Connection], T]) -> T:
        with self._lock:
            for attempt in (1, 2):
                conn = self._connection()
                try:
                    return work(conn)
                except psycopg.OperationalError as exc:
                    if not (conn.closed or conn.broken):
                        raise  # a lock timeout, a cancel: not the connection's fault
                    self._drop()
                    if attempt == 2:
                        raise DatabaseUnavailable(
                            f"lost the connection to {where(self.url)}: "
                            f"{_one_line(exc, self.url)}") from None
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[psycopg.Connection]:
        """The connection inside a transaction, for a block that cannot simply be re-run."""
        with self._lock:
            conn = self._connection()
            try:
                with conn.transaction():
                    yield conn
            except psycopg.OperationalError as exc:
                if conn.closed or conn.broken:
                    self._drop()
                    raise DatabaseUnavailable(
                        f"lost the connection to {where(self.url)}: "
                        f"{_one_line(exc, self.url)}") from None
                raise

    def close(self) -> None:
        with self._lock:
            self._drop()
