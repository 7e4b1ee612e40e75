"""birdie_tui.store stays free of UI and agent frameworks."""

import ast
from pathlib import Path

import birdie_tui.store

FORBIDDEN = ("textual", "langgraph", "langchain")


def test_store_imports_no_textual_or_langgraph() -> None:
    """No module in birdie_tui.store imports a forbidden top-level package (Textual, LangGraph)."""
    offenders = []
    for path in Path(birdie_tui.store.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
