from pathlib import Path

import pytest

from birdie_tui.skills import SkillParseError, bundled_skills_dir, load_skills, parse_skill_file, parse_skill_text

EXPECTED_KINDS = {
    "filesystem": "tools", "Shell": "tools", "ssh": "knowledge", "planning": "always",
    "weather": "tools", "mcp_demo": "mcp", "git-helper": "agent-skill",
}


def errors_of(text: str, name: str = "SKILL.MD"):
    with pytest.raises(SkillParseError) as exc:
        parse_skill_text(text, Path("/s/x") / name)
    return exc.value.errors


def test_bundled_skills_all_parse_with_expected_kinds():
    """Every bundled skill parses without error, with the expected kind and fields."""
    result = load_skills([bundled_skills_dir()])
    assert result.errors == []
    kinds = {s.name: s.kind for s in result.skills}
    assert kinds == EXPECTED_KINDS
    for skill in result.skills:
        assert skill.description
        for tool in skill.tools:
            assert tool.schema["type"] == "object" and tool.skill == skill.name and tool.line
    by = {s.name: s for s in result.skills}
    assert by["Shell"].requires_approval("run_bash")
    assert by["Shell"].tools[0].entrypoint == "bash:bash -c {command}"
    assert by["ssh"].triggers == ["ssh", "remote server", "remote connection", "secure shell"]
    assert by["ssh"].tool_tags == ["shell"] and by["ssh"].body.startswith("# SSH Skill")
    assert by["planning"].body.startswith("Work step by step") and "## Tools" not in by["planning"].body
    assert by["weather"].enabled_by_default is False and by["mcp_demo"].enabled_by_default is False
    assert by["mcp_demo"].mcp_server.command == "python" and by["mcp_demo"].mcp_server.args == ["server.py"]
    gh = by["git-helper"]
    assert gh.format == "agent-skills" and gh.license == "Apache-2.0"
    assert gh.resources == ["references/conventional-commits.md", "scripts/summarize_log.sh"]
    assert by["filesystem"].tools[0].schema["properties"]["path"]["default"] == "."


def test_bom_crlf_any_key_order_multiline_and_awk(make_skill):
    """A BOM, CRLF endings, any key order, multi-line values and awk braces parse correctly."""
    text = (
        "\ufeff---\r\nname: demo\r\ndescription: A demo\r\nversion: 2\r\ntags: a, b\r\n---\r\n"
        "Intro.\r\n\r\n## Tools\r\n\r\n### first\r\nschema:\r\n  type: object\r\n  properties:\r\n"
        "    path:\r\n      type: string\r\n      default: /tmp\r\n"
        "entrypoint: bash:awk '{print $1}' {path}\r\n"
        "description: Note: plain text with a colon\r\n  continued on a second line.\r\n\r\n"
        "### second\r\ndescription: |\r\n  line one\r\n  line two\r\nentrypoint: 'python:tools.f'\r\n"
    )
    p = make_skill("demo", text, dedent=False)
    skill = parse_skill_file(p)
    assert (skill.name, skill.version, skill.tags, skill.body) == ("demo", "2", ["a", "b"], None)
    first, second = skill.tools
    assert first.entrypoint == "bash:awk '{print $1}' {path}"
    assert first.description == "Note: plain text with a colon continued on a second line."
    assert first.schema["properties"]["path"]["default"] == "/tmp"
    assert first.line == 11 and first.tags == ["a", "b"] and first.skill == "demo"
    assert second.description == "line one\nline two" and second.entrypoint == "python:tools.f"
    assert second.schema == {"type": "object", "properties": {}}


def test_folded_description_and_always_inject_body_and_permissions():
    """Folded descriptions, the always-inject body before ## Tools, and permissions parse."""
    text = """---
name: p
description: d
always_inject: true
triggers: [a]
---
Before tools.

## Permissions
- require_approval: true
- network: outbound

## Tools
### t
description: >
  folded
  text
entrypoint: bash:true

## Afterwards
Not part of the always-inject body.
"""
    skill = parse_skill_text(text, Path("/s/p/SKILL.MD"))
    assert skill.body == "Before tools."
    assert skill.permission_rules == {"require_approval": True, "network": "outbound"}
    assert skill.permissions == ("network",)
    assert skill.tools[0].description == "folded text"
    assert skill.requires_approval("t")


