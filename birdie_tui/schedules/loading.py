"""Every trigger there is: those of the agent files in the folders `agents check` reads
(`agent_files.loader.default_agent_dirs`), and the `schedules` list of settings.json (plain
prompts), with every problem named by file and line; one bad file never hides the rest.

A settings schedule is `{"name": ..., "prompt": ..., one of "every" | "cron" (+ "tz") |
"watch" (+ "debounce"), "approval": ...}`, keyed "schedule:<name>". Read raw, as
`store.database` reads `database_url`: the settings model would drop a bad entry silently,
and a bad schedule must be said.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from birdie_tui.agent_files.fields import TOOL_NAME, typename
from birdie_tui.agent_files.loader import default_agent_dirs, load_agents
from birdie_tui.agent_files.models import AgentDef, AgentFileError, AgentLoad, AgentProblem
from birdie_tui.agent_files.triggers import KINDS, read_triggers
from birdie_tui.regular_files import read_regular
from birdie_tui.schedules.models import Trigger
from birdie_tui.store.paths import BirdiePaths

__all__ = ["SCHEDULE_KEYS", "TriggerLoad", "gather_triggers", "load_triggers",
           "settings_schedules"]

SCHEDULE_KEYS = frozenset({"name", "prompt", "every", "cron", "tz", "watch", "debounce",
                           "approval"})
AgentDirs = Sequence[Path | tuple[Path, str]]


@dataclass
class TriggerLoad:
    """What a scan found: the triggers (agents' first, in folder order, then settings'), the
    problems (bad agent files, bad schedules, duplicate keys), the agents by name (what the
    runner runs) and the loader's notes (shadowed agents)."""

    triggers: list[Trigger] = field(default_factory=list)
    problems: list[AgentProblem] = field(default_factory=list)
    agents: dict[str, AgentDef] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def load_triggers(paths: BirdiePaths, environ: Mapping[str, str], cwd: Path,
                  agent_dirs: AgentDirs | None = None) -> TriggerLoad:
    """The triggers of the agent folders (`agent_dirs`, else the default folders) and of the
    settings' `schedules`; never raises for a bad file."""
    folders = default_agent_dirs(paths, environ, cwd) if agent_dirs is None else [
        d if isinstance(d, tuple) else (Path(d), "dir") for d in agent_dirs]
    return gather_triggers(load_agents(folders), paths.settings_file)


def gather_triggers(agents: AgentLoad, settings_file: Path | None) -> TriggerLoad:
    """The loaded agents' triggers and the schedules of `settings_file` (None: none), a key
    declared twice refused (the first kept)."""
    found = TriggerLoad(problems=list(agents.problems), notes=list(agents.notes),
                        agents={a.name: a for a in agents.agents})
    schedules: list[Trigger] = []
    if settings_file is not None:
        schedules, problems = settings_schedules(settings_file)
        found.problems.extend(problems)
    seen: dict[str, Trigger] = {}
    for trigger in [t for a in agents.agents for t in a.triggers] + schedules:
        first = seen.get(trigger.key)
        if first is not None:
            found.problems.append(AgentProblem(
                trigger.path or Path("settings.json"), trigger.line,
                f"trigger {trigger.key!r} is declared twice (first at "
                f"{first.path}{f':{first.line}' if first.line else ''})"))
            continue
        seen[trigger.key] = trigger
        found.triggers.append(trigger)
    return found


def settings_schedules(path: Path) -> tuple[list[Trigger], list[AgentProblem]]:
    """The `schedules` entries of the settings file at `path` as triggers, and the problems;
    a missing file or key is no schedule."""
    try:
        text = read_regular(path).decode("utf-8-sig", errors="replace")  # a FIFO never blocks
    except FileNotFoundError:
        return [], []
    except OSError as exc:
        return [], [AgentProblem(path, None, f"cannot read the settings file: "
                                             f"{exc.strerror or exc}")]
    try:
        data: Any = json.loads(text)
    except ValueError as exc:
        return [], [AgentProblem(path, getattr(exc, "lineno", None),
                                 "the settings file is not valid JSON, so its schedules "
                                 "cannot be read")]
    entries = data.get("schedules") if isinstance(data, dict) else None
    if entries is None:
        return [], []
    if not isinstance(entries, list):
        return [], [AgentProblem(path, _line_of(text, '"schedules"'),
                                 f"'schedules' must be a list of schedules, got "
                                 f"{typename(entries)}")]
    triggers: list[Trigger] = []
    problems: list[AgentProblem] = []
    for index, entry in enumerate(entries, 1):
        try:
            triggers.append(_schedule(entry, index, path, text, entries[:index - 1]))
        except AgentFileError as exc:
            problems.append(exc.problem)
    return triggers, problems


def _schedule(entry: Any, index: int, path: Path, text: str, before: list[Any]) -> Trigger:
    name = entry.get("name") if isinstance(entry, dict) else None
    label = f"schedules #{index}" + (f" ({name!r})" if isinstance(name, str) else "")
    line = None
    if isinstance(name, str):  # the line of this entry's "name", the nth of that name
        nth = sum(1 for e in before if isinstance(e, dict) and e.get("name") == name)
        line = _line_of(text, r'"name"\s*:\s*' + re.escape(json.dumps(name)), nth)

    def fail(key: str, message: str) -> AgentFileError:
        return AgentFileError(AgentProblem(path, line, f"{label}: {message}"))

    if not isinstance(entry, dict):
        raise fail("", f"a schedule is a mapping (name, prompt, every/cron/watch), got "
                       f"{typename(entry)}")
    if not isinstance(name, str) or not TOOL_NAME.match(name):
        raise fail("name", "'name' must be 1 to 64 letters, digits, '_' or '-'")
    prompt = entry.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise fail("prompt", "'prompt' must be the message to send, as text")
    unknown = sorted(str(k) for k in entry if k not in SCHEDULE_KEYS)
    if unknown:
        raise fail(unknown[0], f"unknown key(s) {', '.join(unknown)} (known: "
                               f"{', '.join(sorted(SCHEDULE_KEYS))})")
    kinds = [k for k in KINDS if k in entry]
    if len(kinds) != 1:
        raise fail("", "a schedule needs exactly one of 'every', 'cron' or 'watch' (give each "
                       "its own entry)")
    found = read_triggers(entry, fail=fail, key_of=lambda _kind: f"schedule:{name}",
                          line_of=lambda _key: line, path=path, agent=None, inputs=None,
                          prompt=prompt)
    return found[0]


def _line_of(text: str, pattern: str, nth: int = 0) -> int | None:
    """The 1-based line of the `nth` match of `pattern` in `text`; None when there is none
    (the JSON was written with escapes, say): the problem still names the entry."""
    for i, found in enumerate(re.finditer(pattern, text)):
        if i == nth:
            return text.count("\n", 0, found.start()) + 1
    return None
