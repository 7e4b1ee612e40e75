"""bash: entrypoints with real subprocesses."""

import asyncio
import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from birdie_tui.skills import SkillTool
from birdie_tui.tools.entrypoints import MAX_TOOL_OUTPUT, render_command, run_entrypoint, truncate_output

X_SCHEMA = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}


def bash_tool(template: str, schema=None) -> SkillTool:
    return SkillTool(name="t", description="d", entrypoint="bash:" + template,
                     schema=schema or {"type": "object", "properties": {}})


async def run(template, args=None, schema=None, timeout=20.0, skill_dir=Path(".")):
    return await run_entrypoint(bash_tool(template, schema), args or {}, skill_dir=skill_dir, timeout=timeout)


async def test_success_stderr_and_exit_codes():
    """Bash output shows stderr under a marker; a non-zero exit is an error with all the output."""
    out = await run("echo hello")
    assert (out.content, out.error) == ("hello\n", False)
    out = await run("echo out; echo warn >&2")
    assert not out.error and out.content == "out\n[stderr]\nwarn"
    out = await run("echo partial; echo bad >&2; exit 3")
    assert out.error and "exited with code 3" in out.content and "bad" in out.content and "partial" in out.content


async def test_runs_in_process_cwd_with_stdin_closed(tmp_path, monkeypatch):
    """Bash commands run in the process cwd, not the skill folder, with stdin closed."""
    monkeypatch.chdir(tmp_path)
    out = await run("pwd; cat", skill_dir=Path("/"))
    assert out.content.strip() == str(tmp_path.resolve()) or out.content.strip() == str(tmp_path)


async def test_defaults_missing_optional_and_required():
    """Defaults fill optional placeholders, missing ones render empty, a missing required fails."""
    schema = {"type": "object", "properties": {"a": {"type": "string", "default": "dflt"},
                                               "b": {"type": "string"}, "n": {"type": "integer"}},
              "required": ["n"]}
    out = await run("echo [{a}] [{b}] {n}", {"n": 5}, schema)
    assert out.content == "[dflt] [] 5\n"
    out = await run("echo {a}", {"a": None, "n": 1}, schema)
    assert out.content == "dflt\n"
    out = await run("echo {n}", {}, schema)
    assert (out.content, out.error) == ("invalid arguments for t: 'n' is a required property", True)


async def test_non_string_values_rendered():
    """Booleans, objects, lists and numbers are rendered as JSON in the command."""
    schema = {"type": "object", "properties": {k: {} for k in "bdln"}}
    out = await run("printf '%s|' {b} {d} {l} {n}", {"b": True, "d": {"k": 1}, "l": [1, "a"], "n": 2.5}, schema)
    assert out.content == 'true|{"k": 1}|[1, "a"]|2.5|'


async def test_awk_braces_left_alone():
    """Braces that are not argument placeholders, as in awk programs, are left untouched."""
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    out = await run("echo {text} | awk '{print $2}'", {"text": "one two three"}, schema)
    assert out.content == "two\n"
    assert render_command("awk '{print}' {x}", {"x": "f"}, X_SCHEMA) == "awk '{print}' f"


async def test_output_truncated():
    """Output beyond MAX_TOOL_OUTPUT is cut with a note of how much was dropped."""
    out = await run(f"head -c {MAX_TOOL_OUTPUT + 500} /dev/zero | tr '\\0' a")
    assert out.content.startswith("a" * MAX_TOOL_OUTPUT)
    assert out.content.endswith("\n… [truncated: 500 characters dropped]")
    assert truncate_output("short") == "short"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its (re)parent counts as gone
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return True


async def _wait_file(p: Path) -> int:
    for _ in range(200):
        if p.exists() and p.read_text().strip():
            return int(p.read_text())
        await asyncio.sleep(0.02)
    raise AssertionError("child never wrote its pid")


async def test_timeout_kills_the_process_group(tmp_path):
    """A timeout is an error result and kills the whole process group, background jobs too."""
    pidfile = tmp_path / "pid"
    # wait_for only guards against a hang; "timed out" in the result is what proves the kill
    out = await asyncio.wait_for(
        run(f"echo started; sleep 30 & echo $! > {pidfile}; sleep 30", timeout=1.0), 25)
    assert out.error and "timed out after 1s" in out.content and "started" in out.content
    pid = int(pidfile.read_text())
    for _ in range(100):
        if not _alive(pid):
            break
        await asyncio.sleep(0.02)
    assert not _alive(pid)


async def test_cancellation_kills_the_process_group(tmp_path):
    """Cancelling the call kills the whole process group, background jobs too."""
    pidfile = tmp_path / "pid"
    task = asyncio.ensure_future(run(f"sleep 30 & echo $! > {pidfile}; sleep 30", timeout=60))
    pid = await _wait_file(pidfile)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(100):
        if not _alive(pid):
            break
        await asyncio.sleep(0.02)
    assert not _alive(pid)


async def test_canary_no_second_command(tmp_path):
    """No argument value, in any quoting, can run a second shell command."""
    canary = tmp_path / "canary"
    for tpl in ("echo {x}", "echo '{x}'", 'echo "{x}"', 'echo "a {x} b"', "echo 'a {x} b'"):
        for value in (f"x; touch {canary}", f"$(touch {canary})", f"`touch {canary}`",
                      f"'; touch {canary}; '", f"\"; touch {canary}; \"", f"x\ntouch {canary}"):
            out = await run(tpl, {"x": value}, X_SCHEMA)
            assert not out.error, out.content
            assert not canary.exists(), (tpl, value)
    out = await run('echo "a {x} b"', {"x": "it's $HOME"}, X_SCHEMA)
    assert out.content == "a it's $HOME b\n"


async def test_nul_byte_is_an_error():
    """An argument containing a NUL byte is an error result."""
    out = await run("echo {x}", {"x": "a\x00b"}, X_SCHEMA)
    assert out.error and "NUL" in out.content


@settings(max_examples=60, deadline=None)
@given(value=st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=60)
       | st.sampled_from(["$(id)", "`id`", "a;b", "'", '"', "\\", "x\ny", "'\"$(id)\"'", "--help", "-n", "{x}", "%s"]),
       template=st.sampled_from(["printf '%s' {x}", "printf '%s' '{x}'", 'printf "%s" "{x}"',
                                 "printf '%s' \"{x}\"''", "printf '%s' '<'{x}'>'", "printf '%s' \"<{x}>\""]))
def test_value_is_always_exactly_one_argument(value, template):
    """Any value, inside any quoting, reaches the command as exactly one argument."""
    out = asyncio.run(run(template, {"x": value}, X_SCHEMA))
    assert not out.error, out.content
    expected = f"<{value}>" if "<" in template else value
    assert out.content == expected
