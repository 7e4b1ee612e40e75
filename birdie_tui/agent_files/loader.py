"""Finding agent files (stand-in until the format package lands)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import yaml

from birdie_tui.agent_files.models import AgentDef, AgentLoad, AgentParam, AgentProblem
from birdie_tui.store import BirdiePaths


def default_agent_dirs(paths: BirdiePaths, environ: Mapping[str, str], cwd: Path,
                       extra: Sequence[Path] = ()) -> list[tuple[Path, str]]:
    override = environ.get("BIRDIE_AGENTS_DIR", "")
    if override.strip():
        return [(Path(p).expanduser(), "dir") for p in override.split(os.pathsep) if p.strip()]
    return [*((Path(p), "dir") for p in extra), (cwd / ".birdie" / "agents", "project"),
            (cwd / ".agents" / "agents", "project"), (paths.home / "agents", "home")]


def _params(content: str, section: str) -> tuple[AgentParam, ...]:
    match = re.search(rf"## {section}\s*\n(.*?)(?=\n## |\Z)", content, re.DOTALL)
    if not match:
        return ()
    body = "\n" + match.group(1)
    out = []
    for block in re.finditer(r"\n### (\w+)\n(.*?)(?=\n### |\Z)", body, re.DOTALL):
        text = block.group(2)
        t = re.search(r"type:\s*(\S+)", text)
        d = re.search(r"description:\s*(.*?)(?=\n\w|$)", text)
        r = re.search(r"required:\s*(\S+)", text)
        out.append(AgentParam(block.group(1).strip(), t.group(1) if t else "string",
                              d.group(1).strip() if d else "",
                              (r.group(1).lower() == "true") if r else True))
    return tuple(out)


def _one(path: Path, source: str) -> AgentDef:
    content = path.read_text(encoding="utf-8")
    fm = re.search(r"^---(.*?)---", content, re.DOTALL)
    if not fm:
        raise ValueError("No YAML frontmatter found in AGENT.MD")
    front = yaml.safe_load(fm.group(1)) or {}
    prompt = re.search(r"## Prompt\s*\n(.*?)(?=\n## |\Z)", content, re.DOTALL)
    if not prompt:
        raise ValueError("No ## Prompt section found in AGENT.MD")
    return AgentDef(
        name=front["name"], description=front["description"], prompt=prompt.group(1).strip(),
        vendor=front.get("vendor"), model=front.get("model"),
        temperature=front.get("temperature"), max_tokens=front.get("max_tokens"),
        enabled_by_default=bool(front.get("enabled_by_default", False)),
        allowed_skills=tuple(front.get("allowed_skills") or ()),
        recursion_limit=int(front.get("recursion_limit", 25)),
        max_tool_repetitions=int(front.get("max_tool_repetitions", 3)),
        inputs=_params(content, "Input"), outputs=_params(content, "Output"),
        path=path, source=source)


def load_agents(dirs: Sequence[tuple[Path, str]]) -> AgentLoad:
    load = AgentLoad()
    seen: set[str] = set()
    for folder, source in dirs:
        if not folder.is_dir():
            continue
        for sub in sorted(folder.iterdir()):
            path = sub / "AGENT.MD"
            if not path.is_file():
                continue
            try:
                agent = _one(path, source)
            except Exception as exc:  # noqa: BLE001
                load.problems.append(AgentProblem(path, None, str(exc)))
                continue
            if agent.name not in seen:
                seen.add(agent.name)
                load.agents.append(agent)
    return load
