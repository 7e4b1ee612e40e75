"""The door's error, apart from the protocol: a front end names it at first paint, before the
rows and events the protocol is written in have been imported."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from birdie_tui.service.rows import BrokenSkillFile, SkillRow

__all__ = ["BirdieError"]


class BirdieError(Exception):
    """A command that cannot be done as asked; the text is the one line to show."""

    # A start that failed after the skills were read carries them: a front end still lists
    # them beside the reason (a read-only home should not look like "no skills").
    skills: tuple[SkillRow, ...] = ()
    broken: tuple[BrokenSkillFile, ...] = ()