def test_knowledge_body_is_whole_body_and_tools_only_body_is_none():
    """A knowledge skill's body is its whole text; a tools skill has no body."""
    k = parse_skill_text("---\nname: k\ndescription: d\ntriggers: x, y z\n---\n\n# K\n\n## Part\ntext\n", Path("/a/SKILL.MD"))
    assert k.body == "# K\n\n## Part\ntext" and k.triggers == ["x", "y z"] and k.kind == "knowledge"
    t = parse_skill_text("---\nname: t\ndescription: d\n---\nprose\n## Tools\n### a\ndescription: x\nentrypoint: bash:x\n", Path("/a/SKILL.MD"))
    assert t.body is None and t.kind == "tools"


def test_mcp_transport_normalised_and_validated():
    """The MCP transport 'http' becomes streamable_http; a missing url or command is an error."""
    s = parse_skill_text("---\nname: m\ndescription: d\nmcp_server:\n  transport: http\n  url: http://x/mcp\n---\n", Path("/a/SKILL.MD"))
    assert s.mcp_server.transport == "streamable_http" and s.kind == "mcp"
    errs = errors_of("---\nname: m\ndescription: d\nmcp_server:\n  transport: sse\n---\n")
    assert "needs a 'url'" in errs[0].message and errs[0].line == 4
    errs = errors_of("---\nname: m\ndescription: d\nmcp_server: {args: [a]}\n---\n")
    assert "needs a 'command'" in errs[0].message


def test_agent_skills_format(tmp_path):
    """An Agent Skills SKILL.md parses its own fields, lists resources and ignores triggers."""
    d = tmp_path / "ag"
    (d / "scripts").mkdir(parents=True)
    (d / "scripts" / "run.sh").write_text("echo\n")
    (d / "assets" / "img").mkdir(parents=True)
    (d / "assets" / "img" / "a.png").write_bytes(b"x")
    (d / "SKILL.md").write_text("---\nname: ag\ndescription: d\nallowed-tools: Bash(git:*) Read\nmetadata: {a: b}\ntriggers: [x]\n---\nDo it.\n")
    s = parse_skill_file(d / "SKILL.md")
    assert s.format == "agent-skills" and s.kind == "agent-skill" and s.triggers == []
    assert s.allowed_tools == ["Bash(git:*)", "Read"] and s.metadata == {"a": "b"} and s.body == "Do it."
    assert s.resources == ["assets/img/a.png", "scripts/run.sh"] and s.enabled_by_default


def test_birdie_file_without_birdie_fields_is_still_birdie():
    """A SKILL.MD with only name and description is still in Birdie format."""
    s = parse_skill_text("---\nname: a\ndescription: b\n---\nhello\n", Path("/x/SKILL.MD"))
    assert s.format == "birdie" and s.body == "hello"


