"""`/export [markdown|json] [PATH]`: the open session written to a file, with the
tool calls and the provenance of each model call per turn (the door builds the text).

Without PATH the file is `<session-id>.md` (or `.json`) in the working directory; a relative
PATH is taken from there too, and a folder gets that default name inside it. An existing file
is never overwritten silently: a default name gets a `-1`, `-2`… suffix, a PATH you typed is
overwritten only once you confirm it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from birdie_tui.service import BirdieError
from birdie_tui.tui.cmds.context import CommandContext

FORMATS = {"markdown": ".md", "md": ".md", "json": ".json"}
USAGE = "usage: /export [markdown|json] [PATH]"


async def cmd_export(ctx: CommandContext, args: list[str], rest: str) -> None:
    fmt, typed = parse_args(args, rest)
    status = ctx.birdie.status()
    if not status.saved:
        ctx.say("Nothing to export yet: this session has no messages.", markdown=False)
        return
    try:
        text = await ctx.birdie.export(fmt)
    except BirdieError as exc:
        ctx.ui.error(str(exc))
        return
    base = Path(ctx.birdie.working_dir())
    target = base / f"{status.session_id}{FORMATS[fmt]}"
    if typed:
        chosen = base / Path(typed).expanduser()
        target = chosen / target.name if chosen.is_dir() else chosen
    try:
        written = await write_export(ctx, target, text, overwrite_asks=bool(typed))
    except OSError as exc:
        ctx.ui.error(f"Could not write the export: {exc}")
        return
    if written is not None:
        ctx.say(f"Exported this session ({fmt}) to `{written}`")


def parse_args(args: list[str], rest: str = "") -> tuple[str, str]:
    """(format, PATH as typed or ""). Without a format word, a PATH ending in `.json` means
    JSON and anything else Markdown. A PATH may hold spaces, quoted (`"my file.md"`) or not
    (`my file.md`: the rest of the line, as typed)."""
    words = list(args)
    fmt = ""
    if words and words[0].lower() in FORMATS:
        fmt = "json" if words.pop(0).lower() == "json" else "markdown"
        rest = rest.split(None, 1)[1] if len(rest.split(None, 1)) > 1 else ""
    typed = words[0] if len(words) == 1 else rest.strip() if words else ""
    if not fmt:
        fmt = "json" if typed.lower().endswith(".json") else "markdown"
    return fmt, typed


async def write_export(ctx: CommandContext, target: Path, text: str, *,
                       overwrite_asks: bool) -> Path | None:
    """Write `text` to `target`, or next to it under a free name; None if the user kept an
    existing file (nothing written)."""
    if overwrite_asks and target.exists():
        if not await ctx.ui.confirm(f"{target} exists. Overwrite it?"):
            ctx.toast("Not exported: the file was kept.", severity="warning")
            return None
        target.write_text(text, encoding="utf-8")
        return target
    for candidate in free_names(target):
        try:
            with candidate.open("x", encoding="utf-8") as out:  # never replaces a file
                out.write(text)
            return candidate
        except FileExistsError:
            continue
    raise OSError(f"no free file name next to {target}")


def free_names(target: Path, tries: int = 1000) -> Iterator[Path]:
    """`target`, then `name-1.ext`, `name-2.ext`…"""
    yield target
    for n in range(1, tries):
        yield target.with_name(f"{target.stem}-{n}{target.suffix}")
