"""The bundled skills run for real (never the network: weather is only parsed)."""

import py_compile
import subprocess
from pathlib import Path

import pytest

from birdie_tui.skills import SkillRegistry, bundled_skills_dir, bundled_themes_dir, load_skills
from birdie_tui.tools.entrypoints import run_entrypoint

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def registry() -> SkillRegistry:
    return SkillRegistry(load_skills([bundled_skills_dir()]))


def test_bundled_dirs_point_at_repo():
    """The bundled skills and themes folders are the repository's skills/ and themes/."""
    assert bundled_skills_dir() == REPO / "skills"
    assert bundled_themes_dir() == REPO / "themes"


async def call(registry, name, **args):
    tool = registry.tool(name)
    return await run_entrypoint(tool, args, skill_dir=registry.skill_for_tool(name).folder, timeout=20)


async def test_filesystem_tools(registry, tmp_path, monkeypatch):
    """The bundled filesystem tools list, read and search files, even names starting with '-'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-odd name.txt").write_text("needle here\nnothing\n")
    out = await call(registry, "list_files")
    assert not out.error and "-odd name.txt" in out.content
    out = await call(registry, "read_file", path="-odd name.txt")
    assert out.content == "needle here\nnothing\n"
    out = await call(registry, "search_text", pattern="needle")
    assert not out.error and "-odd name.txt:1:needle here" in out.content
    out = await call(registry, "read_file", path="missing")
    assert out.error and "No such file" in out.content


async def test_shell_run_bash_runs_the_command_line(registry, tmp_path, monkeypatch):
    """The bundled Shell skill's run_bash runs a full command line and needs approval."""
    monkeypatch.chdir(tmp_path)
    out = await call(registry, "run_bash", command="echo a b | tr a-z A-Z && echo 'q x' > f.txt; cat f.txt")
    assert out.content == "A B\nq x\n"
    assert registry.get("shell").requires_approval("run_bash")
    assert [t.name for t in registry.get("shell").tools] == ["run_bash"]


def test_support_files_are_valid():
    """Bundled support files compile: the MCP demo server and the executable git-helper script."""
    py_compile.compile(str(REPO / "skills" / "mcp_demo" / "server.py"), doraise=True)
    script = REPO / "skills" / "git-helper" / "scripts" / "summarize_log.sh"
    subprocess.run(["bash", "-n", str(script)], check=True)
    assert script.stat().st_mode & 0o111


async def test_write_file_says_what_it_wrote(registry, tmp_path, monkeypatch):
    """A successful write_file says the path and the byte count (not an empty result), in
    the right number, and the file holds exactly the content, even a name with spaces."""
    monkeypatch.chdir(tmp_path)
    out = await call(registry, "write_file", path="my notes.md", content="héllo\n")
    assert not out.error and out.content == "Wrote 7 bytes to my notes.md\n"
    assert (tmp_path / "my notes.md").read_bytes() == "héllo\n".encode()
    out = await call(registry, "write_file", path="-x.txt", content="1")
    assert out.content == "Wrote 1 byte to -x.txt\n"
