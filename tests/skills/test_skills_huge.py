"""A 10,000-line SKILL.MD: it loads whole (a knowledge body of 10,000 lines, or 1,100 tool
blocks), a turn with it sends all of it to the model over the real wire and runs its tools, and
live reload does not parse an unchanged big file again. No timing is asserted."""

from __future__ import annotations

import os
import time
from pathlib import Path

from hypothesis import assume, given
from hypothesis import strategies as st

from birdie_tui.agent.engine import Engine, EngineOptions
from birdie_tui.providers.config import ProviderConfig
from birdie_tui.skills import loader, sections
from birdie_tui.skills.loader import load_skills
from birdie_tui.skills.parse_util import Errors, load_yaml
from tests.providers.wire.conftest import SECRET, VENDORS
from tests.providers.wire.loopback import LoopbackServer

LINES = 10_000
LAST = "LAST LINE OF THE ATLAS"


def atlas() -> str:
    """A knowledge skill of 10,000 lines: headings, prose, fenced code, a table."""
    lines = ["---", "name: atlas", "description: A very big reference.",
             "triggers: [zebra]", "---", ""]
    i = 0
    while len(lines) < LINES - 1:
        if i % 100 == 0:
            lines.append(f"## Part {i // 100}")
        elif i % 13 == 0:
            lines += ["```", f"code {i}", "```"]
        elif i % 17 == 0:
            lines += ["| a | b |", "|---|---|", f"| {i} | x |"]
        else:
            lines.append(f"Fact {i}: zebras.")
        i += 1
    lines.append(LAST)
    return "\n".join(lines) + "\n"


def toolbelt() -> tuple[str, int]:
    """A skill of 10,000 lines: ~1,100 tool blocks, each with its own schema."""
    lines = ["---", "name: toolbelt", "description: Very many tools.", "---", "", "## Tools", ""]
    count = 0
    while len(lines) + 9 <= LINES:
        lines += [f"### tool_{count}", f"description: Tool number {count} prints its text.",
                  f"entrypoint: bash:printf 'tool {count}: %s' {{text_{count}}}", "schema:",
                  "  type: object", "  properties:", f"    text_{count}: {{type: string}}",
                  f"  required: [text_{count}]", ""]
        count += 1
    return "\n".join(lines) + "\n", count


def write(root: Path, folder: str, text: str, *, age: float = 0.0) -> Path:
    path = root / folder / "SKILL.MD"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if age:
        past = time.time() - age
        os.utime(path, (past, past))
    return path


def test_a_10000_line_knowledge_skill_and_a_1000_tool_skill_load_whole(tmp_path):
    """Both files load with no error: the body keeps every line, every tool block is a tool
    (the last one with its own schema and the right line number)."""
    text, count = toolbelt()
    write(tmp_path, "atlas", atlas())
    write(tmp_path, "toolbelt", text)
    result = load_skills([tmp_path])
    assert result.errors == []
    skills = {s.name: s for s in result.skills}
    body = skills["atlas"].body
    assert body.startswith("## Part 0") and body.endswith(LAST)
    assert len(body.splitlines()) == LINES - 6  # every line after the frontmatter
    tools = skills["toolbelt"].tools
    assert len(tools) == count > 1_000
    last = tools[-1]
    assert last.name == f"tool_{count - 1}" and last.line == 8 + 9 * (count - 1)
    assert last.schema["required"] == [f"text_{count - 1}"]


async def test_a_turn_with_a_10000_line_skill_sends_it_all_and_runs_its_tools(tmp_path):
    """Over OpenAI's wire format: the trigger injects the whole 10,000-line body into the
    system prompt, the 1,100 tools are all offered, and the last tool runs."""
    text, count = toolbelt()
    write(tmp_path / "skills", "atlas", atlas())
    write(tmp_path / "skills", "toolbelt", text)
    server = LoopbackServer().start()
    vendor = VENDORS["openai"]
    last = f"tool_{count - 1}"
    server.script(vendor.reply(calls=[("call_1", last, f'{{"text_{count - 1}": "end"}}')]),
                  vendor.reply(["Done."]))
    engine = Engine(EngineOptions(skills_dirs=[tmp_path / "skills"], provider=ProviderConfig(
        vendor="openai", model="gpt-4o", api_key=SECRET, base_url=server.url + "/v1",
        timeout=30.0)))
    try:
        await engine.start()
        await engine.open_session()
        events = [e async for e in engine.run_turn("tell me about zebra")]
    finally:
        await engine.aclose()
        server.stop()
    assert events[-1].type == "done" and events[-1].text == "Done."
    injected = next(e for e in events if e.type == "injected")
    assert ("atlas", "trigger:zebra") in [(s.name, s.reason) for s in injected.skills]
    result = next(e for e in events if e.type == "tool_result")
    assert result.content == f"tool {count - 1}: end" and not result.error
    first = server.requests[0].body
    system = first["messages"][0]["content"]
    assert LAST in system and "Fact 9" in system
    offered = {t["function"]["name"] for t in first["tools"]}
    assert {f"tool_{i}" for i in range(count)} <= offered


def test_reload_does_not_parse_an_unchanged_big_file_again(tmp_path, monkeypatch):
    """Live reload scans every file: an unchanged SKILL.MD comes from memory (an equal, new
    object each time), a file changed since is parsed again even when its size and mtime are
    the same, and a file whose timestamps are not safely in the past is never remembered."""
    parsed: list[str] = []
    real = loader.parse_skill_file

    def counting(path):
        parsed.append(Path(path).parent.name)
        return real(path)

    monkeypatch.setattr(loader, "parse_skill_file", counting)
    monkeypatch.setattr(loader, "RACY_SECONDS", 0.0)  # this test's files count as settled
    big = write(tmp_path, "atlas", atlas())
    future = time.time() + 3600  # a clock ahead of us: not safely in the past
    fresh = write(tmp_path, "fresh", "---\nname: fresh\ndescription: New.\n---\nBody.\n")
    os.utime(fresh, (future, future))
    first = {s.name: s for s in load_skills([tmp_path]).skills}
    second = {s.name: s for s in load_skills([tmp_path]).skills}
    assert sorted(parsed) == ["atlas", "fresh", "fresh"]
    assert first["atlas"] == second["atlas"] and first["atlas"] is not second["atlas"]

    stat = big.stat()
    big.write_text(atlas().replace(LAST, LAST.lower()))  # same size, other words
    os.utime(big, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and the same mtime
    third = {s.name: s for s in load_skills([tmp_path]).skills}
    assert third["atlas"].body.endswith(LAST.lower())
    assert parsed.count("atlas") == 2


@given(st.from_regex(r"[A-Za-z][\w ,.;()'/-]{0,40}", fullmatch=True))
def test_a_plain_description_reads_as_yaml_reads_it(raw):
    """The one-line description shortcut (no YAML parse per tool block) gives exactly what
    YAML reads for every text it takes, so big files parse faster and no description changes;
    bool and null words (yes, off, null...) are left to YAML."""
    seg = [f"description: {raw}"]
    assume(sections._plain_line(raw.strip(), seg))
    yaml_value = load_yaml(seg, 1, Errors("x"), "t")["description"]
    assert sections._segment_value("description", 0, seg, "t", Errors("x")) == yaml_value
