"""Birdie as the model of Birdie: `LLM_VENDOR=acp` (the provider) driving `birdie-tui acp`
(the agent), each with its own home, through a real `--print` turn."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.acp.harness import ROOT, agent_env

pytestmark = pytest.mark.integration


def test_print_through_birdie_tui_acp_as_the_model(tmp_path: Path):
    """The outer Birdie's reply is the inner Birdie's streamed answer to the conversation
    it was handed; the outer session records it like any model's."""
    inner, outer, work = tmp_path / "inner", tmp_path / "outer" / "home", tmp_path / "work"
    work.mkdir()
    config = tmp_path / "acp.json"
    config.write_text(json.dumps({
        "vendor": "acp", "command": [sys.executable, "-m", "birdie_tui.cli", "acp"],
        "env": {"BIRDIE_HOME": str(inner), "PYTHONPATH": str(ROOT)}}))
    run = subprocess.run(
        [sys.executable, "-m", "birdie_tui.cli", "--config", str(config), "--output-format",
         "stream-json", "--print", "hello inner birdie"],
        cwd=work, env=agent_env(outer), capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    events = [json.loads(line) for line in run.stdout.splitlines()]
    done = [e for e in events if e["type"] == "done"]
    assert "hello inner birdie" in done[-1]["text"] and "Offline model" in done[-1]["text"]
    assert len([e for e in events if e["type"] == "token"]) > 1  # streamed through
    assert list((inner / "sessions").rglob("*.json"))  # the inner Birdie kept its session
