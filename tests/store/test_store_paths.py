import os
import stat
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from birdie_tui.store import (
    BirdiePaths,
    InvalidName,
    MemoryStore,
    SessionStore,
    default_user,
    validate_session_id,
    validate_user,
)

BAD_NAMES = ["../x", "a/b", "", "..", ".", "/etc", "-rf", "a\\b", "a b", "a..b", "x" * 65, "a\0b"]


def test_layout_matches_birdie(home: Path) -> None:
    """Home, session, memory, checkpoint, settings, logs and skills paths match Birdie's layout."""
    p = BirdiePaths(home)
    assert p.sessions_root == home / "sessions"
    assert p.user_dir("alice") == home / "sessions" / "alice"
    assert p.checkpoints_db("alice") == home / "sessions/alice/checkpoints.db"
    assert p.memory_file("alice") == home / "sessions/alice/memory.json"
    assert p.session_file("alice", "2026-04-29_1") == home / "sessions/alice/2026-04-29_1.json"
    assert p.settings_file == home / "settings.json"
    assert p.logs_dir == home / "logs"
    assert p.user_skills_dir == home / "skills"


def test_from_env(tmp_path: Path) -> None:
    """BIRDIE_HOME and BIRDIE_SETTINGS_FILE set the paths; the default is ~/.birdie, expanded."""
    p = BirdiePaths.from_env({"BIRDIE_HOME": str(tmp_path / "h")})
    assert p.home == tmp_path / "h"
    p = BirdiePaths.from_env({"BIRDIE_HOME": str(tmp_path), "BIRDIE_SETTINGS_FILE": str(tmp_path / "s.json")})
    assert p.settings_file == tmp_path / "s.json"
    default = BirdiePaths.from_env({})
    assert default.home == Path("~/.birdie").expanduser()
    assert "~" not in str(BirdiePaths.from_env({"BIRDIE_HOME": "~/elsewhere"}).home)


def test_ensure_user_dir_is_private(paths: BirdiePaths, home: Path) -> None:
    """The home, sessions and user folders are created 0700, and creating twice is harmless."""
    d = paths.ensure_user_dir("alice")
    assert d.is_dir()
    for created in (home, home / "sessions", d):
        assert stat.S_IMODE(created.stat().st_mode) == 0o700
    assert paths.ensure_user_dir("alice") == d  # idempotent


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_user_names_rejected(name: str) -> None:
    """Unsafe user names raise InvalidName."""
    with pytest.raises(InvalidName):
        validate_user(name)


@pytest.mark.parametrize("name", ["alice", "Bob.Smith", "u_1-x", "7", "a" * 64])
def test_good_user_names(name: str) -> None:
    """Plain user names of letters, digits, dots, dashes and underscores are accepted as-is."""
    assert validate_user(name) == name


@pytest.mark.parametrize("sid", ["../x", "a/b", "", "..", "2026-01-01", "2026-01-01_", "2026-01-01_1/../x", "x_1"])
def test_bad_session_ids_rejected(sid: str) -> None:
    """Session ids not of the form YYYY-MM-DD_N raise InvalidName."""
    with pytest.raises(InvalidName):
        validate_session_id(sid)


def test_invalid_name_is_value_error_with_clear_message() -> None:
    """InvalidName is a ValueError whose message says what a valid name looks like."""
    with pytest.raises(ValueError, match="invalid user name"):
        validate_user("../x")
    with pytest.raises(ValueError, match="YYYY-MM-DD_N"):
        validate_session_id("../x")


def test_traversal_never_writes_outside_home(tmp_path: Path) -> None:
    """Traversal names are rejected by every store entry point; nothing is written outside home."""
    home = tmp_path / "home"
    paths = BirdiePaths(home)
    before = set(tmp_path.rglob("*"))
    for bad in ["../x", "a/b", "", ".."]:
        with pytest.raises(InvalidName):
            SessionStore(paths, bad)
        with pytest.raises(InvalidName):
            MemoryStore(paths, bad)
        with pytest.raises(InvalidName):
            paths.ensure_user_dir(bad)
    store = SessionStore(paths, "alice")
    for bad in ["../x", "a/b", "", "..", "../../escape"]:
        for op in (store.load, store.delete, store.exists):
            with pytest.raises(InvalidName):
                op(bad)
    outside = {p for p in set(tmp_path.rglob("*")) - before if home not in p.parents and p != home}
    assert outside == set()


@given(st.text(max_size=80))
def test_any_accepted_user_stays_inside_sessions_root(name: str) -> None:
    """Any user name that is accepted maps to a normalised folder directly under sessions/."""
    paths = BirdiePaths(Path("/nonexistent/home"))
    try:
        d = paths.user_dir(name)
    except InvalidName:
        return
    assert d.parent == paths.sessions_root
    assert os.path.normpath(d) == str(d)


def test_default_user_sanitised() -> None:
    """The default user comes from $USER, made safe, falling back to 'default'."""
    assert default_user({"USER": "alice"}) == "alice"
    assert default_user({"USER": "alice smith"}) == "alice_smith"
    assert default_user({"USER": "../../etc"}) == "etc"
    assert default_user({"USER": "..."}) == "default"
    assert default_user({"USER": "///"}) == "default"
    assert validate_user(default_user({}))
