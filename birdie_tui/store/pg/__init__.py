"""Sessions and memory in a shared PostgreSQL database (``--database-url postgresql://...``).

Sync psycopg 3, no LangGraph (the checkpoints are `agent.pg_checkpoints`' business):
`connect` (connections, one-line failures), `migrations` (versioned schema, applied on open),
`sessions` (`PgSessionStore`, the twin of `store.sessions.SessionStore`), `turn_lock`
(advisory locks), `memory` (`PgMemoryStore`). Nothing here is imported unless a URL is set.
"""
