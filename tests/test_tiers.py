"""The test tiers hold together: a plain `pytest` leaves out every tier marker but `smoke`,
`.ci/run` runs every tier, and CONTRIBUTING.md names every marker pyproject.toml registers."""

from __future__ import annotations

import re
import shlex
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYTEST = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["pytest"]


def markers() -> list[str]:
    """The registered marker names (`name: meaning` lines in pyproject.toml)."""
    return [line.partition(":")[0] for line in PYTEST["ini_options"]["markers"]]


def default_expression() -> str:
    args = shlex.split(PYTEST["ini_options"]["addopts"])
    return args[args.index("-m") + 1]


def selected(expression: str, marks: set[str]) -> bool:
    """Whether `-m expression` selects a test carrying `marks` (and/or/not over names)."""
    if not expression.strip():
        return True
    names = {name: name in marks for name in re.findall(r"[A-Za-z_]\w*", expression)
             if name not in {"and", "or", "not"}}
    return bool(eval(expression, {"__builtins__": {}}, names))  # noqa: S307 (our own pyproject)


def ci_pytest_args() -> list[str]:
    """The arguments of the pytest command in .ci/run."""
    line = next(line for line in (REPO / ".ci" / "run").read_text().splitlines()
                if line.startswith("pytest "))
    return shlex.split(line)[1:]


def test_every_tier_marker_is_registered_with_a_meaning():
    """integration, app, smoke, fuzz, compat and slow are registered, each with one line."""
    assert set(markers()) >= {"integration", "app", "smoke", "fuzz", "compat", "slow"}
    for line in PYTEST["ini_options"]["markers"]:
        assert re.match(r"^\w+: \S.{20,}$", line), line


def test_a_plain_pytest_leaves_out_every_tier_but_smoke():
    """The default run takes an unmarked test and a smoke test, and no test of any other tier."""
    expression = default_expression()
    assert selected(expression, set())
    assert selected(expression, {"smoke"})
    for name in set(markers()) - {"smoke"}:
        assert not selected(expression, {name}), name


def test_ci_runs_every_tier():
    """`.ci/run` overrides the default -m with one that selects a test of every marker (README
    shows that command: tests/test_docs_links.py)."""
    args = ci_pytest_args()
    expression = args[args.index("-m") + 1]
    assert selected(expression, set())
    for name in markers():
        assert selected(expression, {name}), name


def test_contributing_names_every_marker_in_its_tiers_table():
    """CONTRIBUTING.md's "Test tiers" table has a `pytest -m <marker>` row for every marker."""
    text = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    section = text.split("## Test tiers", 1)[1].split("\n## ", 1)[0]
    for name in markers():
        assert f"| `pytest -m {name}` |" in section, name
