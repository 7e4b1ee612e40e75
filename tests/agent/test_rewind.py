"""Rewind and fork on the engine (agent/rewind.py): the cut history stays valid, the counts
follow it without un-spending a token, the dropped part is in the export as "rewound", a fork
counts only its own calls, a compaction summary of dropped messages goes, and a Birdie 0.1.5
session rewinds and forks like ours."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from birdie_tui.agent.engine import EngineError
from birdie_tui.agent.export import export_session
from birdie_tui.agent.history import history_problems
from birdie_tui.agent.ledger import cost_report
from birdie_tui.agent.rewind import FORKED_KEY, REWOUND_KEY

from .conftest import collect, history_tokens

TOOL = 'call echo_text {"text": "%s"}'


async def _turns(engine, *texts: str) -> None:
    for text in texts:
        events = await collect(engine, text)
        assert events[-1].type == "done", events


def _users(history) -> list[str]:
    return [m.content for m in history if isinstance(m, HumanMessage)]


def _on_disk(engine, session_id: str) -> dict:
    return json.loads(engine.paths.session_file(engine.user, session_id).read_text())


async def test_rewind_cuts_at_the_message_and_keeps_every_token_spent(engine):
    """Rewind 2 of 3: the history keeps turn 1 only, valid; turns follow it, the totals keep every
    call, the next turn's entry takes the carry, /cost marks the dropped turns retried."""
    await _turns(engine, TOOL % "one", TOOL % "two", "three")
    before = await engine.messages()
    spent = history_tokens(before)
    sid = engine.session.id

    text = await engine.rewind(2)

    assert text == TOOL % "two"
    history = await engine.messages()
    assert _users(history) == [TOOL % "one"]
    assert history == before[:len(history)] and history_problems(history) == []
    for figures in (engine.session.__dict__, _on_disk(engine, sid)):
        assert figures["turns"] == 1
        assert (figures["input_tokens"], figures["output_tokens"]) == spent
    # What the two dropped turns spent joins the next turn's entry, as /retry's carry does.
    await _turns(engine, "four")
    meta = engine.session
    assert meta.turns == 2
    assert sum(e["input"] for e in meta.token_log) == meta.input_tokens
    assert sum(e["output"] for e in meta.token_log) == meta.output_tokens
    assert _users(await engine.messages()) == [TOOL % "one", "four"]
    # /cost keeps the dropped turns' records, marked retried (never un-billed).
    report = cost_report(meta, engine.tokens.ledger, engine.token_ledger(), "offline")
    assert [(row.turn, row.retried) for row in report.per_turn] == [
        (1, False), (2, True), (3, True), (2, False)]


async def test_the_export_shows_what_was_rewound(engine):
    """The export lists the dropped messages under Rewound (JSON: `rewound`), never in the turns."""
    await _turns(engine, "keep me", TOOL % "drop me", "and me")
    await engine.rewind(2)
    meta, history = engine.session, await engine.messages()
    rewound = await engine.rewound()
    markdown = export_session(meta, history, await engine.contexts(), "markdown",
                              rewound=rewound)
    body, _, tail = markdown.partition("## Rewound")
    assert "keep me" in body and "drop me" not in body
    assert "### Rewound at message 2" in tail
    assert "drop me" in tail and "and me" in tail and "echo_text" in tail
    data = json.loads(export_session(meta, history, [], "json", rewound=rewound))
    [record] = data["rewound"]
    assert record["at"] == 2
    assert [m["content"] for m in record["messages"] if m["role"] == "user"] == [
        TOOL % "drop me", "and me"]
    assert record["input"] > 0  # this session paid for those calls
    assert [t["user"] for t in data["turns"]] == ["keep me"]


async def test_rewind_to_the_first_message_leaves_an_empty_history_that_goes_on(engine):
    """Rewinding message 1 leaves an empty history on which a new turn runs."""
    await _turns(engine, "first", "second")
    assert await engine.rewind(1) == "first"
    assert await engine.messages() == []
    assert engine.session.turns == 0 and engine.session.input_tokens > 0
    await _turns(engine, "again")
    assert _users(await engine.messages()) == ["again"]
    assert engine.session.turns == 1
    rewound = await engine.rewound()
    assert [r["at"] for r in rewound["records"]] == [1]


async def test_rewind_refuses_numbers_history_does_not_show(engine):
    """No message yet, 0, a number past the last: one line each; None is the last message."""
    with pytest.raises(EngineError, match="nothing to rewind"):
        await engine.rewind()
    await _turns(engine, "only")
    for bad in (0, 2, -1):
        with pytest.raises(EngineError, match="messages 1 to 1"):
            await engine.rewind(bad)
    assert await engine.rewind() == "only"  # None: the last one


