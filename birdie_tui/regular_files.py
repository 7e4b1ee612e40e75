"""Reading a file someone else may have put in place (a skill folder, a project, $BIRDIE_HOME)
without letting it hang or flood the app.

A FIFO named `SKILL.MD` blocks a plain `open()` until a writer comes, forever; a symlink to
`/dev/zero` never ends and reports a size of 0. Only regular files are read: the path is
opened with O_NONBLOCK (a FIFO opens at once instead of waiting) and checked with fstat on the
open descriptor, so nothing swapped in between a check and the read gets through.

Standard library only: every layer may use it.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


class NotRegularFile(OSError):
    """The path exists but is not a regular file; `strerror` says what it is."""


def kind_of(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "a special file")


def _refuse(mode: int) -> OSError:
    if stat.S_ISDIR(mode):  # what open() itself would say, so callers keep telling it apart
        return IsADirectoryError(errno.EISDIR, "is a directory")
    return NotRegularFile(errno.EINVAL, f"not a regular file: {kind_of(mode)}")


def open_regular(path: str | Path) -> int:
    """A read-only descriptor of `path`, a regular file; NotRegularFile (an OSError) for a
    FIFO, device or socket, IsADirectoryError for a folder, and the usual OSError when it
    cannot be opened."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = stat.S_IFREG  # let open() give the true reason (missing, permission, ...)
    if not stat.S_ISREG(mode):  # a socket cannot even be opened: say what it is first
        raise _refuse(mode)
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):  # swapped for something else after the stat above
            raise _refuse(mode)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: str | Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file `path`: all of them, or at most `limit` + 1 (so a caller
    can tell the limit was crossed without reading a huge file)."""
    with os.fdopen(open_regular(path), "rb") as fh:
        return fh.read() if limit is None else fh.read(limit + 1)
