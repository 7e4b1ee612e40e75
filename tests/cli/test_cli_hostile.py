"""`--print --output-format stream-json` stays valid JSON in UTF-8 whatever a model or the
command line hands it: a lone surrogate, an integer beyond 64 bits."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ..agent.conftest import write_skills
from ..conftest import clean_env

pytestmark = pytest.mark.integration


@pytest.fixture
def skills(tmp_path):
    return write_skills(tmp_path / "skills")


def stream_json(home, *args: str) -> list[dict]:
    """Run a stream-json turn; every stdout line must be UTF-8 and parse as JSON."""
    proc = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "--print", *args,
                           "--output-format", "stream-json"], env=clean_env(home),
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode("utf-8", "replace")
    lines = proc.stdout.decode("utf-8").splitlines()  # strict: fails on a bad byte
    assert lines
    events = [json.loads(line) for line in lines]
    assert events[-1]["type"] == "done"
    return events


def first(events, kind):
    return next(e for e in events if e["type"] == kind)


def test_lone_surrogate_in_arguments_is_replaced(isolated_home, skills):
    """A lone surrogate in a call's arguments runs the tool with U+FFFD; every line parses."""
    events = stream_json(isolated_home, 'call echo_text {"text": "a\\ud800b"}',
                         "--skills-dir", str(skills))
    assert first(events, "tool_call")["args"] == {"text": "a\ufffdb"}
    assert first(events, "tool_result")["content"] == "a\ufffdb"


def test_integer_beyond_64_bits_is_an_error_result(isolated_home, skills):
    """2**70 in the arguments is an error tool_result; the turn still ends with done."""
    events = stream_json(isolated_home, 'call echo_text {"text": "x", "n": %d}' % 2**70,
                         "--skills-dir", str(skills))
    result = first(events, "tool_result")
    assert result["error"] is True and "beyond 64 bits" in result["content"]
    assert first(events, "tool_call")["args"] == {}


def test_message_byte_that_is_not_utf8_is_replaced(isolated_home):
    """A command-line byte that is not UTF-8 (a lone surrogate in `sys.argv`) is shown as
    U+FFFD in the streamed tokens and the answer; the session file is still written."""
    events = stream_json(isolated_home, "say \udcff hi")
    tokens = "".join(e["text"] for e in events if e["type"] == "token")
    assert "say \ufffd hi" in tokens and "say \ufffd hi" in events[-1]["text"]
