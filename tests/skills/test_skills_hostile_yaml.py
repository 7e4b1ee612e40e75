"""Hostile skill files: alias bombs, deep nesting and oversize files are refused cheaply.

Every YAML block of a skill file (frontmatter with `mcp_server`, `## Tools` blocks,
`## Permissions`) goes through `birdie_tui.skills.safe_yaml`. Memory is checked, not time:
the hostile files are loaded in a child process whose address space is capped
(`RLIMIT_AS`), which also serialises what it loaded the way `skills check --json` and the
provider tool specs do, so a bomb that slipped through would die there of `MemoryError`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

import birdie_tui
import birdie_tui.skills.safe_yaml as safe_yaml
from birdie_tui.skills import SkillParseError, load_skills, parse_skill_text

from .conftest import write_skill

REPO = Path(birdie_tui.__file__).resolve().parents[1]
MEMORY_CAP_MB = 512  # the child's whole address space: Python, the parser and the skills

_PROBE = r"""
import json, resource, sys
cap = int(sys.argv[1]) * 1024 * 1024
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
from pathlib import Path
from birdie_tui.skills import load_skills
result = load_skills([Path(sys.argv[2])])
dumped = sum(len(json.dumps([s.to_dict(), s.permission_rules, s.metadata], default=str))
             for s in result.skills)
print(json.dumps({
    "skills": {s.name: [t.name for t in s.tools] for s in result.skills},
    "errors": [[e.path, e.line, e.message] for e in result.errors],
    "dumped": dumped,
    "max_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
}))
"""


def load_capped(root: Path) -> dict:
    """`load_skills([root])` in a child process limited to MEMORY_CAP_MB of address space."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, str(MEMORY_CAP_MB), str(root)],
                          capture_output=True, text=True, cwd=REPO, timeout=300)
    assert proc.returncode == 0, f"the capped loader died:\n{proc.stderr[-2000:]}"
    return json.loads(proc.stdout.splitlines()[-1])


