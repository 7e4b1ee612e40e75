"""How the context panel words one model call's provenance: each segment's kind in words, its
row, the change against the call before, what left the prompt and what was not sent."""

from __future__ import annotations

from typing import TYPE_CHECKING

import re
from collections.abc import Iterable

from textual.content import Content

from birdie_tui.screen_text import one_line
from birdie_tui.tui.widgets.format import fmt_tokens

if TYPE_CHECKING:
    from birdie_tui.service.rows import CallContext, ContextChange, Segment

STABLE_MARK = "◆"  # part of the prefix a provider's prompt cache reuses
TURN_MARK = "◇"  # built for this call

KIND_WORDS = {
    "tools": "tool schemas", "base": "base prompt", "system_prompt": "system_prompt.md",
    "catalog": "skill catalog", "always": "always", "project": "project instructions",
    "trigger": "trigger", "loaded": "loaded", "summary": "summary", "memory": "memory",
    "mention": "mentioned file", "history": "history",
}
SKILL_KINDS = ("always", "trigger", "loaded")
# What a segment is, for the body view of the kinds that have no body to show.
KIND_HELP = {
    "tools": "The JSON schemas of the tools bound to this call.",
    "base": "Birdie's own instructions, the same for every call.",
    "system_prompt": "Your `$BIRDIE_HOME/system_prompt.md`.",
    "catalog": "One line per enabled skill: what the model can ask for.",
    "project": "The project's instructions file, found from the working directory.",
    "summary": "The rolling summary of the compacted conversation (`/compact`): the model "
               "reads it instead of the older messages, which stay in the chat.",
    "memory": "Long-term memory, shared by every session (`/remember`, `/memory`).",
    "mention": "A file or folder you @-mentioned, attached to your message (its lines "
               "numbered); counted here, not in history.",
    "history": "The conversation sent along with the system prompt.",
}
EVICTED_WHY = {"expired": "lease expired", "lru": "pushed out: max loaded"}
_LEASE = re.compile(r"loaded at turn (\d+) · (\d+) more turns? of lease")


def kind_words(seg: Segment) -> str:
    """trigger “phrase”, loaded (turn 3 · 2 more turns), tool schemas, …"""
    if seg.kind == "trigger":  # detail: the phrase as the skill wrote it
        return f"trigger “{seg.detail}”" if seg.detail else "trigger"
    if seg.kind == "loaded":
        lease = _LEASE.fullmatch(seg.detail)
        if lease:
            left = int(lease.group(2))
            return f"loaded (turn {lease.group(1)} · {left} more turn{'s' if left != 1 else ''})"
        return "loaded"
    if seg.kind == "mention" and seg.name.endswith("/"):
        return "mentioned folder"
    return KIND_WORDS.get(seg.kind, seg.kind)


def shown_name(seg: Segment) -> str:
    """The name worth showing next to the kind (a project file by its file name)."""
    if seg.kind == "system_prompt":
        return ""
    if seg.kind == "project":
        return seg.name.replace("\\", "/").rsplit("/", 1)[-1]
    return seg.name


def name_and_detail(seg: Segment) -> str:
    """The name and the detail the kind's words do not already say, joined by " · "."""
    parts = [shown_name(seg), "" if seg.kind in ("trigger", "loaded") else seg.detail]
    return " · ".join(p for p in parts if p)


def segment_words(seg: Segment) -> str:
    """A skill by its name first (what a narrow panel must not cut), anything else by kind."""
    if seg.kind in SKILL_KINDS and seg.name:
        return f"{seg.name} · {kind_words(seg)}"
    return " · ".join(p for p in (kind_words(seg), name_and_detail(seg)) if p)


def segment_prompt(seg: Segment) -> Content:
    """One row of the segment list: marker, ≈tokens (aligned), then what it is."""
    mark = STABLE_MARK if seg.stable else TURN_MARK
    if seg.kind in SKILL_KINDS and seg.name:
        first, rest = seg.name, kind_words(seg)
    else:
        first, rest = kind_words(seg), name_and_detail(seg)
    return Content.assemble(
        Content.styled(mark, "$accent" if seg.stable else "$foreground-muted"),
        Content.styled(f" {'≈' + fmt_tokens(seg.tokens, compact=True):>6} ", "$foreground-muted"),
        Content.styled(one_line(first), "bold" if seg.kind in SKILL_KINDS else ""),
        Content.styled(f" · {one_line(rest)}" if rest else "", "$foreground-muted"),
    )


def first_body(record: CallContext) -> int:
    """The row to show first: a body this turn brought (trigger, loaded), else an always-on
    one, else the top."""
    for kinds in (("trigger", "loaded"), ("always",)):
        for index, seg in enumerate(record.segments):
            if seg.kind in kinds:
                return index
    return 0


def legend(*, focused: bool) -> Content:
    """The row markers, and the key that browses (or leaves) the panel."""
    return Content.assemble(
        Content.styled(STABLE_MARK, "$accent"), " stable ",
        TURN_MARK, " per turn · ",
        Content.styled("esc" if focused else "ctrl+g", "bold"), " back" if focused else " browse",
    )


def header(record: CallContext, *, call: int, calls: int, retried: bool) -> str:
    """Turn 7 · call 2 of 3 · ≈12.3k tok"""
    turn = f"Turn {record.turn}{' (retried)' if retried else ''}"
    return f"{turn} · call {call} of {calls} · ≈{fmt_tokens(record.tokens, compact=True)} tok"


def change_lines(change: ContextChange, before: CallContext | None) -> Content:
    """+ entered, − left, ~ changed, = stayed, and whether the cached prefix held."""
    if change.first or before is None:
        return Content.styled("First call of the session: nothing to compare with.",
                              "$foreground-muted")
    lines = [Content.styled(f"Since turn {before.turn} · call {before.call}:", "bold")]
    for sign, style, segments in (("+", "$success", change.entered),
                                  ("−", "$error", change.left),
                                  ("~", "$warning", change.changed)):
        lines += [Content.assemble(Content.styled(f"{sign} ", style), segment_words(s))
                  for s in segments]
    lines.append(Content.styled(f"= {len(change.stayed)} stayed", "$foreground-muted"))
    lines.append(Content.styled("prompt cache prefix changed", "$warning bold")
                 if change.prefix_changed
                 else Content.styled("prompt cache prefix unchanged", "$success"))
    return Content("\n").join(lines)


def left_lines(record: CallContext) -> Content | None:
    """Evictions and the knowledge skills whose bodies were not sent; None if neither."""
    lines: list[Content] = []
    if record.evicted:
        gone = ", ".join(f"{name} ({EVICTED_WHY.get(why, why)})" for name, why in record.evicted)
        lines.append(Content.assemble(Content.styled("left the prompt: ", "$error"), gone))
    if record.not_loaded:
        lines.append(Content.assemble(Content.styled("not loaded: ", "$foreground-muted"),
                                      ", ".join(record.not_loaded)))
    return Content("\n").join(lines) if lines else None


def bullet_list(items: Iterable[str]) -> str:
    return "\n".join(f"- {item}" for item in items)
