"""Resolving a skill's `mcp_server` block (no servers started here)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from birdie_tui.mcp.config import resolve, safe_name
from birdie_tui.mcp.manager import log_file_name
from birdie_tui.mcp.tools import result_text
from birdie_tui.skills.loader import load_skills

from ..conftest import clean_env
from .conftest import mcp_skill


def skill_with(root: Path, server: dict, name: str = "s"):
    mcp_skill(root, name, server)
    result = load_skills([root])
    assert result.errors == []
    return next(s for s in result.skills if s.name == name)


def test_python_and_relative_paths_resolve_against_the_skill_folder(tmp_path, monkeypatch):
    """The python command is this interpreter; existing relative paths resolve in the skill dir."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "skills"
    folder = root / "s"
    folder.mkdir(parents=True)
    (folder / "server.py").write_text("")
    (folder / "data").mkdir()
    spec = resolve(skill_with(root, {"command": "python",
                                     "args": ["server.py", "--root", "data", "-v", "absent.txt"],
                                     "cwd": "data"}))
    assert spec.command == sys.executable
    assert spec.args == (str(folder / "server.py"), "--root", str(folder / "data"), "-v",
                         "absent.txt")
    assert spec.cwd == str(folder / "data")
    assert spec.target == f"{Path(sys.executable).name} {folder / 'server.py'} --root " \
                          f"{folder / 'data'} -v absent.txt"


def test_default_cwd_is_the_skill_folder_and_paths_in_command(tmp_path):
    """The server runs in the skill folder by default, and a relative command resolves there."""
    root = tmp_path / "skills"
    spec = resolve(skill_with(root, {"command": "./bin/serve"}))
    assert spec.cwd == str(root / "s") and spec.command == str(root / "s" / "bin" / "serve")


def test_bare_command_falls_back_to_this_interpreters_bin(tmp_path, monkeypatch):
    """A bare command not on PATH is taken from this interpreter's bin folder if it is there."""
    monkeypatch.setenv("PATH", str(tmp_path))  # the venv is not activated
    spec = resolve(skill_with(tmp_path / "skills", {"command": "mcp-server-time"}))
    assert spec.command == str(Path(sys.executable).parent / "mcp-server-time")
    missing = resolve(skill_with(tmp_path / "skills", {"command": "nope-xyz"}, name="m"))
    assert missing.command == "nope-xyz"


def test_env_and_headers_expand_variables_and_http_is_an_alias(tmp_path):
    """Variables expand in env, url and headers; http is streamable_http; headers stay hidden."""
    env = {"TOKEN": "abc"}
    spec = resolve(skill_with(tmp_path / "a", {"command": "x", "env": {"K": "${TOKEN}-1",
                                                                       "E": "${UNSET}"}}), env)
    assert dict(spec.env) == {"K": "abc-1", "E": ""}
    spec = resolve(skill_with(tmp_path / "b", {"transport": "http", "url": "http://h/${TOKEN}",
                                               "headers": {"Authorization": "Bearer ${TOKEN}"}}),
                   env)
    assert spec.transport == "streamable_http" and spec.url == "http://h/abc"
    assert dict(spec.headers) == {"Authorization": "Bearer abc"}
    assert "abc" not in spec.target.replace("http://h/abc", "")  # header values never shown


def test_equal_configs_are_equal_specs(tmp_path):
    """Server specs compare by their resolved configuration."""
    a = resolve(skill_with(tmp_path / "a", {"command": "python", "args": ["-V"]}, name="x"))
    b = resolve(skill_with(tmp_path / "b", {"command": "python", "args": ["-V"]}, name="x"))
    c = resolve(skill_with(tmp_path / "c", {"command": "python", "args": ["-c", "1"]}, name="x"))
    assert a.args == b.args and a != c


def test_names_and_result_text():
    """Tool and log names are made safe, and MCP results of every content type become text."""
    from mcp import types

    assert safe_name("ns.tool/x") == "ns_tool_x" and safe_name("ok-name_1") == "ok-name_1"
    assert log_file_name("My Skill/..") == "mcp-My_Skill.log"
    assert log_file_name("..") == "mcp-server.log"
    result = types.CallToolResult(content=[
        types.TextContent(type="text", text="one"),
        types.ImageContent(type="image", data="AAAA", mimeType="image/png"),
        types.EmbeddedResource(type="resource", resource=types.TextResourceContents(
            uri="file:///a.txt", text="inside")),
    ])
    assert result_text(result) == "one\n[image image/png, 3 bytes]\ninside"
    structured = types.CallToolResult(content=[], structuredContent={"n": 1})
    assert json.loads(result_text(structured)) == {"n": 1}
    big = types.CallToolResult(content=[types.TextContent(type="text", text="x" * 40_000)])
    assert "truncated" in result_text(big)


def test_importing_the_engine_imports_no_mcp_code(isolated_home):
    """Importing the engine and the MCP manager loads no mcp, adapter or Textual package."""
    code = ("import json, sys\nimport birdie_tui.agent.engine, birdie_tui.mcp.manager\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=clean_env(isolated_home), timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.splitlines()[-1]))
    assert "birdie_tui" in loaded
    assert not loaded & {"mcp", "langchain_mcp_adapters", "textual"}
