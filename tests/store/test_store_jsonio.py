import json
import stat
from pathlib import Path

from birdie_tui.store import read_json, write_json_atomic


def test_write_is_private_and_leaves_no_temp_files(tmp_path: Path) -> None:
    """Atomic JSON writes leave a 0600 file and no temporary files behind."""
    target = tmp_path / "x.json"
    write_json_atomic(target, {"a": 1, "ü": "ö"})
    write_json_atomic(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_missing_file_is_none_without_warning(tmp_path: Path) -> None:
    """Reading a missing JSON file gives None and no warning."""
    warnings: list[str] = []
    assert read_json(tmp_path / "nope.json", on_corrupt=warnings.append) is None
    assert warnings == []


def test_corrupt_file_is_moved_aside_with_warning(tmp_path: Path) -> None:
    """Unparsable JSON is moved aside intact and a warning names where it went."""
    bad = tmp_path / "2026-01-01_1.json"
    bad.write_text('{"id": "2026-01-01_1", ')
    warnings: list[str] = []
    assert read_json(bad, on_corrupt=warnings.append, label="session file") is None
    assert not bad.exists()
    [moved] = list(tmp_path.glob("2026-01-01_1.json.corrupt-*"))
    assert moved.read_text() == '{"id": "2026-01-01_1", '  # nothing lost
    [msg] = warnings
    assert msg.startswith("session file 2026-01-01_1.json was corrupt")
    assert moved.name in msg and "starting fresh" in msg


def test_wrong_top_level_type_is_corrupt(tmp_path: Path) -> None:
    """JSON that is not an object, or not text, counts as corrupt; each gets its own aside name."""
    f = tmp_path / "m.json"
    warnings: list[str] = []
    for content in ("[1, 2]", "null", '"text"', "\xff\xfe".encode("latin-1")):
        if isinstance(content, bytes):
            f.write_bytes(content)
        else:
            f.write_text(content)
        assert read_json(f, on_corrupt=warnings.append) is None
        assert not f.exists()
    assert len(warnings) == 4
    # Several corruptions within one second still get distinct names.
    assert len(list(tmp_path.glob("m.json.corrupt-*"))) == 4


def test_valid_file_is_returned(tmp_path: Path) -> None:
    """A valid JSON object file is read back as written."""
    f = tmp_path / "ok.json"
    write_json_atomic(f, {"k": [1, 2]})
    assert read_json(f, on_corrupt=lambda m: None) == {"k": [1, 2]}
