"""The session export through the door (`Birdie.export`) and `/export`: the real
local door with the offline model, the command run against a stub screen."""

from __future__ import annotations

import json

import pytest

from birdie_tui.service import BirdieError
from birdie_tui.tui.cmds import BY_NAME, completions, palette_entries

from .test_command_table import StubUI, run


class Screen(StubUI):
    """The stub screen, with a confirm dialog answering `answer`."""

    def __init__(self, door, *, answer: bool = False) -> None:
        super().__init__(door)
        self.answer = answer
        self.asked: list[str] = []

    async def confirm(self, question):
        self.asked.append(question)
        return self.answer


async def _turns(birdie) -> None:
    for text in ("how do I reach a remote server", 'call echo_text {"text":"tusk"}'):
        [_ async for _ in birdie.send(text)]


async def test_door_export_json_round_trips(birdie):
    """`export("json")` is valid JSON with the session, messages and per-turn records."""
    await _turns(birdie)
    data = json.loads(await birdie.export("json"))
    assert list(data)[:2] == ["session", "messages"]
    assert data["session"]["id"] == birdie.status().session_id
    assert [t["turn"] for t in data["turns"]] == [1, 2]
    assert any(s["kind"] == "trigger" for s in data["turns"][0]["calls"][0]["segments"])
    assert data["turns"][1]["tool_calls"][0]["result"] == "tusk"
    assert data["summary"] == ""


async def test_door_export_markdown_and_bad_format(birdie):
    """Markdown has a heading per turn; an unknown format is a BirdieError."""
    await _turns(birdie)
    text = await birdie.export()
    assert "## Turn 1" in text and "## Turn 2" in text and "#### Context" in text
    with pytest.raises(BirdieError, match="unknown export format"):
        await birdie.export("yaml")


def test_export_is_in_the_table():
    """/export has its usage, Tab subcommands and a palette entry."""
    command = BY_NAME["/export"]
    assert "/export markdown" in completions() and "/export json" in completions()
    assert ("Export this session", "/export") in palette_entries(started=True)
    assert "[PATH]" in command.usage


async def test_export_writes_a_file_and_never_overwrites(birdie, tmp_path, monkeypatch):
    """/export writes `<id>.md` in the working directory and says where; a second export gets
    `-1`, and the first file is left as it was."""
    monkeypatch.chdir(tmp_path)
    await _turns(birdie)
    sid = birdie.status().session_id
    ui = Screen(birdie)
    await run(ui, "/export")
    first = tmp_path / f"{sid}.md"
    assert first.is_file() and "## Turn 2" in first.read_text(encoding="utf-8")
    assert str(first) in ui.said[-1]
    first.write_text("mine", encoding="utf-8")

    await run(ui, "/export")
    assert first.read_text(encoding="utf-8") == "mine"
    second = tmp_path / f"{sid}-1.md"
    assert second.is_file() and str(second) in ui.said[-1]

    await run(ui, "/export json")
    data = json.loads((tmp_path / f"{sid}.json").read_text(encoding="utf-8"))
    assert data["session"]["id"] == sid


async def test_export_to_a_typed_path_asks_before_overwriting(birdie, tmp_path, monkeypatch):
    """A typed PATH is relative to the working directory; if it exists, it is replaced only
    once confirmed. A `.json` PATH means JSON; a folder gets the default name."""
    monkeypatch.chdir(tmp_path)
    await _turns(birdie)
    target = tmp_path / "out.json"
    target.write_text("keep me", encoding="utf-8")
    ui = Screen(birdie, answer=False)
    await run(ui, "/export out.json")
    assert ui.asked and target.read_text(encoding="utf-8") == "keep me"
    assert ui.toasts[-1][0] == "warning"

    ui.answer = True
    await run(ui, "/export out.json")
    assert json.loads(target.read_text(encoding="utf-8"))["turns"]

    (tmp_path / "sub").mkdir()
    await run(ui, "/export markdown sub")
    assert (tmp_path / "sub" / f"{birdie.status().session_id}.md").is_file()


async def test_export_usage_and_empty_session(birdie, tmp_path, monkeypatch):
    """A session with no messages writes nothing."""
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    ui = Screen(birdie)
    await run(ui, "/export")
    assert "Nothing to export" in ui.said[-1] and list((tmp_path / "work").iterdir()) == []
    await run(ui, "/export json a b")
    assert "Nothing to export" in ui.said[-1] and list((tmp_path / "work").iterdir()) == []


@pytest.mark.parametrize("line", ['/export "my file.md"', "/export my file.md",
                                  "/export markdown my file.md", "/export 'my file.md'"])
async def test_export_to_a_path_with_spaces(birdie, tmp_path, monkeypatch, line):
    """A PATH with spaces is written as typed, quoted or not, with or without a format."""
    monkeypatch.chdir(tmp_path)
    await _turns(birdie)
    ui = Screen(birdie)
    await run(ui, line)
    target = tmp_path / "my file.md"
    assert target.is_file() and "## Turn 2" in target.read_text(encoding="utf-8")
    assert str(target) in ui.said[-1] and not ui.toasts