async def test_fork_copies_the_history_before_the_message_and_counts_only_its_own(engine):
    """A fork holds the history before the message, the original untouched; its copied turns carry
    no tokens, its own turns count."""
    await _turns(engine, TOOL % "one", "two", "three")
    source = engine.session
    source.title = "planning"
    engine.rename_session(source.id, "planning")
    original = await engine.messages()
    spent = (source.input_tokens, source.output_tokens)

    fork = await engine.fork(3)

    assert fork.id != source.id and fork.title == "fork of planning"
    assert fork.extra[FORKED_KEY]["session"] == source.id
    # The original is left exactly as it was, and stays the open session.
    assert engine.session.id == source.id and await engine.messages() == original
    assert (engine.session.input_tokens, engine.session.output_tokens) == spent
    await engine.open_session(fork.id)
    copied = await engine.messages()
    assert _users(copied) == [TOOL % "one", "two"] and history_problems(copied) == []
    assert [m.id for m in copied] == [m.id for m in original[:len(copied)]]
    meta = engine.session
    assert (meta.turns, meta.input_tokens, meta.output_tokens) == (2, 0, 0)
    # A turn in the fork counts its own calls only: the two /cost never add one call twice.
    await _turns(engine, "four")
    meta = engine.session
    own = history_tokens((await engine.messages())[len(copied):])
    assert (meta.input_tokens, meta.output_tokens) == own and meta.turns == 3
    on_disk = _on_disk(engine, fork.id)
    assert on_disk["turns"] == 3 and on_disk["input_tokens"] == own[0]
    report = cost_report(meta, engine.tokens.ledger, engine.token_ledger(), "offline")
    assert [(r.turn, r.model, r.input) for r in report.per_turn][:2] == [
        (1, f"copied from {source.id}", 0), (2, f"copied from {source.id}", 0)]
    assert report.unrecorded_turns == 0


async def test_a_rewind_into_a_forks_copied_part_keeps_the_originals_tokens_out(engine):
    """A fork rewound into its copied part records only its own calls as spent, and counts new
    turns again."""
    await _turns(engine, "one", "two", "three")
    fork = await engine.fork(3)
    await engine.open_session(fork.id)
    await _turns(engine, "mine")
    own = (engine.session.input_tokens, engine.session.output_tokens)
    await engine.rewind(2)  # into the copied part
    rewound = await engine.rewound()
    assert (rewound["input"], rewound["output"]) == own  # only the fork's own call
    assert engine.session.turns == 1
    await _turns(engine, "again")
    assert engine.session.turns == 2 and engine.session.input_tokens > own[0]


async def test_fork_of_the_first_message_is_an_empty_session(engine):
    """Forking from message 1 gives an empty session that goes on."""
    await _turns(engine, "hello")
    fork = await engine.fork(1)
    await engine.open_session(fork.id)
    assert await engine.messages() == []
    assert engine.session.turns == 0
    await _turns(engine, "hello again")
    assert engine.session.turns == 1


async def test_a_cut_inside_the_summarised_part_drops_the_summary(engine):
    """A cut after the summarised part keeps the compaction summary; one inside it drops it, in the
    session and in a fork."""
    await _turns(engine, *(f"turn {n}" for n in range(1, 7)))
    done = await engine.compact()
    assert done is not None and await engine.rolling_summary()

    await engine.rewind(6)  # after the summarised part: the summary stays
    assert await engine.rolling_summary()
    fork = await engine.fork(2)  # inside it: the fork has none
    await engine.rewind(2)  # nor has the session
    assert await engine.rolling_summary() == ""
    await engine.open_session(fork.id)
    assert await engine.rolling_summary() == ""
    await _turns(engine, "goes on")


async def test_the_rewound_channel_is_bounded(engine, monkeypatch):
    """The rewound channel keeps the last rewinds, each text capped, and counts the older ones and
    every token."""
    import birdie_tui.agent.rewind as rewind

    monkeypatch.setattr(rewind, "REWOUND_KEPT", 2)
    monkeypatch.setattr(rewind, "REWOUND_CHARS", 10)
    for n in range(4):
        await _turns(engine, f"message number {n} " + "x" * 50)
        await engine.rewind()
    values = (await engine.history.step_state()).values
    kept = values[REWOUND_KEY]
    assert [r["at"] for r in kept["records"]] == [1, 1] and kept["older"] == 2
    assert kept["input"] == engine.session.input_tokens
    first = kept["records"][0]["messages"][0]["content"]
    assert first.startswith("message nu") and "not kept" in first


async def test_a_rewound_message_comes_back_as_typed_without_its_attachments(engine, tmp_path):
    """A message sent with an @-mentioned file comes back as the user typed it: sent again,
    its mention attaches the file again (not twice)."""
    from birdie_tui.mentions.attach import expand

    (tmp_path / "notes.md").write_text("hello notes\n")
    sent = expand("read @notes.md please", tmp_path).text
    assert "[mentioned file: notes.md" in sent
    await collect(engine, sent)
    assert await engine.rewind(1) == "read @notes.md please"
