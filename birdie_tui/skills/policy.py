"""Which skills are on: explicit disable > explicit enable > the skill's `enabled_by_default`."""

from __future__ import annotations

from collections.abc import Iterable

from .models import Skill
from .registry import SkillRegistry


class SkillPolicy:
    """Per-session enable/disable choices; names matched case-insensitively, stored as given."""

    def __init__(self, enabled: Iterable[str] = (), disabled: Iterable[str] = ()):
        self._enabled: dict[str, str] = {}
        self._disabled: dict[str, str] = {}
        for name in enabled:
            self._enabled[name.lower()] = name
        for name in disabled:
            self._enabled.pop(name.lower(), None)
            self._disabled[name.lower()] = name

    def is_enabled(self, skill: Skill | str, default: bool = False) -> bool:
        """Resolve for a Skill (or a bare name, with `default` standing for enabled_by_default)."""
        name = skill if isinstance(skill, str) else skill.name
        if name.lower() in self._disabled:
            return False
        if name.lower() in self._enabled:
            return True
        return default if isinstance(skill, str) else skill.enabled_by_default

    def enable(self, name: str) -> None:
        self._disabled.pop(name.lower(), None)
        self._enabled[name.lower()] = name

    def disable(self, name: str) -> None:
        self._enabled.pop(name.lower(), None)
        self._disabled[name.lower()] = name

    def allowed(self, registry: SkillRegistry) -> list[Skill]:
        return [s for s in registry.skills() if self.is_enabled(s)]

    @property
    def enabled_names(self) -> list[str]:
        return sorted(self._enabled.values(), key=str.lower)

    @property
    def disabled_names(self) -> list[str]:
        return sorted(self._disabled.values(), key=str.lower)
