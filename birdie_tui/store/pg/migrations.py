"""The schema of the shared database, versioned: ``birdie_schema_migrations`` lists what is
applied; `migrate` applies what is missing when a store opens, under a transaction-level
advisory lock, so two processes opening a new database at once apply each step once.

A database migrated by a newer birdie-tui (a version this code does not know) is refused with
a clear message and nothing written: an older program must not write rows it cannot read.
LangGraph's checkpoint tables are not ours: `AsyncPostgresSaver.setup()` keeps them.
"""

from __future__ import annotations

import psycopg

from .connect import DatabaseUnavailable, scalar
from .urls import where

__all__ = ["LATEST", "MIGRATIONS", "SchemaTooNew", "migrate"]

# pg_advisory_xact_lock(MIGRATION_LOCK, 0): the first key is ours, the second unused.
MIGRATION_LOCK = 0x6B1D1E  # "birdie"

MIGRATIONS: list[tuple[int, str, str]] = [
    (1, "sessions, id counters, tombstones, memory", """
CREATE TABLE birdie_sessions (
    id            text PRIMARY KEY,
    day           date NOT NULL,
    n             integer NOT NULL,
    user_id       text NOT NULL,
    created_at    text NOT NULL,
    updated_at    text NOT NULL,
    turns         integer NOT NULL DEFAULT 0,
    title         text,
    input_tokens  bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    last_user     text NOT NULL DEFAULT '',
    last_host     text NOT NULL DEFAULT '',
    meta          jsonb NOT NULL,
    UNIQUE (day, n)
);
CREATE INDEX birdie_sessions_owner ON birdie_sessions (user_id, day DESC, n DESC);
-- The highest N handed out per day: ids are allocated here, never reused.
CREATE TABLE birdie_session_days (
    day    date PRIMARY KEY,
    last_n integer NOT NULL
);
CREATE TABLE birdie_deleted_sessions (
    id         text PRIMARY KEY,
    deleted_at timestamptz NOT NULL DEFAULT now(),
    deleted_by text NOT NULL DEFAULT ''
);
CREATE TABLE birdie_memory (
    seq       bigserial PRIMARY KEY,
    user_id   text NOT NULL,
    id        text NOT NULL,
    timestamp text NOT NULL,
    content   text NOT NULL,
    UNIQUE (user_id, id)
);
"""),
    (2, "the run log of scheduled agents, and one claim per trigger firing", """
CREATE TABLE birdie_runs (
    run_id        text PRIMARY KEY,
    trigger_key   text NOT NULL,
    agent         text,
    trigger       text NOT NULL,
    user_id       text NOT NULL,
    status        text NOT NULL,
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    fire_time     timestamptz,
    session_id    text,
    changed_paths jsonb NOT NULL DEFAULT '[]',
    input_tokens  bigint NOT NULL DEFAULT 0,
    output_tokens bigint NOT NULL DEFAULT 0,
    cost          double precision,
    error         text,
    answer        text,
    host          text NOT NULL DEFAULT ''
);
CREATE INDEX birdie_runs_started ON birdie_runs (user_id, started_at DESC);
CREATE INDEX birdie_runs_trigger ON birdie_runs (user_id, trigger_key, started_at DESC);
CREATE INDEX birdie_runs_session ON birdie_runs (user_id, session_id);
-- One row per firing: the primary key is what lets exactly one scheduler run it.
CREATE TABLE birdie_run_claims (
    user_id     text NOT NULL,
    trigger_key text NOT NULL,
    fire_time   timestamptz NOT NULL,
    owner       text NOT NULL,
    claimed_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, trigger_key, fire_time)
);
"""),
]
LATEST = max(version for version, _, _ in MIGRATIONS)

_TABLE = """CREATE TABLE IF NOT EXISTS birdie_schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now())"""


class SchemaTooNew(DatabaseUnavailable):
    """The database was migrated by a newer birdie-tui: not usable by this one."""


def _applied(conn: psycopg.Connection) -> set[int] | None:
    """Versions applied so far; None when there is no migrations table yet."""
    if scalar(conn, "SELECT to_regclass('birdie_schema_migrations')") is None:
        return None
    return {row[0] for row in conn.execute("SELECT version FROM birdie_schema_migrations")}


def _refuse_newer(applied: set[int], url: str) -> None:
    unknown = sorted(v for v in applied if v > LATEST)
    if unknown:
        raise SchemaTooNew(
            f"{where(url)} has schema version {unknown[-1]}, newer than this birdie-tui "
            f"knows ({LATEST}): upgrade birdie-tui to use it")


def migrate(conn: psycopg.Connection, url: str = "") -> list[int]:
    """Bring the schema up to `LATEST`; returns the versions applied now ([] when up to date).
    Raises SchemaTooNew (nothing written) for a newer database."""
    applied = _applied(conn)
    if applied is not None:
        _refuse_newer(applied, url)
        if {v for v, _, _ in MIGRATIONS} <= applied:
            return []  # the common case: no lock, two reads
    done: list[int] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, 0)", (MIGRATION_LOCK,))
        conn.execute(_TABLE)
        applied = _applied(conn) or set()
        _refuse_newer(applied, url)  # another process may have moved on meanwhile
        for version, name, sql in MIGRATIONS:
            if version in applied:
                continue
            conn.execute(sql)
            conn.execute("INSERT INTO birdie_schema_migrations (version, name) VALUES (%s, %s)",
                         (version, name))
            done.append(version)
    return done
