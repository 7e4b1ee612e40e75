"""Saving a session over a file another process may have changed since it was read.

A three-way merge per top-level key: a key this process changed (its value differs from the
one it read) is written as it is in memory; any other key keeps what is on disk now. So a TUI
that toggles a skill does not write back the stale `turns` of a session a `--print` just
continued, and a turn counted elsewhere is never undone. (Two processes changing the *same*
key at once: the later save wins; turns and token counts only change under the turn lock.)
"""

from __future__ import annotations

from typing import Any

__all__ = ["merge_session"]

_ABSENT = object()
_OURS_ALWAYS = ("id", "user_id", "updated_at")


def merge_session(base: dict[str, Any] | None, mine: dict[str, Any],
                  disk: dict[str, Any] | None) -> dict[str, Any]:
    """What to write: `mine` (this process's `to_dict`) over `disk` (the file now), given
    `base` (what this process last had in common with the file). Without a base or a file,
    `mine` as it is."""
    if base is None or disk is None:
        return mine
    out: dict[str, Any] = {}
    for key, value in mine.items():
        unchanged = base.get(key, _ABSENT) == value and key not in _OURS_ALWAYS
        if not unchanged:
            out[key] = value
        elif key in disk:
            out[key] = disk[key]
        # else: unchanged here and removed there: stays removed
    for key, value in disk.items():
        if key not in out and key not in mine and key not in base:
            out[key] = value  # added by another writer (a key Birdie or a newer version keeps)
    return out