def laughs(indent: str = "", levels: int = 10) -> list[str]:
    """A 'billion laughs': `a9` stands for 10**10 strings once its aliases are expanded."""
    out = [f'{indent}a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    out += [f"{indent}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, levels)]
    return out


def line_of(text: str, fragment: str) -> int:
    """1-based line of the first line containing `fragment`."""
    return next(n for n, ln in enumerate(text.split("\n"), 1) if fragment in ln)


FM = "---\nname: hostile\ndescription: a bomb\n"
BOMBS = {
    # frontmatter: a field nobody reads still has to be parsed
    "frontmatter": FM + "x-laughs:\n" + "\n".join(laughs("  ")) + "\nmetadata: {all: *a9}\n---\nbody\n",
    # `mcp_server`: `env` values are stringified, the original killer (str() of 10**10 strings)
    "mcp_server": FM + "mcp_server:\n  transport: stdio\n  command: python\n  x-laughs:\n"
    + "\n".join(laughs("    ")) + "\n  env:\n    BOOM: *a9\n---\n",
    # a tool schema: `default` is sent to the model with the tool spec
    "tool schema": FM + "---\n## Tools\n\n### boom\ndescription: d\nentrypoint: bash:echo\nschema:\n"
    "  type: object\n  x-laughs:\n" + "\n".join(laughs("    "))
    + "\n  properties:\n    x: {type: array, default: *a9}\n",
    "permissions": FM + "---\nbody\n\n## Permissions\n" + "\n".join(laughs()) + "\nrequire_approval: *a9\n",
    # a tool description is normally read leniently as plain text when it is not YAML: not a bomb
    "tool description": FM + "---\n## Tools\n\n### boom\nentrypoint: bash:echo\ndescription:\n"
    + "\n".join(laughs("  ")) + "\n",
}


@pytest.mark.parametrize("where", sorted(BOMBS))
def test_billion_laughs_is_refused_with_file_and_line(skills_root, simple_skill, where):
    """An alias bomb anywhere YAML is read is refused at the alias that crosses the budget, with
    the file and line, in bounded memory; the skill next to it still loads."""
    text = BOMBS[where]
    bomb = write_skill(skills_root, "bomb", text, dedent=False)
    write_skill(skills_root, "good", simple_skill("good", ("ok_tool",)))
    result = load_capped(skills_root)
    assert result["skills"] == {"good": ["ok_tool"]}
    assert len(result["errors"]) == 1, result["errors"]
    path, line, message = result["errors"][0]
    assert path == str(bomb)
    assert line == line_of(text, "a3: &a3")  # the first alias past 10,000 repeated nodes is *a2 in a3
    assert "aliases expand to more than 10,000 nodes at *a2" in message and "billion laughs" in message


def test_harmless_aliases_and_merge_keys_still_parse():
    """A few aliases (and merge keys) that repeat little are allowed and expand as YAML says."""
    text = (FM + "defaults: &env {LANG: C, TZ: UTC}\nmcp_server:\n  command: python\n"
            "  env:\n    <<: *env\n    EXTRA: '1'\n---\n## Tools\n\n### t\ndescription: d\n"
            "entrypoint: bash:echo {x} {y}\nschema:\n  type: object\n  properties:\n"
            "    x: &str {type: string, description: a word}\n    y: *str\n  required: [x, y]\n")
    skill = parse_skill_text(text, Path("/s/aliases/SKILL.MD"))
    assert skill.mcp_server.env == {"LANG": "C", "TZ": "UTC", "EXTRA": "1"}
    props = skill.tools[0].schema["properties"]
    assert props["x"] == props["y"] == {"type": "string", "description": "a word"}


def test_alias_budget_counts_expanded_nodes():
    """Aliases may repeat up to MAX_ALIAS_NODES nodes per YAML document, counted expanded: one
    node more is refused."""
    anchor = "a: &a [" + ", ".join(["x"] * 99) + "]\n"  # the list and its 99 items: 100 nodes
    uses = safe_yaml.MAX_ALIAS_NODES // 100
    at_limit = anchor + f"b: [{', '.join(['*a'] * uses)}]\n"
    assert len(safe_yaml.load(at_limit)["b"]) == uses
    with pytest.raises(safe_yaml.YAMLLimitError, match="aliases expand") as exc:
        safe_yaml.load(at_limit + "s: &s 1\nc: *s\n")  # one repeated scalar more
    assert exc.value.problem_mark.line == 3


def test_recursive_alias_is_refused():
    """An alias inside its own anchor (a recursive document) is refused with its line."""
    with pytest.raises(SkillParseError) as exc:
        parse_skill_text(FM + "---\n## Permissions\nrules: &r\n  again: *r\n", Path("/s/r/SKILL.MD"))
    (err,) = exc.value.errors
    assert err.line == 7 and "recursive YAML alias *r" in err.message


def test_deep_nesting_is_refused_at_the_limit():
    """Collections nest at most MAX_DEPTH levels: block and flow nesting beyond it are refused
    at the line where it is crossed; exactly the limit loads."""
    depth = safe_yaml.MAX_DEPTH
    block = "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + f"{'  ' * depth}leaf\n"
    assert safe_yaml.load(block) is not None  # the root mapping plus 49 below: 50 levels
    text = FM + "x:\n" + textwrap.indent(block, "  ") + "---\nbody\n"
    with pytest.raises(SkillParseError) as exc:
        parse_skill_text(text, Path("/s/deep/SKILL.MD"))
    (err,) = exc.value.errors
    assert err.line == line_of(text, f"k{depth - 1}:") and "nested deeper than 50 levels" in err.message
    flow = FM + "---\n## Tools\n\n### t\ndescription: d\nentrypoint: bash:x\nschema: " + "[" * 200_000 + "\n"
    with pytest.raises(SkillParseError) as exc:
        parse_skill_text(flow, Path("/s/flow/SKILL.MD"))
    assert [(e.line, "nested deeper" in e.message) for e in exc.value.errors] == [(10, True)]


def test_oversize_file_is_refused_without_reading_it(skills_root, simple_skill):
    """A skill file over MAX_FILE_BYTES is refused (file, size, limit) without being read whole:
    a sparse 2 GB SKILL.MD costs the capped loader nothing; the other skills load."""
    big = skills_root / "big" / "SKILL.MD"
    big.parent.mkdir()
    with open(big, "wb") as fh:
        fh.write(b"---\nname: big\ndescription: huge\n---\n")
        fh.truncate(2 * 1024 ** 3)
    write_skill(skills_root, "good", simple_skill("good"))
    result = load_capped(skills_root)
    assert result["skills"] == {"good": []}
    assert result["errors"] == [[str(big), None, "file is too large (2,147,483,648 bytes); "
                                 "skill files are limited to 1 MB (1,048,576 bytes)"]]


def test_size_limit_is_exact_and_applies_to_text_too():
    """A file of exactly MAX_FILE_BYTES loads; one byte more is refused, also via parse_skill_text."""
    head = FM + "---\n"
    fits = head + "x" * (safe_yaml.MAX_FILE_BYTES - len(head) - 1) + "\n"
    assert len(fits.encode()) == safe_yaml.MAX_FILE_BYTES
    assert parse_skill_text(fits, Path("/s/fits/SKILL.MD")).body.startswith("xxx")
    with pytest.raises(SkillParseError) as exc:
        parse_skill_text(fits[:-2] + "é\n", Path("/s/over/SKILL.MD"))  # as many characters, 1 byte more
    (err,) = exc.value.errors
    assert err.line is None and "file is too large (1,048,577 bytes)" in err.message


def _ten_thousand_lines() -> str:
    fm = ("---\nname: big\ndescription: a big but honest skill\ntags: [big, shell]\n"
          "triggers: [" + ", ".join(f"phrase {i}" for i in range(200)) + "]\n---\n\n# Big\n\n")
    prose = "".join(f"Line {i}: when the user asks about topic {i}, prefer tool_{i % 400}.\n"
                    for i in range(2800))
    tool = ("### tool_{n}\ndescription: |\n  Tool number {n}.\n  It does thing {n}.\n"
            "entrypoint: bash:echo {{x}} {{n}}\ntimeout: 30\nschema:\n  type: object\n  properties:\n"
            "    x:\n      type: string\n      description: what to echo\n    n:\n      type: integer\n"
            "      default: 3\n    mode: {{type: string, enum: [a, b, c]}}\n  required: [x]\n\n")
    tools = "## Tools\n\n" + "".join(tool.format(n=n) for n in range(400))
    return fm + prose + tools + "## Permissions\n- local_shell\n- outbound_http\n"


def test_ten_thousand_line_skill_loads_in_bounded_memory(skills_root):
    """A legitimate 10,000-line SKILL.MD (well under the size limit) loads whole, every tool of
    it, within the capped address space."""
    text = _ten_thousand_lines()
    assert text.count("\n") >= 10_000 and len(text.encode()) < safe_yaml.MAX_FILE_BYTES
    write_skill(skills_root, "big", text, dedent=False)
    result = load_capped(skills_root)
    assert result["errors"] == []
    assert result["skills"]["big"] == [f"tool_{n}" for n in range(400)]
    assert result["max_rss_mb"] < MEMORY_CAP_MB


def test_many_sections_load_with_linear_bookkeeping(skills_root):
    """Thousands of `## Tools` / `## Permissions` sections all load, in order (their bookkeeping
    is linear now: it was quadratic, a minute for a 1 MB file); a tool name repeated in a later
    section is still a duplicate."""
    parts = [FM + "---\n"]
    parts += [f"## Tools\n### t{n}\ndescription: d\nentrypoint: bash:echo\n## Permissions\n- cap{n}\n"
              for n in range(5_000)]
    write_skill(skills_root, "many", "".join(parts), dedent=False)
    skill = load_skills([skills_root]).skills[0]
    assert [t.name for t in skill.tools] == [f"t{n}" for n in range(5_000)]
    assert skill.permissions == tuple(f"cap{n}" for n in range(5_000))
    text = "".join(parts) + "## Tools\n### t7\ndescription: d\nentrypoint: bash:echo\n"
    with pytest.raises(SkillParseError) as exc:
        parse_skill_text(text, Path("/s/dup/SKILL.MD"))
    (err,) = exc.value.errors
    assert "duplicate tool name 't7' (first defined at line 48)" in err.message


def test_every_yaml_load_goes_through_safe_yaml():
    """No module of the package loads YAML except `skills/safe_yaml.py`, so every block of a
    skill file (frontmatter, mcp_server, tool blocks, permissions) gets the same limits."""
    loads = re.compile(r"(?<![\w.])yaml\.(safe_load|load|full_load|unsafe_load|compose|load_all|safe_load_all)\b"
                       r"|\b(C?SafeLoader|C?Loader|FullLoader|UnsafeLoader)\b")
    root = Path(birdie_tui.__file__).parent
    found = [f"{p.relative_to(root)}:{n}" for p in root.rglob("*.py") if p.name != "safe_yaml.py"
             for n, ln in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if loads.search(ln)]
    assert found == []
    assert yaml.safe_load("a: 1") == safe_yaml.load("a: 1")
