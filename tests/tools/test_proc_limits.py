"""Per-call `timeout_s` from the model and tool-block `retries:` (Birdie 0.15.1's semantics),
run for real: real bash processes, a real loopback HTTP server."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from langchain_core.tools import ToolException

from birdie_tui.skills import parse_skill_text
from birdie_tui.tools.adapter import make_tool
from birdie_tui.tools.call_limits import call_timeout, retries_of
from birdie_tui.tools.entrypoints import render_command, run_tool_call

from ..conftest import clean_env


def skill_of(tools: str):
    text = f"---\nname: limits\ndescription: limits\n---\n## Tools\n{tools}"
    return parse_skill_text(text, Path("/s/limits/SKILL.MD"))


def block(name: str, entrypoint: str, *extra: str, schema: str = "") -> str:
    lines = [f"\n### {name}", "description: a tool", f"entrypoint: {entrypoint}", *extra]
    if schema:
        lines.append("schema:\n" + schema)
    return "\n".join(lines) + "\n"


TEXT_SCHEMA = "  type: object\n  properties:\n    text:\n      type: string\n"


# ------------------------------------------------------------------------------- timeout_s
def test_bash_and_http_tools_offer_timeout_s_to_the_model_only():
    """bash/http tools get an optional numeric `timeout_s` in the schema the model sees; python
    tools do not; the declared schema (what `skills check --json` prints) is unchanged."""
    skill = skill_of(block("b", "bash:echo {text}", schema=TEXT_SCHEMA)
                     + block("g", "http:get http://127.0.0.1:9/x")
                     + block("p", "http:post http://127.0.0.1:9/x")
                     + block("py", "python:tools.f"))
    tools = {t.name: make_tool(t, skill, timeout=120) for t in skill.tools}
    for declared in skill.tools[:3]:
        prop = tools[declared.name].args["timeout_s"]
        assert prop["type"] == "number" and "600" in prop["description"]
        assert "timeout_s" not in json.dumps(declared.schema)
    assert "timeout_s" not in tools["py"].args
    assert "timeout_s" not in (tools["b"].tool_call_schema.get("required") or [])
    assert set(tools["b"].args) == {"text", "timeout_s"}


def test_skills_check_json_shows_the_declared_schema(isolated_home, tmp_path):
    """`skills check --json` prints the skill's own schema, without the model's `timeout_s`."""
    folder = tmp_path / "skills" / "limits"
    folder.mkdir(parents=True)
    (folder / "SKILL.MD").write_text("---\nname: limits\ndescription: limits\n---\n## Tools\n"
                                     + block("b", "bash:echo {text}", schema=TEXT_SCHEMA))
    out = subprocess.run([sys.executable, "-m", "birdie_tui.cli", "skills", "check",
                          str(tmp_path / "skills"), "--json"], capture_output=True, text=True,
                         env=clean_env(isolated_home), timeout=60)
    assert out.returncode == 0, out.stderr
    schema = json.loads(out.stdout)["skills"][0]["tools"][0]["schema"]
    assert list(schema["properties"]) == ["text"]


def test_a_declared_timeout_s_stays_the_skills_argument():
    """A skill that declares its own `timeout_s` property keeps it as an ordinary argument."""
    schema = "  type: object\n  properties:\n    timeout_s:\n      type: string\n"
    skill = skill_of(block("b", "bash:echo {timeout_s}", schema=schema))
    tool = make_tool(skill.tools[0], skill, timeout=120)
    assert tool.args["timeout_s"] == {"type": "string"}
    assert asyncio.run(tool.ainvoke({"timeout_s": "mine"})) == "mine\n"


@pytest.mark.parametrize("value, default, maximum, expected", [
    (None, 120.0, 600.0, 120.0),  # not given: the default
    (30, 120.0, 600.0, 30.0),
    ("45", 120.0, 600.0, 45.0),  # a number in a string, as upstream accepts
    (0.01, 120.0, 600.0, 1.0),  # clamped up to 1 s
    (-5, 120.0, 600.0, 1.0),
    (10 ** 30, 120.0, 600.0, 600.0),  # clamped down to the maximum
    (float("inf"), 120.0, 5.0, 5.0),
    (1000, 2.5, 2.5, 2.5),  # the tool's own timeout: is the maximum
])
def test_call_timeout_is_clamped(value, default, maximum, expected):
    """`timeout_s` is clamped to [1, the tool's maximum]; absent, the default applies."""
    assert call_timeout(value, default, maximum) == expected


@pytest.mark.parametrize("value", ["soon", "", True, float("nan"), [5], {"s": 1}])
def test_a_timeout_s_that_is_no_number_is_a_clear_error(value):
    """A non-number `timeout_s` is refused with a message naming it."""
    with pytest.raises(ValueError, match="timeout_s must be a number of seconds"):
        call_timeout(value, 120.0, 600.0)


async def test_timeout_s_bounds_one_call_and_never_reaches_the_command(tmp_path):
    """The model's `timeout_s` is removed from the arguments (the command never sees it) and
    bounds the call: raised past the engine's timeout, clamped to the tool's `timeout:`."""
    skill = skill_of(block("nap", "bash:sleep {s}; env | grep -c '^BIRDIE_ARG_timeout' || true",
                           schema="  type: object\n  properties:\n    s:\n      type: number\n")
                     + block("capped", "bash:sleep {s}", "timeout: 1.5",
                             schema="  type: object\n  properties:\n    s:\n      type: number\n"))
    nap, capped = (make_tool(t, skill, timeout=0.5) for t in skill.tools)
    assert (await nap.ainvoke({"s": 1.2, "timeout_s": 20})).strip() == "0"
    with pytest.raises(ToolException, match=r"timed out after 1s"):  # 0.01 clamped up to 1
        await nap.ainvoke({"s": 20, "timeout_s": 0.01})
    with pytest.raises(ToolException, match=r"timed out after 1\.5s"):  # the tool's maximum
        await capped.ainvoke({"s": 20, "timeout_s": 500})
    with pytest.raises(ToolException, match="timeout_s must be a number"):
        await nap.ainvoke({"s": 0, "timeout_s": "later"})


def test_the_rendered_command_leaves_timeout_s_out():
    """What an approval shows is the command that runs: no `timeout_s` in it."""
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    shown = render_command("echo {text} {timeout_s}", {"text": "hi", "timeout_s": 30}, schema)
    assert "30" not in shown and "hi" in shown


# ------------------------------------------------------------------------------- retries
def counting_tool(counter: Path, *extra: str, fail: str = "exit 1"):
    skill = skill_of(block("flaky", f"bash:echo run >> {counter}; {fail}", *extra))
    return skill.tools[0], skill


def runs(counter: Path) -> int:
    return len(counter.read_text().splitlines()) if counter.exists() else 0


def test_default_retries_follow_birdie():
    """Unset `retries:` means one retry for http:get and none otherwise, as Birdie 0.15.1."""
    skill = skill_of(block("g", "http:get http://x/y") + block("p", "http:post http://x/y")
                     + block("b", "bash:true") + block("r", "bash:true", "retries: 4"))
    assert [retries_of(t) for t in skill.tools] == [1, 0, 0, 4]


async def test_a_failing_command_is_tried_retries_plus_one_times(tmp_path):
    """`retries: 2`: a command that keeps failing runs three times; the error says so."""
    counter = tmp_path / "count"
    tool, skill = counting_tool(counter, "retries: 2")
    out = await run_tool_call(tool, {}, skill_dir=tmp_path)
    assert out.error and runs(counter) == 3 and "(tried 3 times)" in out.content


async def test_retries_stop_at_the_first_success(tmp_path):
    """A command that fails once then succeeds runs twice and returns its output."""
    counter = tmp_path / "count"
    tool, skill = counting_tool(counter, "retries: 5",
                                fail=f'[ "$(wc -l < {counter})" -ge 2 ] || exit 3; echo ok')
    out = await run_tool_call(tool, {}, skill_dir=tmp_path)
    assert (out.error, out.content, runs(counter)) == (False, "ok\n", 2)


async def test_no_retries_without_the_field(tmp_path):
    """A bash tool without `retries:` runs once."""
    counter = tmp_path / "count"
    tool, skill = counting_tool(counter)
    assert (await run_tool_call(tool, {}, skill_dir=tmp_path)).error and runs(counter) == 1


async def test_a_timeout_is_never_retried(tmp_path):
    """A timed-out call is not tried again: it would multiply the wait and tell nothing new."""
    counter = tmp_path / "count"
    tool, skill = counting_tool(counter, "retries: 3", fail="sleep 30")
    out = await run_tool_call(tool, {}, skill_dir=tmp_path, timeout=0.3)
    assert out.error and "timed out" in out.content and runs(counter) == 1


async def test_a_call_that_cannot_run_is_never_retried(tmp_path):
    """Arguments that fail the schema are refused once, without running anything."""
    counter = tmp_path / "count"
    skill = skill_of(block("flaky", f"bash:echo run >> {counter}; exit 1", "retries: 3",
                           schema=TEXT_SCHEMA + "  required: [text]\n"))
    out = await run_tool_call(skill.tools[0], {}, skill_dir=tmp_path)
    assert out.error and "text" in out.content and runs(counter) == 0


async def test_a_cancel_is_never_retried(tmp_path):
    """Cancelling a call with retries left ends it: no further attempt starts."""
    counter = tmp_path / "count"
    tool, skill = counting_tool(counter, "retries: 3", fail="sleep 30")
    task = asyncio.ensure_future(run_tool_call(tool, {}, skill_dir=tmp_path, timeout=60))
    for _ in range(400):
        if runs(counter):
            break
        await asyncio.sleep(0.025)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0.3)
    assert runs(counter) == 1


class _Flaky(BaseHTTPRequestHandler):
    hits: list[str] = []
    fail_first = 1

    def log_message(self, *args):  # quiet
        pass

    def _answer(self):
        type(self).hits.append(self.command)
        code = 503 if len(type(self).hits) <= type(self).fail_first else 200
        body = json.dumps({"n": len(type(self).hits)}).encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._answer()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._answer()


@pytest.fixture
def flaky_base():
    _Flaky.hits = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Flaky)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


async def test_http_get_is_retried_once_by_default(flaky_base, tmp_path):
    """An http:get that fails once (503) is tried again and succeeds; a post is not."""
    skill = skill_of(block("g", f"http:get {flaky_base}/a") + block("p", f"http:post {flaky_base}/b"))
    got = await run_tool_call(skill.tools[0], {}, skill_dir=tmp_path)
    assert (got.error, json.loads(got.content), _Flaky.hits) == (False, {"n": 2}, ["GET", "GET"])
    _Flaky.hits = []
    posted = await run_tool_call(skill.tools[1], {}, skill_dir=tmp_path)
    assert posted.error and posted.content.startswith("HTTP 503") and _Flaky.hits == ["POST"]
