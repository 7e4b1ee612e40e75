"""`## Permissions` as a list (Birdie's form) or a mapping, and entrypoint schemes checked at load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from birdie_tui.cli import main as cli_main
from birdie_tui.skills import load_skills, parse_skill_text
from birdie_tui.tools.entrypoints import run_entrypoint

TOOLS_HEAD = "---\nname: x\ndescription: d\n---\n## Tools\n"


def parse(text: str):
    return parse_skill_text(text, Path("/s/x/SKILL.MD"))


# ------------------------------------------------------------------------------- permissions


def test_permissions_as_a_birdie_list_of_capabilities():
    """Birdie's list of capabilities under ## Permissions is read as capabilities, not rules."""
    # Verbatim shape of Birdie 0.1.5's filesystem skill: a list, then another section.
    skill = parse(TOOLS_HEAD + "### read_file\ndescription: Read.\nentrypoint: bash:cat {path}\n\n"
                  "## Permissions\n- local_shell\n- outbound_http\n\n## Examples\nUser: \"hi\"\n")
    assert skill.permissions == ("local_shell", "outbound_http")
    assert skill.permission_rules == {}
    assert not skill.requires_approval("read_file")
    assert [t.name for t in skill.tools] == ["read_file"]


def test_permissions_as_a_mapping_keeps_rules_and_names_capabilities_by_key():
    """A permissions mapping keeps its rules; keys that are switched on name capabilities."""
    skill = parse("---\nname: x\ndescription: d\n---\n## Permissions\n\nrequire_approval: [t]\n"
                  "network: outbound\nlocal_shell: true\ndisk: false\n")
    assert skill.permission_rules == {"require_approval": ["t"], "network": "outbound",
                                      "local_shell": True, "disk": False}
    # rule keys and switched-off keys are not capabilities
    assert skill.permissions == ("network", "local_shell")
    assert skill.requires_approval("t") and not skill.requires_approval("u")


def test_permissions_list_mixing_names_and_rules_and_repeated_sections():
    """Permission lists mixing names and rules, over repeated sections, merge without repeats."""
    skill = parse("---\nname: x\ndescription: d\n---\n## Permissions\n```yaml\n- local_shell\n"
                  "- require_approval: true\n- local_shell\n```\n## Permissions\n- network\n")
    assert skill.permissions == ("local_shell", "network")
    assert skill.permission_rules == {"require_approval": True}
    assert skill.requires_approval("anything")


def test_empty_permissions_and_check_json_keys_unchanged():
    """An empty Permissions section gives nothing; to_dict keeps the skills check JSON keys."""
    skill = parse("---\nname: x\ndescription: d\n---\n## Permissions\n\n## Other\ntext\n")
    assert skill.permissions == () and skill.permission_rules == {}
    # DESIGN §3.1: `skills check --json` keys stay exactly these.
    assert list(skill.to_dict()) == ["name", "kind", "path", "description", "version", "tags", "triggers",
                                     "enabled_by_default", "always_inject", "tools", "mcp_server"]


# ------------------------------------------------------------------------------- entrypoint schemes


@pytest.mark.parametrize("entrypoint, fragment", [
    ("ftp:foo", "unknown entrypoint scheme 'ftp:'"),
    ("https://example.com/api", "unknown entrypoint scheme 'https:'"),
    ("foo.sh", "entrypoint 'foo.sh' has no scheme"),
    ("./run.sh --mode=a:b", "has no scheme"),
    ("bash:", "entrypoint 'bash:' has no target"),
    ("http:fetch https://example.com", "unknown HTTP method in entrypoint 'http:fetch'"),
    ("http:get", "entrypoint 'http:get' needs a URL"),
])
def test_unknown_or_empty_entrypoints_are_load_errors_with_line(make_skill, skills_root, entrypoint, fragment):
    """Unknown or incomplete entrypoints are load errors at the tool's line; others load."""
    make_skill("a_good", TOOLS_HEAD.replace("name: x", "name: good") + "### ok\ndescription: d\nentrypoint: bash:true\n")
    bad = make_skill("b_bad", TOOLS_HEAD + "### fine\ndescription: d\nentrypoint: python:m.f\n\n"
                     f"### broken\ndescription: d\nentrypoint: {entrypoint}\n")
    result = load_skills([skills_root])
    assert [s.name for s in result.skills] == ["good"]  # one bad file never hides the rest
    [error] = result.errors
    assert (error.path, error.line) == (str(bad), 12)
    assert error.message.startswith("tool 'broken': ") and fragment in error.message


@pytest.mark.parametrize("entrypoint", [
    "bash:ls -la {path}", "BASH:true", "python:pkg.mod.func", "python:pkg.mod:func",
    "http:get https://example.com/{city}", "http:POST https://example.com", "http:delete https://x.test",
    "grpc:pkg.Service/Method", "container:alpine:3 echo hi",
])
def test_known_schemes_still_load(entrypoint):
    """Entrypoints with a known scheme, in any case, load unchanged."""
    skill = parse(TOOLS_HEAD + f"### t\ndescription: d\nentrypoint: {entrypoint}\n")
    assert skill.tools[0].entrypoint == entrypoint


@pytest.mark.parametrize("entrypoint, scheme", [("grpc:pkg.Svc/Call", "grpc"), ("container:alpine", "container")])
async def test_known_but_unsupported_schemes_fail_clearly_only_when_called(tmp_path, entrypoint, scheme):
    """The grpc and container schemes load, and fail with a clear message only when called."""
    skill = parse(TOOLS_HEAD + f"### t\ndescription: d\nentrypoint: {entrypoint}\n")
    outcome = await run_entrypoint(skill.tools[0], {}, skill_dir=tmp_path)
    assert outcome.error and outcome.content == f"entrypoint scheme '{scheme}' is not supported by birdie-tui"


def test_skills_check_exits_1_and_shows_the_unknown_scheme(make_skill, skills_root, capsys):
    """Skills check exits 1 and shows an unknown scheme with its line, in text and JSON."""
    bad = make_skill("bad", TOOLS_HEAD + "### t\ndescription: d\nentrypoint: ftp:foo\n")
    assert cli_main(["skills", "check", str(skills_root)]) == 1
    out = capsys.readouterr().out
    assert f"ERROR {bad}:8: tool 't': unknown entrypoint scheme 'ftp:'" in out
    assert cli_main(["skills", "check", str(skills_root), "--json"]) == 1
    errors = json.loads(capsys.readouterr().out)["errors"]
    assert errors == [{"path": str(bad), "line": 8, "message": errors[0]["message"]}]
    assert "unknown entrypoint scheme 'ftp:'" in errors[0]["message"]
