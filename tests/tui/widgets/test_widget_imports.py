"""The widgets render plain view models: importing them must not pull in the agent stack."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import clean_env

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


# Modules of ~90 dataclasses (~35 ms on Python 3.11) that the first frame does not use: the
# event vocabulary, and the rows the door re-exports from their owners (the token panel's
# empty ledger is drawn in it).
LATER = ("birdie_tui.events", "birdie_tui.service.protocol", "birdie_tui.agent.approvals",
         "birdie_tui.agent.provenance", "birdie_tui.catalog", "birdie_tui.schedules.models",
         "birdie_tui.tui.turn_view")


def test_the_app_is_built_without_the_events_and_the_rows_it_names_later(isolated_home):
    """Building the app (everything its first frame imports) leaves the events, the protocol
    and the re-exported rows unloaded; asking the door for one of those names loads it then,
    and it is the owner's own object."""
    code = (
        "import json, sys\n"
        "from birdie_tui.tui import create_app\n"
        "create_app([])\n"
        f"early = [m for m in {LATER!r} if m in sys.modules]\n"
        "from birdie_tui.service import Birdie, ChangeEvent\n"
        "from birdie_tui.service.rows import SkillRow, TokenLedger\n"
        "import birdie_tui.catalog, birdie_tui.agent.ledger, birdie_tui.events\n"
        "print(json.dumps({'early': early, 'same': SkillRow is birdie_tui.catalog.SkillRow\n"
        "    and TokenLedger is birdie_tui.agent.ledger.TokenLedger\n"
        "    and ChangeEvent is birdie_tui.events.ChangeEvent,\n"
        "    'protocol': Birdie.__module__}))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=clean_env(isolated_home))
    assert json.loads(out.stdout.splitlines()[-1]) == {
        "early": [], "same": True, "protocol": "birdie_tui.service.protocol"}
