"""A message's @-mentions attached as the model sees them: bounds, ranges, refusals."""

from __future__ import annotations

from pathlib import Path

from birdie_tui.mentions import attach
from birdie_tui.mentions.attach import attachments, expand, mentions_in, shown_text, typed_text


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_file_is_attached_numbered_in_a_fenced_block_after_the_message(tmp_path):
    """A mentioned file follows the message as a header and a fenced block of numbered lines."""
    write(tmp_path, "README.md", "# Title\nbody\n")
    out = expand("summarise @README.md please", tmp_path)
    assert out.text == ("summarise @README.md please\n\n"
                        "[mentioned file: README.md · 2 lines]\n```\n1  # Title\n2  body\n```")
    assert [(a.kind, a.name) for a in out.attachments] == [("file", "README.md")]
    assert out.notes == ()


def test_a_range_attaches_those_lines_only(tmp_path):
    """`@path:10-12` attaches those lines, `@path:50` one line, numbered as in the file."""
    write(tmp_path, "a.py", "".join(f"line {n}\n" for n in range(1, 101)))
    out = expand("@a.py:10-12 and @a.py:50", tmp_path)
    first, second = out.attachments
    assert first.detail == "lines 10-12 of 100" and "10  line 10\n11  line 11\n12  line 12\n" \
        in first.text and "line 13" not in first.text
    assert second.name == "a.py:50" and "50  line 50\n```" in second.text


def test_a_folder_is_a_listing(tmp_path):
    """A folder is attached as its sorted listing, subfolders with a slash, VCS folders left
    out."""
    write(tmp_path, "src/b.py", "")
    write(tmp_path, "src/sub/c.py", "")
    (tmp_path / "src" / ".git").mkdir()
    (block,) = expand("look in @src/", tmp_path).attachments
    assert block.kind == "folder" and block.detail == "2 entries"
    assert block.text.endswith("```\nb.py\nsub/\n```")


def test_a_mention_of_nothing_stays_text_and_the_sentence_stop_is_not_the_path(tmp_path):
    """`@someone` and an e-mail address stay text; a sentence's full stop is not part of the
    path."""
    write(tmp_path, "notes.txt", "n\n")
    out = expand("ask @someone, e-mail me@host.org, read @notes.txt.", tmp_path)
    assert [a.name for a in out.attachments] == ["notes.txt"]
    assert mentions_in('x @"my file.txt" @a') == ["my file.txt", "a"]


def test_a_binary_file_is_refused_with_a_note_and_the_message_still_goes(tmp_path):
    """A binary file is not attached: a note says why, the message goes as typed."""
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    out = expand("what is @logo.png", tmp_path)
    assert out.text == "what is @logo.png" and out.attachments == ()
    assert out.notes == ("@logo.png not attached: it is a binary file.",)


def test_a_huge_file_is_refused_unless_a_range_is_given(tmp_path, monkeypatch):
    """A file over the size bound is refused with a note suggesting a range; a range of it
    is read."""
    monkeypatch.setattr(attach, "MAX_FILE_BYTES", 1000)
    write(tmp_path, "big.log", "x" * 50 + "\n" + "y" * 2000 + "\n")
    out = expand("@big.log", tmp_path)
    assert out.attachments == () and "over the" in out.notes[0] and "@big.log:1-200" \
        in out.notes[0]
    (block,) = expand("@big.log:1", tmp_path).attachments
    assert block.detail == "lines 1-1 of 2"


def test_a_long_file_is_cut_at_the_line_bound_with_a_note(tmp_path, monkeypatch):
    """A file longer than the line bound is cut there, and a note names the range for the
    rest."""
    monkeypatch.setattr(attach, "MAX_LINES", 5)
    write(tmp_path, "long.txt", "".join(f"{n}\n" for n in range(1, 21)))
    out = expand("@long.txt", tmp_path)
    assert out.attachments[0].detail == "lines 1-5 of 20"
    assert out.notes == ("@long.txt: only lines 1-5 of 20 attached; mention a range for the "
                         "rest (@long.txt:6-…).",)


def test_the_character_bound_holds_for_long_lines(tmp_path, monkeypatch):
    """Long lines stop the attachment at the character bound too."""
    monkeypatch.setattr(attach, "MAX_CHARS", 100)
    write(tmp_path, "wide.txt", ("z" * 60 + "\n") * 10)
    (block,) = expand("@wide.txt", tmp_path).attachments
    assert block.detail == "lines 1-1 of 10"


def test_at_most_so_many_mentions_and_each_once(tmp_path, monkeypatch):
    """A file mentioned twice is attached once; past the mention bound a note says what was
    left."""
    monkeypatch.setattr(attach, "MAX_MENTIONS", 2)
    for name in "abc":
        write(tmp_path, f"{name}.txt", name)
    out = expand("@a.txt @a.txt @b.txt @c.txt", tmp_path)
    assert [a.name for a in out.attachments] == ["a.txt", "b.txt"]
    assert out.notes == ("@c.txt not attached: at most 2 mentions are attached to one "
                         "message.",)


def test_backticks_in_a_file_get_a_longer_fence_and_read_back(tmp_path):
    """A file holding a fence gets a longer one, and the blocks read back exactly, with the typed
    text."""
    write(tmp_path, "doc.md", "```py\nx = 1\n```\n")
    write(tmp_path, "b.txt", "b\n")
    out = expand("see @doc.md and @b.txt", tmp_path)
    assert "\n````\n" in out.attachments[0].text
    assert [(a.name, a.detail) for a in attachments(out.text)] == [
        ("doc.md", "3 lines"), ("b.txt", "1 line")]
    assert [a.text for a in attachments(out.text)] == [a.text for a in out.attachments]
    assert typed_text(out.text) == "see @doc.md and @b.txt"
    assert typed_text("plain [mentioned file: x]") == "plain [mentioned file: x]"


def test_an_empty_file_and_a_range_past_its_end(tmp_path):
    """An empty file and a range past the end are attached with words that say so."""
    write(tmp_path, "empty.txt", "")
    write(tmp_path, "short.txt", "1\n2\n")
    assert expand("@empty.txt", tmp_path).attachments[0].detail == "empty"
    assert expand("@short.txt:9-12", tmp_path).attachments[0].detail == \
        "no line 9: the file has 2"


def test_a_sent_message_is_shown_again_as_typed_with_what_it_attached(tmp_path):
    """The chat replays what the user typed and one line naming the attachments, not the
    files' text."""
    write(tmp_path, "a.txt", "secret body\n")
    (tmp_path / "d").mkdir()
    sent = expand("see @a.txt and @d", tmp_path).text
    assert shown_text(sent) == "see @a.txt and @d\n\nattached: a.txt (1 line) · d/ (0 entries)"
    assert shown_text("plain") == "plain"


def test_a_mention_inside_a_fenced_block_is_quoted_not_attached():
    """A fenced block quotes code or output (a `!command`'s sent with the message): an @-word
    in it is not a request to attach that path."""
    from birdie_tui.mentions.attach import mentions_in

    text = "I ran `ls`:\n```\n@types/node\n```\n\nnow read @notes.md"
    assert mentions_in(text) == ["notes.md"]
    assert mentions_in("````\n```\n@inner\n```\n````\n@outer") == ["outer"]
