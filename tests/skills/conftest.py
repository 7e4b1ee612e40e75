"""Shared fixtures for the skills tests: write real skill folders into tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


def write_skill(root: Path, folder: str, text: str, filename: str = "SKILL.MD", *, dedent: bool = True) -> Path:
    d = root / folder
    d.mkdir(parents=True, exist_ok=True)
    p = d / filename
    p.write_text(textwrap.dedent(text).lstrip("\n") if dedent else text, encoding="utf-8")
    return p


def _simple_skill(name: str, tools: tuple[str, ...] = (), **fm: str) -> str:
    extra = "".join(f"{k}: {v}\n" for k, v in fm.items())
    blocks = "".join(
        f"\n### {t}\ndescription: tool {t}\nentrypoint: bash:echo {t}\n" for t in tools)
    return f"---\nname: {name}\ndescription: skill {name}\n{extra}---\n" + (f"\n## Tools\n{blocks}" if tools else "Body.\n")


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    return root


@pytest.fixture
def make_skill(skills_root: Path):
    def _make(folder: str, text: str, filename: str = "SKILL.MD", **kw) -> Path:
        return write_skill(skills_root, folder, text, filename, **kw)
    return _make


@pytest.fixture
def simple_skill():
    """`simple_skill(name, tools=(), **frontmatter)` -> SKILL.MD text."""
    return _simple_skill
