"""@-mentions in the real app, typed as a user would: the list opens on "@", filters as you
type, Tab puts the path in, the sent message carries the file, the context panel shows it as
its own segment; Esc, ↑/↓, folders, a click, a refused binary file. Offline model, local door,
the working directory a temp folder."""

from __future__ import annotations

import pytest

from birdie_tui.tui.widgets.chat.notice import Notice
from birdie_tui.tui.widgets.composer import Composer
from birdie_tui.tui.widgets.mention_list import MentionList
from birdie_tui.tui.widgets.panels.context_panel import ContextPanel

from .conftest import wait_for, wait_ready, wait_turn

pytestmark = pytest.mark.app

WIDE = (150, 40)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    root = tmp_path / "work"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "README.md").write_text("# Project\nHello from the readme.\n")
    (root / "src" / "reader.py").write_text("def read():\n    return 1\n")
    (root / "src" / "pkg" / "deep.py").write_text("x = 1\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (root / ".gitignore").write_text("ignored.txt\n")
    (root / "ignored.txt").write_text("secret\n")
    monkeypatch.chdir(root)
    return root


async def type_text(pilot, text: str) -> None:
    await pilot.press(*text)


def shown(app) -> list[str]:
    return [value for value, _ in app.query_one(MentionList).choices]


async def wait_list(pilot, app, query: str) -> MentionList:
    popup = app.query_one(MentionList)
    await wait_for(pilot, lambda: popup.is_open and popup.shown_query == query)
    await wait_for(pilot, lambda: app.main.mentions.index.done.is_set())
    await pilot.pause(0.4)  # the refresh after the walk ended
    return popup


async def test_typing_a_mention_tab_and_send_attaches_the_file(make_app, workdir):
    """`@REA` lists README.md first (ignored files never), Tab puts it in, Enter sends it attached,
    and the context panel shows it as its own segment."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one(Composer)
        await type_text(pilot, "summarise @REA")
        popup = await wait_list(pilot, app, "REA")
        assert shown(app)[0] == "README.md"
        assert "ignored.txt" not in shown(app)
        await pilot.press("tab")
        assert composer.text == "summarise @README.md "
        await wait_for(pilot, lambda: not popup.is_open)
        await type_text(pilot, "please")
        await pilot.press("enter")
        await wait_turn(pilot, app)
        assert composer.text == ""
        panel = app.query_one(ContextPanel)
        await wait_for(pilot, lambda: len(panel.calls.records) == 1)
        rows = [str(o.prompt) for o in panel.query_one(".context--list").options]
        mention = [r for r in rows if "mentioned file" in r]
        assert len(mention) == 1 and "README.md · 2 lines" in mention[0], rows
        # What the model was sent: the file's lines, numbered, after the message.
        transcript = await app.birdie.transcript()
        asked = next(item for item in transcript if item.role == "user")
        assert "1  # Project\n2  Hello from the readme." in asked.content
        notes = [str(n.render()) for n in app.query(Notice)]
        assert "attached: README.md (2 lines)" in notes, notes


async def test_arrows_move_esc_closes_and_a_folder_lists_its_entries(make_app, workdir):
    """Down/up move in the list, Enter on a folder keeps completing inside it, Esc closes it until
    the next mention."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one(Composer)
        await type_text(pilot, "@sr")
        popup = await wait_list(pilot, app, "sr")
        assert shown(app)[0] == "src/" and "src/reader.py" in shown(app)
        await pilot.press("down")
        assert popup.chosen() == shown(app)[1]
        await pilot.press("up", "enter")  # Enter chooses while the list is open
        assert composer.text == "@src/"
        popup = await wait_list(pilot, app, "src/")
        assert set(shown(app)) >= {"src/pkg/", "src/reader.py", "src/pkg/deep.py"}
        await pilot.press("escape")
        assert not popup.is_open and composer.text == "@src/"
        await type_text(pilot, "r")  # the same mention: Esc keeps it closed
        await pilot.pause(0.2)
        assert not popup.is_open
        await type_text(pilot, " @logo")  # a new mention opens it again
        await wait_list(pilot, app, "logo")
        assert shown(app) == ["logo.png"]


async def test_a_mention_mid_text_and_a_click(make_app, workdir):
    """A mention typed in the middle of the text completes in place, chosen with a click."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        composer = app.query_one(Composer)
        await type_text(pilot, "compare  with this")
        composer.move_cursor((0, 8))
        await type_text(pilot, "@deep")
        popup = await wait_list(pilot, app, "deep")
        await pilot.click(MentionList, offset=(3, 1))
        assert composer.text == "compare @src/pkg/deep.py  with this"
        await wait_for(pilot, lambda: not popup.is_open)


async def test_a_binary_file_is_refused_in_the_chat_and_the_message_still_goes(make_app,
                                                                                 workdir):
    """A range being typed opens no list; a binary file is refused with a note in the chat and the
    turn still runs."""
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await type_text(pilot, "what is @logo.png:1")  # a range being typed: no list
        await pilot.pause(0.2)
        assert not app.query_one(MentionList).is_open
        await type_text(pilot, " ?")
        await pilot.press("enter")
        await wait_turn(pilot, app)
        notes = [str(n.render()) for n in app.query(Notice)]
        assert any("@logo.png:1 not attached: it is a binary file." in n for n in notes), notes
        assert app.birdie.status().turns == 1


async def test_skills_are_offered_before_files(make_app, workdir):
    """An enabled skill whose name matches is listed first, marked as a skill; choosing it
    puts its name in (nothing is attached for it: it is no file)."""
    (workdir / "sshd.conf").write_text("Port 22\n")
    app = make_app()
    async with app.run_test(size=WIDE) as pilot:
        await wait_ready(pilot, app)
        await type_text(pilot, "@ssh")
        popup = await wait_list(pilot, app, "ssh")
        assert popup.choices[:2] == [("ssh", "skill"), ("sshd.conf", "file")]
        await pilot.press("tab")
        assert app.query_one(Composer).text == "@ssh "
