"""What the model sees, through the real graph, the offline model and a real sqlite checkpointer:
get_skill leases, project instructions, system_prompt.md, the token budget, compaction and the
provenance record of every call."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import HumanMessage

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.agent.history import history_problems
from birdie_tui.agent.prompt import catalog_for
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.store.settings import Settings

from .conftest import collect


def injected(events):
    return [e for e in events if e.type == "injected"]


def segments(event, kind):
    return [s for s in event.context.segments if s.kind == kind]


async def test_get_skill_loads_a_body_for_a_lease_of_turns(engine):
    """get_skill puts a knowledge body in the prompt from the next call on, for five more user
    turns; then it leaves, reported as expired, and is "not loaded" again."""
    events = await collect(engine, 'call get_skill {"skill_name": "ssh"}')
    result = next(e for e in events if e.type == "tool_result")
    assert not result.error and "loaded" in result.content
    assert "Use keys" not in result.content  # the body travels in the prompt, not twice
    second = injected(events)[1]
    assert [(s.name, s.detail) for s in segments(second, "loaded")] == [
        ("ssh", "loaded at turn 1 · 5 more turns of lease")]
    assert "ssh" not in second.context.not_loaded
    for turn in range(2, 7):
        first = injected(await collect(engine, f"turn {turn}"))[0]
        assert [s.name for s in segments(first, "loaded")] == ["ssh"], turn
        assert first.context.turn == turn
    seventh = injected(await collect(engine, "turn 7"))[0]
    assert segments(seventh, "loaded") == []
    assert seventh.context.evicted == (("ssh", "expired"),)
    assert "ssh" in seventh.context.not_loaded


async def test_load_skill_and_location_are_aliases(engine):
    """load_skill works on a knowledge skill as get_skill does, and an unknown name is an error
    that lists what can be loaded."""
    events = await collect(engine, 'call load_skill {"name": "ssh"}')
    assert not next(e for e in events if e.type == "tool_result").error
    events = await collect(engine, 'call get_skill {"skill_name": "nope"}')
    result = next(e for e in events if e.type == "tool_result")
    assert result.error and "ssh" in result.content
    first = injected(events)[0]
    assert [s.name for s in segments(first, "loaded")] == ["ssh"]


async def test_triggers_mode_offers_no_get_skill(skills_dir, isolated_home):
    """With skill_loading "triggers" (0.1.5's behaviour) the model gets no get_skill tool and
    the catalog shows no [load: …] hints; triggers still inject."""
    eng = Engine(EngineOptions(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline")))
    eng.settings = Settings(skill_loading="triggers")
    await eng.start()
    await eng.open_session()
    try:
        events = await collect(eng, "ssh into the box")
        assert "get_skill" not in events[-1].text and "[load:" not in events[-1].text
        assert [s.name for s in segments(injected(events)[0], "trigger")] == ["ssh"]
        events = await collect(eng, 'call get_skill {"skill_name": "ssh"}')
        assert "not available" in events[-1].text
    finally:
        await eng.aclose()


async def test_project_instructions_and_system_prompt_are_segments(engine, tmp_path,
                                                                   monkeypatch, isolated_home):
    """AGENTS.md in the working directory and $BIRDIE_HOME/system_prompt.md reach the prompt as
    their own stable segments; CLAUDE.md wins over AGENTS.md; an edit counts on the next turn."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "AGENTS.md").write_text("Always answer in French.\n")
    engine.paths.home.mkdir(parents=True, exist_ok=True)
    (engine.paths.home / "system_prompt.md").write_text("You are terse.\n")
    first = injected(await collect(engine, "hi"))[0]
    project = segments(first, "project")
    assert [s.name for s in project] == [str(tmp_path / "AGENTS.md")]
    assert project[0].stable and segments(first, "system_prompt")[0].tokens > 0
    (tmp_path / "CLAUDE.md").write_text("Use British spelling throughout, please.\n")
    second = injected(await collect(engine, "hi again"))[0]
    assert [s.name for s in segments(second, "project")] == [str(tmp_path / "CLAUDE.md")]
    assert second.context.stable_digest != first.context.stable_digest


async def test_provenance_of_a_past_turn_survives_a_restart(skills_dir, isolated_home):
    """Every call's record is stored with the session: a new engine reads the same records."""
    options = dict(skills_dirs=[skills_dir], provider=ProviderConfig(vendor="offline"))
    eng = Engine(EngineOptions(**options))
    await eng.start()
    await eng.open_session()
    await collect(eng, "ssh please")
    await collect(eng, 'call echo_text {"text": "hi"}')
    before = await eng.contexts()
    session_id = eng.session.id
    await eng.aclose()
    again = Engine(EngineOptions(**options))
    await again.start()
    try:
        await again.open_session(session_id)
        after = await again.contexts()
    finally:
        await again.aclose()
    assert after == before
    assert [(r.turn, r.call) for r in after] == [(1, 1), (2, 1), (2, 2)]
    assert [s.name for s in after[0].segments if s.kind == "trigger"] == ["ssh"]
    assert all(r.message_id for r in after)


async def test_stream_json_shape_of_the_record(engine):
    """The injected event's JSON keeps `skills` and adds turn, call, segments, evicted and
    not_loaded, all plain JSON."""
    event = injected(await collect(engine, "ssh"))[0]
    data = json.loads(json.dumps(event.to_dict()))
    assert list(data) == ["type", "skills", "turn", "call", "segments", "evicted", "not_loaded"]
    kinds = [s["kind"] for s in data["segments"]]
    assert kinds[:3] == ["tools", "base", "catalog"] and kinds[-1] == "history"
    assert "trigger" in kinds and all(s["tokens"] >= 0 for s in data["segments"])


async def test_token_budget_cuts_at_a_user_message(engine, monkeypatch):
    """A small context window sends only the recent whole turns that fit; the record says how
    many older messages were left out, and the history stays whole in the checkpoint."""
    monkeypatch.setattr(Engine, "context_window", property(lambda self: 3_000))
    for n in range(8):
        await collect(engine, f"message {n}: " + "lorem ipsum dolor " * 60)
    last = (await engine.contexts())[-1]
    assert last.history_dropped > 0
    history = segments_of(last, "history")
    assert "older not sent" in history.detail
    messages = await engine.messages()
    assert len(messages) == 16 and history_problems(messages) == []


def segments_of(record, kind):
    return next(s for s in record.segments if s.kind == kind)


async def test_compact_keeps_the_last_turns_and_every_message(engine):
    """/compact summarises all but the last three turns: the next call carries the summary and
    only those turns; the checkpoint still holds every message, valid."""
    with pytest.raises(Exception, match="Nothing to compact"):
        await engine.compact()
    for n in range(5):
        await collect(engine, f"question number {n}. Tell me about estuaries.")
    done = await engine.compact("estuaries")
    assert done.messages == 4 and done.kept == 6 and "question number 0" in done.summary
    assert done.tokens_after < done.tokens_before
    events = await collect(engine, "and now?")
    record = injected(events)[0].context
    assert segments_of(record, "summary").tokens > 0
    assert segments_of(record, "history").detail.startswith("7 messages")
    assert "4 summarised" in segments_of(record, "history").detail
    messages = await engine.messages()
    assert len(messages) == 12 and history_problems(messages) == []
    assert isinstance(messages[0], HumanMessage) and "question number 0" in messages[0].content


async def test_auto_compaction_at_the_threshold(engine):
    """With auto_compact at 1 % the conversation is compacted before a turn once there is
    something to compact; at 0 it never is."""
    engine.settings = Settings(auto_compact=0)
    for n in range(4):
        await collect(engine, f"turn {n}")
    assert await engine.auto_compact() is None
    engine.settings = Settings(auto_compact=1)
    done = await engine.auto_compact()
    assert done is not None and done.auto and done.messages == 2
    assert await engine.auto_compact() is None  # nothing new to compact yet


async def test_session_settings_override_the_global_ones_and_persist(engine, skills_dir):
    """A session's own loading mode and threshold win over settings.json, are saved in its
    file, survive a reopen, and an invalid hand-edited value falls back to the global one."""
    await collect(engine, "hello")
    engine.set_prompt_setting("skill_loading", "triggers")
    engine.set_prompt_setting("auto_compact", 50)
    with pytest.raises(Exception):
        engine.set_prompt_setting("skill_loading", "sometimes")
    with pytest.raises(Exception, match="unknown setting"):
        engine.set_prompt_setting("theme", "x")
    session_id = engine.session.id
    again = engine.sessions.load(session_id)  # read back from its file
    assert again.extra["prompt_settings"] == {"skill_loading": "triggers", "auto_compact": 50}
    events = await collect(engine, "ssh now")
    assert "[load:" not in events[-1].text
    engine.session.extra["prompt_settings"]["auto_compact"] = "lots"
    assert engine.prompt_setting("auto_compact") == 80
    engine.set_prompt_setting("skill_loading", None)
    assert engine.prompt_setting("skill_loading") == "both"


async def test_location_is_what_the_catalog_offers_for_loading(tmp_path, isolated_home):
    """A skill's frontmatter `location` is the identifier the catalog shows in [load: …], and
    get_skill accepts it (as well as the name)."""
    folder = tmp_path / "skills" / "tides"
    folder.mkdir(parents=True)
    (folder / "SKILL.MD").write_text(
        "---\nname: tides\ndescription: Tide tables.\nlocation: coast/tides\n---\n"
        "High water comes twice a day.\n")
    eng = Engine(EngineOptions(skills_dirs=[tmp_path / "skills"],
                               provider=ProviderConfig(vendor="offline")))
    await eng.start()
    await eng.open_session()
    try:
        events = await collect(eng, 'call get_skill {"skill_name": "coast/tides"}')
        assert not next(e for e in events if e.type == "tool_result").error
        first = injected(events)[0]
        assert [s.name for s in segments(first, "loaded")] == []
        assert [s.name for s in segments(injected(events)[1], "loaded")] == ["tides"]
        assert "[load: coast/tides]" in catalog_for(eng.toolbox.allowed_skills()).text
    finally:
        await eng.aclose()
