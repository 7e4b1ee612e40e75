"""The package's import graph, read from the source: no cycles, and the layers hold.

Every import counts, at module level or inside a function (a lazy import is still a
dependency); only imports under `if TYPE_CHECKING:` are left out, since they never run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import birdie_tui

ROOT = Path(birdie_tui.__file__).parent
CORE = ("skills", "tools", "agent", "agent_files", "providers", "mcp", "store", "schedules")


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_lines(tree: ast.AST) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(path: Path, modules: set[str]) -> set[str]:
    """The package modules `path` imports (resolved to the longest known module name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_lines(tree)
    me = module_name(path)
    package = me if path.name == "__init__.py" else me.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            # `from pkg import sub` depends on pkg.sub; `from pkg import name` on pkg itself.
            names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                     for alias in node.names]
        for name in names:
            while name and name not in modules:
                name = name.rpartition(".")[0]
            if name and name != me:
                found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imports_of(p, modules) for p in paths}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_is_read_correctly():
    """The reader sees lazy and relative imports (else the tests below prove nothing)."""
    graph = import_graph()
    assert "birdie_tui.cli.headless" in graph["birdie_tui.cli"]  # imported inside main()
    assert "birdie_tui.store.jsonio" in graph["birdie_tui.store.sessions"]  # `from .jsonio`
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles_in_the_package():
    """No modules of the package import each other in a cycle, directly or through a chain."""
    assert cycles(import_graph()) == []


def test_the_core_never_imports_the_tui_or_the_service():
    """The core (skills, tools, agent, providers, mcp, store) never imports a front end (the
    TUI, the ACP agent) or the service."""
    graph = import_graph()
    bad = [(mod, dep) for mod, deps in graph.items() for dep in deps
           if mod.split(".")[1] in CORE
           and dep.startswith(("birdie_tui.tui", "birdie_tui.service", "birdie_tui.acp"))]
    assert bad == []


def test_the_skill_format_never_imports_what_runs_tools():
    """`birdie_tui.skills` (the SKILL.MD format) never imports `birdie_tui.tools` (what runs a
    tool): the tools read the format's models, never the other way round."""
    graph = import_graph()
    bad = sorted((mod, dep) for mod, deps in graph.items()
                 if mod.startswith("birdie_tui.skills")
                 for dep in deps if dep.startswith("birdie_tui.tools"))
    assert bad == []


def test_the_agent_file_format_is_pure():
    """`birdie_tui.agent_files` (AGENT.MD and Markdown agent files) is a file format like
    `skills/`: it never imports what runs an agent (`agent/`, `tools/`) nor any front end or
    the door, so `agents check` and the door read agent files without an engine."""
    graph = import_graph()
    assert "birdie_tui.agent_files.loader" in graph
    banned = tuple(f"birdie_tui.{p}" for p in ("agent", "tools", "service", "tui", "cli", "acp",
                                              "server", "mcp"))
    bad = sorted((mod, dep) for mod, deps in graph.items()
                 if mod.startswith("birdie_tui.agent_files")
                 for dep in deps if dep == "birdie_tui.agent" or dep.startswith(banned)
                 and not dep.startswith("birdie_tui.agent_files"))
    assert bad == []


# What the TUI may import from outside itself: the front door, the event vocabulary (with the
# ledger's rows it names), the shared helpers every front end uses, and of the command line
# that starts it, its parsers and its signal handling.
TUI_MAY_IMPORT = ("birdie_tui.service", "birdie_tui.events", "birdie_tui.agent.ledger",
                  "birdie_tui.text", "birdie_tui.screen_text", "birdie_tui.resume",
                  "birdie_tui.mentions",
                  "birdie_tui.cli.args", "birdie_tui.cli.signals", "birdie_tui")


def test_the_tui_reaches_the_core_only_through_the_front_door():
    """`birdie_tui.tui` imports from the core only `birdie_tui.service` and the events."""
    graph = import_graph()
    bad = sorted((mod, dep) for mod, deps in graph.items() if mod.startswith("birdie_tui.tui")
                 for dep in deps if not dep.startswith("birdie_tui.tui")
                 and not any(dep == ok or dep.startswith(ok + ".") and ok != "birdie_tui"
                             for ok in TUI_MAY_IMPORT))
    assert bad == []


def test_mentions_are_a_leaf():
    """`birdie_tui.mentions` (the working directory's files for @-mentions, which the TUI and
    `--print` expand before the door) imports nothing else of the package: a front end may use
    it without reaching the core, and the core (a call's provenance) reads it back."""
    graph = import_graph()
    assert "birdie_tui.mentions.attach" in graph
    bad = sorted((mod, dep) for mod, deps in graph.items() if mod.startswith("birdie_tui.mentions")
                 for dep in deps if not dep.startswith("birdie_tui.mentions"))
    assert bad == []


