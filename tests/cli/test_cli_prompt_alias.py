"""`--prompt` (and `-p`) are aliases of `--print`; `--print` itself is unchanged."""

from __future__ import annotations

import json

import pytest

from birdie_tui.cli.args import main_parser, parse_main_args

from .helpers import USER, events_of, run_cli

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("flag", ["--print", "-p", "--prompt"])
def test_every_spelling_sets_the_headless_message(flag):
    """--print, -p and --prompt all give the message to run headless."""
    args = parse_main_args([flag, "hello there", "--output-format", "stream-json"])
    assert args.message == "hello there" and args.output_format == "stream-json"


def test_help_names_the_alias():
    """`birdie-tui --help` lists --prompt next to --print and -p."""
    text = main_parser().format_help()
    assert "--print [MESSAGE], -p [MESSAGE], --prompt [MESSAGE]" in text


def test_prompt_runs_one_turn_like_print(isolated_home):
    """`birdie-tui --prompt MESSAGE --output-format stream-json` runs one headless turn, saves
    the session and exits 0, exactly as --print does."""
    proc = run_cli(isolated_home, "--prompt", "hello", "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = events_of(proc)
    assert events[0]["type"] == "session" and events[-1]["type"] == "done"
    assert "hello" in events[-1]["text"]
    saved = json.loads((isolated_home / "sessions" / USER / f"{events[0]['id']}.json")
                       .read_text())
    assert saved["turns"] == 1
