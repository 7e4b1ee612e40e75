"""Every on-disk location birdie-tui uses, and validation of the names that become path parts.

The layout under ``$BIRDIE_HOME`` (default ``~/.birdie``) matches Birdie 0.1.5::

    sessions/<user>/checkpoints.db      LangGraph AsyncSqliteSaver (thread_id = session id)
    sessions/<user>/memory.json         user-scoped long-term memory
    sessions/<user>/<session-id>.json   session metadata
    sessions/<user>/<session-id>.deleted  empty tombstone: that id is never handed out again
    sessions/<user>/runs.db             the run log of scheduled agents (store.run_log)
    settings.json                       (override: $BIRDIE_SETTINGS_FILE)
    input_history.jsonl                 what was typed, across sessions (ctrl+r)
    logs/
    skills/                             user skills
"""

from __future__ import annotations

import getpass
import os
import re
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "BirdiePaths",
    "InvalidName",
    "default_user",
    "ensure_dir",
    "read_only_home",
    "validate_session_id",
    "validate_skill_name",
    "validate_user",
]

DIR_MODE = 0o700
_USER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
_SESSION_ID_RE = re.compile(r"^\d{4}-\d{2}-\d{2}_\d+$")


class InvalidName(ValueError):
    """A user name or session id that cannot safely become part of a path."""


def validate_user(user: str) -> str:
    """Return ``user`` unchanged if it is a safe directory name, else raise InvalidName."""
    if not isinstance(user, str) or not user:
        raise InvalidName("user name must not be empty")
    if not _USER_RE.fullmatch(user) or ".." in user:
        raise InvalidName(
            f"invalid user name {user!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (no '/' or '..')"
        )
    return user


def validate_session_id(session_id: str) -> str:
    """Return ``session_id`` unchanged if it looks like ``YYYY-MM-DD_N``, else raise InvalidName."""
    if not isinstance(session_id, str) or not _SESSION_ID_RE.fullmatch(session_id):
        raise InvalidName(
            f"invalid session id {session_id!r}: expected YYYY-MM-DD_N, e.g. 2026-04-29_1"
        )
    return session_id


def validate_skill_name(name: str) -> str:
    """Return ``name`` unchanged if it can name a new skill's folder (the rule of user names),
    else raise InvalidName."""
    if not isinstance(name, str) or not _USER_RE.fullmatch(name) or ".." in name:
        raise InvalidName(
            f"invalid skill name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (no spaces, '/' or '..')"
        )
    return name


def default_user(environ: Mapping[str, str] = os.environ) -> str:
    """$USER (or the login name), reduced to the allowed characters; "default" if nothing is left."""
    raw = environ.get("USER") or ""
    if not raw:
        try:
            raw = getpass.getuser()
        except Exception:  # no passwd entry / no env: fall back below
            raw = ""
    cleaned = re.sub(r"[^A-Za-z0-9._-]", "_", raw).lstrip("._-")[:64]
    cleaned = cleaned.replace("..", "_")
    try:
        return validate_user(cleaned)
    except InvalidName:
        return "default"


class BirdiePaths:
    """Resolves every path below one BIRDIE_HOME; only ``ensure_user_dir`` touches the disk."""

    def __init__(self, home: Path, *, settings_file: Path | None = None) -> None:
        self._home = Path(home).expanduser()
        self._settings_file = Path(settings_file).expanduser() if settings_file else None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> BirdiePaths:
        home = environ.get("BIRDIE_HOME") or "~/.birdie"
        settings = environ.get("BIRDIE_SETTINGS_FILE") or None
        return cls(Path(home).expanduser(), settings_file=Path(settings) if settings else None)

    def __repr__(self) -> str:
        return f"BirdiePaths({str(self._home)!r})"

    @property
    def home(self) -> Path:
        return self._home

    @property
    def sessions_root(self) -> Path:
        return self._home / "sessions"

    @property
    def settings_file(self) -> Path:
        return self._settings_file or self._home / "settings.json"

    @property
    def input_history_file(self) -> Path:
        return self._home / "input_history.jsonl"

    @property
    def logs_dir(self) -> Path:
        return self._home / "logs"

    @property
    def user_skills_dir(self) -> Path:
        return self._home / "skills"

    @property
    def user_agents_dir(self) -> Path:
        return self._home / "agents"

    def user_dir(self, user: str) -> Path:
        return self.sessions_root / validate_user(user)

    def checkpoints_db(self, user: str) -> Path:
        return self.user_dir(user) / "checkpoints.db"

    def runs_db(self, user: str) -> Path:
        return self.user_dir(user) / "runs.db"

    def memory_file(self, user: str) -> Path:
        return self.user_dir(user) / "memory.json"

    def session_file(self, user: str, session_id: str) -> Path:
        return self.user_dir(user) / f"{validate_session_id(session_id)}.json"

    def ensure_user_dir(self, user: str) -> Path:
        """Create ``sessions/<user>`` (and parents) with mode 0o700; return it."""
        path = self.user_dir(user)
        ensure_dir(path)
        return path


def ensure_dir(path: Path) -> None:
    """mkdir -p with mode 0o700 for every directory we create (existing ones are left alone)."""
    missing = []
    p = Path(path)
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:
            pass


def read_only_home(paths: BirdiePaths, user: str) -> str | None:
    """One line when `user`'s sessions cannot be written under the home (a read-only folder or
    file system), naming the folder and what to do; None when they can. Asked before the
    history database is opened: sqlite would only say "unable to open database file"."""
    home = paths.home
    target = paths.user_dir(user)
    existing = target
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    # os.access answers for this process (root, but not on a read-only mount) and, unlike a
    # trial write, leaves nothing behind.
    blocked = None if os.access(existing, os.W_OK | os.X_OK) else existing
    # Name the outermost read-only folder inside the home: a read-only home is said as such.
    while (blocked is not None and blocked != home and blocked.parent.is_relative_to(home)
           and not os.access(blocked.parent, os.W_OK | os.X_OK)):
        blocked = blocked.parent
    database = paths.checkpoints_db(user)
    if blocked is None and database.exists() and not os.access(database, os.W_OK):
        blocked = database
    if blocked is None:
        return None
    fix = "set BIRDIE_HOME to a writable folder (or make this one writable)"
    if blocked != home and home.is_relative_to(blocked):
        return f"BIRDIE_HOME {home} cannot be created: {blocked} is read-only; {fix}"
    where = "" if blocked == home else f" ({blocked} cannot be written)"
    return f"BIRDIE_HOME {home} is read-only{where}, so no session can be saved; {fix}"
