from __future__ import annotations

from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Static

from birdie_tui.tui.themes import (
    ThemeError,
    apply_theme,
    bundled_themes_path,
    load_theme_file,
    load_themes,
    register_themes,
)

GOOD = """
name = "{name}"
dark = false
primary = "#336699"
accent = "tomato"
[variables]
"footer-key-foreground" = "#336699"
"""


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_bundled_themes_load_cleanly():
    """The bundled dark and light themes load without warnings, variables included."""
    folder = bundled_themes_path()
    assert (folder / "birdie-dark.toml").is_file()
    themes, warnings = load_themes([folder])
    assert warnings == []
    by_name = {theme.name: theme for theme in themes}
    assert {"birdie-dark", "birdie-light"} <= set(by_name)
    assert by_name["birdie-dark"].dark is True
    assert by_name["birdie-light"].dark is False
    assert by_name["birdie-dark"].variables["footer-key-foreground"]


def test_load_theme_file_reads_every_field(tmp_path):
    """A theme file's name, dark flag, colours and variables are all read."""
    theme = load_theme_file(write(tmp_path, "mine", GOOD.format(name="mine")))
    assert (theme.name, theme.dark, theme.primary, theme.accent) == ("mine", False, "#336699", "tomato")
    assert theme.variables == {"footer-key-foreground": "#336699"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('name = "x"\nprimary = "#123456"\ndark = tru\n', "invalid TOML"),
        ('name = "x"\naccent = "#123456"\n', "missing primary"),
        ('primary = "#123456"\n', "missing name"),
        ('name = "x"\nprimary = "#12345g"\n', "primary = '#12345g' is not a valid colour"),
        ('name = "x"\nprimary = "#123456"\nsurface = 3\n', "surface must be a colour string"),
        ('name = "x"\nprimary = "#123456"\ndark = "yes"\n', "dark must be true or false"),
        ('name = "x"\nprimary = "#123456"\nprimay = "#123456"\n', "unknown key 'primay'"),
        ('name = "x"\nprimary = "#123456"\nvariables = 1\n', "[variables] must be a table"),
    ],
)
def test_bad_files_give_a_clear_one_line_error(tmp_path, text, message):
    """Each kind of bad theme file raises a one-line error naming the file and the problem."""
    path = write(tmp_path, "bad", text)
    with pytest.raises(ThemeError) as info:
        load_theme_file(path)
    text = str(info.value)
    assert message in text
    assert str(path) in text
    assert "\n" not in text


def test_toml_error_names_the_line(tmp_path):
    """A TOML syntax error in a theme file names its line."""
    path = write(tmp_path, "bad", 'name = "x"\n\nprimary = \n')
    with pytest.raises(ThemeError, match=r"line 3"):
        load_theme_file(path)


def test_load_themes_keeps_going_past_broken_files(tmp_path):
    """Each broken theme file gives a warning and good ones still load; other files are ignored."""
    folder = tmp_path / "themes"
    write(folder, "a-broken", "name = [")
    write(folder, "b-no-primary", 'name = "b"\n')
    write(folder, "c-bad-colour", 'name = "c"\nprimary = "not-a-colour"\n')
    write(folder, "d-good", GOOD.format(name="good"))
    (folder / "notes.txt").write_text("ignored")
    themes, warnings = load_themes([folder, tmp_path / "missing"])
    assert [theme.name for theme in themes] == ["good"]
    assert len(warnings) == 3
    assert "a-broken.toml: invalid TOML" in warnings[0]
    assert "b-no-primary.toml: missing primary" in warnings[1]
    assert "c-bad-colour.toml: primary = 'not-a-colour' is not a valid colour" in warnings[2]


def test_later_folders_override_earlier_ones(tmp_path):
    """A theme in a later folder replaces one of the same name from an earlier folder."""
    write(tmp_path / "bundled", "x", GOOD.format(name="same"))
    write(tmp_path / "user", "y", GOOD.format(name="same").replace("#336699", "#aa0000", 1))
    themes, warnings = load_themes([tmp_path / "bundled", tmp_path / "user"])
    assert warnings == []
    assert [(t.name, t.primary) for t in themes] == [("same", "#aa0000")]


class ThemedApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Static("hello", id="hello")


async def test_registered_theme_can_be_applied(tmp_path):
    """Good themes register and apply; a broken one is not registered, and applying it warns."""
    write(tmp_path, "broken", 'name = "broken"\nprimary = "nope"\n')
    app = ThemedApp()
    async with app.run_test() as pilot:
        warnings = register_themes(app, [bundled_themes_path(), tmp_path])
        assert len(warnings) == 1 and "broken.toml" in warnings[0]
        app.theme = "birdie-dark"
        await pilot.pause()
        assert app.theme == "birdie-dark"
        assert app.current_theme.primary == load_theme_file(bundled_themes_path() / "birdie-dark.toml").primary
        assert app.get_css_variables()["primary"].lower() == app.current_theme.primary.lower()
        assert apply_theme(app, "birdie-light") is None
        assert app.theme == "birdie-light"
        # A theme whose file was broken is not registered: the app keeps its theme and says why.
        warning = apply_theme(app, "broken")
        assert warning is not None and "broken" in warning
        assert app.theme == "birdie-light"
