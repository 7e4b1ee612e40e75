"""A message's @-mentions attached in the form the model sees, and read back from a message.

`@path`, `@path:10-40` (a range), `@path:10` (one line) or `@"a name with spaces"`, after a
space or at the start of a line, names a file or folder of the working directory (or an
absolute path). Each one found is attached after the message as its own block: a header line
naming it, then a fenced block (a file's lines numbered, a folder's listing). A mention that
names nothing stays as literal text (`@someone`); a binary or too-big file is refused with a
note, and the message is still sent.

Bounds: a file is read up to `MAX_LINES` lines and `MAX_CHARS` characters (past them: cut,
with a line saying so: mention a range for the rest); a file over `MAX_FILE_BYTES` is refused
unless a range is given (then only the range is read); a folder lists at most `MAX_LISTING`
entries; at most `MAX_MENTIONS` attachments per message.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from birdie_tui.mentions.index import VCS_DIRS

MAX_LINES = 2_000
MAX_CHARS = 100_000
MAX_FILE_BYTES = 1024 * 1024
MAX_LISTING = 500
MAX_MENTIONS = 20
_SNIFF = 8192  # bytes read to tell a binary file (a NUL byte, or not UTF-8)

MENTION = re.compile(r'(?<!\S)@(?:"([^"\n]+)"|([^\s"]+))')
_FENCED = re.compile(r"^(`{3,})[^\n]*\n.*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_RANGE = re.compile(r"^(.+?):(\d+)(?:-(\d+))?$")
_TRAILING = ".,;:!?)]}'"  # "see @README.md." — the sentence's stop is not the path's
# The header of an attached block and its fence (read back by `attachments`).
HEADER = "[mentioned {kind}: {name}{detail}]"
_BLOCK = re.compile(r"^\[mentioned (file|folder): (.+?)(?: · ([^\]\n]*))?\]\n(`{3,})\n"
                    r"(?:.*?\n)??\4$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Attachment:
    kind: str  # "file" or "folder"
    name: str  # as mentioned: the path, with its range ("src/app.py:10-40")
    detail: str  # "lines 10-40 of 310", "23 entries", "first 2000 of 9000 lines"
    text: str  # the whole block, header and fence


@dataclass(frozen=True)
class Expanded:
    """A message with its mentions attached: `text` is what is sent."""

    text: str
    attachments: tuple[Attachment, ...] = ()
    notes: tuple[str, ...] = ()  # refusals and cuts, one line each, to show the user


@dataclass
class _Found:
    path: Path
    name: str
    first: int | None = None
    last: int | None = None
    notes: list[str] = field(default_factory=list)


def mentions_in(text: str) -> list[str]:
    """Every @-mention as typed (without "@"), in order; none inside a fenced code block (a
    quote of code or output, e.g. a `!command`'s, is not a request to attach)."""
    return [quoted or bare for quoted, bare in MENTION.findall(_FENCED.sub("", text))]


def expand(text: str, root: str | os.PathLike[str]) -> Expanded:
    """`text` with a block for each mention of an existing file or folder under `root`
    (relative) or anywhere (absolute), each named once. Reads files: run it off a UI thread."""
    base = Path(root)
    blocks: list[Attachment] = []
    notes: list[str] = []
    seen: set[str] = set()
    for typed in mentions_in(text):
        found = _resolve(typed, base)
        if found is None or found.name in seen:
            continue
        seen.add(found.name)
        if len(blocks) >= MAX_MENTIONS:
            notes.append(f"@{found.name} not attached: at most {MAX_MENTIONS} mentions "
                         "are attached to one message.")
            continue
        block = _folder(found) if found.path.is_dir() else _file(found)
        notes += found.notes
        if block is not None:
            blocks.append(block)
    if not blocks:
        return Expanded(text, notes=tuple(notes))
    return Expanded("\n\n".join([text.rstrip(), *(b.text for b in blocks)]),
                    tuple(blocks), tuple(notes))


def _resolve(typed: str, base: Path) -> _Found | None:
    """The file or folder a mention names, or None (then it is just text)."""
    for candidate in (typed, typed.rstrip(_TRAILING)):
        ranged = _RANGE.match(candidate)
        options: list[tuple[str, int | None, int | None]] = [(candidate, None, None)]
        if ranged:
            line = int(ranged.group(2))
            options.insert(0, (ranged.group(1), line,
                               int(ranged.group(3)) if ranged.group(3) else line))
        for name, first, last in options:
            path = base / os.path.expanduser(name)
            if name and os.path.lexists(path) and (path.is_file() or path.is_dir()):
                return _Found(path, candidate, first, last)
    return None


def _fence(body: str) -> str:
    """A fence longer than any run of backticks in the body (Markdown's rule)."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    return "`" * max(3, longest + 1)


def _block(kind: str, name: str, detail: str, body: str) -> Attachment:
    fence = _fence(body)
    header = HEADER.format(kind=kind, name=name, detail=f" · {detail}" if detail else "")
    inner = body if body.endswith("\n") or not body else body + "\n"
    return Attachment(kind, name, detail, f"{header}\n{fence}\n{inner}{fence}")


def _file(found: _Found) -> Attachment | None:
    name = found.name
    try:
        size = found.path.stat().st_size
        with open(found.path, "rb") as handle:
            head = handle.read(_SNIFF)
    except OSError as exc:
        found.notes.append(f"@{name} not attached: {exc.strerror or exc}.")
        return None
    if b"\0" in head or not _utf8(head):
        found.notes.append(f"@{name} not attached: it is a binary file.")
        return None
    if size > MAX_FILE_BYTES and found.first is None:
        found.notes.append(f"@{name} not attached: {size / 1024 / 1024:.1f} MB is over the "
                           f"{MAX_FILE_BYTES // 1024 // 1024} MB limit for a mention; "
                           f"mention a range instead (@{name}:1-200).")
        return None
    return _numbered(found)


def _utf8(head: bytes) -> bool:
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        return exc.start >= len(head) - 4  # only a character cut at the sniff's end
    return True


def _numbered(found: _Found) -> Attachment | None:
    first = max(1, found.first or 1)
    last = found.last if found.last is not None else first + MAX_LINES - 1
    last = max(first, min(last, first + MAX_LINES - 1))
    try:
        with open(found.path, encoding="utf-8", errors="replace", newline=None) as handle:
            skipped = sum(1 for _ in islice(handle, first - 1))
            lines = list(islice(handle, last - first + 1))
            total = skipped + len(lines) + sum(1 for _ in handle)
    except OSError as exc:
        found.notes.append(f"@{found.name} not attached: {exc.strerror or exc}.")
        return None
    width = len(str(first + max(len(lines) - 1, 0)))
    out: list[str] = []
    chars = 0
    for number, line in enumerate(lines, first):
        row = f"{number:>{width}}  {line.rstrip(chr(10))}\n"
        if chars + len(row) > MAX_CHARS:
            break
        out.append(row)
        chars += len(row)
    shown_last = first + len(out) - 1
    detail = _lines_detail(found, first, shown_last, total)
    if found.first is None and shown_last < total:
        found.notes.append(f"@{found.name}: only lines 1-{shown_last} of {total} attached; "
                           f"mention a range for the rest (@{found.name}:{shown_last + 1}-…).")
    return _block("file", found.name, detail, "".join(out))


def _lines_detail(found: _Found, first: int, last: int, total: int) -> str:
    if total == 0:
        return "empty"
    if last < first:
        return f"no line {first}: the file has {total}"
    if first == 1 and last == total:
        return f"{total} line{'s' if total != 1 else ''}"
    return f"lines {first}-{last} of {total}"


def _folder(found: _Found) -> Attachment | None:
    try:
        with os.scandir(found.path) as scan:
            items = sorted((item for item in scan if item.name not in VCS_DIRS),
                           key=lambda item: item.name)
    except OSError as exc:
        found.notes.append(f"@{found.name} not attached: {exc.strerror or exc}.")
        return None
    names = [item.name + "/" if _dir(item) else item.name for item in items[:MAX_LISTING]]
    detail = f"{len(items)} entr{'y' if len(items) == 1 else 'ies'}"
    if len(items) > MAX_LISTING:
        detail += f", first {MAX_LISTING} listed"
    return _block("folder", found.name, detail, "\n".join(names))


def _dir(item: os.DirEntry[str]) -> bool:
    try:
        return item.is_dir()
    except OSError:
        return False


def attachments(text: str) -> list[Attachment]:
    """The blocks `expand` attached to a message, read back (for a call's provenance)."""
    return [Attachment(m.group(1), m.group(2), m.group(3) or "", m.group(0))
            for m in _BLOCK.finditer(text)]


def shown_text(text: str) -> str:
    """A sent message as the chat shows it again: what was typed, then one line naming what
    was attached (the files' text is the model's, not the chat's)."""
    found = attachments(text)
    return f"{typed_text(text)}\n\n{attached_line(found)}" if found else text


def attached_line(found: Sequence[Attachment]) -> str:
    """attached: README.md (2 lines) · src/ (4 entries)"""
    return "attached: " + " · ".join(
        f"{a.name}{'/' if a.kind == 'folder' else ''} ({a.detail})" for a in found)


def typed_text(text: str) -> str:
    """The message as the user typed it: the attached blocks taken off its end."""
    found = attachments(text)
    if not found:
        return text
    start = text.find(found[0].text)
    return text[:start].rstrip() if start >= 0 else text
