"""What the approval dialog says, as Content: the call (a command line, pretty arguments or a
coloured diff), why it was gated, and the rule an "always" answer would save.

Pure functions of an `ApprovalRequest`, so they are tested without a screen. Everything a
tool or a model wrote is shown literally: never parsed as markup, and every control character
shown as such (`safe_content.exact`), so what the user approves is exactly what runs.
"""

from __future__ import annotations

import json
from typing import Any

from textual.content import Content

from birdie_tui.screen_text import literal
from birdie_tui.service.rows import ApprovalRequest
from birdie_tui.tui.widgets.safe_content import exact

# (choice, default key, label); `{tool}` and `{skill}` are filled from the request.
CHOICES: tuple[tuple[str, str, str], ...] = (
    ("once", "y", "Allow once"),
    ("command", "c", "Always allow this exact command"),
    ("tool", "t", "Always allow {tool}"),
    ("skill", "s", "Always allow skill {skill} (all its tools)"),
    ("deny", "n", "Deny"),
    ("reason", "r", "Deny and tell the model why…"),
)
REMEMBERED = ("command", "tool", "skill")  # the choices that save something first
NAME_CHARS = 40  # of a tool or skill name inside a choice's label
BODY_CHARS = 100_000  # of a command or arguments shown (a model can send megabytes)
RULE_CHARS = 400  # of a rule in the preview under the choices (the call above shows it all)


def choices_for(request: Any) -> list[tuple[str, str, str]]:
    """The dialog's choices for this request (no skill choice for a call without a skill)."""
    tool, skill = _cut(literal(request.name)), _cut(literal(request.skill))
    return [(choice, key, _call_label(request, label).format(tool=tool, skill=skill))
            for choice, key, label in CHOICES if choice != "skill" or request.skill]


def shows_call(request: Any) -> bool:
    """A file write is shown as its diff, not as the command line behind the tool, and a tool
    that is not a command line as its arguments: an "always" for either is spoken of as this
    exact call (the rule names the tool and its arguments)."""
    return request.diff is not None or args_of(request) is not None


def _call_label(request: Any, label: str) -> str:
    return label.replace("exact command", "exact call") if shows_call(request) else label


def _cut(name: str) -> str:
    return name if len(name) <= NAME_CHARS else name[: NAME_CHARS - 1] + "…"


def question(request: Any) -> Content:
    # A sub-agent's call names the agent: it, not the session's model, asked for it.
    agent = getattr(request, "agent", "")
    parts: list[Any] = [exact(agent, "bold $warning") if agent else "Birdie", " wants to run ", exact(request.name, "bold $accent")]
    if request.skill:
        parts += [" from skill ", exact(request.skill, "bold")]
    return Content.assemble(*parts)


def why(request: Any) -> Content:
    """What gated the call: the engine's reason, and the skill's declared permissions."""
    reason = request.why or "it needs approval"
    perms = [p for p in request.permissions if p not in reason]
    if perms:
        reason += f" (permissions: {', '.join(perms)})"
    return Content.assemble("Asks because ", exact(reason))


def outside(request: Any) -> Content | None:
    if not request.paths_outside:
        return None
    paths = ", ".join(request.paths_outside)
    return Content.assemble(("⚠ outside the working directory: ", "bold $warning"),
                            exact(paths, "$warning"))


def args_of(request: Any) -> dict[str, Any] | None:
    """The arguments, when `command` is just their JSON (not a `bash:` command line)."""
    try:
        shown = json.loads(request.command)
    except (TypeError, ValueError):
        return None
    return request.args if shown == json.loads(json.dumps(request.args, default=str)) else None


def format_args(args: dict[str, Any]) -> str:
    """Pretty JSON; values JSON cannot hold are shown with str() rather than failing."""
    try:
        return json.dumps(args, indent=2, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # e.g. non-string keys mixed with others
        return repr(args)


def body(request: Any) -> Content:
    """The call itself: the diff of a file write, else the command line, else the args."""
    if request.diff:
        return diff_content(cut(request.diff))
    args = args_of(request)
    if args is not None or not request.command:
        return exact(cut(format_args(request.args if args is None else args)))
    return Content.assemble(("$ ", "bold"), exact(cut(request.command), "bold"))


def cut(text: str) -> str:
    """At most `BODY_CHARS` of `text`, saying how much more there is."""
    if len(text) <= BODY_CHARS:
        return text
    return f"{text[:BODY_CHARS]}\n… {len(text) - BODY_CHARS:,} more characters not shown"


def diff_content(diff: str) -> Content:
    """A unified diff, coloured line by line like `git diff`."""
    lines = []
    for line in diff.removesuffix("\n").split("\n"):  # not splitlines: a \r stays visible
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("@@"):
            style = "$accent"
        elif line.startswith("+"):
            style = "$success"
        elif line.startswith("-"):
            style = "$error"
        elif line.startswith("\\"):
            style = "italic $text-muted"
        else:
            style = ""
        lines.append(exact(line, style))
    return Content("\n").join(lines)


def saved_item(request: ApprovalRequest, choice: str) -> str:
    """What an "always" choice saves in the session: a rule, or the skill's name."""
    if choice == "skill":
        return request.skill
    return request.rule_for(choice) or request.name


def preview(request: Any, choice: str | None, key: str) -> Content:
    """The two lines under the choices: for an "always" choice, exactly what will be saved
    and what it lets through; otherwise the keys."""
    if choice == "command" and shows_call(request):  # the rule names the call, not its template
        return _saves("Saves the rule ", visible(saved_item(request, choice)),
                      "this call with these same arguments runs without asking", key)
    if choice in REMEMBERED:
        item = visible(saved_item(request, choice))
        head, effect = {
            "command": ("Saves the rule ", "this exact command runs without asking"),
            "tool": ("Saves the rule ", f"every {literal(request.name)} call runs without asking"),
            "skill": ("Approves the skill ", "all its tools run without asking"),
        }[choice]
        return _saves(head, item, effect, key)
    if choice is not None:
        return Content("enter: confirm · esc: back\n")
    later = ("esc: not now — the sub-agent cannot wait, so the call is not run"
             if getattr(request, "agent", "") else
             "esc: not now — the call stays pending, asked again later")
    return Content("letter or click: answer · ↑↓ enter: choose · pgup/pgdn: scroll\n" + later)


def _saves(head: str, item: str, effect: str, key: str) -> Content:
    if len(item) > RULE_CHARS:
        item = f"{item[:RULE_CHARS]}… ({len(item):,} characters)"
    return Content.assemble(
        (head, "bold $foreground"), (item, "bold $accent"),
        (f" — {effect} in this session", "$foreground"),
        "\n", f"{key} again or enter: allow and save · esc: back")


def visible(text: str) -> str:
    """One line, every control character shown as such: line breaks as ⏎ (a rule may hold a
    multi-line command, and the preview must not look like two rules)."""
    return literal(text).replace("\n", "⏎")
