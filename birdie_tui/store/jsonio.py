"""Atomic JSON writes and forgiving JSON reads: a corrupt file is moved aside, never lost."""

from __future__ import annotations

import json
import json.encoder
import os
import tempfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from birdie_tui.regular_files import read_regular

from .recovery import announce

__all__ = ["FILE_MODE", "dumps_readable", "move_aside", "read_json", "write_json_atomic",
           "write_text_atomic"]

FILE_MODE = 0o600


def write_json_atomic(path: Path, data: Any) -> os.stat_result:
    """Write ``data`` as JSON to ``path`` via a temp file in the same dir, fsync and os.replace.
    Returns the written file's stat (the rename keeps it): a caller may tell by it later that
    the file is still the one it wrote."""
    return write_text_atomic(Path(path), dumps_readable(data))


def write_text_atomic(path: Path, text: str) -> os.stat_result:
    """``text`` as the whole of ``path`` (private mode), or the file as it was: a temp file in
    the same folder, fsynced, then renamed over it. Returns the written file's stat."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
            written = os.fstat(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)
    return written


def dumps_readable(data: Any) -> str:
    """JSON a person can read — one top-level key per line, one list entry per line — made by
    the C encoder: `indent=2` falls back to the pure-Python one, which made saving a session
    with its 200-entry token logs cost ~3.5 ms a turn."""
    if not isinstance(data, dict) or not data:
        return _encode(data) + "\n"
    lines = []
    for key, value in data.items():
        head = f"  {_encode(str(key))}: "
        if isinstance(value, list) and value:
            items = ",\n    ".join(map(_encode, value))
            lines.append(f"{head}[\n    {items}\n  ]")
        else:
            lines.append(head + _encode(value))
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _value_encoder() -> Callable[[Any], str]:
    """`JSONEncoder(ensure_ascii=False).encode`, made once. `json.dumps` builds an encoder per
    call, and `encode` builds json's C encoder per call: that was half the cost of a small log
    entry, and a session file's two 200-entry logs are written after each model call
    (bench/RESULTS.md §44). The same C encoder with the same arguments gives the same text;
    without the circular-reference check, which JSON read from a file cannot need (a cycle
    would end in RecursionError instead of ValueError)."""
    encoder = json.JSONEncoder(ensure_ascii=False)
    make = getattr(json.encoder, "c_make_encoder", None)
    if make is None:  # an interpreter without json's C speedups
        return encoder.encode
    one_shot = make(None, encoder.default, json.encoder.encode_basestring, None,
                    encoder.key_separator, encoder.item_separator, False, False, True)

    def encode(value: Any) -> str:
        return "".join(one_shot(value, 0))

    return encode


_encode = _value_encoder()


def _fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some filesystems refuse fsync on directories
        pass
    finally:
        os.close(fd)


def move_aside(path: Path) -> Path:
    """Rename ``path`` to ``<name>.corrupt-<YYYYmmddTHHMMSS>`` (suffixed -2, -3... if taken)."""
    path = Path(path)
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    target = path.with_name(f"{path.name}.corrupt-{stamp}")
    n = 2
    while target.exists():
        target = path.with_name(f"{path.name}.corrupt-{stamp}-{n}")
        n += 1
    os.replace(path, target)
    return target


def read_json(
    path: Path,
    *,
    on_corrupt: Callable[[str], None],
    expect: type | tuple[type, ...] = dict,
    label: str = "file",
    logs_dir: Path | None = None,
) -> Any | None:
    """Parse ``path``; missing → None; unreadable/invalid/not ``expect`` → moved aside, warned, None.

    Every problem is also announced on the recovery bus (log file + listeners) the moment it is
    found, with the same text ``on_corrupt`` gets; ``logs_dir`` says which log file.
    """
    path = Path(path)

    def report(message: str) -> None:
        on_corrupt(message)
        announce(message, logs_dir=logs_dir)

    try:
        raw = read_regular(path)  # a FIFO would block forever, /dev/zero never end
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        report(f"{label} {path.name} is a directory, not a file; ignoring it")
        return None
    except OSError as exc:
        problem = f"could not be read ({exc.strerror or exc})"
    else:
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            problem = f"was corrupt ({exc.__class__.__name__}: {exc})"
        else:
            if isinstance(data, expect):
                return data
            problem = f"was corrupt (top level is {type(data).__name__}, expected an object)"
    try:
        target = move_aside(path)
    except OSError as exc:
        report(f"{label} {path.name} {problem} and could not be moved aside ({exc}); ignoring it")
        return None
    report(f"{label} {path.name} {problem} and was moved to {target}; starting fresh")
    return None
