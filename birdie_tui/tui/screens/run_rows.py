"""The runs view's text: one line per trigger and per run, the status line, times "in 12m".

Everything a run brings (its answer, error, agent name, paths) was written by a model, a tool or
a file: it reaches the screen only through `screen_text` (`clean`, `one_line`), and rows are
built from Content pieces, so a `[` in an answer is never markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from textual.content import Content

from birdie_tui.screen_text import clean, one_line
from birdie_tui.service.rows import RunRecord, TriggerRow
from birdie_tui.tui.screens.session_list import format_count

# status -> (mark, word, style); pending is the one a user must act on, so it says so.
STATUS: dict[str, tuple[str, str, str]] = {
    "done": ("✓", "done", "$success"),
    "failed": ("✗", "failed", "bold $error"),
    "pending": ("⏸", "needs approval", "bold $warning"),
    "running": ("●", "running", "bold $accent"),
    "skipped": ("↷", "skipped", "$foreground-muted"),
    "missed": ("○", "missed", "$foreground-muted"),
    "cancelled": ("■", "cancelled", "$foreground-muted"),
}
NO_SCHEDULER = "no scheduler running — start one with `birdie-tui agents start`"
NO_TRIGGERS = ("No agent declares a trigger: add `every:`, `cron:` or `watch:` to an agent "
               "file — see docs/schedules.md")
NO_RUNS = "No runs yet — `birdie-tui agents run NAME` runs an agent now."
WIDE = 100  # columns of the run list from which every column shows
MUTED = "$foreground-muted"


def utc_now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(frozen=True)
class RunsSnapshot:
    """What one refresh read from the door (in a worker thread)."""

    runs: list[RunRecord]
    triggers: list[TriggerRow]
    holder: str | None


def holder_line(holder: str | None, runs: list[RunRecord]) -> Content:
    """Who runs the triggers, and how many runs wait for an answer."""
    if holder == "server":
        who = Content.styled("● cron jobs on the server", "$success")
    elif holder:
        who = Content.styled(f"● scheduler running on {one_line(holder)}", "$success")
    else:
        who = Content.styled(f"○ {NO_SCHEDULER}", MUTED)
    waiting = sum(1 for run in runs if run.status == "pending")
    if not waiting:
        return who
    need = "1 run needs approval" if waiting == 1 else f"{waiting} runs need approval"
    return Content.assemble(who, ("  ·  ", MUTED), (f"⏸ {need}", "bold $warning"))


def cell(text: str, width: int, style: str = "") -> Content:
    """One column: sanitised, cut with an ellipsis or padded to exactly `width` cells."""
    return Content.styled(one_line(text), style).truncate(width, ellipsis=True, pad=True)


def first_line(text: str | None) -> str:
    """The first non-blank line of an answer or error, sanitised."""
    for line in clean(text or "").splitlines():
        if line.strip():
            return one_line(line.strip())
    return ""


def local_time(when: datetime, now: datetime) -> str:
    """In the machine's zone: `09:30` today, `Tue 09:30` this week, else the date."""
    local, today = when.astimezone(), now.astimezone()
    if local.date() == today.date():
        return local.strftime("%H:%M")
    if abs(local - today) < timedelta(days=6):
        return local.strftime("%a %H:%M")
    return local.strftime("%Y-%m-%d")


def span(seconds: float) -> str:
    """`42s`, `12m`, `1h05m`, `3d4h`: a short stretch of time."""
    whole = max(0, int(seconds))
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m" + (f"{whole % 60:02d}s" if whole < 600 and whole % 60 else "")
    if whole < 86400:
        return f"{whole // 3600}h{(whole % 3600) // 60:02d}m"
    return f"{whole // 86400}d{(whole % 86400) // 3600}h"


def next_text(row: TriggerRow, now: datetime) -> str:
    if row.trigger.kind == "watch":
        return "on change"
    if row.next_fire is None:
        return "—"
    ahead = (row.next_fire - now).total_seconds()
    return f"{local_time(row.next_fire, now)} · " + ("due" if ahead < 1 else f"in {span(ahead)}")


def status_cell(status: str, width: int) -> Content:
    mark, word, style = STATUS.get(status, ("?", status, ""))
    return cell(f"{mark} {word}", width, style)


def trigger_content(row: TriggerRow, now: datetime, width: int) -> Content:
    """`digest   every 30m   09:30 · in 12m   ✓ done`."""
    trigger, last = row.trigger, row.last
    fixed = 14 + 1 + 22 + 1 + 16
    when = min(40, max(12, width - fixed - 1))  # the next firing stays near its name
    return Content.assemble(
        cell(trigger.name, 14, "bold"), " ",
        cell(trigger.describe(), when), " ",
        cell(next_text(row, now), 22, "$accent"), " ",
        status_cell(last.status, 16) if last else cell("never run", 16, MUTED),
    )


def duration_text(run: RunRecord, now: datetime) -> str:
    if run.duration_s is not None:
        return span(run.duration_s)
    if run.status == "running":
        return span((now - run.started_at).total_seconds()) + "…"
    return ""


def summary(run: RunRecord) -> str:
    """What a row ends with: the first line of the error, the answer, or what to do."""
    if run.status == "pending":
        return "enter: open it and answer"
    if run.error:
        return first_line(run.error)
    if run.answer:
        return first_line(run.answer)
    if run.changed_paths:
        return f"changed: {one_line(', '.join(run.changed_paths))}"
    return ""


def run_content(run: RunRecord, now: datetime, width: int) -> Content:
    """One run: status, agent, [trigger,] started, [duration, tokens,] the first line. Below
    `WIDE` columns the bracketed ones fold away (the detail line below the list has them)."""
    wide = width >= WIDE
    parts: list[Content | str] = [status_cell(run.status, 16), " ",
                                  cell(run.agent or run.trigger_key, 12, "bold"), " "]
    if wide:
        parts += [cell(run.trigger, 16), " "]
    parts += [cell(local_time(run.started_at, now), 9, MUTED), " "]
    if wide:
        tokens = f"↑{format_count(run.input_tokens)} ↓{format_count(run.output_tokens)}"
        parts += [cell(duration_text(run, now), 7, MUTED), " ", cell(tokens, 12, MUTED), " "]
    used = sum(len(part) if isinstance(part, str) else part.cell_length for part in parts)
    style = "$error" if run.status == "failed" else ("$warning" if run.status == "pending" else "")
    parts.append(cell(summary(run), max(8, width - used), style))
    return Content.assemble(*parts)


def detail_text(run: RunRecord, now: datetime) -> Content:
    """The highlighted run in full: session, trigger, when, duration, usage, paths, host."""
    mark, word, style = STATUS.get(run.status, ("?", run.status, ""))
    facts = [f"session {run.session_id}" if run.session_id else "no session",
             run.trigger, f"started {local_time(run.started_at, now)}"]
    if duration_text(run, now):
        facts.append(f"took {duration_text(run, now)}")
    facts.append(f"↑{format_count(run.input_tokens)} ↓{format_count(run.output_tokens)}"
                 + (f" ${run.cost:.4f}" if run.cost else ""))
    if run.host:
        facts.append(f"on {run.host}")
    lines = [Content.assemble((f"{mark} {word}", style), ("  ", ""),
                              (one_line(" · ".join(facts)), MUTED))]
    if run.changed_paths:
        lines.append(Content.styled(f"changed: {one_line(', '.join(run.changed_paths))}", MUTED))
    said = first_line(run.error) or first_line(run.answer)
    if said:
        lines.append(Content.styled(said, "$error" if run.error else ""))
    return Content("\n").join(lines)
