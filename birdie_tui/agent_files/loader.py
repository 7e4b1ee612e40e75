"""Finding agent files: the folders in priority order, every file in them, one bad file never
hiding the rest.

In a folder: `<name>/AGENT.MD` (Birdie's layout; `AGENT.md` too), `<name>/AGENTS.md`
(deepagents' layout: a Markdown agent named after its folder), and `*.md` directly in it
(Markdown agents; README.md is left alone). Folders come in priority order: the first
definition of a name wins and each later one is a note ("X in <path> is shadowed by <path>");
two of one name in the same folder is a problem. Unreadable, non-UTF-8 and huge files are
problems; a missing folder is nothing.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from birdie_tui.agent_files.agent_md import parse_agent_md
from birdie_tui.agent_files.markdown_agent import parse_markdown_agent
from birdie_tui.agent_files.models import AgentDef, AgentFileError, AgentLoad, AgentProblem
from birdie_tui.regular_files import open_regular
from birdie_tui.skills.bundled import bundled_agents_dir
from birdie_tui.skills.safe_yaml import MAX_FILE_BYTES
from birdie_tui.store.paths import BirdiePaths

BIRDIE_FILES = ("AGENT.MD", "AGENT.md")
DEEPAGENTS_FILE = "AGENTS.md"
_NOT_AGENTS = {"readme.md", "agents.md", "changelog.md", "license.md", "contributing.md"}


def default_agent_dirs(paths: BirdiePaths, environ: Mapping[str, str], cwd: Path,
                       extra: Sequence[Path] = ()) -> list[tuple[Path, str]]:
    """The agent folders in priority order: `--agents-dir` (`extra`), then the project's
    `.birdie/agents/` and `.agents/agents/`, `$BIRDIE_HOME/agents/`, the bundled agents.
    `BIRDIE_AGENTS_DIR` (os.pathsep-separated) replaces all but `--agents-dir`, as
    `BIRDIE_SKILLS_DIR` replaces the skill folders."""
    given = [(Path(p).expanduser(), "dir") for p in extra]
    override = environ.get("BIRDIE_AGENTS_DIR", "")
    if override.strip():
        return [*given, *((Path(p).expanduser(), "dir") for p in override.split(os.pathsep)
                          if p.strip())]
    return [*given, (cwd / ".birdie" / "agents", "project"),
            (cwd / ".agents" / "agents", "project"), (paths.user_agents_dir, "home"),
            (bundled_agents_dir(), "bundled")]


def load_agents(dirs: Sequence[tuple[Path, str]]) -> AgentLoad:
    """Every agent under `dirs` ((folder, source), highest priority first); never raises."""
    load = AgentLoad()
    first: dict[str, AgentDef] = {}
    for folder, source in dirs:
        here: set[str] = set()
        for path, markdown in agent_files(Path(folder).expanduser()):
            try:
                agent = read_agent_file(path, source, markdown=markdown)
            except AgentFileError as exc:
                load.problems.append(exc.problem)
                continue
            known = first.get(agent.name)
            if known is None:
                first[agent.name] = agent
                here.add(agent.name)
                load.agents.append(agent)
            elif agent.name in here:
                load.problems.append(AgentProblem(path, 1, f"duplicate agent name "
                                                  f"'{agent.name}' (already loaded from "
                                                  f"{known.path})"))
            else:
                load.notes.append(f"{agent.name} in {path} is shadowed by {known.path}")
    return load


def agent_files(folder: Path) -> list[tuple[Path, bool]]:
    """The agent files of `folder` as (path, is a Markdown agent), in a stable order."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []  # a missing folder (or not a folder): nothing to load
    found: list[tuple[Path, bool]] = []
    for name in names:
        path = folder / name
        if name.startswith((".", "__")):
            continue
        if path.is_dir():
            try:
                inside = set(os.listdir(path))
            except OSError:
                continue
            birdie = [path / n for n in BIRDIE_FILES if n in inside]
            if birdie:
                found.append((birdie[0], False))
            elif DEEPAGENTS_FILE in inside:
                found.append((path / DEEPAGENTS_FILE, True))
        elif name.lower().endswith(".md") and name.lower() not in _NOT_AGENTS:
            found.append((path, True))
    return found


def read_agent_file(path: Path, source: str, *, markdown: bool) -> AgentDef:
    """One agent file from disk; `AgentFileError` for a file that cannot be an agent."""
    try:
        # Regular files only (a FIFO would block forever), never more than the limit (+1).
        with os.fdopen(open_regular(path), "rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise AgentFileError(AgentProblem(path, None, f"cannot read the file: "
                                          f"{exc.strerror or exc}")) from None
    if len(data) > MAX_FILE_BYTES:
        raise AgentFileError(AgentProblem(path, None, f"the file is too large (over "
                                          f"{MAX_FILE_BYTES:,} bytes); agent files are limited "
                                          f"to 1 MiB"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise AgentFileError(AgentProblem(path, line, "the file is not valid UTF-8")) from None
    if not markdown:
        return replace(parse_agent_md(text, path), source=source)
    # deepagents' `<name>/AGENTS.md` is named after its folder; a `<name>.md` after itself.
    default = path.parent.name if path.name == DEEPAGENTS_FILE else path.stem
    return replace(parse_markdown_agent(text, path, default_name=default), source=source)
