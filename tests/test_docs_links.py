"""The documentation holds together: README stays short, every relative link and #anchor in the
docs resolves, code and tests cite docs that exist, and the contracts page lists the key
binding ids the app really has."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DOCS = sorted([REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "SECURITY.md",
               *(REPO / "docs").glob("*.md")])
README_MAX_LINES = 150
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> list[str]:
    """The lines outside fenced code blocks (a `# comment` in a bash block is no heading)."""
    lines, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    found: set[str] = set()
    for line in prose(path.read_text(encoding="utf-8")):
        if m := re.match(r"#{1,6} (.+)", line):
            base = slug(m.group(1))
            name, n = base, 0
            while name in found:  # GitHub numbers repeated headings: x, x-1, x-2
                n += 1
                name = f"{base}-{n}"
            found.add(name)
    return found


def links(path: Path) -> list[str]:
    """Every link target in the prose, inline code spans left out."""
    out: list[str] = []
    for line in prose(path.read_text(encoding="utf-8")):
        out += LINK.findall(re.sub(r"`[^`]*`", "", line))
    return out


def broken_links(path: Path) -> list[str]:
    bad = []
    for target in links(path):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading with that anchor")
    return bad


def test_the_readers_pages_are_all_there():
    """README links a user guide, the skill format, the command line, providers, team and
    server, contracts, performance, architecture, contributing and security."""
    names = {p.relative_to(REPO).as_posix() for p in DOCS}
    assert names >= {"README.md", "CONTRIBUTING.md", "SECURITY.md", "docs/user-guide.md",
                     "docs/skills.md", "docs/command-line.md", "docs/providers.md",
                     "docs/team-and-server.md", "docs/contracts.md", "docs/performance.md",
                     "docs/architecture.md"}
    readme_links = {t.partition("#")[0] for t in links(REPO / "README.md")}
    assert names - {"README.md"} <= readme_links


def test_the_readme_is_short():
    """README is the front page (pitch, screenshot, install, tests, links): at most 150 lines."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES


def test_the_readme_keeps_the_commands_ci_runs():
    """`.ci/run` installs and tests as README says: the install and test commands stay there."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert 'pip install -e ".[dev]"' in text
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    tiers = re.search(r'^pytest .*-m "([^"]*)"', ci, re.MULTILINE)
    assert tiers, ".ci/run runs no pytest with -m"
    assert f'pytest -m "{tiers.group(1)}"' in text


@pytest.mark.parametrize("path", DOCS, ids=[p.relative_to(REPO).as_posix() for p in DOCS])
def test_every_relative_link_and_anchor_resolves(path):
    """Each relative link names a file of the repository and each #anchor a heading in it."""
    assert broken_links(path) == []


def test_the_link_checker_sees_a_broken_link(tmp_path):
    """The checker catches a missing file, a missing anchor, and skips code and URLs."""
    page = tmp_path / "page.md"
    page.write_text("# Top\n\n## Headless `--print`\n[a](#top) [b](#headless---print) "
                    "[c](#nowhere) [d](missing.md) [e](https://example.com/x#y) `[f](#g)`\n"
                    "```\n[h](#in-code)\n# not a heading\n```\n", encoding="utf-8")
    assert broken_links(page) == ["#nowhere: no heading with that anchor",
                                  "missing.md: no such file"]


def test_code_and_tests_cite_docs_that_exist():
    """A `docs/….md` named in the package (or in a test module's docstring) exists, and no file
    cites a design document that is not in the repository."""
    missing_design = "DESIGN" + ".md"
    cited, design = set(), []
    for path in [*(REPO / "birdie_tui").rglob("*.py"), *(REPO / "tests").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        # Tests use paths such as docs/a.md as data; only what a test module says it pins counts.
        said = text if path.is_relative_to(REPO / "birdie_tui") else ast.get_docstring(
            ast.parse(text)) or ""
        cited |= set(re.findall(r"docs/[\w.-]+\.md", said))
        if missing_design in text:
            design.append(str(path.relative_to(REPO)))
    assert design == []
    assert sorted(c for c in cited if not (REPO / c).exists()) == []


def test_contracts_list_every_key_binding_id():
    """docs/contracts.md names exactly the binding ids a keymap may use."""
    from birdie_tui.tui.app import BirdieApp
    from birdie_tui.tui.keymap import default_keys

    app = BirdieApp.__new__(BirdieApp)  # the ids are class-level bindings: no app is started
    text = (REPO / "docs" / "contracts.md").read_text(encoding="utf-8")
    section = text[text.index("## Key binding ids"):]
    rows = "\n".join(line for line in section.splitlines() if line.startswith("|"))
    listed = set(re.findall(r"`([a-z_]+\.[a-z_-]+)`", rows))
    assert listed == set(default_keys(app))
