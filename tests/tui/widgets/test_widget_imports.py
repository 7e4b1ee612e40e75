"""The widgets render plain view models: importing them must not pull in the agent stack."""

from __future__ import annotations

import subprocess
import sys

WIDGETS = [
    "birdie_tui.tui.widgets.format",
    "birdie_tui.tui.widgets.status_bar",
    "birdie_tui.tui.widgets.skills.skill_sidebar",
    "birdie_tui.tui.widgets.panels.context_panel",
    "birdie_tui.tui.widgets.panels.context_calls",
    "birdie_tui.tui.widgets.panels.context_lines",
    "birdie_tui.tui.widgets.panels.context_body",
    "birdie_tui.tui.widgets.panels.token_panel",
]


def test_widgets_do_not_import_the_agent_stack():
    """Importing the widgets loads no LLM stack and no agent module beyond events, ledger,
    provenance and approvals (plain dataclasses)."""
    code = (
        "import importlib, sys\n"
        # The event vocabulary, the ledger's rows, the prompt provenance records and the
        # approval requests are plain dataclasses, named by widgets.
        "CHEAP = {'birdie_tui.agent', 'birdie_tui.agent.ledger',"
        " 'birdie_tui.agent.provenance', 'birdie_tui.agent.approvals'}\n"
        f"for name in {WIDGETS!r}: importlib.import_module(name)\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('langgraph', 'langchain_core', 'langchain_mcp_adapters', 'openai', 'anthropic', 'mistralai')"
        " or (m.startswith('birdie_tui.agent') and m not in CHEAP))\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_format_helpers_do_not_import_textual():
    """The number-format helpers import without loading Textual."""
    code = "import sys, birdie_tui.tui.widgets.format; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
