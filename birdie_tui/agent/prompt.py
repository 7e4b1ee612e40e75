"""System-prompt tiers (docs/skills.md, What the model sees) and the report of what each model
call was given and why.

Stable: base prompt · `$BIRDIE_HOME/system_prompt.md` · Tier 1 catalog of allowed skills ·
Tier 2a always_inject bodies · project instructions (AGENTS.md / CLAUDE.md). Per turn: Tier 2b
trigger-matched knowledge bodies · bodies the model loaded (get_skill / load_skill, under a
lease) · the rolling summary of a compacted conversation · Tier 3 long-term memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import is_
from typing import Any

from birdie_tui.events import InjectedSkill, SkillsInjected
from birdie_tui.agent.compaction import summary_block
from birdie_tui.agent.provenance import Segment, digest
from birdie_tui.providers.tokens import estimate_tokens
from birdie_tui.skills.models import Skill
from birdie_tui.modes import LOADING_MODES, LoadingMode
from birdie_tui.text import counted

PREAMBLE = (
    "You are Birdie, a helpful agent whose tools and know-how come from skills. "
    "Use the tools you are given when they help; say plainly when you cannot do something."
)


@lru_cache(maxsize=512)
def trigger_pattern(phrase: str) -> re.Pattern[str] | None:
    """A case-insensitive regex for `phrase` as a whole word or phrase (None if blank).

    A phrase edge that is a word character (letter, digit, `_`) must not touch another word
    character, so "ssh" matches "SSH into it" and "ssh-agent" but not "passhash"; an edge
    that is punctuation ("c++", ".env") is its own boundary. Inner whitespace is any whitespace.
    """
    words = phrase.split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    head = r"(?<!\w)" if re.match(r"\w", words[0]) else ""
    tail = r"(?!\w)" if re.search(r"\w$", words[-1]) else ""
    return re.compile(head + body + tail, re.IGNORECASE)


def matched_trigger(skill: Skill, user_text: str) -> str | None:
    """The first trigger phrase found, as a whole word or phrase, in the user's message."""
    for phrase in skill.triggers:
        pattern = trigger_pattern(phrase)
        if pattern is not None and pattern.search(user_text):
            return phrase
    return None




class _Catalog:
    """The catalog of an allowed list and what goes with it (its token estimate, which skills
    can be injected and how): built again only when the allowed skills are not the same
    objects as last time (a reload or a grant change) or the loading mode changed, not on
    every model call."""

    def __init__(self, allowed: Sequence[Skill], mode: str = "both"):
        self.skills = tuple(allowed)
        self.mode = mode
        self.text = _catalog(allowed, mode)
        self.tokens = estimate_tokens(self.text)
        self.digest = digest(self.text)
        self.always = [s for s in allowed if s.always_inject and s.body]
        knowledge = [s for s in allowed if not s.always_inject and s.body
                     and s.format != "agent-skills"]
        self.triggered = [s for s in knowledge if s.triggers] if mode != "model" else []
        agent_skills = [s for s in allowed if s.format == "agent-skills" and s.body]
        # What the model may load (get_skill / load_skill): Agent Skills always can.
        self.loadable = agent_skills + (knowledge if mode != "triggers" else [])
        self.knowledge = knowledge + agent_skills  # bodies that are sent only when chosen

    def fits(self, allowed: Sequence[Skill], mode: str) -> bool:
        return (mode == self.mode and len(self.skills) == len(allowed)
                and all(map(is_, self.skills, allowed)))


_last_catalog: _Catalog | None = None


def catalog_for(allowed: Sequence[Skill], mode: str = "both") -> _Catalog:
    global _last_catalog
    if _last_catalog is None or not _last_catalog.fits(allowed, mode):
        _last_catalog = _Catalog(allowed, mode)
    return _last_catalog


def load_name(skill: Skill) -> str:
    """The identifier the catalog shows for loading a skill (upstream's `location`)."""
    return skill.location or skill.name


def skill_aliases(allowed: Sequence[Skill]) -> dict[str, str]:
    """Every identifier a load call may use (name or location) -> the skill's name."""
    aliases: dict[str, str] = {}
    for skill in allowed:
        aliases[skill.name] = skill.name
        aliases.setdefault(load_name(skill), skill.name)
    return aliases


def _catalog(allowed: Sequence[Skill], mode: str = "both") -> str:
    if not allowed:
        return "No skills are enabled for this session."
    lines = ["You have access to the following skills:", ""]
    loadable = False
    for skill in allowed:
        line = f"- **{skill.name}**: {skill.description}"
        if skill.format == "agent-skills":
            line += " (call `load_skill` with this name to read its instructions)"
        elif skill.body and not skill.always_inject:
            if mode != "model" and skill.triggers:
                line += f"  triggers: {', '.join(skill.triggers)}"
            if mode != "triggers":
                line += f" [load: {load_name(skill)}]"
                loadable = True
        lines.append(line)
    if loadable:
        lines.append("")
        lines.append("Knowledge skills show [load: <name>]: call get_skill(skill_name=<name>) "
                     "to load their full instructions.")
    return "\n".join(lines)