@pytest.mark.parametrize("text, line, fragment", [
    ("---\nname: x\ndescription: y\n", 1, "not closed"),
    ("name: x\n---\n", 1, "must start with"),
    ("---\ndescription: y\n---\n", 1, "missing required field 'name'"),
    ("---\nname: x\n---\n", 1, "missing required field 'description'"),
    ("---\nname: x\ndescription: y\ntags: {a: 1}\n---\n", 4, "tags"),
    ("---\nname: x\ndescription: y\nenabled_by_default: maybe\n---\n", 4, "true or false"),
    ("---\n- a\n- b\n---\n", 2, "must be a YAML mapping"),
    ("---\nname: x\ndescription: y\n---\n## Tools\n\n### t\ndescription: z\n", 7, "tool 't': missing 'entrypoint'"),
    ("---\nname: x\ndescription: y\n---\n## Tools\n### t\nentrypoint: bash:x\n", 6, "tool 't': missing 'description'"),
    ("---\nname: x\ndescription: y\n---\n## Tools\n### t\ndescription: z\nentrypoint: bash:x\nschema: [a, b]\n", 9, "schema must be a mapping"),
    ("---\nname: x\ndescription: y\n---\n## Tools\n### t\ndescription: z\nentrypoint: bash:x\nschema:\n  type: string\n", 9, "type must be 'object'"),
    ("---\nname: x\ndescription: y\n---\n## Permissions\nneeds the network\n", 5, "must be a YAML list of capabilities"),
    ("---\nname: x\ndescription: y\n---\n## Permissions\n- [a, b]\n", 5, "items must be capability names"),
    ("---\nname: x\ndescription: y\n---\n## Tools\n### t\ndescription: z\nentrypoint: ftp:foo\n", 8, "unknown entrypoint scheme 'ftp:'"),
])
def test_broken_files_report_line_and_message(text, line, fragment):
    """Each kind of broken skill file is reported with its line and a clear message."""
    errs = errors_of(text)
    assert any(e.line == line and fragment in e.message for e in errs), errs


def test_bad_yaml_error_points_into_file():
    """YAML errors in frontmatter or a tool block point at a line within the file."""
    errs = errors_of("---\nname: x\ndescription: y\ntags: [a, b\nversion: 1\n---\nbody\n")
    assert len(errs) == 1 and errs[0].message.startswith("YAML error in frontmatter")
    assert 4 <= errs[0].line <= 6
    errs = errors_of("---\nname: x\ndescription: y\n---\n## Tools\n### t\ndescription: z\nentrypoint: bash:x\n"
                     "schema:\n  type: object\n  properties:\n    a: {type: [str\n\n### u\ndescription: k\n")
    assert any(e.message.startswith("YAML error in tool 't'") and 12 <= e.line <= 13 for e in errs), errs
    assert any("tool 'u': missing 'entrypoint'" in e.message and e.line == 14 for e in errs)


def test_duplicate_tool_names_and_multiple_errors_collected():
    """All errors of a file are collected, duplicate tool names included, each with the path."""
    errs = errors_of("---\nname: x\n---\n## Tools\n### a\ndescription: 1\nentrypoint: bash:x\n"
                     "### a\ndescription: 2\nentrypoint: bash:y\n")
    msgs = [(e.line, e.message) for e in errs]
    assert (1, "missing required field 'description'") in msgs
    assert (8, "duplicate tool name 'a' (first defined at line 5)") in msgs
    assert all(e.path == str(Path("/s/x/SKILL.MD")) for e in errs)


def test_unreadable_and_non_utf8_files(tmp_path):
    """Non-UTF-8, missing and directory paths raise SkillParseError; bad bytes give their line."""
    p = tmp_path / "SKILL.MD"
    p.write_bytes(b"---\nname: x\n\xff\xfe\n---\n")
    with pytest.raises(SkillParseError) as exc:
        parse_skill_file(p)
    assert exc.value.errors[0].line == 3 and "UTF-8" in exc.value.errors[0].message
    with pytest.raises(SkillParseError):
        parse_skill_file(tmp_path / "missing" / "SKILL.MD")
    with pytest.raises(SkillParseError):
        parse_skill_file(tmp_path)  # a directory


def test_yaml_alias_bombs_and_recursive_aliases_are_safe():
    """A YAML alias bomb is refused with its line instead of being expanded (see
    test_skills_hostile_yaml.py), and a recursive alias is an error."""
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))
    errs = errors_of(f"---\nname: x\ndescription: d\nmetadata_blob:\n  {bomb.replace(chr(10), chr(10) + '  ')}\n---\n")
    assert [e.line for e in errs] == [9] and "aliases expand to more than 10,000 nodes" in errs[0].message
    errs = errors_of("---\nname: x\ndescription: d\ntags: &a [*a]\n---\n")
    assert "recursive YAML alias" in errs[0].message
