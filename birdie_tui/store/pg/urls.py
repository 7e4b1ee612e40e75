"""Database URLs as people may see them: the password masked, the place named. No psycopg."""

from __future__ import annotations

from urllib.parse import urlsplit

__all__ = ["SCHEMES", "is_postgres_url", "mask_url", "where"]

SCHEMES = ("postgresql", "postgres")


def is_postgres_url(url: str) -> bool:
    return url.partition("://")[0].lower() in SCHEMES and "://" in url


def mask_url(url: str) -> str:
    """`url` with its password (if any) replaced by ``***``; the user name stays."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unparsable URL>"
    if parts.password is None:
        if "@" in parts.netloc and ":" in parts.netloc.rpartition("@")[0]:
            return parts._replace(netloc="***@" + parts.netloc.rpartition("@")[2]).geturl()
        return url
    userinfo, _, hostinfo = parts.netloc.rpartition("@")
    user = userinfo.partition(":")[0]
    return parts._replace(netloc=f"{user}:***@{hostinfo}").geturl()


def where(url: str) -> str:
    """``database NAME on HOST:PORT`` for messages (no credentials)."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or "localhost (socket)"
        port = parts.port or 5432
    except ValueError:
        return "the database (unparsable URL)"
    db = parts.path.lstrip("/") or parts.username or "(default)"
    return f"database {db!r} on {host}:{port}"
