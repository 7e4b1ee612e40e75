"""An @-mentioned file in a call's provenance: its own segment, not counted twice in history,
through the real graph, the offline model and a sqlite checkpointer."""

from __future__ import annotations

from langchain_core.messages import HumanMessage

from birdie_tui.agent.window import message_tokens
from birdie_tui.mentions.attach import expand

from .conftest import collect


def segments(events, kind, call=0):
    injected = [e for e in events if e.type == "injected"]
    return [s for s in injected[call].context.segments if s.kind == kind]


async def test_a_mentioned_file_is_its_own_segment_in_the_call(engine, tmp_path):
    """Each mention is a segment named as mentioned, with its size; the history segment does
    not count it again; a later call says which turn brought it."""
    (tmp_path / "notes.md").write_text("".join(f"note {n}\n" for n in range(1, 41)))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").touch()
    message = expand("read @notes.md:1-20 and @src", tmp_path)
    events = await collect(engine, message.text)
    mention = segments(events, "mention")
    assert [(s.name, s.detail) for s in mention] == [
        ("notes.md:1-20", "lines 1-20 of 40"), ("src/", "1 entry")]
    assert mention[0].tokens == len(message.attachments[0].text) // 4 + 1
    # The attached text is counted once: in the mention, not again in the history.
    history = segments(events, "history")[0].tokens
    whole = message_tokens(HumanMessage(message.text))
    assert history == whole - sum(s.tokens for s in mention) < 20
    # Sent again with the next turn's history, said as coming from turn 2.
    later = await collect(engine, "thanks")
    assert [s.detail for s in segments(later, "mention")] == [
        "lines 1-20 of 40 · turn 1", "1 entry · turn 1"]


async def test_a_trigger_is_matched_against_what_was_typed_not_the_file(engine, tmp_path):
    """A file that happens to say "ssh" does not pull in the ssh skill's body."""
    (tmp_path / "ops.md").write_text("we ssh into the box\n")
    events = await collect(engine, expand("read @ops.md", tmp_path).text)
    assert segments(events, "trigger") == []
    events = await collect(engine, expand("ssh with @ops.md", tmp_path).text)
    assert [s.name for s in segments(events, "trigger")] == ["ssh"]
