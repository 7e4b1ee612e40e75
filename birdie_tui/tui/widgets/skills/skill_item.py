"""How one skill reads in the sidebar: its list row and its details text.

Kept apart from the sidebar so the row layout can be tested (and reused by the
command palette) without mounting anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual.content import Content

from birdie_tui.screen_text import clean, one_line

if TYPE_CHECKING:
    from birdie_tui.service.rows import SkillRow


MARK_ON = "●"
MARK_OFF = "○"
WARN = "⚠"

# Short tags keep the row inside the 32-column sidebar; the details show the full kind.
KIND_TAGS = {
    "tools": "tools",
    "knowledge": "know",
    "always": "always",
    "agent-skill": "agent",
    "mcp": "mcp",
}
NAME_WIDTH = 13
TAG_WIDTH = 6


def kind_tag(kind: str) -> str:
    return KIND_TAGS.get(kind, kind[:TAG_WIDTH])


def _fit(text: str, width: int) -> str:
    """Pad or cut with an ellipsis so the columns line up."""
    if len(text) > width:
        return text[: width - 1] + "…"
    return text.ljust(width)


def skill_prompt(row: SkillRow, name_width: int = NAME_WIDTH) -> Content:
    """One list row: mark, name, kind tag, tool count, and a warning when broken.

    A skill that is off for this session is dimmed as a whole, mark included.
    """
    mark = Content.styled(MARK_ON, "$success") if row.enabled else Content.styled(MARK_OFF, "$foreground-muted")
    prompt = Content.assemble(
        mark,
        " ",
        Content.styled(_fit(one_line(row.name), name_width), "bold" if row.enabled else ""),
        " ",
        Content.styled(kind_tag(row.kind).ljust(TAG_WIDTH), "$foreground-muted"),
        " ",
        Content.styled(f"{row.tool_count:>2}", "$foreground-muted"),
        " ",
        Content.styled(WARN, "$warning") if row.error else " ",
    )
    if not row.enabled:
        prompt = prompt.stylize("dim")
    return prompt


def skill_details(row: SkillRow) -> Content:
    """The highlighted skill's description, tags, triggers, tools and error."""
    state = "on" if row.enabled else "off"
    if row.enabled != row.enabled_by_default:
        state += f" (default {'on' if row.enabled_by_default else 'off'})"
    parts: list[Content] = [
        Content.assemble(
            Content.styled(one_line(row.name), "bold $accent"),
            Content.styled(f"  {row.kind} · {state}", "$foreground-muted"),
        )
    ]
    if row.description:
        parts.append(Content(clean(row.description)))

    def labelled(label: str, value: str) -> Content:
        return Content.assemble(Content.styled(f"{label}: ", "$foreground-muted"), one_line(value))

    if row.tags:
        parts.append(labelled("Tags", ", ".join(row.tags)))
    if row.triggers:
        parts.append(labelled("Triggers", ", ".join(f"“{t}”" for t in row.triggers)))
    if row.server:
        parts.append(labelled("Server", row.server))
    if row.tool_names:
        parts.append(labelled("Tools", ", ".join(row.tool_names)))
    elif row.tool_count == 0 and not row.server:
        parts.append(labelled("Tools", "none"))
    if row.error:
        parts.append(Content.styled(f"{WARN} {clean(row.error)}", "$warning"))
    return Content("\n").join(parts)
