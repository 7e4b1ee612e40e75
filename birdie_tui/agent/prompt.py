"""System-prompt tiers (DESIGN.md §4) and the report of what each model call was given and why.

Tier 1 catalog of allowed skills · Tier 2a always_inject bodies · Tier 2b trigger-matched
knowledge bodies · loaded Agent Skills · Tier 3 long-term memory.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import lru_cache
from operator import is_

from birdie_tui.agent.events import InjectedSkill, SkillsInjected
from birdie_tui.providers.tokens import estimate_tokens
from birdie_tui.skills.models import Skill

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
    objects as last time (a reload or a grant change), not on every model call."""

    def __init__(self, allowed: Sequence[Skill]):
        self.skills = tuple(allowed)
        self.text = _catalog(allowed)
        self.tokens = estimate_tokens(self.text)
        self.always = [s for s in allowed if s.always_inject and s.body]
        self.triggered = [s for s in allowed if not s.always_inject and s.body and s.triggers
                          and s.format != "agent-skills"]
        self.loadable = [s for s in allowed if s.format == "agent-skills" and s.body]

    def fits(self, allowed: Sequence[Skill]) -> bool:
        return len(self.skills) == len(allowed) and all(map(is_, self.skills, allowed))


_last_catalog: _Catalog | None = None


def catalog_for(allowed: Sequence[Skill]) -> _Catalog:
    global _last_catalog
    if _last_catalog is None or not _last_catalog.fits(allowed):
        _last_catalog = _Catalog(allowed)
    return _last_catalog


def _catalog(allowed: Sequence[Skill]) -> str:
    if not allowed:
        return "No skills are enabled for this session."
    lines = ["You have access to the following skills:", ""]
    for skill in allowed:
        line = f"- **{skill.name}**: {skill.description}"
        if skill.format == "agent-skills":
            line += " (call `load_skill` with this name to read its instructions)"
        elif skill.triggers:
            line += f"  triggers: {', '.join(skill.triggers)}"
        lines.append(line)
    return "\n".join(lines)


def _tool_hint(skill: Skill, tools_by_tag: dict[str, list[str]]) -> str:
    """Knowledge skills name the tools they rely on by tag (Birdie's `tool_tags`)."""
    names: list[str] = []
    for tag in skill.tool_tags:
        for name in tools_by_tag.get(tag, []):
            if name not in names:
                names.append(name)
    return f"\n\n(Tools for this: {', '.join(names)})" if names else ""


def build_system_prompt(
    allowed: Sequence[Skill],
    user_text: str,
    *,
    loaded: Iterable[str] = (),
    memory: Sequence[str] = (),
    tools_by_tag: dict[str, list[str]] | None = None,
) -> tuple[str, SkillsInjected]:
    """Return the system prompt for one model call and the injection report for it."""
    tools_by_tag = tools_by_tag or {}
    cached = catalog_for(allowed)
    parts = [PREAMBLE, cached.text]
    injected: list[InjectedSkill] = []

    def inject(skill: Skill, header: str, reason: str) -> None:
        body = (skill.body or "").strip() + _tool_hint(skill, tools_by_tag)
        parts.append(f"--- {header} ---\n{body}")
        injected.append(InjectedSkill(skill.name, reason, estimate_tokens(body), body))

    for skill in cached.always:
        inject(skill, f"{skill.name} skill context", "always_inject")
    for skill in cached.triggered:
        phrase = matched_trigger(skill, user_text)
        if phrase is not None:
            inject(skill, f"{skill.name} skill context", f"trigger:{phrase}")
    wanted = {name.lower() for name in loaded}
    for skill in cached.loadable:
        if skill.name.lower() in wanted:
            inject(skill, f"{skill.name} skill (loaded)", "loaded")
    if memory:
        parts.append("--- Long-term memory ---\n" + "\n".join(f"- {m}" for m in memory))

    prompt = "\n\n".join(parts)
    report = SkillsInjected(
        skills=injected,
        catalog_tokens=cached.tokens,
        memory=list(memory),
        prompt_tokens=estimate_tokens(prompt),
    )
    return prompt, report
