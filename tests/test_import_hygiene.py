"""The layering of docs/architecture.md, checked in fresh interpreters: the core never imports
Textual, the CLI entry point imports nothing heavy, the skills layer needs no LangChain."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import clean_env

HEAVY = ("textual", "langgraph", "langchain_core", "openai", "anthropic", "mistralai", "mcp",
         "langchain_mcp_adapters")


def loaded_after(home, *modules: str) -> set[str]:
    """Top-level packages present in sys.modules after importing `modules` in a new process."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(modules)!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(home), timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.splitlines()[-1]))


def test_core_never_imports_textual(isolated_home):
    """Importing the skills, engine, providers, store, headless and CLI never loads Textual."""
    loaded = loaded_after(
        isolated_home,
        "birdie_tui.skills", "birdie_tui.agent.engine", "birdie_tui.providers",
        "birdie_tui.store", "birdie_tui.cli.headless", "birdie_tui.cli",
    )
    assert "birdie_tui" in loaded and "langgraph" in loaded  # the engine really was imported
    assert "textual" not in loaded


def test_core_with_offline_model_never_imports_textual_or_vendor_sdks(isolated_home):
    """The engine with the offline model loads neither Textual nor any vendor SDK."""
    loaded = loaded_after(
        isolated_home,
        "birdie_tui.agent.engine", "birdie_tui.agent.graph", "birdie_tui.providers.factory",
        "birdie_tui.providers.offline", "birdie_tui.store.sessions",
    )
    assert "textual" not in loaded
    for sdk in ("openai", "anthropic", "mistralai"):
        assert sdk not in loaded, f"{sdk} imported eagerly"


def test_cli_entry_point_is_light(isolated_home):
    """Importing birdie_tui.cli loads none of the heavy packages."""
    loaded = loaded_after(isolated_home, "birdie_tui.cli")
    heavy = sorted(set(HEAVY) & loaded)
    assert heavy == [], f"importing birdie_tui.cli pulled {heavy}"


def test_cli_help_stays_light(isolated_home):
    """`birdie-tui --help` answers without importing the engine or the TUI."""
    code = (
        "import json, sys\n"
        "from birdie_tui import cli\n"
        "try:\n"
        "    cli.main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(isolated_home), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "--print" in proc.stdout
    loaded = set(json.loads(proc.stdout.splitlines()[-1]))
    assert sorted(set(HEAVY) & loaded) == []


@pytest.mark.parametrize("module", [
    "birdie_tui.skills", "birdie_tui.skills.loader", "birdie_tui.skills.parser",
    "birdie_tui.skills.registry", "birdie_tui.skills.policy", "birdie_tui.skills.models",
    "birdie_tui.tools.entrypoints",
])
def test_skills_layer_needs_no_langchain(isolated_home, module):
    """Each skills module, and the tool runner (all of `tools/` but its LangChain adapter),
    imports without LangChain, LangGraph or Textual."""
    loaded = loaded_after(isolated_home, module)
    for name in ("langchain_core", "langgraph", "textual"):
        assert name not in loaded, f"importing {module} pulled {name}"


def test_the_agent_file_format_loads_nothing_heavy(isolated_home):
    """The agent-file format (`agents check`, the door's rows) loads and reads the bundled
    agents without LangChain, LangGraph, Textual, MCP or a vendor SDK."""
    code = ("from pathlib import Path\n"
            "from birdie_tui.agent_files.loader import load_agents\n"
            "from birdie_tui.agent_files.registry import AgentRegistry\n"
            "from birdie_tui.agent_files.render import input_schema\n"
            "from birdie_tui.skills.bundled import bundled_agents_dir\n"
            "reg = AgentRegistry(load_agents([(bundled_agents_dir(), 'bundled')]))\n"
            "assert reg.get('Summarizer') is not None\n"
            "import json, sys\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(isolated_home), timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.splitlines()[-1]))
    assert sorted(set(HEAVY) & loaded) == []
