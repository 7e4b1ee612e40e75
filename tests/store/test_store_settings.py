import json
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from birdie_tui.store import BirdiePaths, Settings, load_settings, save_settings


def test_defaults_when_missing(paths: BirdiePaths) -> None:
    """Without a settings file the defaults are used, without warnings."""
    settings, warnings = load_settings(paths)
    assert settings == Settings() and warnings == []
    assert settings.theme == "birdie-dark" and settings.tool_output == "full"
    assert settings.keymap == {}


def test_round_trip(paths: BirdiePaths) -> None:
    """Saved settings load back equal, in a 0600 file inside a 0700 home."""
    s = Settings(theme="birdie-light", tool_output="short", keymap={"ctrl+k": "palette"})
    save_settings(paths, s)
    assert stat.S_IMODE(paths.settings_file.stat().st_mode) == 0o600
    assert stat.S_IMODE(paths.home.stat().st_mode) == 0o700
    assert load_settings(paths) == (s, [])


def test_corrupt_settings_fall_back_to_defaults(paths: BirdiePaths) -> None:
    """Unparsable settings.json is moved aside with a warning and defaults are used."""
    paths.home.mkdir(parents=True)
    paths.settings_file.write_text("{theme: nope")
    settings, warnings = load_settings(paths)
    assert settings == Settings()
    [warning] = warnings
    assert "settings.json" in warning and "moved to" in warning
    assert not paths.settings_file.exists()
    assert len(list(paths.home.glob("settings.json.corrupt-*"))) == 1


def test_invalid_value_keeps_the_rest(paths: BirdiePaths) -> None:
    """An invalid value falls back to its default with a warning; valid values are kept."""
    paths.home.mkdir(parents=True)
    paths.settings_file.write_text(json.dumps({"theme": "x", "tool_output": "loud", "keymap": {"a": 1}}))
    settings, warnings = load_settings(paths)
    assert settings.theme == "x" and settings.tool_output == "full" and settings.keymap == {}
    assert len(warnings) == 2 and any("tool_output" in w for w in warnings)
    assert paths.settings_file.exists()


def test_unknown_keys_ignored_on_load_and_kept_on_save(paths: BirdiePaths) -> None:
    """Unknown settings keys are ignored on load and written back on save."""
    paths.home.mkdir(parents=True)
    paths.settings_file.write_text(json.dumps({"theme": "x", "from_the_future": [1, 2]}))
    settings, warnings = load_settings(paths)
    assert settings.theme == "x" and warnings == []
    save_settings(paths, settings.model_copy(update={"tool_output": "off"}))
    saved = json.loads(paths.settings_file.read_text())
    assert saved["from_the_future"] == [1, 2] and saved["tool_output"] == "off"


def test_settings_file_env_override(tmp_path: Path) -> None:
    """BIRDIE_SETTINGS_FILE moves the settings file outside BIRDIE_HOME."""
    target = tmp_path / "elsewhere" / "my-settings.json"
    paths = BirdiePaths.from_env({"BIRDIE_HOME": str(tmp_path / "home"), "BIRDIE_SETTINGS_FILE": str(target)})
    save_settings(paths, Settings(theme="t"))
    assert target.exists() and not (tmp_path / "home").exists()
    assert load_settings(paths)[0].theme == "t"


def test_model_validates_assignment() -> None:
    """Assigning an invalid value to a Settings field raises ValidationError."""
    s = Settings()
    with pytest.raises(ValidationError):
        s.tool_output = "loud"  # type: ignore[assignment]


def test_save_writes_only_what_was_set(paths: BirdiePaths) -> None:
    """A save after loading a file and assigning one field writes the file's keys and that
    field; defaults nobody chose (approval_mode, auto_compact, ...) stay out of the file."""
    paths.home.mkdir(parents=True)
    paths.settings_file.write_text(json.dumps({"tool_output": "off", "mystery": 1}))
    settings, _ = load_settings(paths)
    settings.theme = "birdie-light"
    save_settings(paths, settings)
    saved = json.loads(paths.settings_file.read_text())
    assert saved == {"tool_output": "off", "mystery": 1, "theme": "birdie-light"}
    assert load_settings(paths)[0].auto_compact == Settings().auto_compact
