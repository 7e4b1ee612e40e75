"""What the context panel shows below its rows for the chosen one: a skill's body, or what a
segment is (no Textual here)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from birdie_tui.tui.widgets.format import fmt_tokens
from birdie_tui.tui.widgets.panels.context_lines import (
    KIND_HELP,
    SKILL_KINDS,
    bullet_list,
    segment_words,
)

if TYPE_CHECKING:
    from birdie_tui.service.rows import CallContext, InjectionView, Segment

NOT_STORED = ("_The body is not stored for past turns, and this skill's text differs from the "
              "latest call's (or the latest call did not send it)._")


def reason_label(reason: str) -> str:
    """The engine's reason code, in words: trigger:<phrase> → trigger “phrase”."""
    if reason.startswith("trigger:"):
        return f"trigger “{reason.removeprefix('trigger:')}”"
    if reason in ("always_inject", "always"):
        return "always"
    return reason


def injection_body(view: InjectionView, index: int | None) -> tuple[str, str]:
    """(title, markdown) of an injected skill in the view without provenance records."""
    skills = view.skills
    row = skills[index] if index is not None and 0 <= index < len(skills) else None
    if row is None:
        return "", ""
    return f"{row.name} · {reason_label(row.reason)}", row.body


def segment_body(record: CallContext, seg: Segment, view: InjectionView, *,
                 shown_latest: bool) -> tuple[str, str]:
    """(title, markdown) for one segment of a recorded call; `shown_latest`: the record is
    the session's latest call (whose bodies `view` holds)."""
    title = f"{segment_words(seg)} · ≈{fmt_tokens(seg.tokens, compact=True)}"
    if seg.kind in SKILL_KINDS:
        return title, skill_body(record, seg, view, shown_latest=shown_latest)
    where = ("Stable: part of the prefix a provider's prompt cache reuses." if seg.stable
             else "Per turn: sent after the cached prefix.")
    text = [KIND_HELP.get(seg.kind, ""), f"_{seg.detail}_" if seg.detail else "", where]
    if seg.kind == "memory" and view.memory:
        text.append(f"The notes now:\n\n{bullet_list(view.memory)}")
    return title, "\n\n".join(t for t in text if t)


def skill_body(record: CallContext, seg: Segment, view: InjectionView, *,
               shown_latest: bool) -> str:
    """The body the call sent. Bodies come with the latest call only; a past call's body is
    shown when its text is the same as the latest call's (the same digest)."""
    latest = view.context
    row = next((r for r in view.skills if r.name == seg.name), None)
    if row is None:
        return NOT_STORED
    if shown_latest and (latest is None or (latest.turn, latest.call) == (record.turn,
                                                                           record.call)):
        return row.body
    if latest is not None and seg.digest and any(s.name == seg.name and s.digest == seg.digest
                                                 for s in latest.segments):
        return (f"{row.body}\n\n---\n\n_Not stored for past turns: this is the latest call's "
                f"copy (turn {latest.turn}), the same text._")
    return NOT_STORED