def _tool_hint(skill: Skill, tools_by_tag: dict[str, list[str]]) -> str:
    """Knowledge skills name the tools they rely on by tag (Birdie's `tool_tags`)."""
    names: list[str] = []
    for tag in skill.tool_tags:
        for name in tools_by_tag.get(tag, []):
            if name not in names:
                names.append(name)
    return f"\n\n(Tools for this: {', '.join(names)})" if names else ""


def lease_detail(lease: Any) -> str:
    left = lease.turns_left
    return (f"loaded at turn {lease.loaded_turn} · "
            f"{left} more turn{'s' if left != 1 else ''} of lease")


class _Assembly:
    """The prompt's parts and their segments, added side by side."""

    def __init__(self, tools_by_tag: dict[str, list[str]]):
        self.parts: list[str] = []
        self.segments: list[Segment] = []
        self.injected: list[InjectedSkill] = []
        self.tools_by_tag = tools_by_tag

    def text(self, kind: str, text: str, shown: str | None = None, *, name: str = "",
             detail: str = "") -> None:
        self.parts.append(text if shown is None else shown)
        self.segments.append(Segment(kind, name=name, tokens=estimate_tokens(text),
                                     detail=detail, digest=digest(text)))

    def skill(self, skill: Skill, header: str, reason: str, kind: str, detail: str = "") -> None:
        body = (skill.body or "").strip() + _tool_hint(skill, self.tools_by_tag)
        self.text(kind, body, f"--- {header} ---\n{body}", name=skill.name, detail=detail)
        self.injected.append(InjectedSkill(skill.name, reason, self.segments[-1].tokens,
                                           body, detail))


def build_system_prompt(
    allowed: Sequence[Skill],
    user_text: str,
    *,
    loaded: Iterable[Any] = (),
    memory: Sequence[str] = (),
    tools_by_tag: dict[str, list[str]] | None = None,
    mode: str = "both",
    custom: str = "",
    project: tuple[str, str] | None = None,
    summary: str = "",
    tool_tokens: int = 0,
) -> tuple[str, SkillsInjected]:
    """Return the system prompt for one model call and the injection report for it.

    `loaded` holds the skills the model loaded and still holds a lease on: names, or leases
    (with `name`, `loaded_turn`, `turns_left`). `custom` is `$BIRDIE_HOME/system_prompt.md`,
    `project` the (path, text) of AGENTS.md / CLAUDE.md, `summary` the rolling summary of a
    compacted conversation, `tool_tokens` the estimated size of the tool schemas sent.
    The stable parts come first (a provider's prompt cache reuses them), the per-turn ones
    after; the report's `segments` name each with its size.
    """
    cached = catalog_for(allowed, mode)
    out = _Assembly(tools_by_tag or {})
    if tool_tokens:
        out.segments.append(Segment("tools", tokens=tool_tokens))
    out.text("base", PREAMBLE)
    if custom.strip():
        out.text("system_prompt", custom.strip(), name="system_prompt.md")
    out.parts.append(cached.text)
    out.segments.append(Segment("catalog", tokens=cached.tokens, digest=cached.digest,
                                    detail=counted(len(cached.skills), "skill")))
    for skill in cached.always:
        out.skill(skill, f"{skill.name} skill context", "always_inject", "always")
    if project is not None and project[1].strip():
        path, text = project[0], project[1].strip()
        out.text("project", text, f"--- Project instructions ({path}) ---\n{text}", name=path)
    _knowledge_bodies(out, cached, user_text, {_lease_name(i).lower(): i for i in loaded})
    if summary.strip():
        out.text("summary", summary.strip(), summary_block(summary))
    if memory:
        out.text("memory", "--- Long-term memory ---\n" + "\n".join(f"- {m}" for m in memory),
                 detail=counted(len(memory), "note"))
    prompt = "\n\n".join(out.parts)
    return prompt, SkillsInjected(skills=out.injected, catalog_tokens=cached.tokens,
                                  memory=list(memory), prompt_tokens=estimate_tokens(prompt),
                                  segments=out.segments)


def _knowledge_bodies(out: _Assembly, cached: _Catalog, user_text: str,
                      leases: dict[str, Any]) -> None:
    """Trigger-matched bodies, then loaded ones (a body both triggered and loaded is sent once,
    as loaded: its lease is the longer-lived reason)."""
    for skill in cached.triggered:
        phrase = matched_trigger(skill, user_text)
        if phrase is not None and skill.name.lower() not in leases:
            out.skill(skill, f"{skill.name} skill context", f"trigger:{phrase}", "trigger",
                      phrase)
    for skill in cached.loadable:
        lease = leases.get(skill.name.lower())
        if lease is not None:
            detail = "" if isinstance(lease, str) else lease_detail(lease)
            header = (f"{skill.name} skill (loaded)" if skill.format == "agent-skills"
                      else f"{skill.name} skill context")
            out.skill(skill, header, "loaded", "loaded", detail)


def _lease_name(item: Any) -> str:
    return item if isinstance(item, str) else item.name


def not_loaded(allowed: Sequence[Skill], report: SkillsInjected, mode: str = "both") -> list[str]:
    """Enabled knowledge skills (and Agent Skills) whose bodies this prompt did not carry."""
    sent = {s.name for s in report.skills}
    return [s.name for s in catalog_for(allowed, mode).knowledge if s.name not in sent]