def test_the_tui_never_walks_into_the_engine():
    """No `.engine` attribute chain in the TUI: what it needs is a method of the door."""
    offenders = [f"{path.relative_to(ROOT)}:{n}"
                 for path in sorted((ROOT / "tui").rglob("*.py"))
                 for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
                 if ".engine" in line.split("#")[0]]
    assert offenders == []


def test_the_service_is_cheap_to_import():
    """The door's protocol and rows load without LangGraph, LangChain or a vendor SDK, so the
    TUI can name them before its first paint."""
    import subprocess
    import sys

    code = ("import sys, birdie_tui.service, birdie_tui.service.rows, birdie_tui.service.local\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', "
            "'langchain_core', 'openai', 'anthropic', 'mistralai', 'pydantic')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_cli_and_tui_share_parsers_without_importing_each_other():
    """The TUI never imports the command line's entry or its modes (`--print`, the
    subcommands, piped stdin): of `birdie_tui.cli` it reads only the parsers and the signal
    handling, so `create_app(argv)` reads a command line as `birdie-tui` does."""
    graph = import_graph()
    tui = {m for m in graph if m.startswith("birdie_tui.tui")}
    shared = ("birdie_tui.cli.args", "birdie_tui.cli.signals")
    assert not any(dep.startswith("birdie_tui.cli") and dep not in shared
                   for m in tui for dep in graph[m])
    assert "birdie_tui.cli.args" in graph["birdie_tui.tui"]


def test_the_tui_tests_never_reach_past_the_door():
    """No TUI test reads or swaps the engine behind `app.birdie` (`.engine`): they go through
    the door's calls, so the same tests run over the fake door, the local and the remote one."""
    tests = ROOT.parent / "tests" / "tui"
    reaches = [f"{path.relative_to(tests)}:{n}" for path in sorted(tests.rglob("*.py"))
               for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
               if ".engine" in line]
    assert reaches == []


def test_the_server_never_imports_the_door():
    """`birdie_tui.server` (the LangGraph graphs) is a front end of the core like the door, not
    a client of it: what both need (the catalog's rows) lives in a shared leaf."""
    graph = import_graph()
    bad = sorted((mod, dep) for mod, deps in graph.items()
                 if mod.startswith("birdie_tui.server")
                 for dep in deps if dep.startswith("birdie_tui.service"))
    assert bad == []


def test_headless_goes_through_the_door():
    """The command-line modes (`cli/headless.py`, all of `cli/`) never build an engine of their
    own: they reach the agent through the door (`birdie_tui.service`), as the TUI does."""
    graph = import_graph()
    assert "birdie_tui.agent.engine" not in graph["birdie_tui.cli.headless"]
    assert [m for m, deps in graph.items()
            if m.startswith("birdie_tui.cli") and "birdie_tui.agent.engine" in deps] == []


ACP_MAY_IMPORT = ("birdie_tui.service", "birdie_tui.events", "birdie_tui.modes",
                  "birdie_tui.text", "birdie_tui.screen_text", "birdie_tui.workspace",
                  "birdie_tui.file_args",
                  "birdie_tui.cli.signals", "birdie_tui")


def test_the_acp_agent_reaches_the_core_only_through_the_front_door():
    """`birdie_tui.acp` (`birdie-tui acp`) is a front end like the TUI: of the rest of the
    package it imports the door, the event vocabulary and the shared leaves, nothing else."""
    graph = import_graph()
    assert "birdie_tui.acp.server" in graph
    bad = sorted((mod, dep) for mod, deps in graph.items() if mod.startswith("birdie_tui.acp")
                 for dep in deps if not dep.startswith("birdie_tui.acp")
                 and not any(dep == ok or dep.startswith(ok + ".") and ok != "birdie_tui"
                             for ok in ACP_MAY_IMPORT))
    assert bad == []


def test_only_front_ends_import_the_command_line():
    """Nothing below the front ends imports `birdie_tui.cli`: not the core, the door or the
    server (what they share with it, such as the resume line, lives in a leaf outside)."""
    graph = import_graph()
    bad = sorted((mod, dep) for mod, deps in graph.items()
                 if mod.split(".")[1:2] not in (["cli"], ["tui"], ["acp"])
                 for dep in deps if dep.split(".")[1:2] == ["cli"])
    assert bad == []
