"""Size rules that keep the package readable: small modules, short functions, a thin App."""

from __future__ import annotations

import ast
from pathlib import Path

import birdie_tui

ROOT = Path(birdie_tui.__file__).parent
# A backstop, not a target: a module is split where its concepts part, never to fit a count
# (cutting one class into mixins to stay under it is what this number must not cause).
MODULE_LINES = 500
FUNCTION_LINES = 60
APP_LINES = 200


def test_no_module_over_500_lines():
    """A module that grows past ~500 lines gets split along a real seam."""
    long = {str(p.relative_to(ROOT)): n for p in ROOT.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MODULE_LINES}
    assert long == {}


def test_no_function_over_60_lines():
    """A function longer than a screen is split into named steps."""
    long = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                if size > FUNCTION_LINES:
                    long.append(f"{path.relative_to(ROOT)}:{node.name} ({size})")
    assert long == []


def test_the_app_is_thin():
    """`tui/app.py` is boot, settings, themes and keymap; the screen owns the rest."""
    assert len((ROOT / "tui" / "app.py").read_text(encoding="utf-8").splitlines()) <= APP_LINES


def test_every_test_says_its_intent():
    """Each test has a docstring saying what behaviour it pins."""
    tests = Path(__file__).parent
    silent = [f"{path.relative_to(tests)}:{node.name}"
              for path in tests.rglob("test_*.py")
              for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
              if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
              and node.name.startswith("test_") and not ast.get_docstring(node)]
    assert silent == []
