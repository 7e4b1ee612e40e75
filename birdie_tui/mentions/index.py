"""The files and folders of a working directory, walked once in a thread, for @-completion.

The walk is breadth first (shallow entries first: what a short query should show first),
skips VCS folders, and honours `.gitignore` files at every level plus `.git/info/exclude`,
with Git's precedence (the deepest file's last matching pattern wins; an ignored folder is not
entered, so nothing under it can be re-included, as in Git). It reads with `os.scandir` rather
than `git ls-files`: one behaviour in and out of a Git work tree, and no subprocess.

Symlinks are listed but a linked folder is never entered (no loops, nothing outside the tree);
a folder that cannot be read is skipped and counted. Entries appear while the walk goes on
(`entries()` is a growing list, read without locks: appends are atomic), up to `limit`; past
it the walk stops and `truncated` says so.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported by the walk: attachments only need VCS_DIRS at first paint
    import pathspec

VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs", ".jj"})
DEFAULT_LIMIT = 200_000

Rules = tuple[tuple[str, "pathspec.GitIgnoreSpec"], ...]  # (folder relative to the root, spec)


def _read_spec(path: Path) -> pathspec.GitIgnoreSpec | None:
    import pathspec

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    lines = [line for line in lines if line.strip() and not line.startswith("#")]
    return pathspec.GitIgnoreSpec.from_lines(lines) if lines else None


def ignored(rel: str, is_dir: bool, rules: Rules) -> bool:
    """Whether `rel` (relative to the root, "/"-separated) is ignored: the deepest rule file
    with a matching pattern decides (a `!pattern` there re-includes)."""
    for base, spec in reversed(rules):
        inner = rel[len(base) + 1:] if base else rel
        result = spec.check_file(inner + "/" if is_dir else inner)
        if result.include is not None:
            return result.include
    return False


class FileIndex:
    """The entries of `root`: relative paths, "/"-separated, folders ending in "/"."""

    def __init__(self, root: str | os.PathLike[str], *, limit: int = DEFAULT_LIMIT):
        self.root = Path(root)
        self.limit = limit
        self._entries: list[str] = []
        self.truncated = False  # more entries than `limit`: the walk stopped there
        self.unreadable = 0  # folders that could not be listed
        self.done = threading.Event()
        self._thread: threading.Thread | None = None
        self._stop = False

    def start(self) -> FileIndex:
        """Walk in a daemon thread (once); `entries()` grows meanwhile."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._walk_safely, name="mention-index",
                                            daemon=True)
            self._thread.start()
        return self

    def walk(self) -> FileIndex:
        """Walk here, to the end (tests, `--print`)."""
        self._walk_safely()
        return self

    def stop(self) -> None:
        self._stop = True

    def entries(self) -> list[str]:
        """The entries found so far (the live list: read it, never change it)."""
        return self._entries

    def status(self) -> str:
        """"" when complete, else what the list is missing, in words."""
        if self.truncated:
            return f"only the first {self.limit:,} files and folders are indexed"
        if not self.done.is_set():
            return f"indexing… {len(self._entries):,} so far"
        return ""

    def _walk_safely(self) -> None:
        try:
            self._walk()
        finally:
            self.done.set()

    def _walk(self) -> None:
        rules: Rules = ()
        exclude = _read_spec(self.root / ".git" / "info" / "exclude")
        if exclude is not None:
            rules = (("", exclude),)
        queue: deque[tuple[str, Rules]] = deque([("", rules)])
        entries = self._entries
        while queue and not self._stop:
            rel, rules = queue.popleft()
            folder = self.root / rel if rel else self.root
            spec = _read_spec(folder / ".gitignore")
            if spec is not None:
                rules = (*rules, (rel, spec))
            try:
                with os.scandir(folder) as scan:
                    items = sorted(scan, key=lambda item: item.name)
            except OSError:
                self.unreadable += 1
                continue
            for item in items:
                if len(entries) >= self.limit:
                    self.truncated = True
                    return
                child = f"{rel}/{item.name}" if rel else item.name
                is_dir = _is_dir(item)
                if is_dir is None or (is_dir and item.name in VCS_DIRS) \
                        or (rules and ignored(child, is_dir, rules)):
                    continue
                entries.append(child + "/" if is_dir else child)
                if is_dir and not item.is_symlink():
                    queue.append((child, rules))


def _is_dir(item: os.DirEntry[str]) -> bool | None:
    """A folder (a link to one too), a file, or None for a broken link or a vanished entry."""
    try:
        if item.is_symlink() and not os.path.exists(item.path):
            return None
        return item.is_dir()  # follows a link: a linked folder is listed as a folder
    except OSError:
        return None
